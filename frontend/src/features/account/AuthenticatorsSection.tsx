import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import List from '@mui/material/List';
import ListItem from '@mui/material/ListItem';
import ListItemText from '@mui/material/ListItemText';
import Paper from '@mui/material/Paper';
import Skeleton from '@mui/material/Skeleton';
import Stack from '@mui/material/Stack';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import type { Factor, GoTrueClient } from '@supabase/auth-js';
import { QRCodeSVG } from 'qrcode.react';
import { useState, type ReactNode, type SyntheticEvent } from 'react';

import { ConfirmPassword } from './ConfirmPassword';
import {
  accountErrorCode,
  accountErrorMessage,
  identityKey,
  useEnrollTotpMutation,
  useListFactorsQuery,
  useRemoveFactorMutation,
  useVerifyTotpMutation,
  type Enrolling,
} from './api';

const dateFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium' });
const LOAD_FAILED = 'Could not read your authenticator apps.';

/** The account's authenticator apps: add one (QR code or secret, then a code), remove one. */
export function Authenticators({
  client,
  onAdded,
  nextStep,
}: {
  client: GoTrueClient;
  onAdded?: () => void;
  /** Shown once an authenticator app was added here (the way back to where the user was going). */
  nextStep?: ReactNode;
}) {
  const key = identityKey(client);
  const list = useListFactorsQuery(key, { refetchOnMountOrArgChange: true });
  const [enroll] = useEnrollTotpMutation();
  const [verify] = useVerifyTotpMutation();
  const [removeFactor] = useRemoveFactorMutation();
  const [added, setAdded] = useState(false);
  const [notice, setNotice] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [enrolling, setEnrolling] = useState<Enrolling | null>(null);
  const [name, setName] = useState('Authenticator app');
  const [code, setCode] = useState('');
  const [busy, setBusy] = useState(false);
  const [reauthenticating, setReauthenticating] = useState(false);
  const factors = list.data?.all.filter((f) => f.factor_type === 'totp' && f.status === 'verified');

  const start = async (event?: SyntheticEvent) => {
    event?.preventDefault();
    setBusy(true);
    setError(null);
    setNotice(null);
    const result = await enroll({ key, friendlyName: name.trim() || 'Authenticator app' });
    setBusy(false);
    if (result.error) {
      // Too long since this session's sign-in: the password is asked for, then the enrollment retried.
      if (accountErrorCode(result.error) === 'reauthentication_needed') setReauthenticating(true);
      else setError(accountErrorMessage(result.error));
      return;
    }
    setReauthenticating(false);
    setEnrolling(result.data);
    setCode('');
  };

  const confirm = async (event: SyntheticEvent) => {
    event.preventDefault();
    if (!enrolling) return;
    if (!/^\d{6}$/.test(code.trim())) {
      setError('Enter the six-digit code that your authenticator app shows.');
      return;
    }
    setBusy(true);
    setError(null);
    const result = await verify({ key, factorId: enrolling.id, code: code.trim() });
    setBusy(false);
    if (result.error) {
      setError(accountErrorMessage(result.error));
      return;
    }
    setEnrolling(null);
    setNotice('Your authenticator app is set up. You will be asked for a code when you sign in.');
    setAdded(true);
    onAdded?.();
  };

  const cancel = async () => {
    if (!enrolling) return;
    await removeFactor({ key, factorId: enrolling.id });
    setEnrolling(null);
    setError(null);
  };

  const remove = async (factor: Factor) => {
    setError(null);
    setNotice(null);
    const result = await removeFactor({ key, factorId: factor.id });
    if (result.error) {
      setError(accountErrorMessage(result.error));
      return;
    }
    setNotice(`${factor.friendly_name ?? 'The authenticator app'} was removed.`);
  };

  return (
    <Paper
      variant="outlined"
      component="section"
      aria-labelledby="authenticators-title"
      sx={{ p: 3 }}
    >
      <Typography id="authenticators-title" variant="h6" component="h2" gutterBottom>
        Authenticator apps
      </Typography>
      <Typography color="text.secondary" sx={{ mb: 2 }}>
        A code from an app on your phone, asked for after your password, keeps your apps and keys
        safe even if someone learns your password.
      </Typography>
      <Stack spacing={2}>
        {notice && <Alert severity="success">{notice}</Alert>}
        {added && nextStep}
        {error && (
          <Alert severity="error" role="alert">
            {error}
          </Alert>
        )}
        {list.isError ? (
          <Alert
            severity="error"
            action={
              <Button color="inherit" onClick={() => void list.refetch()}>
                Retry
              </Button>
            }
          >
            {accountErrorMessage(list.error, LOAD_FAILED)}
          </Alert>
        ) : factors === undefined ? (
          <Skeleton variant="rounded" height={56} aria-label="Loading your authenticator apps" />
        ) : factors.length === 0 ? (
          <Typography>No authenticator app yet.</Typography>
        ) : (
          <List aria-label="Your authenticator apps">
            {factors.map((factor) => (
              <ListItem
                key={factor.id}
                divider
                secondaryAction={
                  <Button color="error" onClick={() => void remove(factor)}>
                    Remove
                  </Button>
                }
              >
                <ListItemText
                  primary={factor.friendly_name ?? 'Authenticator app'}
                  secondary={`Added ${dateFormat.format(new Date(factor.created_at))}`}
                />
              </ListItem>
            ))}
          </List>
        )}
        {reauthenticating ? (
          <ConfirmPassword
            client={client}
            what="add an authenticator app"
            onConfirmed={() => start()}
            onCancel={() => {
              setReauthenticating(false);
            }}
          />
        ) : enrolling ? (
          <Stack component="form" spacing={2} onSubmit={(e) => void confirm(e)} noValidate>
            <Typography>
              Scan this code with your authenticator app, or type the key below into it. Then enter
              the six-digit code it shows.
            </Typography>
            <Box sx={{ p: 2, bgcolor: '#fff', alignSelf: 'flex-start', borderRadius: 1 }}>
              <QRCodeSVG
                value={enrolling.uri}
                size={176}
                title="QR code for your authenticator app"
              />
            </Box>
            <Typography component="div">
              Key:{' '}
              <Box
                component="code"
                data-testid="totp-secret"
                sx={{ fontFamily: 'monospace', wordBreak: 'break-all', userSelect: 'all' }}
              >
                {enrolling.secret}
              </Box>
            </Typography>
            <TextField
              label="Code from the app"
              value={code}
              onChange={(e) => {
                setCode(e.target.value);
              }}
              autoComplete="one-time-code"
              slotProps={{ htmlInput: { inputMode: 'numeric', maxLength: 6 } }}
            />
            <Stack direction="row" spacing={1}>
              <Button type="submit" variant="contained" disabled={busy}>
                Confirm
              </Button>
              <Button onClick={() => void cancel()} disabled={busy}>
                Cancel
              </Button>
            </Stack>
          </Stack>
        ) : (
          <Stack
            component="form"
            direction={{ xs: 'column', sm: 'row' }}
            spacing={1}
            onSubmit={(e) => void start(e)}
            noValidate
          >
            <TextField
              label="Name"
              size="small"
              value={name}
              onChange={(e) => {
                setName(e.target.value);
              }}
            />
            <Button type="submit" variant="contained" disabled={busy || factors === undefined}>
              Add authenticator app
            </Button>
          </Stack>
        )}
      </Stack>
    </Paper>
  );
}
