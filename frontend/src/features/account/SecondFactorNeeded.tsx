import Alert from '@mui/material/Alert';
import AlertTitle from '@mui/material/AlertTitle';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Skeleton from '@mui/material/Skeleton';
import { Link as RouterLink } from 'react-router';

import { paths } from '../../config/paths';
import { useAuthClient } from '../auth';
import { useHasSecondFactor } from './useHasSecondFactor';

/**
 * What platform staff see where a staff screen would be while their session has not passed a second factor
 * (`PORTAL_STAFF_MFA=required`, the staff API's `MFA_REQUIRED`): without a factor yet, the way to add one
 * (Account Security, which comes back to `next`); with one, the way to confirm with it (the challenge
 * step). Never a dead end: the first admin of a new portal has no factor and nobody to ask.
 */
export function SecondFactorNeeded({ next, what }: { next: string; what: string }) {
  const client = useAuthClient();
  const { state, retry } = useHasSecondFactor(client);

  if (state.status === 'loading') {
    return <Skeleton variant="rounded" height={120} aria-label="Checking your second factors" />;
  }
  if (state.status === 'error') {
    return (
      <Alert
        severity="error"
        action={
          <Button color="inherit" size="small" onClick={retry}>
            Retry
          </Button>
        }
      >
        {state.message}
      </Alert>
    );
  }
  const [title, text, action, to] = state.hasFactor
    ? [
        `Confirm it’s you to open ${what}`,
        'Platform staff confirm it’s them with a second factor: this session has not used yours yet.',
        'Confirm it’s you',
        paths.mfaChallenge(next),
      ]
    : [
        `Add a second factor to open ${what}`,
        `Platform staff confirm it’s them with a second factor. Add an authenticator app (or a passkey) on Account Security; ${what} opens once you have confirmed it.`,
        'Add a second factor',
        paths.addSecondFactor(next),
      ];
  return (
    <Alert severity="warning">
      <AlertTitle>{title}</AlertTitle>
      {text}
      <Box sx={{ mt: 1.5 }}>
        <Button component={RouterLink} to={to} variant="contained" size="small">
          {action}
        </Button>
      </Box>
    </Alert>
  );
}
