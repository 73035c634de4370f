import Alert from '@mui/material/Alert';
import Button from '@mui/material/Button';
import Stack from '@mui/material/Stack';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import type { GoTrueClient } from '@supabase/auth-js';
import { useId, useState, type SyntheticEvent } from 'react';

import { useAppSelector } from '../../app/store';
import { selectAuthUser } from '../../session/authSlice';
import { authErrorMessage } from './messages';

/**
 * The identity service adds a first second factor only shortly after a sign-in (400
 * `reauthentication_needed` otherwise): the current password signs in again (a fresh session, as
 * `signInWithPassword` starts one), and `onConfirmed` then retries what was refused. An account without a
 * password signs out and in again instead.
 */
export function ConfirmPassword({
  client,
  what,
  onConfirmed,
  onCancel,
}: {
  client: GoTrueClient;
  /** What the password is asked for ("add an authenticator app"). */
  what: string;
  onConfirmed: () => Promise<void> | void;
  onCancel: () => void;
}) {
  const email = useAppSelector(selectAuthUser)?.email ?? '';
  const [password, setPassword] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const labelId = useId();

  const submit = async (event: SyntheticEvent) => {
    event.preventDefault();
    if (!password) {
      setError('Enter your current password.');
      return;
    }
    setBusy(true);
    setError(null);
    const { error: signInError } = await client.signInWithPassword({ email, password });
    if (signInError) {
      setBusy(false);
      setError(
        signInError.code === 'invalid_credentials'
          ? 'That is not your current password.'
          : authErrorMessage(signInError),
      );
      return;
    }
    setPassword('');
    await onConfirmed();
    setBusy(false);
  };

  return (
    <Stack
      component="form"
      spacing={2}
      onSubmit={(e) => void submit(e)}
      noValidate
      aria-labelledby={labelId}
    >
      <Typography id={labelId}>
        For your safety, confirm your password to {what}: you signed in more than a few minutes ago.
      </Typography>
      {error && (
        <Alert severity="error" role="alert">
          {error}
        </Alert>
      )}
      <TextField
        label="Current password"
        type="password"
        name="current-password"
        autoComplete="current-password"
        autoFocus
        value={password}
        onChange={(e) => {
          setPassword(e.target.value);
          setError(null);
        }}
      />
      <Stack direction="row" spacing={1} sx={{ flexWrap: 'wrap', rowGap: 1 }}>
        <Button type="submit" variant="contained" disabled={busy}>
          {busy ? 'Checking…' : 'Confirm password'}
        </Button>
        <Button onClick={onCancel} disabled={busy}>
          Cancel
        </Button>
      </Stack>
      <Typography variant="body2" color="text.secondary">
        No password on this account?{' '}
        <Button
          size="small"
          sx={{ verticalAlign: 'baseline', p: 0, minWidth: 0 }}
          onClick={() => void client.signOut()}
        >
          Sign out and sign in again
        </Button>
        , then come back here within ten minutes.
      </Typography>
    </Stack>
  );
}
