import Alert from '@mui/material/Alert';
import Button from '@mui/material/Button';
import Dialog from '@mui/material/Dialog';
import DialogActions from '@mui/material/DialogActions';
import DialogContent from '@mui/material/DialogContent';
import DialogContentText from '@mui/material/DialogContentText';
import DialogTitle from '@mui/material/DialogTitle';
import List from '@mui/material/List';
import ListItem from '@mui/material/ListItem';
import ListItemText from '@mui/material/ListItemText';
import { skipToken } from '@reduxjs/toolkit/query';
import { useEffect, useState } from 'react';

import { errorMessage } from '../../api/errors';
import { useAppDispatch, useAppSelector } from '../../app/store';
import { noticeShown, tokensReviewed } from '../../session/authSlice';
import { useCurrentOrg } from '../orgs';
import { useListTokensQuery, useRevokeAllAccessTokensMutation } from './api';
import { activeTokensText, formatDate, lastUsedText, revokedAllText } from './format';

/**
 * Right after a password reset (the recovery link, or a code that proved the address), before the user
 * goes on: the server has revoked the access tokens made by every other session, and lists the ones left
 * (made by sessions that had ended before). Shown over the first page once the new session is exchanged
 * (the list is read with its core token); "Revoke all" ends them, "Keep them" goes on. With none active,
 * nothing shows.
 */
export function TokensAfterResetDialog() {
  const dispatch = useAppDispatch();
  const review = useAppSelector(
    (state) => (state.auth.tokensReview ?? false) && state.auth.status === 'signedIn',
  );
  const {
    data: tokens,
    error,
    isFetching,
    refetch,
  } = useListTokensQuery(review ? undefined : skipToken, { refetchOnMountOrArgChange: true });
  const [revokeAll, { isLoading: revoking }] = useRevokeAllAccessTokensMutation();
  const [failure, setFailure] = useState<string | null>(null);
  const { orgs } = useCurrentOrg();
  const active = tokens?.filter((token) => token.status === 'active') ?? [];
  const noneActive = review && !isFetching && tokens !== undefined && active.length === 0;

  // None left: the user goes on as before.
  useEffect(() => {
    if (noneActive) dispatch(tokensReviewed());
  }, [noneActive, dispatch]);

  const orgName = (orgId: string | null | undefined) => {
    if (!orgId) return 'Every organization';
    return orgs.find((org) => org.id === orgId)?.name ?? 'An organization you left';
  };

  const confirmRevokeAll = async () => {
    setFailure(null);
    const result = await revokeAll();
    if ('error' in result) {
      setFailure(errorMessage(result.error, 'Your access tokens could not be revoked.'));
      return;
    }
    dispatch(tokensReviewed());
    dispatch(noticeShown({ severity: 'success', text: revokedAllText(result.data) }));
  };

  const open = review && (active.length > 0 || (error !== undefined && !isFetching));
  return (
    <Dialog open={open} aria-labelledby="tokens-after-reset-title" fullWidth maxWidth="sm">
      <DialogTitle id="tokens-after-reset-title">Access tokens that still work</DialogTitle>
      <DialogContent>
        {error ? (
          <Alert
            severity="error"
            role="alert"
            action={
              <Button color="inherit" onClick={() => void refetch()} disabled={isFetching}>
                Retry
              </Button>
            }
          >
            {errorMessage(error, 'Your access tokens could not be loaded.')}
          </Alert>
        ) : (
          <>
            <DialogContentText>
              Your new password is saved. The access tokens made by your other sessions were
              revoked; these {activeTokensText(active.length)} were made before and still work. If
              you do not know {active.length === 1 ? 'it' : 'them all'}, revoke{' '}
              {active.length === 1 ? 'it' : 'them'}: scripts and CI jobs that use{' '}
              {active.length === 1 ? 'it' : 'them'} will fail until they get a new token.
            </DialogContentText>
            {failure && (
              <Alert severity="error" role="alert" sx={{ mt: 2 }}>
                {failure}
              </Alert>
            )}
            <List aria-label="Access tokens that still work" dense>
              {active.map((token) => (
                <ListItem key={token.id} disableGutters divider>
                  <ListItemText
                    primary={token.name}
                    slotProps={{
                      primary: { sx: { fontWeight: 600, overflowWrap: 'anywhere' } },
                      secondary: { component: 'div' },
                    }}
                    secondary={
                      <>
                        <div>{orgName(token.orgId)}</div>
                        <div>Created {formatDate(token.createdAt)}</div>
                        <div>
                          {token.lastUsedAt ? `Last used ${lastUsedText(token)}` : 'Never used'}
                        </div>
                      </>
                    }
                  />
                </ListItem>
              ))}
            </List>
          </>
        )}
      </DialogContent>
      <DialogActions sx={{ flexWrap: 'wrap', rowGap: 1 }}>
        <Button onClick={() => dispatch(tokensReviewed())} disabled={revoking}>
          {error ? 'Continue' : 'Keep them'}
        </Button>
        {!error && (
          <Button
            color="error"
            variant="contained"
            onClick={() => void confirmRevokeAll()}
            disabled={revoking}
          >
            {revoking ? 'Revoking…' : 'Revoke all'}
          </Button>
        )}
      </DialogActions>
    </Dialog>
  );
}
