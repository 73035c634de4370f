import Alert from '@mui/material/Alert';
import Button from '@mui/material/Button';
import Dialog from '@mui/material/Dialog';
import DialogActions from '@mui/material/DialogActions';
import DialogContent from '@mui/material/DialogContent';
import DialogContentText from '@mui/material/DialogContentText';
import DialogTitle from '@mui/material/DialogTitle';
import { useState } from 'react';

import { useAppDispatch } from '../../../app/store';
import { nameConfirmed } from '../../../components/nameConfirmed';
import { TypeToConfirm } from '../../../components/TypeToConfirm';
import { noticeShown } from '../../../session/authSlice';
import { useDeleteAppMutation } from '../api';
import type { App } from '../types';

/** The message once an app is gone (in the wording of the other actions' messages). */
const APP_DELETED = 'App deleted successfully';

export interface DeleteAppDialogProps {
  open: boolean;
  onClose: () => void;
  orgId: string;
  /** A PUBLISHED app asks for its name to be typed before it goes. */
  app: Pick<App, 'packageName' | 'name'> & Partial<Pick<App, 'appStoreStatus'>>;
  /** Called once the app is gone (the dialog has closed itself). */
  onDeleted?: () => void;
}

/**
 * Delete confirmation (spec §4): confirm, deleting, closed on success with the success message the other
 * actions show. A published app, which users have installed, goes only once its name is typed (issue 25,
 * item 15).
 */
export function DeleteAppDialog(props: DeleteAppDialogProps) {
  return props.open ? <DeleteAppDialogBody {...props} /> : null;
}

function DeleteAppDialogBody({ onClose, orgId, app, onDeleted }: DeleteAppDialogProps) {
  const [remove, { isLoading }] = useDeleteAppMutation();
  const dispatch = useAppDispatch();
  const [failure, setFailure] = useState<string | null>(null);
  const [typed, setTyped] = useState('');
  const mustType = app.appStoreStatus === 'PUBLISHED';
  const confirmed = !mustType || nameConfirmed(typed, app.name);

  const confirm = async () => {
    setFailure(null);
    try {
      await remove({ orgId, packageName: app.packageName }).unwrap();
      onClose();
      dispatch(noticeShown({ severity: 'success', text: APP_DELETED }));
      onDeleted?.();
    } catch {
      setFailure('Failed to delete App. Please try again.');
    }
  };

  return (
    <Dialog
      open
      onClose={isLoading ? undefined : onClose}
      aria-labelledby="delete-app-title"
      aria-describedby="delete-app-text"
    >
      <DialogTitle id="delete-app-title">Delete {app.name}?</DialogTitle>
      <DialogContent>
        <DialogContentText id="delete-app-text">
          This permanently deletes <strong>{app.packageName}</strong> with its API key, share links,
          images and review history. This cannot be undone.
          {mustType && ' The app is published: users who installed it lose it.'}
        </DialogContentText>
        {mustType && (
          <TypeToConfirm name={app.name} value={typed} onChange={setTyped} disabled={isLoading} />
        )}
        {failure && (
          <Alert severity="error" sx={{ mt: 2 }}>
            {failure}
          </Alert>
        )}
      </DialogContent>
      <DialogActions>
        <Button onClick={onClose} disabled={isLoading}>
          Cancel
        </Button>
        <Button
          color="error"
          variant="contained"
          onClick={() => void confirm()}
          disabled={isLoading || !confirmed}
        >
          {isLoading ? 'Deleting...' : 'Delete App'}
        </Button>
      </DialogActions>
    </Dialog>
  );
}
