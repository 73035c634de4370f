import Button from '@mui/material/Button';
import Dialog from '@mui/material/Dialog';
import DialogActions from '@mui/material/DialogActions';
import DialogContent from '@mui/material/DialogContent';
import DialogContentText from '@mui/material/DialogContentText';
import DialogTitle from '@mui/material/DialogTitle';

import type { AccessToken } from '../../api/types';

/** Asks before a token is revoked: whatever uses it stops working at once. */
export function RevokeTokenDialog({
  token,
  owner,
  busy,
  onConfirm,
  onClose,
}: {
  /** The token to revoke; `null` closes the dialog. */
  token: AccessToken | null;
  /** Whose it is, when it is not the user's own (an organization's admins). */
  owner?: string | null;
  busy: boolean;
  onConfirm: () => void;
  onClose: () => void;
}) {
  return (
    <Dialog open={token !== null} onClose={onClose} aria-labelledby="token-revoke-title">
      <DialogTitle id="token-revoke-title">Revoke this access token?</DialogTitle>
      <DialogContent>
        <DialogContentText>
          {token ? `“${token.name}”${owner ? ` of ${owner}` : ''}` : 'The token'} stops working at
          once: anything that uses it is refused. This cannot be undone.
        </DialogContentText>
      </DialogContent>
      <DialogActions>
        <Button onClick={onClose} disabled={busy}>
          Keep
        </Button>
        <Button color="error" onClick={onConfirm} disabled={busy}>
          {busy ? 'Revoking…' : 'Revoke'}
        </Button>
      </DialogActions>
    </Dialog>
  );
}
