import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Card from '@mui/material/Card';
import CardContent from '@mui/material/CardContent';
import Dialog from '@mui/material/Dialog';
import DialogContent from '@mui/material/DialogContent';
import Divider from '@mui/material/Divider';
import IconButton from '@mui/material/IconButton';
import Link from '@mui/material/Link';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import CloseIcon from '@mui/icons-material/Close';
import AppleIcon from '@mui/icons-material/Apple';
import EmailIcon from '@mui/icons-material/Email';
import KeyIcon from '@mui/icons-material/Key';
import GoogleIcon from '@mui/icons-material/Google';
import type { Provider } from '@supabase/auth-js';
import { lazy, Suspense, useEffect, useRef, useState, type ReactNode } from 'react';
import { Navigate, Link as RouterLink, useLocation, useSearchParams } from 'react-router';

import { useAppDispatch, useAppSelector } from '../../app/store';
import { Loading } from '../../components/Loading';
import { Logo } from '../../components/Logo';
import { PageSpinner } from '../../components/PageSpinner';
import { paths } from '../../config/paths';
import { ColorModeToggle } from '../../theme/ColorModeToggle';
import { publicConfigApi, useGetPublicConfigQuery, type PublicConfig } from '../publicConfig';
import { useAuthClient } from './AuthClientContext';
import { noticeShown, recoveryStarted, selectAuth } from '../../session/authSlice';
import { AcceptInvitation, InvitationPreview } from '../orgs';
import type { FromState } from './RequireAuth';
import { AUTH_WIDGET_TITLE_ID, UNEXPECTED_ERROR, type AuthView } from './widget';
import { useDocumentTitle } from '../../components/useDocumentTitle';
import { useHydrated } from './useHydrated';
import { passkeyCancelled, passkeyErrorMessage } from './passkeyMessages';
import { atPasskeyOrigin, passkeysElsewhere } from './passkeySite';
import { identityAuthUrl } from './identityUrl';

// The e-mail widget (its form fields and the identity client's calls) loads when its dialog opens: the
// page's own code is the card and its buttons.
const AuthWidget = lazy(async () => ({ default: (await import('./AuthWidget')).AuthWidget }));

/**
 * The two providers of the sign-in screen (spec §2), with the names people know them by and their marks
 * (the brand icons of `@mui/icons-material`, MIT-licensed, a dependency already). Only those the server
 * says are configured (`GET /api/public-config`) are shown.
 */
const PROVIDERS: { id: Provider; label: string; mark: ReactNode }[] = [
  { id: 'google', label: 'Google', mark: <GoogleIcon /> },
  { id: 'apple', label: 'Apple', mark: <AppleIcon /> },
];

/**
 * `/signin` (and `/login`, `/signup`, `/invite/accept`): the welcome screen with e-mail sign-in in a dialog
 * and the providers. `?token=` carries an organization invitation and is kept across sign-in.
 */
/** The query parameter that carries a passkey press from the IP address to the passkeys' origin. */
const PASSKEY_PARAM = 'passkey';
const PASSKEY_NOW = 'now';
const PASSKEY_HINT_ID = 'passkey-elsewhere-hint';

export function SignInPage() {
  useDocumentTitle('Sign in');
  const auth = useAppSelector(selectAuth);
  const dispatch = useAppDispatch();
  const client = useAuthClient();
  // Which providers to offer: none until the server has said (the page painted ahead of time has none).
  const { data: config } = useGetPublicConfigQuery();
  const providers = config ? PROVIDERS.filter(({ id }) => config.providers.includes(id)) : [];
  const location = useLocation();
  const [searchParams, setSearchParams] = useSearchParams();
  const inviteToken = searchParams.get('token');
  // The prerendered page has no invitation notice: shown once React has taken the markup over.
  const hydrated = useHydrated();
  const startsAsSignUp = location.pathname === paths.signUp;
  const [dialogOpen, setDialogOpen] = useState(false);
  const [view, setView] = useState<AuthView>(startsAsSignUp ? 'sign_up' : 'sign_in');
  const [providerMessage, setProviderMessage] = useState<string | null>(null);
  const [passkeyBusy, setPasskeyBusy] = useState(false);

  // Arriving from the loopback IP address with the passkey press carried over (`?passkey=now`): the
  // ceremony starts here at once, so the person presses once (issue 48 item 4).
  const passkeyCarried = searchParams.get(PASSKEY_PARAM) === PASSKEY_NOW;
  const carriedOnce = useRef(false);
  useEffect(() => {
    if (!passkeyCarried || carriedOnce.current || !client || !config) return;
    if (auth.status !== 'signedOut' || passkeysElsewhere(config)) return;
    carriedOnce.current = true;
    setSearchParams(
      (params) => {
        params.delete(PASSKEY_PARAM);
        return params;
      },
      { replace: true },
    );
    void Promise.resolve()
      .then(() => {
        setPasskeyBusy(true);
        return client.signInWithPasskey();
      })
      .then(({ error }) => {
        setPasskeyBusy(false);
        if (error && !passkeyCancelled(error)) setProviderMessage(passkeyErrorMessage(error));
      });
  }, [passkeyCarried, client, config, auth.status, setSearchParams]);

  // A recovery link signs the user in for one purpose: choosing a new password.
  const shownView: AuthView = auth.recovery ? 'update_password' : view;
  const shownOpen = dialogOpen || auth.recovery;

  // Where passkeys work when it is not here (a loopback IP address: browsers refuse it as their site).
  const passkeyElsewhere = config ? passkeysElsewhere(config) : null;
  const passkeyHost = passkeyElsewhere ? new URL(passkeyElsewhere).host : null;

  if (auth.status === 'loading') return <PageSpinner label="Checking your session" />;

  if (auth.status === 'signedIn' && !auth.recovery) {
    if (!inviteToken) {
      const from = (location.state as FromState | null)?.from;
      return <Navigate to={from ?? paths.dashboard} replace />;
    }
    return <AcceptInvitation token={inviteToken} />;
  }

  const openDialog = (initial: AuthView) => {
    setView(initial);
    setDialogOpen(true);
  };

  // A passkey signs in on its own (at the second-factor level); auth-js saves the session and the
  // session listener takes the user on.
  // A server at a loopback IP address serves passkeys at `localhost` (browsers refuse an IP address as a
  // passkey's site): the same page opens there.
  const signInWithPasskey = async () => {
    if (!client) return;
    setProviderMessage(null);
    setPasskeyBusy(true);
    const current = await dispatch(
      publicConfigApi.endpoints.getPublicConfig.initiate(undefined, { subscribe: false }),
    )
      .unwrap()
      .catch(() => null);
    const elsewhere = current && passkeysElsewhere(current);
    if (elsewhere) {
      const there = new URL(atPasskeyOrigin(elsewhere, window.location));
      there.searchParams.set(PASSKEY_PARAM, PASSKEY_NOW);
      window.location.assign(there.toString());
      return;
    }
    const { error } = await client.signInWithPasskey();
    setPasskeyBusy(false);
    if (error && !passkeyCancelled(error)) setProviderMessage(passkeyErrorMessage(error));
  };

  // Offered only once the configuration has arrived and names the provider.
  const signInWith = async (provider: Provider, current: PublicConfig) => {
    setProviderMessage(null);
    const authUrl = identityAuthUrl(current.identity);
    if (!authUrl) {
      setProviderMessage(UNEXPECTED_ERROR);
      return;
    }
    const auth = await import('./client');
    try {
      const oauth = auth.createOAuthClient(authUrl, current.identity.anonKey);
      const { error } = await oauth.signInWithOAuth({
        provider,
        options: { redirectTo: auth.authRedirectUrl(inviteToken) },
      });
      if (error) setProviderMessage(error.message ? error.message : UNEXPECTED_ERROR);
    } catch (error) {
      setProviderMessage(auth.isAuthError(error) ? error.message : UNEXPECTED_ERROR);
    }
  };

  return (
    <Box
      component="main"
      id="main"
      sx={{
        position: 'relative',
        minHeight: '100dvh',
        display: 'grid',
        placeItems: 'center',
        p: 2,
        bgcolor: 'background.default',
      }}
    >
      {/* The colour scheme, as on every other page (its top bar's corner). */}
      <Box sx={{ position: 'absolute', top: { xs: 8, sm: 16 }, right: { xs: 8, sm: 16 } }}>
        <ColorModeToggle />
      </Box>
      <Card sx={{ width: '100%', maxWidth: 440 }} variant="outlined">
        <CardContent sx={{ p: { xs: 3, sm: 4 } }}>
          <Stack spacing={3}>
            <Link
              component={RouterLink}
              to={paths.home}
              underline="none"
              color="inherit"
              sx={{ display: 'flex', alignItems: 'center', gap: 1.25, alignSelf: 'center' }}
            >
              <Logo size={40} />
              <Typography component="span" sx={{ fontWeight: 700, fontSize: '1.25rem' }}>
                Developer Portal
              </Typography>
            </Link>
            <Box sx={{ textAlign: 'center' }}>
              <Typography variant="h4" component="h1" sx={{ fontWeight: 700, mb: 1 }}>
                Welcome
              </Typography>
              <Typography color="text.secondary">
                Sign in to build and publish apps for smart glasses.
              </Typography>
            </Box>
            {inviteToken && hydrated && <InvitationPreview token={inviteToken} />}
            {auth.notice && (
              <Alert
                severity={auth.notice.severity}
                onClose={() => dispatch(noticeShown(null))}
                role={auth.notice.severity === 'error' ? 'alert' : 'status'}
              >
                {auth.notice.text}
              </Alert>
            )}
            {/* Off in the page built ahead of time until React has taken it over: a press before that
                would be lost (the dialog it opens is React's). */}
            <Button
              variant="contained"
              size="large"
              startIcon={<EmailIcon />}
              disabled={!hydrated}
              onClick={() => {
                openDialog(startsAsSignUp ? 'sign_up' : 'sign_in');
              }}
            >
              Continue with Email
            </Button>
            <Button
              variant="outlined"
              size="large"
              startIcon={<KeyIcon />}
              disabled={!client || passkeyBusy}
              onClick={() => void signInWithPasskey()}
              aria-describedby={passkeyHost ? PASSKEY_HINT_ID : undefined}
            >
              {passkeyBusy ? 'Waiting for your passkey…' : 'Sign in with a passkey'}
            </Button>
            {passkeyHost && (
              <Typography id={PASSKEY_HINT_ID} variant="body2" color="text.secondary">
                Passkeys work at {passkeyHost}: the button opens this page there and asks for your
                passkey at once.
              </Typography>
            )}
            {config && providers.length > 0 && (
              <>
                <Divider>
                  <Typography variant="body2" color="text.secondary">
                    Or continue with
                  </Typography>
                </Divider>
                <Stack direction="row" spacing={1.5}>
                  {providers.map(({ id, label, mark }) => (
                    <Button
                      key={id}
                      variant="outlined"
                      size="large"
                      fullWidth
                      startIcon={mark}
                      onClick={() => void signInWith(id, config)}
                    >
                      {label}
                    </Button>
                  ))}
                </Stack>
              </>
            )}
            {providerMessage && (
              <Alert severity="warning" role="alert">
                {providerMessage}
              </Alert>
            )}
          </Stack>
        </CardContent>
      </Card>
      <Dialog
        open={shownOpen}
        onClose={() => {
          setDialogOpen(false);
        }}
        fullWidth
        maxWidth="xs"
        aria-labelledby={AUTH_WIDGET_TITLE_ID}
      >
        <IconButton
          aria-label="Close"
          onClick={() => {
            setDialogOpen(false);
          }}
          sx={{ position: 'absolute', right: 8, top: 8 }}
        >
          <CloseIcon />
        </IconButton>
        <DialogContent sx={{ pt: 3 }}>
          <Suspense fallback={<Loading label="Loading..." />}>
            <AuthWidget
              client={client}
              view={shownView}
              onViewChange={setView}
              inviteToken={inviteToken}
              onPasswordUpdated={() => {
                dispatch(
                  noticeShown({ severity: 'success', text: 'Your password has been updated' }),
                );
              }}
              onChoosePassword={() => dispatch(recoveryStarted())}
              accountEmail={auth.user?.email}
            />
          </Suspense>
        </DialogContent>
      </Dialog>
    </Box>
  );
}
