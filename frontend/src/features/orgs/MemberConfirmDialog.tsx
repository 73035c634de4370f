import Button from '@mui/material/Button';
import Dialog from '@mui/material/Dialog';
import DialogActions from '@mui/material/DialogActions';
import DialogContent from '@mui/material/DialogContent';
import DialogContentText from '@mui/material/DialogContentText';
import DialogTitle from '@mui/material/DialogTitle';

import type { OrgMember, PendingInvite } from './types';

/** What the Members page asks to confirm. */
export type Pending =
  | { kind: 'remove'; member: OrgMember }
  | { kind: 'leave'; member: OrgMember }
  | { kind: 'cancel'; invite: PendingInvite }
  | null;

/** Confirms removing a member, leaving the organization or cancelling an invitation. */
export function MemberConfirmDialog({
  pending,
  busy,
  onClose,
  onConfirm,
}: {
  pending: Pending;
  busy: boolean;
  onClose: () => void;
  onConfirm: () => void;
}) {
  let title = '';
  let text = '';
  let action = '';
  if (pending?.kind === 'remove') {
    title = 'Remove member?';
    text = `${pending.member.user.email} will lose access to this organization.`;
    action = 'Remove';
  } else if (pending?.kind === 'leave') {
    title = 'Leave organization?';
    text =
      pending.member.role === 'admin'
        ? 'You will lose your admin access to this organization. To come back, another admin will have to invite you again.'
        : 'You will lose access to this organization. To come back, an admin will have to invite you again.';
    action = 'Leave';
  } else if (pending?.kind === 'cancel') {
    title = 'Cancel invitation?';
    text = `The invitation to ${pending.invite.email} will stop working.`;
    action = 'Cancel Invitation';
  }
  return (
    <Dialog open={pending !== null} onClose={onClose}>
      <DialogTitle>{title}</DialogTitle>
      <DialogContent>
        <DialogContentText>{text}</DialogContentText>
      </DialogContent>
      <DialogActions>
        <Button onClick={onClose}>Keep</Button>
        <Button color="error" onClick={onConfirm} disabled={busy}>
          {action}
        </Button>
      </DialogActions>
    </Dialog>
  );
}
