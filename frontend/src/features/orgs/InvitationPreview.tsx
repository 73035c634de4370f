import Alert from '@mui/material/Alert';
import AlertTitle from '@mui/material/AlertTitle';
import Button from '@mui/material/Button';
import CircularProgress from '@mui/material/CircularProgress';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';

import { errorMessage, isFetchBaseQueryError } from '../../api/errors';
import { usePreviewInviteQuery } from './api';

/**
 * The sign-in page's invitation notice: the link's token is checked before anyone signs up, so that an
 * invalid, expired or used link says so (with what to do next) instead of "You have been invited".
 */
export function InvitationPreview({ token }: { token: string }) {
  const preview = usePreviewInviteQuery(token);

  if (preview.isLoading) {
    return (
      <Alert severity="info" icon={<CircularProgress size={20} aria-hidden />} role="status">
        Checking your invitation...
      </Alert>
    );
  }

  if (preview.isError) {
    const status = isFetchBaseQueryError(preview.error) ? preview.error.status : undefined;
    if (status === 404) {
      return (
        <Alert severity="error" role="alert">
          <AlertTitle>This invitation link is invalid</AlertTitle>
          It may have been cancelled, or replaced by a newer invitation e-mail. Use the link in the
          newest e-mail, or ask an admin of the organization to invite you again. You can still sign
          in or create an account.
        </Alert>
      );
    }
    if (status === 429) {
      return (
        <Alert severity="warning" role="alert">
          {errorMessage(
            preview.error,
            'Too many invitation links were checked. Please try again later.',
          )}
        </Alert>
      );
    }
    return (
      <Alert
        severity="warning"
        role="alert"
        action={
          <Button color="inherit" size="small" onClick={() => void preview.refetch()}>
            Retry
          </Button>
        }
      >
        Your invitation could not be checked right now. You can still sign in or create an account:
        the invitation is accepted afterwards.
      </Alert>
    );
  }

  const invite = preview.data;
  if (!invite) return null;
  const inviter = invite.inviter ?? `an admin of ${invite.organizationName}`;

  if (invite.status === 'expired') {
    return (
      <Alert severity="error" role="alert">
        <AlertTitle>This invitation has expired</AlertTitle>
        Invitations to {invite.organizationName} are valid for 7 days. Ask {inviter} to send you a
        new one. You can still sign in or create an account.
      </Alert>
    );
  }
  if (invite.status === 'accepted') {
    return (
      <Alert severity="info">
        <AlertTitle>This invitation has already been used</AlertTitle>
        If you accepted it, sign in to work in {invite.organizationName}. Otherwise ask {inviter} to
        invite you again.
      </Alert>
    );
  }
  return (
    <Alert severity="info">
      <AlertTitle>You have been invited to {invite.organizationName}</AlertTitle>
      <Stack spacing={0.5}>
        <Typography variant="body2">
          {invite.inviter
            ? `${invite.inviter} invited you.`
            : 'An admin of the organization invited you.'}{' '}
          Sign in or create an account with the invited address to accept.
        </Typography>
        <Typography variant="body2">
          Invited address: <strong>{invite.emailHint}</strong>
        </Typography>
      </Stack>
    </Alert>
  );
}
