import Alert from '@mui/material/Alert';
import Button from '@mui/material/Button';
import CircularProgress from '@mui/material/CircularProgress';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import { useEffect, useRef } from 'react';
import { Link as RouterLink, useSearchParams } from 'react-router';

import { errorMessage, isMfaRefusal } from '../../api/errors';
import { paths } from '../../config/paths';
import { SecondFactorNeeded } from '../account';
import { useClaimFirstAdminMutation, useGetAdminCheckQuery } from '../auth';
import { useDocumentTitle } from '../../components/useDocumentTitle';

/**
 * `/setup-admin?token=…`: the one-time link the server writes to its log while the platform has no
 * admin. Opened signed in (the route is behind the sign-in guard), it makes this account the first
 * platform admin.
 */
export function SetupAdminPage() {
  useDocumentTitle('Platform setup');
  const [params] = useSearchParams();
  const token = params.get('token') ?? '';
  const [claim, { isUninitialized, isLoading, isSuccess, isError, error }] =
    useClaimFirstAdminMutation();
  const sent = useRef(false);
  // Asked again once the role is given (the claim invalidates it): staff may need a second factor first.
  const check = useGetAdminCheckQuery(undefined, { skip: !isSuccess });

  useEffect(() => {
    // Once: the token is used up by its first use (React's development double effect must not send it twice).
    if (!token || sent.current) return;
    sent.current = true;
    void claim(token);
  }, [claim, token]);

  return (
    <Stack spacing={3} sx={{ maxWidth: 640 }}>
      <Typography variant="h4" component="h1" sx={{ fontWeight: 700 }}>
        Platform setup
      </Typography>
      {!token && (
        <Alert severity="error">
          This link has no setup token. Open the complete link from the server log.
        </Alert>
      )}
      {token && (isUninitialized || isLoading) && (
        <Stack direction="row" spacing={2} sx={{ alignItems: 'center' }} role="status">
          <CircularProgress size={24} aria-hidden />
          <Typography>Making you the first platform admin…</Typography>
        </Stack>
      )}
      {isSuccess && (
        <>
          <Alert severity="success">
            You are now a platform admin. You can review apps and add other admins and reviewers in
            the Admin Panel.
          </Alert>
          {isMfaRefusal(check.error) ? (
            // PORTAL_STAFF_MFA=required (the default): the Admin Panel waits for a second factor.
            <SecondFactorNeeded next={paths.admin} what="the Admin Panel" />
          ) : (
            <div>
              <Button component={RouterLink} to={paths.admin} variant="contained">
                Open the Admin Panel
              </Button>
            </div>
          )}
        </>
      )}
      {isError && (
        <>
          <Alert severity="error">{errorMessage(error)}</Alert>
          <Typography color="text.secondary">
            While the platform has no admin, the server writes a new setup link to its log at every
            start, valid for one hour. The operator can also run{' '}
            <code>app-server admin grant EMAIL</code>.
          </Typography>
          <div>
            <Button component={RouterLink} to={paths.dashboard}>
              Back to the dashboard
            </Button>
          </div>
        </>
      )}
    </Stack>
  );
}
