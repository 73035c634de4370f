import Alert from '@mui/material/Alert';
import Button from '@mui/material/Button';
import Dialog from '@mui/material/Dialog';
import DialogActions from '@mui/material/DialogActions';
import DialogContent from '@mui/material/DialogContent';
import DialogContentText from '@mui/material/DialogContentText';
import DialogTitle from '@mui/material/DialogTitle';
import List from '@mui/material/List';
import ListItem from '@mui/material/ListItem';
import ListItemIcon from '@mui/material/ListItemIcon';
import ListItemText from '@mui/material/ListItemText';
import Stack from '@mui/material/Stack';
import CancelIcon from '@mui/icons-material/Cancel';
import CheckCircleIcon from '@mui/icons-material/CheckCircle';
import { useState } from 'react';
import { Link as RouterLink } from 'react-router';

import { isApiErrorBody, isFetchBaseQueryError } from '../../../api/errors';
import { useAppDispatch } from '../../../app/store';
import { paths } from '../../../config/paths';
import { noticeShown } from '../../../session/authSlice';
import { useCurrentOrg } from '../../orgs';
import { usePublicConfig } from '../../publicConfig';
import { useCheckAppHealthQuery, usePublishAppMutation } from '../api';
import { HealthCheckItem } from './HealthCheckItem';
import type { App } from '../types';
import { PROFILE_INCOMPLETE_MESSAGE, publishChecklist } from './publishChecklist';

export interface PublishDialogProps {
  open: boolean;
  onClose: () => void;
  orgId: string;
  app: Pick<App, 'packageName' | 'name' | 'publicUrl' | 'logoURL' | 'appStoreStatus'>;
  /** Called with the app as the server now has it (SUBMITTED). */
  onPublished?: (app: App) => void;
}

/** A server refusal because the organization profile lacks its name or contact e-mail. */
function isProfileIncomplete(error: unknown): boolean {
  if (!isFetchBaseQueryError(error) || !isApiErrorBody(error.data)) return false;
  return (
    error.data.code === 'PROFILE_INCOMPLETE' || error.data.error.includes('PROFILE_INCOMPLETE')
  );
}

/**
 * Publish (or resubmit) to the App Store (spec §2, §5; PRODUCT.md §9): a checklist first, the profile
 * message with a way to complete it, then the submission; the app is re-read afterwards.
 */
export function PublishDialog(props: PublishDialogProps) {
  return props.open ? <PublishDialogBody {...props} /> : null;
}

function PublishDialogBody({ onClose, orgId, app, onPublished }: PublishDialogProps) {
  const dispatch = useAppDispatch();
  const { orgs } = useCurrentOrg();
  const org = orgs.find((candidate) => candidate.id === orgId) ?? null;
  const [publish, { isLoading }] = usePublishAppMutation();
  // The live check informs; it does not block: a server may be down for a moment, and reviewers see it.
  const health = useCheckAppHealthQuery(
    { orgId, packageName: app.packageName },
    { refetchOnMountOrArgChange: true },
  );
  const [failure, setFailure] = useState<string | null>(null);
  const [profileRefused, setProfileRefused] = useState(false);

  const { keepLoopbackHttp } = usePublicConfig();
  const checklist = publishChecklist(app, org, keepLoopbackHttp);
  const profileMissing =
    profileRefused || checklist.some((item) => item.id === 'profile' && !item.ok);
  const ready = checklist.every((item) => item.ok) && !profileRefused;
  const resubmit = app.appStoreStatus === 'REJECTED';
  const title = resubmit ? 'Resubmit to App Store' : 'Publish to App Store';

  const submit = async () => {
    setFailure(null);
    try {
      const published = await publish({ orgId, packageName: app.packageName }).unwrap();
      dispatch(noticeShown({ severity: 'success', text: 'App submitted for publication!' }));
      onClose();
      onPublished?.(published);
    } catch (error) {
      if (isProfileIncomplete(error)) {
        setProfileRefused(true);
        return;
      }
      setFailure('Failed to publish app. Please try again.');
      dispatch(noticeShown({ severity: 'error', text: 'Failed to publish app' }));
    }
  };

  return (
    <Dialog
      open
      onClose={isLoading ? undefined : onClose}
      fullWidth
      maxWidth="sm"
      aria-labelledby="publish-title"
    >
      <DialogTitle id="publish-title">{title}</DialogTitle>
      <DialogContent>
        <Stack spacing={2}>
          <DialogContentText>
            Submitting sends <strong>{app.name}</strong> to the App Store reviewers. While it is
            under review you can keep editing it; the reviewers see the app as it is when they open
            it.
          </DialogContentText>
          <List dense aria-label="Before you submit">
            {checklist.map((item) => (
              <ListItem key={item.id} disableGutters>
                <ListItemIcon sx={{ minWidth: 36 }}>
                  {item.ok ? (
                    <CheckCircleIcon color="success" titleAccess="Done" />
                  ) : (
                    <CancelIcon color="error" titleAccess="Missing" />
                  )}
                </ListItemIcon>
                <ListItemText
                  primary={item.label}
                  secondary={item.ok || item.id === 'profile' ? undefined : item.hint}
                />
              </ListItem>
            ))}
            <HealthCheckItem health={health} publicUrl={app.publicUrl} />
          </List>
          {profileMissing && (
            // The way out goes under the message, at the dialog's full width: as the Alert's action,
            // beside the message, its label wrapped over three lines on a phone.
            <Stack spacing={1} sx={{ alignItems: 'flex-start' }}>
              <Alert severity="warning" sx={{ alignSelf: 'stretch' }}>
                {PROFILE_INCOMPLETE_MESSAGE}
              </Alert>
              <Button
                variant="outlined"
                size="small"
                component={RouterLink}
                to={paths.orgSettings()}
                onClick={onClose}
              >
                Complete Organization Profile
              </Button>
            </Stack>
          )}
          {failure && <Alert severity="error">{failure}</Alert>}
        </Stack>
      </DialogContent>
      <DialogActions>
        <Button onClick={onClose} disabled={isLoading}>
          Cancel
        </Button>
        <Button variant="contained" onClick={() => void submit()} disabled={!ready || isLoading}>
          {isLoading ? 'Submitting...' : resubmit ? 'Resubmit' : 'Submit for Review'}
        </Button>
      </DialogActions>
    </Dialog>
  );
}
