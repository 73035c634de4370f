import Alert from '@mui/material/Alert';
import Avatar from '@mui/material/Avatar';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Card from '@mui/material/Card';
import CardContent from '@mui/material/CardContent';
import CircularProgress from '@mui/material/CircularProgress';
import MenuItem from '@mui/material/MenuItem';
import Stack from '@mui/material/Stack';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import AddIcon from '@mui/icons-material/Add';
import BusinessIcon from '@mui/icons-material/Business';
import {
  lazy,
  Suspense,
  useEffect,
  useRef,
  useState,
  type ReactNode,
  type SyntheticEvent,
} from 'react';
import { Link as RouterLink, useNavigate, useSearchParams } from 'react-router';

import { errorMessage } from '../../api/errors';
import { DialogLoading } from '../../components/DialogLoading';
import { ImageUpload } from '../../components/ImageUpload';
import { UnsavedChangesPrompt } from '../../components/UnsavedChangesPrompt';
import { useAppDispatch } from '../../app/store';
import { paths } from '../../config/paths';
import { useUpdateOrgMutation } from './api';
import { JoinedBanner } from './JoinedBanner';
import { OrgTwoFactorCard } from './OrgTwoFactorCard';
import { orgSelected } from '../../session/orgSlice';
import type { Organization } from './types';
import { useCurrentOrg } from './useCurrentOrg';
import { normaliseUrl } from '../../utils/url';
import { validateOrgForm, type OrgFormErrors, type OrgFormValues } from './validation';
import { useDocumentTitle } from '../../components/useDocumentTitle';

// The dialogs (creating and deleting an organization) load when one is first opened.
const DeleteOrganizationDialog = lazy(async () => ({
  default: (await import('./OrgSettingsDialogs')).DeleteOrganizationDialog,
}));
const NewOrganizationDialog = lazy(async () => ({
  default: (await import('./OrgSettingsDialogs')).NewOrganizationDialog,
}));

const NEW_ORG = '__new__';
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

/**
 * How many apps an organization owns, as the apps feature knows it (the route passes it in: the apps
 * feature builds on this one, so this one cannot ask it). `count` is `null` while it loads or when it
 * could not be read.
 */
export interface OwnedApps {
  orgId: string;
  count: number | null;
  loading: boolean;
}

/**
 * `/org-settings` (spec §2): the selector, the profile form (read-only for members), delete. With
 * `ownedApps`, deleting an organization that still owns apps is refused before its name is typed;
 * `adminSections` adds what other features show its admins (above Delete).
 */
export function OrgSettingsPage({
  ownedApps,
  adminSections,
}: { ownedApps?: OwnedApps; adminSections?: (org: Organization) => ReactNode } = {}) {
  useDocumentTitle('Organization Settings');
  const dispatch = useAppDispatch();
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const { orgs, current, isAdmin, isLoading, isError, refetch } = useCurrentOrg();
  const requestedId = params.get('orgId');

  // `?orgId=` selects that organization once it is among the user's.
  useEffect(() => {
    if (requestedId && orgs.some((org) => org.id === requestedId) && current?.id !== requestedId) {
      dispatch(orgSelected(requestedId));
    }
  }, [requestedId, orgs, current, dispatch]);

  const [creating, setCreating] = useState(false);
  // Once asked for, the dialog stays mounted (it fades out when it closes).
  const [creatingAsked, setCreatingAsked] = useState(false);
  const startCreating = () => {
    setCreating(true);
    setCreatingAsked(true);
  };
  const closeCreating = () => {
    setCreating(false);
  };

  if (isLoading) {
    return (
      <Stack sx={{ alignItems: 'center', py: 8 }} role="status" aria-live="polite">
        <CircularProgress aria-label="Loading organization" />
      </Stack>
    );
  }
  if (isError) {
    return (
      <Alert
        severity="error"
        action={
          <Button color="inherit" size="small" onClick={refetch}>
            Retry
          </Button>
        }
      >
        Failed to load organization data. Please try again.
      </Alert>
    );
  }

  return (
    <Stack spacing={3}>
      <Typography variant="h4" component="h1" sx={{ fontWeight: 700 }}>
        Organization Settings
      </Typography>
      <JoinedBanner fallbackName={current?.name} />
      {params.get('existing') === 'true' && (
        <Alert severity="info">You are already a member of this organization.</Alert>
      )}
      {orgs.length === 0 || !current ? (
        <Card variant="outlined">
          <CardContent>
            <Stack spacing={2} sx={{ alignItems: 'flex-start' }}>
              <Typography>
                You don&apos;t have an active organization. Please create or join an organization
                first.
              </Typography>
              <Button variant="contained" startIcon={<AddIcon />} onClick={startCreating}>
                New Organization
              </Button>
            </Stack>
          </CardContent>
        </Card>
      ) : (
        <>
          <TextField
            select
            label="Organization"
            value={current.id}
            onChange={(event) => {
              if (event.target.value === NEW_ORG) startCreating();
              else dispatch(orgSelected(event.target.value));
            }}
            sx={{ maxWidth: 420 }}
          >
            {orgs.map((org) => (
              <MenuItem key={org.id} value={org.id}>
                {org.name}
              </MenuItem>
            ))}
            <MenuItem value={NEW_ORG}>
              <AddIcon fontSize="small" sx={{ mr: 1 }} /> New Organization
            </MenuItem>
          </TextField>
          <OrgProfileForm key={current.id} org={current} editable={isAdmin} />
          {isAdmin && <OrgTwoFactorCard key={`two-factor-${current.id}`} org={current} />}
          {isAdmin && adminSections?.(current)}
          {isAdmin && (
            <DeleteOrganization
              org={current}
              ownedApps={ownedApps?.orgId === current.id ? ownedApps : undefined}
              onDeleted={() => {
                dispatch(orgSelected(null));
                void navigate(paths.orgSettings(), { replace: true });
              }}
            />
          )}
        </>
      )}
      {creatingAsked && (
        <Suspense fallback={<DialogLoading onClose={closeCreating} />}>
          <NewOrganizationDialog open={creating} onClose={closeCreating} />
        </Suspense>
      )}
    </Stack>
  );
}

function OrgProfileForm({ org, editable }: { org: Organization; editable: boolean }) {
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

function DeleteOrganization({
  org,
  ownedApps,
  onDeleted,
}: {
  org: Organization;
  ownedApps: OwnedApps | undefined;
  onDeleted: () => void;
}) {
  const [open, setOpen] = useState(false);
  // Once asked for, the confirmation stays mounted (it fades out when it closes).
  const [asked, setAsked] = useState(false);
  const close = () => {
    setOpen(false);
  };
  const appCount = ownedApps?.count ?? 0;
  // The server refuses it too (409): said here before anything is typed.
  const ownsApps = appCount > 0;
  const blockedId = `delete-org-blocked-${org.id}`;

  return (
    <Card variant="outlined" sx={{ borderColor: 'error.main' }}>
      <CardContent>
        <Stack spacing={1.5} sx={{ alignItems: 'flex-start' }}>
          <Typography variant="h6" component="h2">
            Delete organization
          </Typography>
          <Typography color="text.secondary">
            Deleting removes the organization and its members. An organization that still owns apps
            cannot be deleted: move or delete its apps first.
          </Typography>
          {ownsApps && (
            <Alert
              severity="info"
              id={blockedId}
              sx={{ alignSelf: 'stretch' }}
              action={
                <Button component={RouterLink} to={paths.apps} color="inherit" size="small">
                  My Apps
                </Button>
              }
            >
              {org.name} owns {appCount === 1 ? 'an app' : `${String(appCount)} apps`}: move{' '}
              {appCount === 1 ? 'it' : 'them'} to another organization or delete{' '}
              {appCount === 1 ? 'it' : 'them'} first.
            </Alert>
          )}
          <Button
            color="error"
            variant="outlined"
            disabled={ownsApps || ownedApps?.loading === true}
            aria-describedby={ownsApps ? blockedId : undefined}
            onClick={() => {
              setOpen(true);
              setAsked(true);
            }}
          >
            Delete Organization
          </Button>
        </Stack>
      </CardContent>
      {asked && (
        <Suspense fallback={<DialogLoading onClose={close} />}>
          <DeleteOrganizationDialog
            open={open}
            org={org}
            ownsApps={ownsApps}
            onClose={close}
            onDeleted={onDeleted}
          />
        </Suspense>
      )}
    </Card>
  );
}
