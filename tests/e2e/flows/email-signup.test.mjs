// Sign-up, confirmation, password sign-in and password recovery with the real `@supabase/auth-js` client
// against a real portal that sends real e-mail (aiosmtpd): the links and codes come from the messages.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import { authClient, saveLogs, startPortal, startSmtp, urlParams } from '../support/harness.mjs';
import { PASSWORD, assertApiError } from '../support/flows.mjs';

const NEW_PASSWORD = 'a brand new passphrase for glasses';

let smtp;
let portal;

before(async () => {
  smtp = await startSmtp();
  portal = await startPortal({ SMTP_URL: smtp.url });
});

after(async () => {
  if (portal) saveLogs('flows-email-signup-portal', portal.logs());
  await portal?.stop();
  await smtp?.stop();
});

/** The token of an e-mail link (what GoTrue's templates call the token hash). */
function tokenOf(link) {
  return new URL(link).searchParams.get('token');
}

describe('sign-up and password', () => {
  test('sign up, refused before confirmation, confirmed with verifyOtp({ token_hash })', async () => {
    const email = 'ada@example.com';
    const client = await authClient(portal);
    const signedUp = await client.signUp({
      email,
      password: PASSWORD,
      options: { emailRedirectTo: `${portal.url}/dashboard`, data: { full_name: 'Ada' } },
    });
    assert.equal(signedUp.error, null);
    assert.equal(signedUp.data.session, null, 'with SMTP the account waits for its confirmation');
    assert.equal(signedUp.data.user.email, email);
    assert.equal(signedUp.data.user.email_confirmed_at ?? null, null);

    const early = await client.signInWithPassword({ email, password: PASSWORD });
    assertApiError(early.error, 400, 'email_not_confirmed');
    assert.equal(early.data.session, null);

    const mail = await smtp.mailTo(email);
    assert.ok(mail.link, `a confirmation link in: ${mail.message}`);
    assert.equal(new URL(mail.link).searchParams.get('type'), 'signup');
    const verified = await client.verifyOtp({ token_hash: tokenOf(mail.link), type: 'signup' });
    assert.equal(verified.error, null);
    assert.equal(verified.data.session.user.email, email);
    assert.ok(verified.data.session.refresh_token);
    assert.ok(verified.data.user.email_confirmed_at, 'the address is confirmed');

    const { data: stored } = await client.getSession();
    assert.equal(stored.session.user.email, email, 'the client keeps the session');
    const { data: user, error } = await client.getUser();
    assert.equal(error, null);
    assert.equal(user.user.email, email);
    assert.equal(user.user.user_metadata.full_name, 'Ada');

    // The link is spent by the confirmation.
    const again = await client.verifyOtp({ token_hash: tokenOf(mail.link), type: 'signup' });
    assertApiError(again.error, 403, 'otp_expired');
  });

  test('the confirmation link itself redirects with the session in the fragment, once', async () => {
    const email = 'bob@example.com';
    const client = await authClient(portal);
    const { error } = await client.signUp({
      email,
      password: PASSWORD,
      options: { emailRedirectTo: `${portal.url}/dashboard` },
    });
    assert.equal(error, null);
    const mail = await smtp.mailTo(email);

    const followed = await client.browserFetch(mail.link, { redirect: 'manual' });
    assert.ok([302, 303].includes(followed.status), `a redirect, got ${followed.status}`);
    const location = followed.headers.get('location');
    assert.ok(location.startsWith(`${portal.url}/dashboard#`), location);
    const fragment = urlParams(location);
    assert.equal(fragment.type, 'signup');
    assert.equal(fragment.token_type, 'bearer');
    assert.ok(fragment.access_token && fragment.refresh_token, location);
    assert.ok(Number(fragment.expires_in) > 0);

    // What detectSessionInUrl would do in a browser: the client takes the session from the fragment.
    const taken = await client.setSession({
      access_token: fragment.access_token,
      refresh_token: fragment.refresh_token,
    });
    assert.equal(taken.error, null);
    assert.equal(taken.data.user.email, email);

    const reused = await fetch(mail.link, { redirect: 'manual' });
    const refused = urlParams(reused.headers.get('location'));
    assert.equal(refused.error, 'access_denied');
    assert.equal(refused.error_code, 'otp_expired');
    assert.ok(refused.error_description);
  });

  test('password sign-in: the right password, a wrong one, an unknown address', async () => {
    const client = await authClient(portal);
    const right = await client.signInWithPassword({ email: 'ada@example.com', password: PASSWORD });
    assert.equal(right.error, null);
    assert.equal(right.data.session.user.email, 'ada@example.com');
    assert.equal(right.data.session.token_type, 'bearer');

    const wrong = await (await authClient(portal)).signInWithPassword({
      email: 'ada@example.com',
      password: 'not the right password at all',
    });
    assertApiError(wrong.error, 400, 'invalid_credentials');
    assert.equal(wrong.error.message, 'Invalid login credentials');
    const unknown = await (await authClient(portal)).signInWithPassword({
      email: 'nobody@example.com',
      password: PASSWORD,
    });
    assertApiError(unknown.error, 400, 'invalid_credentials');
  });

  test('signing up again with a confirmed address looks like a new sign-up and sends nothing', async () => {
    const client = await authClient(portal);
    const fresh = await client.signUp({ email: 'fresh@example.com', password: PASSWORD });
    const taken = await client.signUp({ email: 'ada@example.com', password: 'someone else trying 1234' });
    assert.equal(taken.error, null, 'no user_already_exists: that would reveal the account');
    assert.equal(taken.data.session, null);
    assert.equal(taken.data.user.email, 'ada@example.com');
    assert.deepEqual(Object.keys(taken.data.user).sort(), Object.keys(fresh.data.user).sort());
    // The stranger's password did not replace Ada's.
    const still = await (await authClient(portal)).signInWithPassword({ email: 'ada@example.com', password: PASSWORD });
    assert.equal(still.error, null);
    // The next e-mail Ada receives (recovery, below) is her second: none was sent for this attempt.
  });

  test('recovery: the link gives a recovery session that sets a new password', async () => {
    const email = 'ada@example.com';
    const client = await authClient(portal);
    const sent = await client.resetPasswordForEmail(email, { redirectTo: `${portal.url}/signin` });
    assert.equal(sent.error, null);

    const mail = await smtp.mailTo(email, 2);
    assert.equal(new URL(mail.link).searchParams.get('type'), 'recovery', mail.message);
    const followed = await client.browserFetch(mail.link, { redirect: 'manual' });
    const location = followed.headers.get('location');
    assert.ok(location.startsWith(`${portal.url}/signin#`), location);
    const fragment = urlParams(location);
    assert.equal(fragment.type, 'recovery');
    const taken = await client.setSession({
      access_token: fragment.access_token,
      refresh_token: fragment.refresh_token,
    });
    assert.equal(taken.error, null);
    assert.equal(taken.data.user.email, email);

    const updated = await client.updateUser({ password: NEW_PASSWORD });
    assert.equal(updated.error, null);
    assert.equal(updated.data.user.email, email);

    const withNew = await (await authClient(portal)).signInWithPassword({ email, password: NEW_PASSWORD });
    assert.equal(withNew.error, null);
    assert.equal(withNew.data.user.email, email);
    const withOld = await (await authClient(portal)).signInWithPassword({ email, password: PASSWORD });
    assertApiError(withOld.error, 400, 'invalid_credentials');

    // Ada received exactly the confirmation and this link: nothing for the stranger's sign-up above.
    const toAda = smtp.messages().filter((m) => /^To: ada@example\.com$/im.test(m));
    assert.equal(toAda.length, 2);
  });

  test('the settings say e-mail is on and confirmation is required', async () => {
    const response = await fetch(`${portal.url}/auth/v1/settings`, { headers: { apikey: 'built-in' } });
    assert.equal(response.status, 200);
    const settings = await response.json();
    assert.equal(settings.external.email, true);
    assert.equal(settings.external.google, false);
    assert.equal(settings.mailer_autoconfirm, false);
    assert.equal(settings.disable_signup, false);
  });
});
