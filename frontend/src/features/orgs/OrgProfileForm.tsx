import Alert from '@mui/material/Alert';
import Avatar from '@mui/material/Avatar';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Card from '@mui/material/Card';
import CardContent from '@mui/material/CardContent';
import Stack from '@mui/material/Stack';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import BusinessIcon from '@mui/icons-material/Business';
import { useEffect, useRef, useState, type SyntheticEvent } from 'react';

import { errorMessage } from '../../api/errors';
import { ImageUpload } from '../../components/ImageUpload';
import { UnsavedChangesPrompt } from '../../components/UnsavedChangesPrompt';
import { useUpdateOrgMutation } from './api';
import type { Organization } from './types';
import { normaliseUrl } from '../../utils/url';
import { validateOrgForm, type OrgFormErrors, type OrgFormValues } from './validation';

/** How long the save confirmation stays (spec §9). */
const SAVED_BANNER_MS = 3000;

/** The profile's fields in the order the form shows them (the first invalid one takes the focus). */
const ORG_FIELD_ORDER: (keyof OrgFormValues)[] = [
  'name',
  'website',
  'contactEmail',
  'description',
  'logo',
];
const ORG_FIELD_LABELS: Record<keyof OrgFormValues, string> = {
  name: 'Organization name',
  website: 'Website',
  contactEmail: 'Contact email',
  description: 'Description',
  logo: 'Organization logo',
};

function valuesOf(org: Organization): OrgFormValues {
  return {
    name: org.name,
    website: org.profile.website ?? '',
    contactEmail: org.profile.contactEmail ?? '',
    description: org.profile.description ?? '',
    logo: org.profile.logo ?? '',
  };
}

/** The organization's profile: name, website, contact e-mail, description and logo (read-only for members). */
export function OrgProfileForm({ org, editable }: { org: Organization; editable: boolean }) {
  const [values, setValues] = useState<OrgFormValues>(() => valuesOf(org));
  // What the server holds: leaving with other values asks first.
  const [baseline, setBaseline] = useState<OrgFormValues>(() => valuesOf(org));
  const dirty =
    editable &&
    (Object.keys(values) as (keyof OrgFormValues)[]).some((k) => values[k] !== baseline[k]);
  const [errors, setErrors] = useState<OrgFormErrors>({});
  const [saved, setSaved] = useState(false);
  const [failure, setFailure] = useState<string | null>(null);
  const [update, { isLoading: saving }] = useUpdateOrgMutation();
  const [uploading, setUploading] = useState(false);
  const formRef = useRef<HTMLFormElement>(null);
  const invalid = ORG_FIELD_ORDER.filter((name) => errors[name]);

  useEffect(() => {
    if (!saved) return;
    const timer = setTimeout(() => {
      setSaved(false);
    }, SAVED_BANNER_MS);
    return () => {
      clearTimeout(timer);
    };
  }, [saved]);

  const field = (name: keyof OrgFormValues) => ({
    name,
    value: values[name],
    onChange: (event: { target: { value: string } }) => {
      setValues((previous) => ({ ...previous, [name]: event.target.value }));
      setErrors((previous) => ({ ...previous, [name]: undefined }));
    },
    error: Boolean(errors[name]),
    helperText: errors[name],
    disabled: !editable || saving,
    fullWidth: true,
    // The label stays above the field, so that it never covers a placeholder.
    slotProps: { inputLabel: { shrink: true } },
  });

  const submit = async (event: SyntheticEvent) => {
    event.preventDefault();
    setFailure(null);
    const found = validateOrgForm(values);
    setErrors(found);
    const firstInvalid = ORG_FIELD_ORDER.find((name) => found[name]);
    if (firstInvalid) {
      // Nothing is saved: say so at the top, and take the user to the first field to fix.
      const element = formRef.current?.querySelector<HTMLElement>(`[name="${firstInvalid}"]`);
      element?.focus();
      return;
    }
    try {
      const updated = await update({
        orgId: org.id,
        change: {
          name: values.name.trim(),
          profile: {
            website: values.website.trim() ? normaliseUrl(values.website) : null,
            contactEmail: values.contactEmail.trim(),
            description: values.description.trim() || null,
            logo: values.logo.trim() || null,
          },
        },
      }).unwrap();
      // The form shows what the server stored (a website gets its https://, texts are trimmed).
      const stored = valuesOf(updated);
      setValues(stored);
      setBaseline(stored);
      setSaved(true);
    } catch (error) {
      setFailure(errorMessage(error, 'Failed to update organization. Please try again.'));
    }
  };

  return (
    <Card variant="outlined" component="section" aria-labelledby="org-profile-title">
      <UnsavedChangesPrompt dirty={dirty} />
      <CardContent>
        <Stack
          component="form"
          ref={formRef}
          spacing={2.5}
          onSubmit={(event) => void submit(event)}
          noValidate
        >
          <Stack direction="row" spacing={2} sx={{ alignItems: 'center' }}>
            <Avatar
              src={values.logo || undefined}
              alt={values.logo ? `${org.name} logo` : undefined}
              variant="rounded"
              sx={{ width: 56, height: 56 }}
            >
              <BusinessIcon />
            </Avatar>
            <Typography id="org-profile-title" variant="h6" component="h2">
              Organization profile
            </Typography>
          </Stack>
          {!editable && <Alert severity="info">Contact an administrator to make changes.</Alert>}
          {saved && <Alert severity="success">Organization updated successfully</Alert>}
          {failure && <Alert severity="error">{failure}</Alert>}
          {invalid.length > 0 && (
            <Alert severity="error" role="alert">
              Nothing was saved. Please fix:{' '}
              {invalid
                .map((name) => `${ORG_FIELD_LABELS[name]} (${errors[name] ?? ''})`)
                .join('; ')}
            </Alert>
          )}
          <TextField label="Organization name" required {...field('name')} />
          <TextField
            label="Website"
            type="url"
            placeholder="https://example.com"
            {...field('website')}
          />
          <TextField
            label="Contact email"
            type="email"
            required
            placeholder="contact@example.com"
            {...field('contactEmail')}
          />
          <TextField label="Description" multiline minRows={3} {...field('description')} />
          {editable && (
            <ImageUpload
              label="Organization logo"
              value={values.logo}
              onChange={(logo) => {
                setValues((previous) => ({ ...previous, logo }));
                setErrors((previous) => ({ ...previous, logo: undefined }));
              }}
              error={errors.logo}
              disabled={saving}
              hint="Recommended 512x512 PNG. PNG, JPEG, GIF or WebP, up to 10 MB. Save to keep it."
              onUploadingChange={setUploading}
              previewAlt={`${org.name} logo preview`}
            />
          )}
          {editable && (
            <Box>
              <Button type="submit" variant="contained" disabled={saving || uploading}>
                {saving ? 'Saving...' : 'Save Changes'}
              </Button>
            </Box>
          )}
        </Stack>
      </CardContent>
    </Card>
  );
}
