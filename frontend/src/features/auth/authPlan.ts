import { isAuthError, type GoTrueClient } from '@supabase/auth-js';

import { UNEXPECTED_ERROR, type AuthView } from './widget';

/** What the widget says after its work: a success, an error or a note; `null` for nothing. */
export type Message = { severity: 'success' | 'error' | 'info'; text: string } | null;

export const EMPTY_EMAIL = 'Please enter your email address.';
export const MISSING_CREDENTIALS = 'Please enter your email address and password.';

/** Whether the identity service asks the user of this new session to choose a password. */
function choosesPassword(session: unknown): boolean {
  return (
    typeof session === 'object' &&
    session !== null &&
    (session as { choose_password?: unknown }).choose_password === true
  );
}

/** A provider's error as it returned it; anything else as the generic message (spec §8). */
export function errorText(error: unknown): string {
  return isAuthError(error) && error.message ? error.message : UNEXPECTED_ERROR;
}

export const fail = (text: string): Message => ({ severity: 'error', text });

/** What the form holds, and what the widget is told when a view's work has done its part. */
export interface PlanInput {
  email: string;
  password: string;
  code: string;
  codeSent: boolean;
  /** Where e-mail links lead back to (keeping an invitation). */
  redirectTo: string;
  /** Whether the server sends e-mail (`false`: its links are written to the server's log). */
  mailSent: boolean;
  onCodeSent: () => void;
  onChoosePassword?: () => void;
  onPasswordUpdated?: () => void;
}

/** What `view` does with the form: a refusal of its input, or the work to run with the auth client. */
export function planFor(
  view: AuthView,
  {
    email,
    password,
    code,
    codeSent,
    redirectTo,
    mailSent,
    onCodeSent,
    onChoosePassword,
    onPasswordUpdated,
  }: PlanInput,
): { invalid: string } | { work: (auth: GoTrueClient) => Promise<Message> } {
  const trimmedEmail = email.trim();
  // Where what was sent is: the mailbox, or (without SMTP) the server's log.
  const sent = (what: string) =>
    mailSent
      ? `Check your email for ${what}`
      : `This portal sends no e-mail (no SMTP server is set up): ${what} was written to the server's log, where whoever runs the portal can copy it for you.`;
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
                text: mailSent
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
            onCodeSent();
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
}
