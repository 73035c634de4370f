import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Paper from '@mui/material/Paper';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import { skipToken } from '@reduxjs/toolkit/query';
import { useEffect, useState } from 'react';
import { Link as RouterLink, useNavigate, useSearchParams } from 'react-router';

import { baseApi } from '../../api/baseApi';
import { useAppDispatch, useAppSelector } from '../../app/store';
import { PageSpinner } from '../../components/PageSpinner';
import { useDocumentTitle } from '../../components/useDocumentTitle';
import { paths } from '../../config/paths';
import { selectAuth } from '../../session/authSlice';
import {
  atPasskeyOrigin,
  passkeyCancelled,
  passkeyErrorMessage,
  passkeysElsewhere,
  useAuthClient,
} from '../auth';
import { usePublicConfig } from '../publicConfig';
import { accountErrorMessage, identityKey, useHasPasskeyQuery, useListFactorsQuery } from './api';
import { safeNext } from './next';
import { SecondFactorCodeForm } from './SecondFactorCodeForm';

/**
 * One WebAuthn way through the challenge step (a passkey, or a security key): its button, or where a server at a
 * loopback IP address serves WebAuthn (`localhost`, since browsers refuse an IP address as its site), a link to
 * the sign-in page there.
 */
function WebAuthnChoice({
  intro,
  action,
  elsewhereAction,
  error,
  primary,
  elsewhere,
  disabled,
  onUse,
}: {
  intro: string;
  action: string;
  elsewhereAction: string;
  error: string | null;
  primary: boolean;
  elsewhere: string | null;
  disabled: boolean;
  onUse: () => void;
}) {
  const variant = primary ? 'contained' : 'outlined';
  return (
    <Stack spacing={2} sx={{ mb: 3 }}>
      <Typography>{intro}</Typography>
      {error && (
        <Alert severity="error" role="alert">
          {error}
        </Alert>
      )}
      {elsewhere ? (
        <Button
          variant={variant}
          href={atPasskeyOrigin(elsewhere, { pathname: paths.signIn(), search: '', hash: '' })}
        >
          {elsewhereAction} {new URL(elsewhere).host}
        </Button>
      ) : (
        <Button variant={variant} disabled={disabled} onClick={onUse}>
          {action}
        </Button>
      )}
    </Stack>
  );
}

/**
 * The second-factor step of sign-in (PRODUCT.md §1a): the account has an authenticator app, recovery codes,
 * a security key (a `webauthn` factor) or a passkey, and this session has not passed it yet. A right code
 * (from the app, or a recovery code) or the security key raises the session, and a passkey starts a new one
 * at the same level (auth-js saves either; the portal exchanges it again); then the user goes back where
 * they were.
 */
export function MfaChallengePage() {
  useDocumentTitle('Confirm it’s you');
  const client = useAuthClient();
  const dispatch = useAppDispatch();
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const next = safeNext(params.get('next'), paths.dashboard);
  const { mfaRequired } = useAppSelector(selectAuth);
  const key = client ? identityKey(client) : skipToken;
  const list = useListFactorsQuery(key, { refetchOnMountOrArgChange: true });
  // A failed list (an error answered or thrown) only hides the passkey choice: the codes still work.
  const passkey = useHasPasskeyQuery(key, { refetchOnMountOrArgChange: true });
  const factors = list.data?.totp;
  const securityKeys = list.data?.webauthn ?? [];
  const hasRecoveryCodes = (list.data?.recoveryCode.length ?? 0) > 0;
  const hasPasskey = passkey.data ?? null;
  const loadError = list.isError
    ? accountErrorMessage(list.error, 'Could not read your second factors.')
    : null;
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [verified, setVerified] = useState(false);
  const elsewhere = passkeysElsewhere(usePublicConfig());

  // Back once the raised session has been exchanged (the guard would send the user here again before).
  useEffect(() => {
    if (verified && !mfaRequired) void navigate(next, { replace: true });
  }, [verified, mfaRequired, navigate, next]);

  if (!client || (!factors && !loadError) || hasPasskey === null)
    return <PageSpinner label="Loading your second factors" />;

  // The code form: an authenticator app's code, or a recovery code.
  const formShown = (factors?.length ?? 0) > 0 || hasRecoveryCodes;

  const withPasskey = async () => {
    setBusy(true);
    setError(null);
    const { data: before } = await client.getSession();
    const { data, error: passkeyError } = await client.signInWithPasskey();
    if (passkeyError) {
      setBusy(false);
      if (!passkeyCancelled(passkeyError)) setError(passkeyErrorMessage(passkeyError));
      return;
    }
    const mine = before.session;
    if (mine && data.user?.id !== mine.user.id) {
      // Another account's passkey signed that account in: its session goes, this one stays at the step.
      await client.signOut({ scope: 'local' });
      await client.setSession({
        access_token: mine.access_token,
        refresh_token: mine.refresh_token,
      });
      setBusy(false);
      setError(
        'That passkey belongs to another account. Use a passkey of this account, or another way below.',
      );
      return;
    }
    setBusy(false);
    dispatch(baseApi.util.resetApiState());
    setVerified(true);
  };

  const withSecurityKey = async () => {
    const factor = securityKeys[0];
    if (!factor) return;
    setBusy(true);
    setError(null);
    const { error: keyError } = await client.mfa.webauthn.authenticate({ factorId: factor.id });
    setBusy(false);
    if (keyError) {
      if (passkeyCancelled(keyError)) return;
      setError(
        keyError.code === 'webauthn_verification_failed'
          ? 'That security key is not the one added to this account, or could not be checked.'
          : passkeyErrorMessage(keyError),
      );
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
          <WebAuthnChoice
            intro="Use your passkey or security key for this account."
            action="Use a passkey"
            elsewhereAction="Use a passkey at"
            error={error && !formShown ? error : null}
            primary={!formShown}
            elsewhere={elsewhere}
            disabled={busy || verified}
            onUse={() => void withPasskey()}
          />
        )}
        {securityKeys.length > 0 && (
          <WebAuthnChoice
            intro="Touch your security key, or use the device it was added on."
            action="Use your security key"
            elsewhereAction="Use your security key at"
            error={error && !formShown && !hasPasskey ? error : null}
            primary={!formShown && !hasPasskey}
            elsewhere={elsewhere}
            disabled={busy || verified}
            onUse={() => void withSecurityKey()}
          />
        )}
        {loadError ? (
          <Alert severity="error">{loadError}</Alert>
        ) : (hasPasskey || securityKeys.length > 0) && !formShown ? null : !formShown ? (
          // Nothing to confirm with yet (platform staff, or a member of an organization that requires a
          // second factor, before adding one): the way to add one, never a dead end.
          <Stack spacing={2}>
            <Alert severity="info">
              This account has no second factor yet. Add an authenticator app (or a passkey) on
              Account Security, then confirm it’s you with it.
            </Alert>
            <Button component={RouterLink} to={paths.addSecondFactor(next)} variant="contained">
              Add a second factor
            </Button>
          </Stack>
        ) : (
          <SecondFactorCodeForm
            client={client}
            totpFactorId={factors?.[0]?.id ?? null}
            hasRecoveryCodes={hasRecoveryCodes}
            error={error}
            onError={setError}
            disabled={busy || verified}
            onVerified={() => {
              dispatch(baseApi.util.resetApiState());
              setVerified(true);
            }}
          />
        )}
        <Button
          sx={{ mt: 2 }}
          onClick={() => {
            void client.signOut({ scope: 'local' });
          }}
        >
          Sign out instead
        </Button>
      </Paper>
    </Box>
  );
}
