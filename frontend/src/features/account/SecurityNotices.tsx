import Alert from '@mui/material/Alert';
import Button from '@mui/material/Button';
import { Link as RouterLink } from 'react-router';

import { useAppSelector } from '../../app/store';
import { paths } from '../../config/paths';
import { selectAuth } from '../../session/authSlice';

import { placeOf } from './next';

/**
 * Account Security stays open while the product API waits for the session's second factor (the guard
 * lets it through): this says so, with the way to the challenge step.
 */
export function ConfirmItsYouNotice() {
  const { mfaRequired } = useAppSelector(selectAuth);
  if (!mfaRequired) return null;
  return (
    <Alert
      severity="warning"
      action={
        <Button
          component={RouterLink}
          to={paths.mfaChallenge(paths.accountSecurity)}
          color="inherit"
          size="small"
          sx={{ whiteSpace: 'nowrap' }}
        >
          Confirm it’s you
        </Button>
      }
    >
      This session has not used your second factor yet: confirm it’s you to change your factors and
      to use the rest of the portal.
    </Alert>
  );
}

/**
 * Arrived here to add a second factor before going on (the Admin Panel of platform staff): what to do,
 * and once a factor is added, the way on.
 */
export function NextStepNotice({ next, added }: { next: string; added: boolean }) {
  const place = placeOf(next);
  if (!added) {
    return (
      <Alert severity="info">
        Add a second factor below — an authenticator app, or a passkey — then continue to {place}.
      </Alert>
    );
  }
  return (
    <Alert
      severity="success"
      action={
        <Button
          component={RouterLink}
          to={next}
          color="inherit"
          size="small"
          sx={{ whiteSpace: 'nowrap' }}
        >
          Continue
        </Button>
      }
    >
      Your second factor is set up. Make recovery codes below in case you lose it, then continue to{' '}
      {place}.
    </Alert>
  );
}
