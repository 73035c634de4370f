import Alert from '@mui/material/Alert';
import Button from '@mui/material/Button';
import Stack from '@mui/material/Stack';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import { isAuthError, type GoTrueClient } from '@supabase/auth-js';
import type { Store } from '@reduxjs/toolkit';
import { useId, useState, type SyntheticEvent } from 'react';
import { useStore } from 'react-redux';

import { useAppSelector, type RootState } from '../../app/store';
import { selectAuthUser } from '../../session/authSlice';
import { authErrorMessage } from './messages';
import { SecondFactorCodeForm } from './SecondFactorCodeForm';

/** How long to wait for the session signed in again to reach the store (its exchange for a core token). */
const EXCHANGE_WAIT_MS = 10_000;

/**
 * Resolves once the store holds the exchange of the identity session `accessToken` (or after a while): what
 * is retried then goes with the new session's core token, not with the one before (nor, for an account with
 * a second factor, with the password's `aal1` session).
 */
function exchanged(store: Store<RootState>, accessToken: string): Promise<void> {
  return new Promise((resolve) => {
    if (store.getState().auth.accessToken === accessToken) {
      resolve();
      return;
    }
    const done = () => {
      clearTimeout(timer);
      unsubscribe();
      resolve();
    };
    const timer = setTimeout(done, EXCHANGE_WAIT_MS);
    const unsubscribe = store.subscribe(() => {
      if (store.getState().auth.accessToken === accessToken) done();
    });
  });
}

/** What the second step of the confirmation may use, once the password has signed in again. */
interface SecondStep {
  totpFactorId: string | null;
  hasRecoveryCodes: boolean;
}

/**
 * What the session just signed in with the password must still pass: nothing (`step: null`) when the
 * account has no second factor, else the code form's ways (an authenticator app, recovery codes); an
 * account whose only second factor is a passkey or a security key signs in again with it instead.
 */
async function secondStep(
  client: GoTrueClient,
): Promise<{ step: SecondStep | null } | { error: string }> {
  try {
    const { data: level, error: levelError } = await client.mfa.getAuthenticatorAssuranceLevel();
    if (levelError) return { error: authErrorMessage(levelError) };
    if (level.nextLevel !== 'aal2' || level.currentLevel === 'aal2') return { step: null };
    const { data: factors, error: listError } = await client.mfa.listFactors();
    if (listError) return { error: authErrorMessage(listError) };
    const totpFactorId = factors.totp[0]?.id ?? null;
    const hasRecoveryCodes = factors.recovery_code.length > 0;
    if (!totpFactorId && !hasRecoveryCodes) {
      return {
        error:
          'This account’s second factor is a passkey or a security key: sign out, sign in again with it, then come back here within ten minutes.',
      };
    }
    return { step: { totpFactorId, hasRecoveryCodes } };
  } catch (error) {
    return {
      error: isAuthError(error)
        ? authErrorMessage(error)
        : 'Something went wrong. Please try again.',
    };
  }
}

/**
 * Sudo mode: adding a way in (a factor, a passkey, recovery codes, an access token) needs a sign-in of the
 * last ten minutes (400 `reauthentication_needed`, 403 `RECENT_SIGN_IN_NEEDED` otherwise), for every
 * account. The current password signs in again (a fresh session, as `signInWithPassword` starts one); an
 * account with a second factor then passes it too (the password alone gives an `aal1` session, which may
 * add nothing), with the same code form as the sign-in challenge; `onConfirmed` then retries what was
 * refused. An account without a password signs out and in again instead.
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
  const [second, setSecond] = useState<SecondStep | null>(null);
  const labelId = useId();
  const store = useStore<RootState>();

  /** The step is complete: once its session is the store's, what was refused runs again. */
  const confirmed = async () => {
    const { data } = await client.getSession();
    if (data.session) await exchanged(store, data.session.access_token);
    await onConfirmed();
  };

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
    // The account has a second factor: the fresh (`aal1`) session passes it before it may add anything.
    const second = await secondStep(client);
    if ('error' in second) {
      setBusy(false);
      setError(second.error);
      return;
    }
    if (second.step) {
      setBusy(false);
      setSecond(second.step);
      return;
    }
    await confirmed();
    setBusy(false);
  };

  const signOutLink = (
    <Button
      size="small"
      sx={{ verticalAlign: 'baseline', p: 0, minWidth: 0 }}
      onClick={() => void client.signOut({ scope: 'local' })}
    >
      Sign out and sign in again
    </Button>
  );

  if (second) {
    return (
      <Stack spacing={2} aria-labelledby={labelId} role="group">
        <Typography id={labelId}>
          Your password is confirmed. This account has a second factor: confirm it too to {what}.
        </Typography>
        <SecondFactorCodeForm
          client={client}
          totpFactorId={second.totpFactorId}
          hasRecoveryCodes={second.hasRecoveryCodes}
          error={error}
          onError={setError}
          onVerified={confirmed}
        >
          <Button onClick={onCancel}>Cancel</Button>
        </SecondFactorCodeForm>
      </Stack>
    );
  }

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
        No password on this account? {signOutLink}, then come back here within ten minutes.
      </Typography>
    </Stack>
  );
}
