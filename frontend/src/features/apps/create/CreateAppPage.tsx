import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Card from '@mui/material/Card';
import CardContent from '@mui/material/CardContent';
import FormControl from '@mui/material/FormControl';
import FormControlLabel from '@mui/material/FormControlLabel';
import FormLabel from '@mui/material/FormLabel';
import Link from '@mui/material/Link';
import Radio from '@mui/material/Radio';
import RadioGroup from '@mui/material/RadioGroup';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import ArrowBackIcon from '@mui/icons-material/ArrowBack';
import { lazy, Suspense, useRef, useState, type SyntheticEvent } from 'react';
import { Link as RouterLink, useNavigate } from 'react-router';

import { isApiErrorBody, isFetchBaseQueryError } from '../../../api/errors';
import { DialogLoading } from '../../../components/DialogLoading';
import { ImageUpload } from '../../../components/ImageUpload';
import { Loading } from '../../../components/Loading';
import { OutlinedField } from '../../../components/OutlinedField';
import { paths } from '../../../config/paths';
import { usePublicConfig } from '../../publicConfig';
import { normaliseAppUrl } from '../../../utils/url';
import { focusFirstInvalid, textFieldProps, urlFieldProps } from '../formFields';
import { useCurrentOrg } from '../../orgs/useCurrentOrg';
import { useRegisterAppMutation } from '../api';
import { ApiKeyDialog } from '../dialogs';
import type { AppType } from '../types';
import {
  CREATE_FAILED,
  emptyCreateApp,
  MAX_ONBOARDING_LENGTH,
  NETWORK_ERROR,
  NO_ORGANIZATION,
  PACKAGE_NAME_TAKEN_BANNER,
  PACKAGE_NAME_TAKEN_FIELD,
  registerBody,
  serverFieldErrors,
  validateCreateApp,
  type CreateAppErrors,
  type CreateAppField,
  type CreateAppValues,
} from './validation';

type TextFieldName = Exclude<
  CreateAppField,
  'appType' | 'permissions' | 'hardwareRequirements' | 'logoURL'
>;

// The editors below the text fields (selects and their menus): the form shows and takes input without
// their code, which loads at once beside it; each section shows the loading state meanwhile.
const PermissionsEditor = lazy(async () => ({
  default: (await import('../editors/PermissionsEditor')).PermissionsEditor,
}));
const HardwareEditor = lazy(async () => ({
  default: (await import('../editors/HardwareEditor')).HardwareEditor,
}));

/** The error of a failed register call, as the form shows it (spec §8). */
function registerFailure(error: unknown): { banner: string; fields: CreateAppErrors } {
  if (!isFetchBaseQueryError(error)) return { banner: CREATE_FAILED, fields: {} };
  if (error.status === 'FETCH_ERROR' || error.status === 'TIMEOUT_ERROR') {
    return { banner: NETWORK_ERROR, fields: {} };
  }
  if (error.status === 409) {
    return { banner: PACKAGE_NAME_TAKEN_BANNER, fields: { packageName: PACKAGE_NAME_TAKEN_FIELD } };
  }
  if (isApiErrorBody(error.data)) {
    return { banner: error.data.error, fields: serverFieldErrors(error.data.fields) };
  }
  return { banner: CREATE_FAILED, fields: {} };
}

/** `/apps/create` (spec §2, §5): the registration form, then the new key shown once. */
export function CreateAppPage() {
  const navigate = useNavigate();
  const { current, isLoading: orgLoading } = useCurrentOrg();
  const { keepLoopbackHttp } = usePublicConfig();
  const [values, setValues] = useState<CreateAppValues>(emptyCreateApp);
  const [errors, setErrors] = useState<CreateAppErrors>({});
  const [banner, setBanner] = useState<string | null>(null);
  const [uploading, setUploading] = useState(false);
  const [created, setCreated] = useState<{
    packageName: string;
    name: string;
    apiKey: string;
  } | null>(null);
  const [register, { isLoading: saving }] = useRegisterAppMutation();
  const formRef = useRef<HTMLFormElement>(null);

  const set = <K extends CreateAppField>(name: K, value: CreateAppValues[K]) => {
    setValues((previous) => ({ ...previous, [name]: value }));
    setErrors((previous) => ({ ...previous, [name]: undefined }));
  };

  const binding = (name: TextFieldName) => ({
    form: 'create-app',
    value: values[name],
    error: errors[name],
    disabled: saving,
    onChange: (value: string) => {
      set(name, value);
    },
  });
  const text = (name: TextFieldName) => textFieldProps(name, binding(name));
  const url = (name: 'publicUrl' | 'webviewURL') =>
    urlFieldProps(name, binding(name), keepLoopbackHttp, (value) => {
      setValues((previous) => ({ ...previous, [name]: value }));
    });
  const focusFirstError = () => {
    focusFirstInvalid(formRef.current);
  };

  const submit = async (event: SyntheticEvent) => {
    event.preventDefault();
    setBanner(null);
    const normalised = {
      ...values,
      publicUrl: normaliseAppUrl('publicUrl', values.publicUrl, keepLoopbackHttp),
      webviewURL: normaliseAppUrl('webviewURL', values.webviewURL, keepLoopbackHttp),
    };
    setValues(normalised);
    const found = validateCreateApp(normalised, keepLoopbackHttp);
    setErrors(found);
    if (Object.values(found).some(Boolean)) {
      focusFirstError();
      return;
    }
    if (!current) {
      setBanner(NO_ORGANIZATION);
      return;
    }
    try {
      const result = await register({
        orgId: current.id,
        app: registerBody(normalised, keepLoopbackHttp),
      }).unwrap();
      setCreated({
        packageName: result.app.packageName,
        name: result.app.name,
        apiKey: result.apiKey,
      });
    } catch (error) {
      const failure = registerFailure(error);
      setBanner(failure.banner);
      setErrors((previous) => ({ ...previous, ...failure.fields }));
      if (Object.keys(failure.fields).length > 0) focusFirstError();
    }
  };

  const pkgValid = !validateCreateApp(values).packageName;

  return (
    <Stack spacing={3}>
      <Box>
        <Link
          component={RouterLink}
          to={paths.apps}
          sx={{ display: 'inline-flex', alignItems: 'center', gap: 0.5 }}
        >
          <ArrowBackIcon fontSize="small" aria-hidden />
          Back to Apps
        </Link>
      </Box>
      <div>
        <Typography variant="h4" component="h1" sx={{ fontWeight: 700 }}>
          Create App
        </Typography>
        <Typography color="text.secondary">
          {current
            ? `The app will belong to ${current.name}.`
            : orgLoading
              ? 'Loading your organization...'
              : NO_ORGANIZATION}
        </Typography>
      </div>
      {created && <Alert severity="success">App created successfully</Alert>}
      {banner && (
        <Alert severity="error" role="alert">
          {banner}
        </Alert>
      )}
      <Card variant="outlined">
        <CardContent>
          <Stack
            component="form"
            ref={formRef}
            spacing={3}
            noValidate
            onSubmit={(event) => void submit(event)}
            aria-label="Create App"
          >
            <OutlinedField
              label="Package Name"
              required
              placeholder="com.example.myapp"
              {...text('packageName')}
              helperText={
                errors.packageName ??
                'Lowercase letters, numbers, dots and hyphens. It cannot be changed later.'
              }
            />
            <OutlinedField label="Display Name" required placeholder="My App" {...text('name')} />
            <OutlinedField
              label="Description"
              required
              multiline
              minRows={3}
              placeholder="What does your app do?"
              {...text('description')}
            />
            <OutlinedField
              label="Onboarding Instructions"
              multiline
              minRows={3}
              maxRows={5}
              placeholder="How should a user get started? (up to about 5 lines)"
              {...text('onboardingInstructions')}
              helperText={
                errors.onboardingInstructions ??
                `${values.onboardingInstructions.length}/${MAX_ONBOARDING_LENGTH} characters`
              }
            />
            <OutlinedField
              label="Server URL"
              required
              placeholder="https://myapp.example.com"
              {...url('publicUrl')}
              helperText={
                errors.publicUrl ??
                'The platform sends events to this URL plus /webhook. HTTPS is required.'
              }
            />
            <ImageUpload
              label="App Logo"
              required
              value={values.logoURL}
              onChange={(logo) => {
                set('logoURL', logo);
              }}
              error={errors.logoURL}
              disabled={saving}
              hint="Recommended 512x512 PNG. PNG, JPEG, GIF or WebP, up to 10 MB."
              metadata={pkgValid ? { appPackageName: values.packageName.trim() } : undefined}
              onUploadingChange={setUploading}
              previewAlt="App logo preview"
            />
            <OutlinedField
              label="Webview URL"
              placeholder="https://myapp.example.com/webview"
              {...url('webviewURL')}
              helperText={errors.webviewURL ?? 'Optional: a page the companion app shows.'}
            />
            <FormControl disabled={saving}>
              <FormLabel id="create-app-type">App Type</FormLabel>
              <RadioGroup
                aria-labelledby="create-app-type"
                name="appType"
                value={values.appType}
                onChange={(event) => {
                  set('appType', event.target.value as AppType);
                }}
              >
                <FormControlLabel
                  value="background"
                  control={<Radio />}
                  label="Background App (runs alongside other apps)"
                />
                <FormControlLabel
                  value="standard"
                  control={<Radio />}
                  label="Foreground App (only one runs at a time)"
                />
              </RadioGroup>
            </FormControl>
            <Stack spacing={1}>
              <Typography variant="h6" component="h2">
                Permissions
              </Typography>
              <Suspense fallback={<Loading label="Loading the permissions editor..." />}>
                <PermissionsEditor
                  value={values.permissions}
                  onChange={(next) => {
                    set('permissions', next);
                  }}
                  disabled={saving}
                  error={errors.permissions}
                />
              </Suspense>
            </Stack>
            <Stack spacing={1}>
              <Typography variant="h6" component="h2">
                Hardware Requirements
              </Typography>
              <Suspense fallback={<Loading label="Loading the hardware editor..." />}>
                <HardwareEditor
                  value={values.hardwareRequirements}
                  onChange={(next) => {
                    set('hardwareRequirements', next);
                  }}
                  disabled={saving}
                  error={errors.hardwareRequirements}
                />
              </Suspense>
            </Stack>
            <Stack direction="row" spacing={2}>
              <Button
                type="submit"
                variant="contained"
                disabled={saving || uploading || created !== null}
              >
                {saving ? 'Creating...' : 'Create App'}
              </Button>
              <Button component={RouterLink} to={paths.apps} disabled={saving}>
                Cancel
              </Button>
            </Stack>
          </Stack>
        </CardContent>
      </Card>
      {created && current && (
        // Not to be dismissed while loading: the dialog shows the new key, once.
        <Suspense fallback={<DialogLoading />}>
          <ApiKeyDialog
            open
            orgId={current.id}
            packageName={created.packageName}
            appName={created.name}
            initialKey={created.apiKey}
            onClose={() => {
              void navigate(paths.appEdit(created.packageName));
            }}
            extraActions={
              <Button
                onClick={() => {
                  void navigate(paths.apps);
                }}
              >
                Go to My Apps
              </Button>
            }
          />
        </Suspense>
      )}
    </Stack>
  );
}
