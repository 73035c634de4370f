import Alert from '@mui/material/Alert';
import Button from '@mui/material/Button';
import Link from '@mui/material/Link';
import Stack from '@mui/material/Stack';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import { isAuthError, type GoTrueClient } from '@supabase/auth-js';
import { useEffect, useState, type SyntheticEvent } from 'react';

import { authRedirectUrl } from './client';
import { usePublicConfig } from '../publicConfig';
import { passkeyCancelled, passkeyErrorMessage } from './passkeyMessages';
import { passkeysElsewhere } from './passkeySite';
import { PasswordStrengthMeter } from './PasswordStrengthMeter';
import { loadPasswordStrength } from './strengthLoader';
import { AUTH_WIDGET_TITLE_ID, UNEXPECTED_ERROR, type AuthView } from './widget';

type Message = { severity: 'success' | 'error' | 'info'; text: string } | null;

export const EMPTY_EMAIL = 'Please enter your email address.';
export const MISSING_CREDENTIALS = 'Please enter your email address and password.';

const TITLES: Record<AuthView, string> = {
  sign_in: 'Sign in with email',
  sign_up: 'Create an account',
  forgotten_password: 'Reset your password',
  magic_link: 'Sign in with a magic link',
  update_password: 'Choose a new password',
  verify_otp: 'Sign in with a code',
};

/** Whether the identity service asks the user of this new session to choose a password. */
function choosesPassword(session: unknown): boolean {
  return (
    typeof session === 'object' &&
    session !== null &&
    (session as { choose_password?: unknown }).choose_password === true
  );
}

/** A provider's error as it returned it; anything else as the generic message (spec §8). */
function errorText(error: unknown): string {
  return isAuthError(error) && error.message ? error.message : UNEXPECTED_ERROR;
}

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
  const publicConfig = usePublicConfig();
  const elsewhere = passkeysElsewhere(publicConfig);
  // Without SMTP the server writes the e-mail's link to its log: say where it is, not "check your email".
  const sent = (what: string) =>
    publicConfig.mailSent
      ? `Check your email for ${what}`
      : `This portal sends no e-mail (no SMTP server is set up): ${what} was written to the server's log, where whoever runs the portal can copy it for you.`;

  // Passkey autofill (WebAuthn conditional UI): while the sign-in form is open, the e-mail field offers the
  // device's passkeys for this site; choosing one signs in (auth-js saves the session).
  useEffect(() => {
    // Not where passkeys work (a server at a loopback IP address serves them at `localhost`).
    if (view !== 'sign_in' || !client || elsewhere) return;
    const controller = new AbortController();
    const closed = () => controller.signal.aborted;
    void (async () => {
      // Not every browser (nor the test DOM) has WebAuthn or its conditional UI.
      const webauthn = (
        window as {
          PublicKeyCredential?: { isConditionalMediationAvailable?: () => Promise<boolean> };
        }
      ).PublicKeyCredential;
      const available = (await webauthn?.isConditionalMediationAvailable?.()) ?? false;
      if (!available || closed()) return;
      const { error } = await client.signInWithPasskey({
        options: { mediation: 'conditional', signal: controller.signal },
      });
      if (error && !closed() && !passkeyCancelled(error)) {
        setMessage({ severity: 'error', text: passkeyErrorMessage(error) });
      }
    })();
    return () => {
      controller.abort();
    };
  }, [client, view, elsewhere]);

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

  const fail = (text: string): Message => ({ severity: 'error', text });
  const trimmedEmail = email.trim();

  /** What the current view does with the form: a refusal of its input, or the work to run. */
  const plan = (): { invalid: string } | { work: (auth: GoTrueClient) => Promise<Message> } => {
    const redirectTo = authRedirectUrl(inviteToken);
    switch (view) {
      case 'sign_in':
        if (!trimmedEmail || !password) return { invalid: MISSING_CREDENTIALS };
        return {
          work: async (auth) => {
            const { error } = await auth.signInWithPassword({ email: trimmedEmail, password });
            return error ? fail(errorText(error)) : null;
          },
        };
      case 'sign_up':
        if (!trimmedEmail || !password) return { invalid: MISSING_CREDENTIALS };
        return {
          work: async (auth) => {
            const { data, error } = await auth.signUp({
              email: trimmedEmail,
              password,
              options: { emailRedirectTo: redirectTo },
            });
            if (error) return fail(errorText(error));
            // Without e-mail confirmation the server answers with a session: the user is in.
            return data.session
              ? null
              : {
                  severity: 'success',
                  text: publicConfig.mailSent
                    ? 'Account created! Check your email for confirmation.'
                    : `Account created! ${sent('the confirmation link')}`,
                };
          },
        };
      case 'forgotten_password':
        if (!trimmedEmail) return { invalid: EMPTY_EMAIL };
        return {
          work: async (auth) => {
            const { error } = await auth.resetPasswordForEmail(trimmedEmail, { redirectTo });
            return error
              ? fail(errorText(error))
              : { severity: 'success', text: sent('the password reset link') };
          },
        };
      case 'magic_link':
        if (!trimmedEmail) return { invalid: EMPTY_EMAIL };
        return {
          work: async (auth) => {
            const { error } = await auth.signInWithOtp({
              email: trimmedEmail,
              options: { emailRedirectTo: redirectTo },
            });
            return error
              ? fail(errorText(error))
              : { severity: 'success', text: sent('the magic link') };
          },
        };
      case 'verify_otp':
        if (!trimmedEmail) return { invalid: EMPTY_EMAIL };
        if (!codeSent) {
          return {
            work: async (auth) => {
              const { error } = await auth.signInWithOtp({
                email: trimmedEmail,
                options: { emailRedirectTo: redirectTo },
              });
              if (error) return fail(errorText(error));
              setCodeSent(true);
              return { severity: 'success', text: sent('the six-digit code') };
            },
          };
        }
        if (!/^\d{6}$/.test(code.trim())) {
          return { invalid: 'Please enter the six-digit code from the email.' };
        }
        return {
          work: async (auth) => {
            const { data, error } = await auth.verifyOtp({
              email: trimmedEmail,
              token: code.trim(),
              type: 'email',
            });
            if (error) return fail(errorText(error));
            // The code first proved the address and removed a password someone else had set: the owner
            // chooses one now, as after a recovery link.
            if (choosesPassword(data.session)) onChoosePassword?.();
            return null;
          },
        };
      case 'update_password':
        if (!password) return { invalid: 'Please enter a new password.' };
        return {
          work: async (auth) => {
            const { error } = await auth.updateUser({ password });
            if (error) return fail(errorText(error));
            onPasswordUpdated?.();
            return { severity: 'success', text: 'Your password has been updated' };
          },
        };
    }
  };

  const submit = (event: SyntheticEvent) => {
    event.preventDefault();
    const planned = plan();
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
