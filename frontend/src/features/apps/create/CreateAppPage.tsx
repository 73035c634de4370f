import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Card from '@mui/material/Card';
import CardContent from '@mui/material/CardContent';
import Link from '@mui/material/Link';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import ArrowBackIcon from '@mui/icons-material/ArrowBack';
import { Suspense, useState } from 'react';
import { Link as RouterLink, useNavigate } from 'react-router';

import { isApiErrorBody, isFetchBaseQueryError } from '../../../api/errors';
import { DialogLoading } from '../../../components/DialogLoading';
import { paths } from '../../../config/paths';
import { useCurrentOrg } from '../../orgs';
import { useRegisterAppMutation } from '../api';
import { ApiKeyDialog } from '../dialogs';
import {
  emptyAppForm,
  registerBody,
  serverFieldErrors,
  type AppFormErrors,
  type AppFormValues,
} from '../form/appForm';
import { AppDetailsFields } from '../form/AppDetailsFields';
import { useAppForm } from '../form/useAppForm';
import { useDocumentTitle } from '../../../components/useDocumentTitle';

const NO_ORGANIZATION = 'Please select an organization to create this app';
const PACKAGE_NAME_TAKEN_FIELD = 'This package name is already in use. Please choose another.';
const PACKAGE_NAME_TAKEN_BANNER = 'Package name is already in use';
const CREATE_FAILED = 'Failed to create app. Please try again.';
const NETWORK_ERROR = 'Network error. Please check your connection and try again.';

/** The error of a failed register call, as the form shows it (spec §8). */
function registerFailure(error: unknown): { banner: string; fields: AppFormErrors } {
  if (!isFetchBaseQueryError(error)) return { banner: CREATE_FAILED, fields: {} };
  if (error.status === 'FETCH_ERROR' || error.status === 'TIMEOUT_ERROR') {
    return { banner: NETWORK_ERROR, fields: {} };
  }
  if (error.status === 409) {
    return { banner: PACKAGE_NAME_TAKEN_BANNER, fields: { packageName: PACKAGE_NAME_TAKEN_FIELD } };
  }
  if (isApiErrorBody(error.data)) {
    return {
      banner: error.data.error,
      fields: serverFieldErrors(error.data.fields, 'create'),
    };
  }
  return { banner: CREATE_FAILED, fields: {} };
}

/** `/apps/create` (spec §2, §5): the registration form, then the new key shown once. */
export function CreateAppPage() {
  useDocumentTitle('Create App');
  const navigate = useNavigate();
  const { current, isLoading: orgLoading } = useCurrentOrg();
  const appForm = useAppForm('create', emptyAppForm());
  const [banner, setBanner] = useState<string | null>(null);
  const [uploading, setUploading] = useState(false);
  const [created, setCreated] = useState<{
    packageName: string;
    name: string;
    apiKey: string;
  } | null>(null);
  const [register, { isLoading: saving }] = useRegisterAppMutation();

  const create = async (values: AppFormValues) => {
    if (!current) {
      setBanner(NO_ORGANIZATION);
      return;
    }
    try {
      const result = await register({
        orgId: current.id,
        app: registerBody(values, appForm.keepLoopbackHttp),
      }).unwrap();
      setCreated({
        packageName: result.app.packageName,
        name: result.app.name,
        apiKey: result.apiKey,
      });
    } catch (error) {
      const failure = registerFailure(error);
      setBanner(failure.banner);
      appForm.showErrors(failure.fields);
    }
  };
  const submit = appForm.submit(create);

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
            id={appForm.formId}
            spacing={3}
            noValidate
            onSubmit={(event) => {
              setBanner(null);
              submit(event);
            }}
            aria-label="Create App"
          >
            <AppDetailsFields
              mode="create"
              appForm={appForm}
              disabled={saving}
              onUploadingChange={setUploading}
            />
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
