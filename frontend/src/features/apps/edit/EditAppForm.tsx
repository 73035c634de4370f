import Alert from '@mui/material/Alert';
import Button from '@mui/material/Button';
import Card from '@mui/material/Card';
import CardContent from '@mui/material/CardContent';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import { lazy, Suspense, useCallback, useEffect, useRef, useState } from 'react';
import { useFormState, type Control } from 'react-hook-form';

import { isApiErrorBody, isFetchBaseQueryError } from '../../../api/errors';
import { DialogLoading } from '../../../components/DialogLoading';
import { UnsavedChangesPrompt } from '../../../components/UnsavedChangesPrompt';
import { useAppDispatch } from '../../../app/store';
import { noticeQueued } from '../../../session/authSlice';
import type { Organization } from '../../orgs';
import { useUpdateAppMutation, useUpdatePermissionsMutation } from '../api';
import { ApiKeyDialog, PublishDialog, ShareDialog } from '../dialogs';
import { appFormValues, serverFieldErrors, updateBody, type AppFormValues } from '../form/appForm';
import { AppDetailsFields, AppListFields, Section } from '../form/AppDetailsFields';
import { useAppForm } from '../form/useAppForm';
import type { App } from '../types';
import { AppStatusSection } from './AppStatusSection';
import { ConfigSection } from './ConfigSection';
import {
  addedPermissions,
  CORRECT_FIELDS,
  type DialogKind,
  permissionsChanged,
  SAVE_FAILED,
  SAVED_BANNER_MS,
  SAVED_MESSAGE,
} from './editApp';
import { ReviewHistory } from './ReviewHistory';

// Loaded when they open, like the dialogs of ../dialogs.
const MoveAppDialog = lazy(async () => ({
  default: (await import('./MoveAppDialog')).MoveAppDialog,
}));
const ResubmitDialog = lazy(async () => ({
  default: (await import('./ResubmitDialog')).ResubmitDialog,
}));

interface Props {
  app: App;
  orgId: string;
  orgs: Organization[];
  onMoved: () => void;
}

/** The Edit App form (spec §2): the app's fields, its actions and dialogs, Save at the bottom. */
export function EditAppForm({ app, orgId, orgs, onMoved }: Props) {
  const appForm = useAppForm('edit', appFormValues(app));
  const { form } = appForm;
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
  const ref = { orgId, packageName: app.packageName };
  const dispatch = useAppDispatch();
  // After the publish dialog, the app is read again (the submission invalidates it); once the page shows
  // the status the server answered, the user is told (spec §5, §8: "Publication status updated").
  const awaitedStatus = useRef<App['appStoreStatus'] | null>(null);
  const shownStatus = useRef(app.appStoreStatus);
  const announceIfShown = useCallback(() => {
    if (awaitedStatus.current === null || shownStatus.current !== awaitedStatus.current) return;
    awaitedStatus.current = null;
    dispatch(noticeQueued({ severity: 'success', text: 'Publication status updated' }));
  }, [dispatch]);
  useEffect(() => {
    shownStatus.current = app.appStoreStatus;
    announceIfShown();
  }, [app.appStoreStatus, announceIfShown]);

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

  const openDialog = (kind: DialogKind) => {
    setDialog(kind);
    setMounted(kind);
  };
  const closeDialog = () => {
    setDialog(null);
  };

  const save = async (values: AppFormValues) => {
    setBanner(null);
    try {
      await update({ ...ref, change: updateBody(values, appForm.keepLoopbackHttp) }).unwrap();
      if (permissionsChanged(app.permissions, values.permissions)) {
        await patchPermissions({ ...ref, permissions: values.permissions }).unwrap();
      }
      // What was saved is what leaving compares against from now on.
      form.reset(values);
      setBanner({ severity: 'success', text: SAVED_MESSAGE });
    } catch (error) {
      const body = isFetchBaseQueryError(error) && isApiErrorBody(error.data) ? error.data : null;
      appForm.showErrors(serverFieldErrors(body?.fields, 'edit'));
      setBanner({ severity: 'error', text: body?.error ?? SAVE_FAILED });
    }
  };

  const submit = appForm.submit(
    (values) => {
      const added = addedPermissions(app.permissions, values.permissions);
      if (app.appStoreStatus === 'PUBLISHED' && added.length > 0) {
        setConfirmAdded(added);
        openDialog('resubmit');
        return;
      }
      void save(values);
    },
    () => {
      setBanner({ severity: 'error', text: CORRECT_FIELDS });
    },
  );

  const onImport = (apply: (values: AppFormValues) => AppFormValues) => {
    form.reset(apply(form.getValues()), { keepDefaultValues: true });
  };

  return (
    <>
      <LeavePrompt control={form.control} />
      <Card variant="outlined" sx={{ overflow: 'visible' }}>
        <CardContent>
          <Stack
            component="form"
            id={appForm.formId}
            spacing={4}
            noValidate
            onSubmit={submit}
            aria-label="Edit App"
          >
            <AppDetailsFields
              mode="edit"
              appForm={appForm}
              disabled={saving}
              onUploadingChange={setUploading}
              permissionsNote={
                app.appStoreStatus === 'PUBLISHED' && (
                  <Typography variant="body2" color="text.secondary">
                    This app is published: adding a permission sends it back to review.
                  </Typography>
                )
              }
            />
            <AppListFields appForm={appForm} disabled={saving} onUploadingChange={setUploading} />
            <AppStatusSection app={app} onOpen={openDialog} />
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
              <div>
                <Button type="submit" variant="contained" disabled={saving || uploading}>
                  {saving ? 'Saving...' : 'Save Changes'}
                </Button>
              </div>
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
              void save(form.getValues());
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
            onPublished={(published) => {
              awaitedStatus.current = published.appStoreStatus;
              // The page may show the new status already (the re-read came first).
              announceIfShown();
            }}
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

/** Asks before leaving while the form holds what is not saved (its own subscription to the form state). */
function LeavePrompt({ control }: { control: Control<AppFormValues> }) {
  const { isDirty } = useFormState({ control });
  return <UnsavedChangesPrompt dirty={isDirty} />;
}
