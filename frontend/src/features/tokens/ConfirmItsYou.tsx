import Alert from '@mui/material/Alert';
import AlertTitle from '@mui/material/AlertTitle';
import Button from '@mui/material/Button';
import { Link as RouterLink } from 'react-router';

import { paths } from '../../config/paths';
import { ConfirmPassword } from '../account';
import { useAuthClient } from '../auth';
import type { Refusal } from './createToken';

interface Props {
  refusal: Refusal | null;
  /** The password form of a new sign-in is open (after Sign in again). */
  reauthenticating: boolean;
  onSignInAgain: () => void;
  onConfirmed: () => Promise<void>;
  onCancel: () => void;
}

/**
 * What the create dialog says when the server asked the session to confirm it first: go pass the second
 * factor (what was typed waits for the user's return), or sign in again here, after which the token is
 * asked for again.
 */
export function ConfirmItsYou({
  refusal,
  reauthenticating,
  onSignInAgain,
  onConfirmed,
  onCancel,
}: Props) {
  const client = useAuthClient();
  if (refusal === 'MFA_REQUIRED') {
    return (
      <Alert
        severity="warning"
        role="alert"
        action={
          <Button
            component={RouterLink}
            to={paths.mfaChallenge(paths.accessTokens)}
            color="inherit"
            size="small"
            sx={{ whiteSpace: 'nowrap' }}
          >
            Confirm it’s you
          </Button>
        }
      >
        Confirm it’s you with your second factor to create an access token. What you typed here is
        kept for when you come back.
      </Alert>
    );
  }
  if (refusal !== 'RECENT_SIGN_IN_NEEDED') return null;
  if (reauthenticating && client) {
    return (
      <ConfirmPassword
        client={client}
        what="create an access token"
        onConfirmed={onConfirmed}
        onCancel={onCancel}
      />
    );
  }
  return (
    <Alert
      severity="warning"
      role="alert"
      action={
        <Button color="inherit" size="small" sx={{ whiteSpace: 'nowrap' }} onClick={onSignInAgain}>
          Sign in again
        </Button>
      }
    >
      <AlertTitle>Sign in again to create a token</AlertTitle>
      Your last sign-in was more than 10 minutes ago. Sign in again, then the token is created with
      what you typed here.
    </Alert>
  );
}
