import Button from '@mui/material/Button';
import Dialog from '@mui/material/Dialog';
import DialogActions from '@mui/material/DialogActions';
import DialogContent from '@mui/material/DialogContent';
import DialogContentText from '@mui/material/DialogContentText';
import DialogTitle from '@mui/material/DialogTitle';

import { permissionLabels } from '../editors/types';

interface Props {
  open: boolean;
  appName: string;
  /** The permission types the save adds. */
  added: string[];
  onCancel: () => void;
  onConfirm: () => void;
}

/** The warning before a save adds permissions to a published app, which sends it back to review. */
export function ResubmitDialog({ open, appName, added, onCancel, onConfirm }: Props) {
  return (
    <Dialog open={open} onClose={onCancel} maxWidth="sm">
      <DialogTitle>Send the app back to review?</DialogTitle>
      <DialogContent>
        <DialogContentText>
          {appName} is published. Adding{' '}
          {added.map((type) => permissionLabels[type as keyof typeof permissionLabels]).join(', ')}{' '}
          sends it back to review (status Submitted) until a reviewer approves it again; users keep
          the version they were granted until then.
        </DialogContentText>
      </DialogContent>
      <DialogActions>
        <Button onClick={onCancel}>Cancel</Button>
        <Button variant="contained" color="error" onClick={onConfirm}>
          Save and Resubmit
        </Button>
      </DialogActions>
    </Dialog>
  );
}
