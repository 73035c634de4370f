// What the auth-js flow tests do the same way: assert an AuthApiError's status and code, make a confirmed
// account through sign-up and the confirmation e-mail, and sign in with the password.
import assert from 'node:assert/strict';
import { isAuthApiError } from '@supabase/auth-js';

import { authClient } from './harness.mjs';
import { PASSWORD } from './journey.mjs';

export { PASSWORD };

/** Asserts that `error` is the identity API's error with this HTTP status and `error_code`. */
export function assertApiError(error, status, code) {
  assert.ok(isAuthApiError(error), `an AuthApiError, got: ${error}`);
  assert.equal(error.status, status, error.message);
  assert.equal(error.code, code, error.message);
}

/**
 * Signs `email` up (with `data` as its user metadata) and confirms it with the link of the confirmation
 * e-mail, which must be the first e-mail to that address.
 */
export async function confirmedAccount({ portal, smtp }, email, data) {
  const client = await authClient(portal);
  const { error } = await client.signUp({ email, password: PASSWORD, ...(data ? { options: { data } } : {}) });
  assert.equal(error, null);
  const mail = await smtp.mailTo(email);
  const token_hash = new URL(mail.link).searchParams.get('token');
  const verified = await client.verifyOtp({ token_hash, type: 'signup' });
  assert.equal(verified.error, null);
}

/** A client signed in with the password. */
export async function signedIn(portal, email) {
  const client = await authClient(portal);
  const { data, error } = await client.signInWithPassword({ email, password: PASSWORD });
  assert.equal(error, null);
  assert.equal(data.session.user.email, email);
  return client;
}
