import Alert from '@mui/material/Alert';
import Button from '@mui/material/Button';
import Link from '@mui/material/Link';
import Stack from '@mui/material/Stack';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import type { GoTrueClient } from '@supabase/auth-js';
import { useCallback, useState, type SyntheticEvent } from 'react';

import { errorText, fail, planFor, type Message } from './authPlan';
import { authRedirectUrl } from './client';
import { usePublicConfig } from '../publicConfig';
import { PasswordStrengthMeter } from './PasswordStrengthMeter';
import { usePasskeyAutofill } from './usePasskeyAutofill';
import { loadPasswordStrength } from './strengthLoader';
import { AUTH_WIDGET_TITLE_ID, UNEXPECTED_ERROR, type AuthView } from './widget';

const TITLES: Record<AuthView, string> = {
  sign_in: 'Sign in with email',
  sign_up: 'Create an account',
  forgotten_password: 'Reset your password',
  magic_link: 'Sign in with a magic link',
  update_password: 'Choose a new password',
  verify_otp: 'Sign in with a code',
};

interface Props {
  client: GoTrueClient | null;
  view: AuthView;
  onViewChange: (view: AuthView) => void;
  /** The invitation token to keep across e-mail links. */
  inviteToken?: string | null;
  /** Called after a password update (the USER_UPDATED event also switches the view to sign_in). */
  onPasswordUpdated?: () => void;
  /** Called when a typed code proved the address and the user must choose a new password. */
  onChoosePassword?: () => void;
  /** The signed-in account's address (choosing a new password), for the strength estimate. */
  accountEmail?: string;
}

/**
 * The authentication widget: sign in, create an account, forgotten password, magic link, six-digit code
 * and new password, against the identity service through the real auth client. Changing view clears the
 * form's messages.
 */
export function AuthWidget({
  client,
  view,
  onViewChange,
  inviteToken,
  onPasswordUpdated,
  onChoosePassword,
  accountEmail,
}: Props) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [code, setCode] = useState('');
  const [codeSent, setCodeSent] = useState(false);
  const [busy, setBusy] = useState(false);
  const [message, setMessage] = useState<Message>(null);
  const showError = useCallback((text: string) => {
    setMessage({ severity: 'error', text });
  }, []);

  usePasskeyAutofill(client, view, showError);

  const switchTo = (next: AuthView) => {
    setMessage(null);
    setCodeSent(false);
    setCode('');
    onViewChange(next);
  };

  const run = async (work: (auth: GoTrueClient) => Promise<Message>) => {
    if (!client) {
      setMessage({ severity: 'error', text: UNEXPECTED_ERROR });
      return;
    }
    setBusy(true);
    setMessage(null);
    try {
      setMessage(await work(client));
    } catch (error) {
      setMessage({ severity: 'error', text: errorText(error) });
    } finally {
      setBusy(false);
    }
  };

  // Without SMTP the links of e-mails are written to the server's log (the forms say so).
  const { mailSent } = usePublicConfig();

  const submit = (event: SyntheticEvent) => {
    event.preventDefault();
    const planned = planFor(view, {
      email,
      password,
      code,
      codeSent,
      redirectTo: authRedirectUrl(inviteToken),
      mailSent,
      onCodeSent: () => {
        setCodeSent(true);
      },
      onChoosePassword,
      onPasswordUpdated,
    });
    if ('invalid' in planned) {
      setMessage(fail(planned.invalid));
      return;
    }
    void run(planned.work);
  };

  const needsEmail = view !== 'update_password';
  const needsPassword = view === 'sign_in' || view === 'sign_up' || view === 'update_password';
  const submitLabel: Record<AuthView, string> = {
    sign_in: 'Sign in',
    sign_up: 'Create account',
    forgotten_password: 'Send reset link',
    magic_link: 'Send magic link',
    update_password: 'Update password',
    verify_otp: codeSent ? 'Verify code' : 'Send code',
  };

  const viewLink = (target: AuthView, label: string) => (
    <Link
      component="button"
      type="button"
      variant="body2"
      onClick={() => {
        switchTo(target);
      }}
    >
      {label}
    </Link>
  );

  return (
    <Stack component="form" noValidate onSubmit={submit} spacing={2} aria-label={TITLES[view]}>
      <Typography variant="h6" component="h2" id={AUTH_WIDGET_TITLE_ID}>
        {TITLES[view]}
      </Typography>
      {message && (
        <Alert severity={message.severity} role={message.severity === 'error' ? 'alert' : 'status'}>
          {message.text}
        </Alert>
      )}
      {view === 'update_password' && (
        <>
          <Typography variant="body2" color="text.secondary">
            You opened a link sent to this address. If the address had not been proven before, the
            link proved it and removed the password the account had (whoever chose it may not own
            this mailbox). Choose the password you will sign in with: until you do, the account has
            none, and you can only sign in with an e-mailed link or Forgot password.
          </Typography>
          <Typography variant="body2" color="text.secondary">
            Choosing a new password signs out every other session of your account and revokes the
            access tokens they made.
          </Typography>
        </>
      )}
      {needsEmail && (
        <TextField
          label="Email address"
          type="email"
          name="email"
          autoComplete={view === 'sign_in' ? 'username webauthn' : 'email'}
          required
          fullWidth
          value={email}
          disabled={view === 'verify_otp' && codeSent}
          onChange={(event) => {
            setEmail(event.target.value);
          }}
        />
      )}
      {needsPassword && (
        <TextField
          label={view === 'update_password' ? 'New password' : 'Password'}
          type="password"
          name="password"
          autoComplete={view === 'sign_in' ? 'current-password' : 'new-password'}
          required
          fullWidth
          value={password}
          helperText={view === 'sign_in' ? undefined : 'At least 12 characters.'}
          onFocus={() => {
            // A new password is judged as it is typed: its dictionaries start loading now.
            if (view !== 'sign_in') void loadPasswordStrength().catch(() => undefined);
          }}
          onChange={(event) => {
            setPassword(event.target.value);
          }}
        />
      )}
      {needsPassword && view !== 'sign_in' && (
        <PasswordStrengthMeter
          password={password}
          email={(email.trim() ? email : accountEmail) ?? ''}
        />
      )}
      {view === 'verify_otp' && codeSent && (
        <TextField
          label="Six-digit code"
          name="code"
          autoComplete="one-time-code"
          required
          fullWidth
          value={code}
          slotProps={{ htmlInput: { inputMode: 'numeric', maxLength: 6 } }}
          onChange={(event) => {
            setCode(event.target.value);
          }}
        />
      )}
      <Button type="submit" variant="contained" size="large" disabled={busy} fullWidth>
        {busy ? 'Please wait…' : submitLabel[view]}
      </Button>
      <Stack spacing={0.75} sx={{ alignItems: 'flex-start' }}>
        {view === 'sign_in' && (
          <>
            {viewLink('forgotten_password', 'Forgot your password?')}
            {viewLink('magic_link', 'Email me a magic link')}
            {viewLink('verify_otp', 'Sign in with a code')}
            {viewLink('sign_up', "Don't have an account? Create one")}
          </>
        )}
        {view === 'sign_up' && viewLink('sign_in', 'Already have an account? Sign in')}
        {(view === 'forgotten_password' || view === 'magic_link' || view === 'verify_otp') &&
          viewLink('sign_in', 'Back to sign in with a password')}
      </Stack>
    </Stack>
  );
}
