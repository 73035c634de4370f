import ArrowBackIcon from '@mui/icons-material/ArrowBack';
import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Card from '@mui/material/Card';
import CardContent from '@mui/material/CardContent';
import CircularProgress from '@mui/material/CircularProgress';
import FormControl from '@mui/material/FormControl';
import FormControlLabel from '@mui/material/FormControlLabel';
import FormLabel from '@mui/material/FormLabel';
import Link from '@mui/material/Link';
import Radio from '@mui/material/Radio';
import RadioGroup from '@mui/material/RadioGroup';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import {
  lazy,
  Suspense,
  useEffect,
  useRef,
  useState,
  type ReactNode,
  type SyntheticEvent,
} from 'react';
import { Link as RouterLink, useNavigate, useParams } from 'react-router';

import { isApiErrorBody, isFetchBaseQueryError } from '../../../api/errors';
import { useAppDispatch } from '../../../app/store';
import { DialogLoading } from '../../../components/DialogLoading';
import { ImageUpload } from '../../../components/ImageUpload';
import { Loading } from '../../../components/Loading';
import { OutlinedField } from '../../../components/OutlinedField';
import { paths } from '../../../config/paths';
import { usePublicConfig } from '../../publicConfig';
import { focusFirstInvalid, textFieldProps, urlFieldProps } from '../formFields';
import { noticeShown } from '../../../session/authSlice';
import type { Organization } from '../../orgs/types';
import { useCurrentOrg } from '../../orgs/useCurrentOrg';
import {
  errorStatus,
  useGetAppQuery,
  useUpdateAppMutation,
  useUpdatePermissionsMutation,
} from '../api';
import { ApiKeyDialog, PublishDialog, ShareDialog } from '../dialogs';
import { MAX_ONBOARDING_LENGTH } from '../create/validation';
import { StatusChip } from '../list/StatusChip';
import { storeAction } from '../list/status';
import type { App, AppType } from '../types';
import { ConfigSection } from './ConfigSection';
import {
  addedPermissions,
  LOAD_FAILED,
  MOVE_REDIRECT_MS,
  MOVED,
  normalised,
  notFoundMessage,
  permissionsChanged,
  SAVE_FAILED,
  SAVED_BANNER_MS,
  SAVED_MESSAGE,
  serverErrors,
  updateBody,
  validateEditApp,
  valuesOf,
  type EditAppErrors,
  type EditAppValues,
} from './editForm';
import { formatDateTime } from './format';
import { ReviewHistory } from './ReviewHistory';

// The editors below the text fields (selects and their menus, drag and drop for the settings): the form
// shows and takes input without their code, which loads at once beside it; each section shows the loading
// state meanwhile.
const PermissionsEditor = lazy(async () => ({
  default: (await import('../editors/PermissionsEditor')).PermissionsEditor,
}));
const HardwareEditor = lazy(async () => ({
  default: (await import('../editors/HardwareEditor')).HardwareEditor,
}));
const SettingsEditor = lazy(async () => ({
  default: (await import('../editors/SettingsEditor')).SettingsEditor,
}));
const ToolsEditor = lazy(async () => ({
  default: (await import('../editors/ToolsEditor')).ToolsEditor,
}));
// Loaded when they open, like the dialogs of ../dialogs.
const MoveAppDialog = lazy(async () => ({
  default: (await import('./MoveAppDialog')).MoveAppDialog,
}));
const ResubmitDialog = lazy(async () => ({
  default: (await import('./ResubmitDialog')).ResubmitDialog,
}));

/** How long the not-found note shows before going back to the list. */
const NOT_FOUND_REDIRECT_MS = 1500;

/** Whether a failed load means the app is not in this organization. */
function isNotFound(error: unknown): boolean {
  if (errorStatus(error) === 404) return true;
  return (
    isFetchBaseQueryError(error) &&
    isApiErrorBody(error.data) &&
    /not found/iu.test(error.data.error)
  );
}

/** `/apps/{packageName}/edit` (spec §2 Edit App). */
export function EditAppPage() {
  const { packageName = '' } = useParams();
  const navigate = useNavigate();
  const dispatch = useAppDispatch();
  const { current, orgs, isLoading: orgLoading, isError: orgError } = useCurrentOrg();
  const orgId = current?.id ?? '';
  // Once moved, the app is no longer in this organization: it is not read again from here.
  const [moved, setMoved] = useState(false);
  const query = useGetAppQuery({ orgId, packageName }, { skip: !orgId || !packageName || moved });
  const notFound = !moved && query.isError && isNotFound(query.error);

  useEffect(() => {
    if (!moved) return undefined;
    const timer = setTimeout(() => {
      void navigate(paths.apps);
    }, MOVE_REDIRECT_MS);
    return () => {
      clearTimeout(timer);
    };
  }, [moved, navigate]);

  useEffect(() => {
    if (!notFound) return undefined;
    const timer = setTimeout(() => {
      dispatch(noticeShown({ severity: 'info', text: notFoundMessage(packageName) }));
      void navigate(paths.apps, { replace: true });
    }, NOT_FOUND_REDIRECT_MS);
    return () => {
      clearTimeout(timer);
    };
  }, [notFound, packageName, navigate, dispatch]);

  let body: ReactNode;
  if (moved) {
    body = (
      <Alert severity="success" role="status">
        {MOVED}
      </Alert>
    );
  } else if (orgLoading || query.isLoading) {
    body = (
      <Stack sx={{ alignItems: 'center', py: 8 }} role="status" aria-live="polite">
        <CircularProgress aria-hidden />
        <Typography sx={{ mt: 2 }}>Loading app...</Typography>
      </Stack>
    );
  } else if (!orgError && !current) {
    body = (
      <Alert severity="info">
        You don&apos;t have an active organization. Please create or join an organization first.
      </Alert>
    );
  } else if (notFound) {
    body = (
      <Alert severity="warning" role="alert">
        {notFoundMessage(packageName)}
      </Alert>
    );
  } else if (orgError || query.isError || !query.data) {
    body = (
      <Alert
        severity="error"
        role="alert"
        action={
          <Button color="inherit" size="small" onClick={() => void query.refetch()}>
            Try Again
          </Button>
        }
      >
        {LOAD_FAILED}
      </Alert>
    );
  } else {
    // A fresh form for each app (and after a move or reload of another app).
    body = (
      <EditAppForm
        key={query.data.packageName}
        app={query.data}
        orgId={orgId}
        orgs={orgs}
        onMoved={() => {
          setMoved(true);
        }}
      />
    );
  }

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
      <Stack
        direction={{ xs: 'column', sm: 'row' }}
        spacing={2}
        sx={{ justifyContent: 'space-between', alignItems: { sm: 'center' } }}
      >
        <Typography variant="h4" component="h1" sx={{ fontWeight: 700 }}>
          Edit App
        </Typography>
        <Button
          component={RouterLink}
          to={paths.apps}
          variant="outlined"
          startIcon={<ArrowBackIcon />}
        >
          Back
        </Button>
      </Stack>
      {body}
    </Stack>
  );
}

export default EditAppPage;

function Section({ title, id, children }: { title: string; id: string; children: ReactNode }) {
  return (
    <Stack component="section" spacing={1.5} aria-labelledby={id}>
      <Typography variant="h6" component="h2" id={id}>
        {title}
      </Typography>
      {children}
    </Stack>
  );
}

type DialogKind = 'resubmit' | 'apiKey' | 'share' | 'publish' | 'move';

type TextName = 'name' | 'description' | 'onboardingInstructions' | 'publicUrl' | 'webviewURL';

interface FormProps {
  app: App;
  orgId: string;
  orgs: Organization[];
  onMoved: () => void;
}

function EditAppForm({ app, orgId, orgs, onMoved }: FormProps) {
  const { keepLoopbackHttp } = usePublicConfig();
  const [values, setValues] = useState<EditAppValues>(() => valuesOf(app));
  const [errors, setErrors] = useState<EditAppErrors>({});
  const [banner, setBanner] = useState<{ severity: 'success' | 'error'; text: string } | null>(
    null,
  );
  const [uploading, setUploading] = useState(false);
  /** The permissions a save would add to the published app (the resubmit dialog names them). */
  const [confirmAdded, setConfirmAdded] = useState<string[]>([]);
  const [dialog, setDialog] = useState<DialogKind | null>(null);
  // The dialog opened last stays mounted while it closes; each one's code loads when it first opens.
  const [mounted, setMounted] = useState<DialogKind | null>(null);
  const [update, { isLoading: updating }] = useUpdateAppMutation();
  const [patchPermissions, { isLoading: patching }] = useUpdatePermissionsMutation();
  const saving = updating || patching;
  const formRef = useRef<HTMLFormElement>(null);
  const ref = { orgId, packageName: app.packageName };

  // The success note goes after 3 seconds (spec §4).
  useEffect(() => {
    if (banner?.severity !== 'success') return undefined;
    const timer = setTimeout(() => {
      setBanner(null);
    }, SAVED_BANNER_MS);
    return () => {
      clearTimeout(timer);
    };
  }, [banner]);

  const set = <K extends keyof EditAppValues>(name: K, value: EditAppValues[K]) => {
    setValues((previous) => ({ ...previous, [name]: value }));
    setErrors((previous) => {
      if (!(name in previous)) return previous;
      const next = { ...previous };
      Reflect.deleteProperty(next, name);
      return next;
    });
  };
  /** Editors report errors by path (`settings[2].key`); editing a list clears its errors. */
  const setList = <K extends 'settings' | 'tools'>(name: K, value: EditAppValues[K]) => {
    setValues((previous) => ({ ...previous, [name]: value }));
    setErrors((previous) =>
      Object.fromEntries(Object.entries(previous).filter(([path]) => !path.startsWith(name))),
    );
  };

  const binding = (name: TextName) => ({
    form: 'edit-app',
    value: values[name],
    error: errors[name],
    disabled: saving,
    onChange: (value: string) => {
      set(name, value);
    },
  });
  const text = (name: TextName) => textFieldProps(name, binding(name));
  const url = (name: 'publicUrl' | 'webviewURL') =>
    urlFieldProps(name, binding(name), keepLoopbackHttp, (value) => {
      setValues((previous) => ({ ...previous, [name]: value }));
    });
  const openDialog = (kind: DialogKind) => {
    setDialog(kind);
    setMounted(kind);
  };
  const closeDialog = () => {
    setDialog(null);
  };
  const focusFirstError = () => {
    focusFirstInvalid(formRef.current);
  };

  const save = async (form: EditAppValues) => {
    setBanner(null);
    try {
      await update({ ...ref, change: updateBody(form, keepLoopbackHttp) }).unwrap();
      if (permissionsChanged(app.permissions, form.permissions)) {
        await patchPermissions({ ...ref, permissions: form.permissions }).unwrap();
      }
      setBanner({ severity: 'success', text: SAVED_MESSAGE });
    } catch (error) {
      const body = isFetchBaseQueryError(error) && isApiErrorBody(error.data) ? error.data : null;
      const fields = serverErrors(body?.fields);
      setErrors(fields);
      setBanner({ severity: 'error', text: body?.error ?? SAVE_FAILED });
      if (Object.keys(fields).length > 0) focusFirstError();
    }
  };

  const submit = (event: SyntheticEvent) => {
    event.preventDefault();
    const form = normalised(values, keepLoopbackHttp);
    setValues(form);
    const found = validateEditApp(form, keepLoopbackHttp);
    setErrors(found);
    if (Object.keys(found).length > 0) {
      setBanner({ severity: 'error', text: 'Please correct the highlighted fields.' });
      focusFirstError();
      return;
    }
    const added = addedPermissions(app.permissions, form.permissions);
    if (app.appStoreStatus === 'PUBLISHED' && added.length > 0) {
      setConfirmAdded(added);
      openDialog('resubmit');
      return;
    }
    void save(form);
  };

  const onImport = (apply: (form: EditAppValues) => EditAppValues) => {
    setValues(apply);
    setErrors({});
  };

  const action = storeAction(app.appStoreStatus);

  return (
    <>
      <Card variant="outlined" sx={{ overflow: 'visible' }}>
        <CardContent>
          <Stack
            component="form"
            ref={formRef}
            spacing={4}
            noValidate
            onSubmit={submit}
            aria-label="Edit App"
          >
            <OutlinedField
              label="Package Name"
              value={app.packageName}
              fullWidth
              readOnly
              shrinkLabel
              helperText="The package name cannot be changed."
            />
            <OutlinedField label="Display Name" required {...text('name')} />
            <OutlinedField
              label="Description"
              required
              multiline
              minRows={3}
              {...text('description')}
            />
            <OutlinedField
              label="Onboarding Instructions"
              multiline
              minRows={3}
              maxRows={5}
              {...text('onboardingInstructions')}
              helperText={
                errors.onboardingInstructions ??
                `${String(values.onboardingInstructions.length)}/${String(MAX_ONBOARDING_LENGTH)} characters`
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
              metadata={{ appPackageName: app.packageName }}
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
              <FormLabel id="edit-app-type">App Type</FormLabel>
              <RadioGroup
                aria-labelledby="edit-app-type"
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
            <Section title="Permissions" id="edit-app-permissions">
              {app.appStoreStatus === 'PUBLISHED' && (
                <Typography variant="body2" color="text.secondary">
                  This app is published: adding a permission sends it back to review.
                </Typography>
              )}
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
            </Section>
            <Section title="Hardware Requirements" id="edit-app-hardware">
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
            </Section>
            <Section title="App Settings" id="edit-app-settings">
              <Suspense fallback={<Loading label="Loading the settings editor..." />}>
                <SettingsEditor
                  value={values.settings}
                  onChange={(next) => {
                    setList('settings', next);
                  }}
                  errors={errors}
                  disabled={saving}
                />
              </Suspense>
            </Section>
            <Section title="AI Tools" id="edit-app-tools">
              <Suspense fallback={<Loading label="Loading the AI tools editor..." />}>
                <ToolsEditor
                  value={values.tools}
                  onChange={(next) => {
                    setList('tools', next);
                  }}
                  errors={errors}
                  disabled={saving}
                />
              </Suspense>
            </Section>
            <Section title="Share with Testers" id="edit-app-share">
              <Typography variant="body2" color="text.secondary">
                Anyone with the install link gets read-only testing access.
              </Typography>
              <Box>
                <Button
                  variant="outlined"
                  onClick={() => {
                    openDialog('share');
                  }}
                >
                  Share with Testers
                </Button>
              </Box>
            </Section>
            <Section title="API Key" id="edit-app-api-key">
              <Typography variant="body2" color="text.secondary">
                Your server uses the API key to connect. It is shown only once; you can regenerate
                it (the old key stops working at once).
              </Typography>
              <Box>
                <Button
                  variant="outlined"
                  onClick={() => {
                    openDialog('apiKey');
                  }}
                >
                  Manage API Key
                </Button>
              </Box>
            </Section>
            <Section title="App Status" id="edit-app-status">
              <Stack direction="row" spacing={1.5} sx={{ alignItems: 'center', flexWrap: 'wrap' }}>
                <StatusChip status={app.appStoreStatus} />
                {action && (
                  <Button
                    variant="contained"
                    color="secondary"
                    onClick={() => {
                      openDialog('publish');
                    }}
                  >
                    {action === 'resubmit' ? 'Resubmit to App Store' : 'Publish to App Store'}
                  </Button>
                )}
              </Stack>
              {app.appStoreStatus === 'REJECTED' && (
                <Alert severity="error">
                  <Typography sx={{ fontWeight: 500 }}>Rejected</Typography>
                  {app.reviewNotes && (
                    <Typography variant="body2" sx={{ whiteSpace: 'pre-wrap' }}>
                      {app.reviewNotes}
                    </Typography>
                  )}
                  {app.reviewedAt && (
                    <Typography variant="body2">
                      Reviewed {formatDateTime(app.reviewedAt)}
                    </Typography>
                  )}
                </Alert>
              )}
              {app.appStoreStatus === 'SUBMITTED' && (
                <Typography variant="body2" color="text.secondary">
                  The app is waiting for review.
                </Typography>
              )}
              <Box>
                <Button
                  variant="outlined"
                  onClick={() => {
                    openDialog('move');
                  }}
                >
                  Move to Another Organization
                </Button>
              </Box>
            </Section>
            <Section title="Configuration" id="edit-app-config">
              <ConfigSection
                orgId={orgId}
                packageName={app.packageName}
                onImport={onImport}
                disabled={saving}
              />
            </Section>
            <Section title="Review History" id="edit-app-history">
              <ReviewHistory orgId={orgId} packageName={app.packageName} />
            </Section>
            {/* Save stays in reach on this long form. */}
            <Stack
              spacing={1.5}
              sx={{
                position: 'sticky',
                bottom: 0,
                zIndex: 2,
                bgcolor: 'background.paper',
                borderTop: 1,
                borderColor: 'divider',
                py: 2,
              }}
            >
              {banner && (
                <Alert
                  severity={banner.severity}
                  role={banner.severity === 'error' ? 'alert' : 'status'}
                >
                  {banner.text}
                </Alert>
              )}
              <Stack direction="row" spacing={2}>
                <Button type="submit" variant="contained" disabled={saving || uploading}>
                  {saving ? 'Saving...' : 'Save Changes'}
                </Button>
                <Button component={RouterLink} to={paths.apps} disabled={saving}>
                  Back
                </Button>
              </Stack>
            </Stack>
          </Stack>
        </CardContent>
      </Card>

      <Suspense fallback={<DialogLoading onClose={closeDialog} />}>
        {mounted === 'resubmit' && (
          <ResubmitDialog
            open={dialog === 'resubmit'}
            appName={app.name}
            added={confirmAdded}
            onCancel={closeDialog}
            onConfirm={() => {
              closeDialog();
              void save(normalised(values, keepLoopbackHttp));
            }}
          />
        )}
        {mounted === 'apiKey' && (
          <ApiKeyDialog
            open={dialog === 'apiKey'}
            onClose={closeDialog}
            orgId={orgId}
            packageName={app.packageName}
            appName={app.name}
          />
        )}
        {mounted === 'share' && (
          <ShareDialog open={dialog === 'share'} onClose={closeDialog} orgId={orgId} app={app} />
        )}
        {mounted === 'publish' && (
          <PublishDialog
            open={dialog === 'publish'}
            onClose={closeDialog}
            orgId={orgId}
            app={app}
          />
        )}
        {mounted === 'move' && (
          <MoveAppDialog
            open={dialog === 'move'}
            onClose={closeDialog}
            orgId={orgId}
            packageName={app.packageName}
            appName={app.name}
            orgs={orgs}
            onMoved={onMoved}
          />
        )}
      </Suspense>
    </>
  );
}
