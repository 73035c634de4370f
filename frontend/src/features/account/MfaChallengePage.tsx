import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Paper from '@mui/material/Paper';
import Stack from '@mui/material/Stack';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import type { Factor } from '@supabase/auth-js';
import { useEffect, useState, type SyntheticEvent } from 'react';
import { useNavigate, useSearchParams } from 'react-router';

import { baseApi } from '../../api/baseApi';
import { useAppDispatch, useAppSelector } from '../../app/store';
import { PageSpinner } from '../../components/PageSpinner';
import { useDocumentTitle } from '../../components/useDocumentTitle';
import { paths } from '../../config/paths';
import { selectAuth } from '../../session/authSlice';
import { passkeyCancelled, passkeyErrorMessage, useAuthClient } from '../auth';
import { authErrorMessage } from './messages';

/** Where to go back to: a path of this site only. */
function safeNext(next: string | null): string {
  return next?.startsWith('/') && !next.startsWith('//') ? next : paths.dashboard;
}

/**
 * The second-factor step of sign-in (PRODUCT.md §1a): the account has an authenticator app or a passkey,
 * and this session has not passed it yet. A right code raises the session, and a passkey starts a new one
 * at the same level (auth-js saves either; the portal exchanges it again); then the user goes back where
 * they were.
 */
export function MfaChallengePage() {
  useDocumentTitle('Confirm it’s you');
  const client = useAuthClient();
  const dispatch = useAppDispatch();
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const next = safeNext(params.get('next'));
  const { mfaRequired } = useAppSelector(selectAuth);
  const [factors, setFactors] = useState<Factor[] | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [code, setCode] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [verified, setVerified] = useState(false);
  const [hasPasskey, setHasPasskey] = useState<boolean | null>(null);

  useEffect(() => {
    if (!client) return;
    let live = true;
    void client.mfa.listFactors().then(({ data, error: listError }) => {
      if (!live) return;
      if (listError) setLoadError(authErrorMessage(listError));
      else setFactors(data.totp);
    });
    // A failed list only hides the passkey choice: the code still works.
    void client.passkey.list().then(({ data }) => {
      if (live) setHasPasskey((data?.length ?? 0) > 0);
    });
    return () => {
      live = false;
    };
  }, [client]);

  // Back once the raised session has been exchanged (the guard would send the user here again before).
  useEffect(() => {
    if (verified && !mfaRequired) void navigate(next, { replace: true });
  }, [verified, mfaRequired, navigate, next]);

  if (!client || (!factors && !loadError) || hasPasskey === null)
    return <PageSpinner label="Loading your second factors" />;

  const withPasskey = async () => {
    setBusy(true);
    setError(null);
    const { error: passkeyError } = await client.signInWithPasskey();
    setBusy(false);
    if (passkeyError) {
      if (!passkeyCancelled(passkeyError)) setError(passkeyErrorMessage(passkeyError));
      return;
    }
    dispatch(baseApi.util.resetApiState());
    setVerified(true);
  };

  const submit = async (event: SyntheticEvent) => {
    event.preventDefault();
    const factor = factors?.[0];
    if (!factor) return;
    if (!/^\d{6}$/.test(code.trim())) {
      setError('Enter the six-digit code from your authenticator app.');
      return;
    }
    setBusy(true);
    setError(null);
    const { error: verifyError } = await client.mfa.challengeAndVerify({
      factorId: factor.id,
      code: code.trim(),
    });
    setBusy(false);
    if (verifyError) {
      setError(authErrorMessage(verifyError));
      return;
    }
    dispatch(baseApi.util.resetApiState());
    setVerified(true);
  };

  return (
    <Box sx={{ minHeight: '100vh', display: 'grid', placeItems: 'center', p: 2 }}>
      <Paper component="main" id="main" sx={{ p: 4, width: '100%', maxWidth: 420 }}>
        <Typography variant="h5" component="h1" gutterBottom>
          Confirm it’s you
        </Typography>
        {hasPasskey && (
          <Stack spacing={2} sx={{ mb: 3 }}>
            <Typography>Use your passkey or security key for this account.</Typography>
            {error && factors?.length === 0 && (
              <Alert severity="error" role="alert">
                {error}
              </Alert>
            )}
            <Button
              variant={factors?.length ? 'outlined' : 'contained'}
              disabled={busy || verified}
              onClick={() => void withPasskey()}
            >
              Use a passkey
            </Button>
          </Stack>
        )}
        {loadError ? (
          <Alert severity="error">{loadError}</Alert>
        ) : hasPasskey && factors?.length === 0 ? null : factors?.length === 0 ? (
          <Alert severity="warning">
            This account has no authenticator app to confirm with. Ask an administrator to reset
            your second factors.
          </Alert>
        ) : (
          <Stack component="form" spacing={2} onSubmit={(e) => void submit(e)} noValidate>
            <Typography>
              Enter the six-digit code that your authenticator app shows for this account.
            </Typography>
            {error && (
              <Alert severity="error" role="alert">
                {error}
              </Alert>
            )}
            <TextField
              label="Code"
              value={code}
              onChange={(e) => {
                setCode(e.target.value);
              }}
              autoComplete="one-time-code"
              autoFocus
              slotProps={{ htmlInput: { inputMode: 'numeric', maxLength: 6 } }}
            />
            <Button type="submit" variant="contained" disabled={busy || verified}>
              {busy || verified ? 'Checking…' : 'Continue'}
            </Button>
          </Stack>
        )}
        <Button
          sx={{ mt: 2 }}
          onClick={() => {
            void client.signOut();
          }}
        >
          Sign out instead
        </Button>
      </Paper>
    </Box>
  );
}
