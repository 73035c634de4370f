// Magic links and six-digit codes with the real `@supabase/auth-js` client against a real portal that
// sends real e-mail (aiosmtpd): each e-mail's link and code work once, a wrong code is refused.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import { authClient, saveLogs, startPortal, startSmtp, urlParams } from '../support/harness.mjs';
import { assertApiError, confirmedAccount } from '../support/flows.mjs';


let smtp;
let portal;

before(async () => {
  smtp = await startSmtp();
  portal = await startPortal({ SMTP_URL: smtp.url });
});

after(async () => {
  if (portal) saveLogs('flows-email-otp-portal', portal.logs());
  await portal?.stop();
  await smtp?.stop();
});

/** A six-digit code that is not `code`. */
function anotherCode(code) {
  return String((Number(code) + 1) % 1000000).padStart(6, '0');
}

describe('magic link and six-digit code', () => {
  test('the code signs in once; a wrong code, a reused code and the spent e-mail link are refused', async () => {
    const email = 'carol@example.com';
    await confirmedAccount({ portal, smtp }, email);
    const client = await authClient(portal);
    const sent = await client.signInWithOtp({
      email,
      options: { shouldCreateUser: false, emailRedirectTo: `${portal.url}/dashboard` },
    });
    assert.equal(sent.error, null);
    assert.equal(sent.data.session, null);
    const mail = await smtp.mailTo(email, 2);
    assert.match(mail.code ?? '', /^\d{6}$/, mail.message);
    assert.ok(mail.link, mail.message);

    // GoTrue answers a wrong or spent code with 403 otp_expired ("Token has expired or is invalid").
    const wrong = await client.verifyOtp({ email, token: anotherCode(mail.code), type: 'email' });
    assertApiError(wrong.error, 403, 'otp_expired');
    assert.equal(wrong.data.session, null);

    const verified = await client.verifyOtp({ email, token: mail.code, type: 'email' });
    assert.equal(verified.error, null);
    assert.equal(verified.data.session.user.email, email);
    const { data: user } = await client.getUser();
    assert.equal(user.user.email, email);

    const reused = await (await authClient(portal)).verifyOtp({ email, token: mail.code, type: 'email' });
    assertApiError(reused.error, 403, 'otp_expired');

    // The link of the same e-mail went with its code.
    const link = await fetch(mail.link, { redirect: 'manual' });
    const refused = urlParams(link.headers.get('location'));
    assert.equal(refused.error_code, 'otp_expired');
    assert.equal(refused.error, 'access_denied');
  });

  test('the magic link redirects with a session of type magiclink, once', async () => {
    const email = 'carol@example.com';
    const client = await authClient(portal);
    const { error } = await client.signInWithOtp({
      email,
      options: { shouldCreateUser: false, emailRedirectTo: `${portal.url}/dashboard` },
    });
    assert.equal(error, null);
    const mail = await smtp.mailTo(email, 3);
    assert.equal(new URL(mail.link).searchParams.get('type'), 'magiclink');
    const followed = await fetch(mail.link, { redirect: 'manual' });
    assert.ok([302, 303].includes(followed.status), `a redirect, got ${followed.status}`);
    const location = followed.headers.get('location');
    assert.ok(location.startsWith(`${portal.url}/dashboard#`), location);
    const fragment = urlParams(location);
    assert.equal(fragment.type, 'magiclink');
    assert.ok(fragment.access_token && fragment.refresh_token);
    const taken = await client.setSession({
      access_token: fragment.access_token,
      refresh_token: fragment.refresh_token,
    });
    assert.equal(taken.error, null);
    assert.equal(taken.data.user.email, email);

    // And the code of that e-mail is spent with its link.
    const code = await client.verifyOtp({ email, token: mail.code, type: 'email' });
    assertApiError(code.error, 403, 'otp_expired');
  });

  test('the magic link as verifyOtp({ token_hash, type: "magiclink" })', async () => {
    const email = 'carol@example.com';
    const client = await authClient(portal);
    await client.signInWithOtp({ email, options: { shouldCreateUser: false } });
    const mail = await smtp.mailTo(email, 4);
    const token_hash = new URL(mail.link).searchParams.get('token');
    const verified = await client.verifyOtp({ token_hash, type: 'magiclink' });
    assert.equal(verified.error, null);
    assert.equal(verified.data.session.user.email, email);
    const again = await client.verifyOtp({ token_hash, type: 'magiclink' });
    assertApiError(again.error, 403, 'otp_expired');
  });

  test('a code to an address without an account creates it when asked to', async () => {
    const email = 'dave@example.com';
    const client = await authClient(portal);
    const { error } = await client.signInWithOtp({ email, options: { shouldCreateUser: true } });
    assert.equal(error, null);
    const mail = await smtp.mailTo(email);
    const verified = await client.verifyOtp({ email, token: mail.code, type: 'email' });
    assert.equal(verified.error, null);
    assert.equal(verified.data.user.email, email);
    assert.ok(verified.data.user.email_confirmed_at, 'the code proved the address');
  });

  test('without shouldCreateUser an unknown address gets the same answer and no e-mail', async () => {
    const client = await authClient(portal);
    const { error } = await client.signInWithOtp({ email: 'ghost@example.com', options: { shouldCreateUser: false } });
    assert.equal(error, null);
    const wrong = await client.verifyOtp({ email: 'ghost@example.com', token: '123456', type: 'email' });
    assertApiError(wrong.error, 403, 'otp_expired');
    assert.equal(smtp.messages().filter((m) => /^To: ghost@example\.com$/im.test(m)).length, 0);
  });
});
