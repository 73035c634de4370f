import Button from '@mui/material/Button';
import Dialog from '@mui/material/Dialog';
import DialogActions from '@mui/material/DialogActions';
import DialogContent from '@mui/material/DialogContent';
import DialogContentText from '@mui/material/DialogContentText';
import DialogTitle from '@mui/material/DialogTitle';

import { activeTokensText } from './format';

/** Asks before every active token is revoked: whatever uses them stops working at once. */
export function RevokeAllTokensDialog({
  open,
  active,
  busy,
  onConfirm,
  onClose,
}: {
  open: boolean;
  /** How many active tokens stop working. */
  active: number;
  busy: boolean;
  onConfirm: () => void;
  onClose: () => void;
}) {
  return (
    <Dialog
      open={open}
      onClose={busy ? undefined : onClose}
      aria-labelledby="token-revoke-all-title"
    >
      <DialogTitle id="token-revoke-all-title">Revoke all your access tokens?</DialogTitle>
      <DialogContent>
        <DialogContentText>
          Your {activeTokensText(active)} stop{active === 1 ? 's' : ''} working at once: scripts, CI
          jobs and the command-line tool that use {active === 1 ? 'it' : 'them'} will fail until you
          give them a new token. This cannot be undone.
        </DialogContentText>
      </DialogContent>
      <DialogActions>
        <Button onClick={onClose} disabled={busy}>
          Cancel
        </Button>
        <Button color="error" onClick={onConfirm} disabled={busy}>
          {busy ? 'Revoking…' : 'Revoke all'}
        </Button>
      </DialogActions>
    </Dialog>
  );
}
