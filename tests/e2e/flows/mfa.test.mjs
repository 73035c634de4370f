// Second factors with the real `@supabase/auth-js` client (its `mfa` API): enrolling a TOTP factor,
// challenging and verifying it with a code computed here, the assurance levels that
// `getAuthenticatorAssuranceLevel` reports, a code that works once, and removing the factor.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import { authClient, saveLogs, startPortal, startSmtp } from '../support/harness.mjs';
import { PASSWORD, assertApiError, confirmedAccount, signedIn } from '../support/flows.mjs';
import { jwtClaims, totpCode } from '../support/totp.mjs';

const EMAIL = 'mfa@example.com';

let smtp;
let portal;

before(async () => {
  smtp = await startSmtp();
  portal = await startPortal({ SMTP_URL: smtp.url });
  await confirmedAccount({ portal, smtp }, EMAIL);
});

after(async () => {
  if (portal) saveLogs('flows-mfa-portal', portal.logs());
  await portal?.stop();
  await smtp?.stop();
});

/** The product API's answer to `GET path` with the session's access token, exchanged for a core token. */
async function product(client, path, base = portal) {
  const { data } = await client.getSession();
  const exchanged = await fetch(`${base.url}/api/auth/exchange-token`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ supabaseToken: data.session.access_token }),
  });
  assert.equal(exchanged.status, 200, await exchanged.clone().text());
  const { coreToken } = await exchanged.json();
  const response = await fetch(`${base.url}${path}`, { headers: { Authorization: `Bearer ${coreToken}` } });
  return { status: response.status, body: await response.json() };
}

async function level(client) {
  const { data, error } = await client.mfa.getAuthenticatorAssuranceLevel();
  assert.equal(error, null);
  return data;
}

describe('mfa (TOTP)', () => {
  // One account through the whole life of a factor: the steps depend on each other.
  let factorId;
  let secret;
  let usedAt;
  let first;

  test('a password session is aal1 and has nothing more to reach before a factor exists', async () => {
    first = await signedIn(portal, EMAIL);
    const aal = await level(first);
    assert.equal(aal.currentLevel, 'aal1');
    assert.equal(aal.nextLevel, 'aal1');
    assert.deepEqual(
      aal.currentAuthenticationMethods.map((m) => m.method),
      ['password'],
    );
  });

  test('enroll answers the secret, its otpauth URI and an SVG QR code; the factor is unverified', async () => {
    const { data, error } = await first.mfa.enroll({ factorType: 'totp', friendlyName: 'Phone' });
    assert.equal(error, null);
    assert.equal(data.type, 'totp');
    assert.equal(data.friendly_name, 'Phone');
    assert.match(data.totp.secret, /^[A-Z2-7]{32}$/);
    assert.match(data.totp.uri, /^otpauth:\/\/totp\/127\.0\.0\.1:mfa%40example\.com\?/);
    assert.ok(data.totp.uri.includes(`secret=${data.totp.secret}`), data.totp.uri);
    assert.ok(data.totp.qr_code.startsWith('data:image/svg+xml;utf-8,'), data.totp.qr_code.slice(0, 40));
    assert.ok(data.totp.qr_code.includes('<svg'));
    factorId = data.id;
    secret = data.totp.secret;

    const listed = await first.mfa.listFactors();
    assert.equal(listed.error, null);
    assert.equal(listed.data.all.length, 1);
    assert.equal(listed.data.all[0].status, 'unverified');
    assert.equal(listed.data.totp.length, 0, 'only verified factors are listed by type');

    const taken = await first.mfa.enroll({ factorType: 'totp', friendlyName: 'Phone' });
    assertApiError(taken.error, 422, 'mfa_factor_name_conflict');
    // A security key (Supabase's webauthn factor): enrolled unverified; its first challenge asks the browser to
    // make a credential for this server's relying party (a loopback address serves it as localhost).
    const key = await first.mfa.enroll({ factorType: 'webauthn', friendlyName: 'Key' });
    assert.equal(key.error, null);
    assert.equal(key.data.type, 'webauthn');
    assert.equal(key.data.friendly_name, 'Key');
    const keyChallenge = await first.mfa.challenge({ factorId: key.data.id });
    assert.equal(keyChallenge.error, null);
    assert.equal(keyChallenge.data.type, 'webauthn');
    assert.equal(keyChallenge.data.webauthn.type, 'create');
    assert.equal(keyChallenge.data.webauthn.credential_options.publicKey.rp.id, 'localhost');
    assert.ok(keyChallenge.data.webauthn.credential_options.publicKey.challenge.byteLength >= 16);
    const keyRemoved = await first.mfa.unenroll({ factorId: key.data.id });
    assert.equal(keyRemoved.error, null);
  });

  test('a wrong code is refused; the right one verifies the factor and raises the session to aal2', async () => {
    const challenge = await first.mfa.challenge({ factorId });
    assert.equal(challenge.error, null);
    assert.equal(challenge.data.type, 'totp');
    assert.ok(challenge.data.expires_at > Date.now() / 1000 + 200);

    usedAt = Date.now() / 1000;
    const right = totpCode(secret, usedAt);
    const wrong = right === '000000' ? '111111' : '000000';
    const refused = await first.mfa.verify({ factorId, challengeId: challenge.data.id, code: wrong });
    assertApiError(refused.error, 422, 'mfa_verification_failed');

    const verified = await first.mfa.verify({ factorId, challengeId: challenge.data.id, code: right });
    assert.equal(verified.error, null);
    assert.equal(jwtClaims(verified.data.access_token).aal, 'aal2');

    const aal = await level(first);
    assert.equal(aal.currentLevel, 'aal2');
    assert.equal(aal.nextLevel, 'aal2');
    assert.deepEqual(
      aal.currentAuthenticationMethods.map((m) => m.method),
      ['totp', 'password'],
    );
    const listed = await first.mfa.listFactors();
    assert.equal(listed.data.totp.length, 1);
    assert.equal(listed.data.totp[0].status, 'verified');
  });

  test('a refresh keeps the session at aal2', async () => {
    const { data, error } = await first.refreshSession();
    assert.equal(error, null);
    assert.equal(jwtClaims(data.session.access_token).aal, 'aal2');
    assert.equal(jwtClaims(data.session.access_token).amr[0].method, 'totp');
  });

  test('a code works once, even with a new challenge', async () => {
    const challenge = await first.mfa.challenge({ factorId });
    assert.equal(challenge.error, null);
    const reused = await first.mfa.verify({ factorId, challengeId: challenge.data.id, code: totpCode(secret, usedAt) });
    assertApiError(reused.error, 422, 'mfa_verification_failed');
  });

  test('a new password sign-in is aal1 with aal2 to reach, and may not remove the factor or add another', async () => {
    const second = await signedIn(portal, EMAIL);
    const aal = await level(second);
    assert.equal(aal.currentLevel, 'aal1');
    assert.equal(aal.nextLevel, 'aal2');

    // The product API refuses an aal1 session of an account with a verified factor.
    const refused = await product(second, '/api/orgs');
    assert.equal(refused.status, 403);
    assert.equal(refused.body.code, 'MFA_REQUIRED');
    assert.equal((await product(first, '/api/orgs')).status, 200, 'the aal2 session goes through');

    const removal = await second.mfa.unenroll({ factorId });
    assertApiError(removal.error, 422, 'insufficient_aal');
    const another = await second.mfa.enroll({ factorType: 'totp', friendlyName: 'Tablet' });
    assertApiError(another.error, 403, 'insufficient_aal');

    // The next step's code (one step of drift is allowed) raises this session too.
    const raised = await second.mfa.challengeAndVerify({ factorId, code: totpCode(secret, Date.now() / 1000 + 30) });
    assert.equal(raised.error, null);
    assert.equal((await level(second)).currentLevel, 'aal2');
    assert.equal((await product(second, '/api/orgs')).status, 200);

    const removed = await second.mfa.unenroll({ factorId });
    assert.equal(removed.error, null);
    assert.equal(removed.data.id, factorId);
    const listed = await second.mfa.listFactors();
    assert.equal(listed.data.all.length, 0);
    // The sessions that passed the factor drop to aal1: the next token says so, and nothing is left to reach.
    const refreshed = await second.refreshSession();
    assert.equal(refreshed.error, null);
    const after = await level(second);
    assert.equal(after.currentLevel, 'aal1');
    assert.equal(after.nextLevel, 'aal1');
  });

  test('staff need an aal2 session for the staff API when PORTAL_STAFF_MFA=required', async () => {
    const staffPortal = await startPortal({
      SMTP_URL: smtp.url,
      PORTAL_STAFF_MFA: 'required',
      PORTAL_ADMIN_EMAILS: 'staff@example.com',
    });
    try {
      const client = await authClient(staffPortal);
      const { error } = await client.signUp({ email: 'staff@example.com', password: PASSWORD });
      assert.equal(error, null);
      const mail = await smtp.mailTo('staff@example.com');
      const confirmed = await client.verifyOtp({ token_hash: new URL(mail.link).searchParams.get('token'), type: 'signup' });
      assert.equal(confirmed.error, null);
      const refused = await product(client, '/api/admin/apps/stats', staffPortal);
      assert.equal(refused.status, 403);
      assert.equal(refused.body.code, 'MFA_REQUIRED');
      assert.equal((await product(client, '/api/orgs', staffPortal)).status, 200, 'the rest of the API is open');

      const enrolled = await client.mfa.enroll({ factorType: 'totp', friendlyName: 'Staff phone' });
      assert.equal(enrolled.error, null);
      const verified = await client.mfa.challengeAndVerify({
        factorId: enrolled.data.id,
        code: totpCode(enrolled.data.totp.secret),
      });
      assert.equal(verified.error, null);
      assert.equal((await product(client, '/api/admin/apps/stats', staffPortal)).status, 200);
    } finally {
      saveLogs('flows-mfa-staff-portal', staffPortal.logs());
      await staffPortal.stop();
    }
  });

  test('another account cannot see or challenge the factor', async () => {
    const client = await authClient(portal);
    const challenge = await client.mfa.challenge({ factorId: crypto.randomUUID() });
    assert.ok(challenge.error, 'no session, no challenge');
    const signed = await signedIn(portal, EMAIL);
    const unknown = await signed.mfa.challenge({ factorId: crypto.randomUUID() });
    assertApiError(unknown.error, 404, 'mfa_factor_not_found');
  });
});

/** A product API call (`method path` with a JSON `body`) with the session's token, exchanged for a core token. */
async function call(client, method, path, body) {
  const { data } = await client.getSession();
  const exchanged = await fetch(`${portal.url}/api/auth/exchange-token`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ supabaseToken: data.session.access_token }),
  });
  assert.equal(exchanged.status, 200, await exchanged.clone().text());
  const { coreToken } = await exchanged.json();
  const response = await fetch(`${portal.url}${path}`, {
    method,
    headers: { Authorization: `Bearer ${coreToken}`, ...(body ? { 'Content-Type': 'application/json' } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  return { status: response.status, body: await response.json() };
}

/** Adds a TOTP factor to the signed-in `client` and passes it: the session is aal2 after. */
async function withVerifiedFactor(client, friendlyName) {
  const enrolled = await client.mfa.enroll({ factorType: 'totp', friendlyName });
  assert.equal(enrolled.error, null);
  const verified = await client.mfa.challengeAndVerify({
    factorId: enrolled.data.id,
    code: totpCode(enrolled.data.totp.secret),
  });
  assert.equal(verified.error, null);
  assert.equal((await level(client)).currentLevel, 'aal2');
}

describe('an organization that requires a second factor', () => {
  test('its admin turns the requirement on from an aal2 session; a member without a factor is refused until it adds one', async () => {
    const [adminEmail, memberEmail] = ['org-admin@example.com', 'org-member@example.com'];
    await confirmedAccount({ portal, smtp }, adminEmail);
    await confirmedAccount({ portal, smtp }, memberEmail);
    const admin = await signedIn(portal, adminEmail);
    const orgs = await call(admin, 'GET', '/api/orgs');
    assert.equal(orgs.status, 200);
    const orgId = orgs.body.data[0].id;

    // Without a second factor of its own, the admin may not require one of others.
    const early = await call(admin, 'PUT', `/api/orgs/${orgId}/two-factor`, { requireTwoFactor: true });
    assert.equal(early.status, 403);
    assert.equal(early.body.code, 'OWN_MFA_REQUIRED');
    await withVerifiedFactor(admin, 'Admin phone');
    const required = await call(admin, 'PUT', `/api/orgs/${orgId}/two-factor`, { requireTwoFactor: true });
    assert.equal(required.status, 200, JSON.stringify(required.body));
    assert.equal(required.body.data.requireTwoFactor, true);

    const invited = await call(admin, 'POST', `/api/orgs/${orgId}/members`, { email: memberEmail, role: 'member' });
    assert.ok(invited.status < 300, JSON.stringify(invited.body));
    const invitation = await smtp.mailTo(memberEmail, 2);
    const token = new URL(invitation.link).searchParams.get('token');
    const member = await signedIn(portal, memberEmail);
    const accepted = await call(member, 'POST', `/api/orgs/accept/${token}`);
    assert.equal(accepted.status, 200, JSON.stringify(accepted.body));

    // A password session of an account without a factor: closed out of this organization only.
    const refused = await call(member, 'GET', `/api/orgs/${orgId}`);
    assert.equal(refused.status, 403);
    assert.equal(refused.body.code, 'ORG_MFA_REQUIRED');
    assert.equal((await call(member, 'GET', '/api/orgs')).status, 200, 'the list of its organizations stays open');

    await withVerifiedFactor(member, 'Member phone');
    const opened = await call(member, 'GET', `/api/orgs/${orgId}`);
    assert.equal(opened.status, 200, JSON.stringify(opened.body));
    const members = opened.body.data.members.map((m) => [m.user.email, m.hasTwoFactor]);
    assert.deepEqual(new Map(members).get(memberEmail), true);
  });
});
