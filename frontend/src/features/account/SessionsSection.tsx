import Alert from '@mui/material/Alert';
import Button from '@mui/material/Button';
import Chip from '@mui/material/Chip';
import Dialog from '@mui/material/Dialog';
import DialogActions from '@mui/material/DialogActions';
import DialogContent from '@mui/material/DialogContent';
import DialogContentText from '@mui/material/DialogContentText';
import DialogTitle from '@mui/material/DialogTitle';
import List from '@mui/material/List';
import ListItem from '@mui/material/ListItem';
import ListItemText from '@mui/material/ListItemText';
import Paper from '@mui/material/Paper';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import type { GoTrueClient } from '@supabase/auth-js';
import { useState } from 'react';

import { errorMessage } from '../../api/errors';
import { QueryContent } from '../../components/QueryContent';
import {
  accountErrorMessage,
  identityKey,
  useListSessionsQuery,
  useSignOutOtherSessionsMutation,
  useSignOutSessionMutation,
  type AccountSession,
} from './api';
import { deviceLabel } from './deviceLabel';

const when = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });

/** What the section asks to confirm: one session, or every other one. */
type Pending = { kind: 'one'; session: AccountSession } | { kind: 'others' } | null;

/**
 * The account's sessions (PRODUCT.md §1a): each signed-in device with its address and last use, this one
 * marked; sign one out, or every other one. A session signed out here is refused at once. The list is read
 * again whenever something on the page ends sessions: a sign-out here, a new password (which ends the
 * other sessions) or a first second factor (which ends the other sessions that did not pass one).
 */
export function SessionsSection({ client }: { client: GoTrueClient }) {
  const sessionsQuery = useListSessionsQuery();
  const sessions = sessionsQuery.data;
  const [signOutSession, { isLoading: endingOne }] = useSignOutSessionMutation();
  const [signOutOthers, { isLoading: endingOthers }] = useSignOutOtherSessionsMutation();
  const [pending, setPending] = useState<Pending>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [actionError, setActionError] = useState<string | null>(null);
  const others = sessions?.filter((s) => !s.current) ?? [];

  const confirm = async () => {
    if (!pending) return;
    setActionError(null);
    setNotice(null);
    if (pending.kind === 'one') {
      const label = deviceLabel(pending.session.userAgent);
      const result = await signOutSession(pending.session.id);
      setPending(null);
      if ('error' in result) {
        setActionError(errorMessage(result.error));
        return;
      }
      setNotice(`${label} was signed out.`);
      return;
    }
    const result = await signOutOthers(identityKey(client));
    setPending(null);
    if (result.error) {
      setActionError(accountErrorMessage(result.error));
      return;
    }
    setNotice('Every other session was signed out.');
  };

  const body = (
    <QueryContent
      query={sessionsQuery}
      loadingLabel="Loading your sessions"
      skeletonHeight={112}
      failure="Your sessions could not be loaded."
    >
      {(list) =>
        list.length === 0 ? (
          <Typography>No signed-in sessions.</Typography>
        ) : (
          <List aria-label="Your sessions">
            {list.map((session) => (
              <ListItem
                key={session.id}
                divider
                secondaryAction={
                  session.current ? (
                    <Chip label="This device" color="primary" size="small" variant="outlined" />
                  ) : (
                    <Button
                      color="error"
                      onClick={() => {
                        setPending({ kind: 'one', session });
                      }}
                      aria-label={`Sign out ${deviceLabel(session.userAgent)} (${session.ipAddress ?? 'unknown address'})`}
                    >
                      Sign out
                    </Button>
                  )
                }
              >
                <ListItemText
                  primary={deviceLabel(session.userAgent)}
                  secondary={`${session.ipAddress ?? 'Unknown address'} · last used ${when.format(new Date(session.lastUsedAt))}${session.aal === 'aal2' ? ' · confirmed with a second factor' : ''}`}
                  sx={{ pr: 14 }}
                />
              </ListItem>
            ))}
          </List>
        )
      }
    </QueryContent>
  );

  return (
    <Paper variant="outlined" component="section" aria-labelledby="sessions-title" sx={{ p: 3 }}>
      <Typography id="sessions-title" variant="h6" component="h2" gutterBottom>
        Sessions
      </Typography>
      <Typography color="text.secondary" sx={{ mb: 2 }}>
        The devices signed in to your account. Sign out any you do not recognise, then change your
        password.
      </Typography>
      <Stack spacing={2}>
        {notice && <Alert severity="success">{notice}</Alert>}
        {actionError && (
          <Alert severity="error" role="alert">
            {actionError}
          </Alert>
        )}
        {body}
        {sessions && others.length === 0 && (
          <Typography color="text.secondary">You are signed in on this device only.</Typography>
        )}
        <Stack direction="row">
          <Button
            variant="outlined"
            color="error"
            disabled={others.length === 0 || endingOthers}
            onClick={() => {
              setPending({ kind: 'others' });
            }}
          >
            Sign out all other sessions
          </Button>
        </Stack>
      </Stack>
      <Dialog
        open={pending !== null}
        onClose={() => {
          setPending(null);
        }}
      >
        <DialogTitle>
          {pending?.kind === 'one' ? 'Sign out this session?' : 'Sign out all other sessions?'}
        </DialogTitle>
        <DialogContent>
          <DialogContentText>
            {pending?.kind === 'one'
              ? `${deviceLabel(pending.session.userAgent)} (${pending.session.ipAddress ?? 'unknown address'}) will be signed out at once.`
              : 'Every device but this one will be signed out at once.'}
          </DialogContentText>
        </DialogContent>
        <DialogActions>
          <Button
            onClick={() => {
              setPending(null);
            }}
          >
            Keep
          </Button>
          <Button color="error" onClick={() => void confirm()} disabled={endingOne || endingOthers}>
            Sign out
          </Button>
        </DialogActions>
      </Dialog>
    </Paper>
  );
}
