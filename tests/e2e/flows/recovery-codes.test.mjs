// Recovery codes with the real `@supabase/auth-js` client (its experimental `mfa.recoveryCodes` API): made
// next to a verified TOTP factor from an aal2 session, listed as a `recovery_code` factor, verified once to
// raise an aal1 session (what `getAuthenticatorAssuranceLevel` then reports), regenerated (the old codes
// stop working), and removed.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import { saveLogs, startPortal, startSmtp } from '../support/harness.mjs';
import { assertApiError, confirmedAccount, signedIn } from '../support/flows.mjs';
import { jwtClaims, totpCode } from '../support/totp.mjs';

const EMAIL = 'recovery-codes@example.com';

let smtp;
let portal;

before(async () => {
  smtp = await startSmtp();
  portal = await startPortal({ SMTP_URL: smtp.url });
  await confirmedAccount({ portal, smtp }, EMAIL);
});

after(async () => {
  if (portal) saveLogs('flows-recovery-codes-portal', portal.logs());
  await portal?.stop();
  await smtp?.stop();
});

async function level(client) {
  const { data, error } = await client.mfa.getAuthenticatorAssuranceLevel();
  assert.equal(error, null);
  return data;
}

describe('mfa.recoveryCodes', () => {
  let owner;
  let codes;
  let setId;

  test('codes need an aal2 session and a verified factor; then ten are answered once', async () => {
    owner = await signedIn(portal, EMAIL);
    const none = await owner.mfa.recoveryCodes.getStatus();
    assertApiError(none.error, 404, 'mfa_factor_not_found');
    // Never the only factor: an account without one is told to add one first.
    const low = await owner.mfa.recoveryCodes.generate();
    assertApiError(low.error, 422, 'mfa_recovery_codes_sole_factor');

    const enrolled = await owner.mfa.enroll({ factorType: 'totp', friendlyName: 'Phone' });
    assert.equal(enrolled.error, null);
    const verified = await owner.mfa.challengeAndVerify({
      factorId: enrolled.data.id,
      code: totpCode(enrolled.data.totp.secret),
    });
    assert.equal(verified.error, null);

    const made = await owner.mfa.recoveryCodes.generate({ friendlyName: 'Backup codes' });
    assert.equal(made.error, null);
    assert.equal(made.data.type, 'recovery_code');
    assert.equal(made.data.friendly_name, 'Backup codes');
    assert.equal(made.data.total, 10);
    assert.equal(new Set(made.data.codes).size, 10);
    for (const code of made.data.codes) assert.match(code, /^[0-9a-z]{16}$/);
    codes = made.data.codes;
    setId = made.data.id;

    const again = await owner.mfa.recoveryCodes.generate();
    assertApiError(again.error, 422, 'mfa_verified_factor_exists');
    const status = await owner.mfa.recoveryCodes.getStatus();
    assert.deepEqual(status.data, { id: setId, type: 'recovery_code', total: 10, remaining: 10 });

    const listed = await owner.mfa.listFactors();
    assert.equal(listed.error, null);
    assert.deepEqual(
      listed.data.recovery_code.map((f) => [f.id, f.status]),
      [[setId, 'verified']],
    );
    assert.equal(listed.data.totp.length, 1);
  });

  test('a recovery code raises an aal1 session to aal2 once', async () => {
    const second = await signedIn(portal, EMAIL);
    const before = await level(second);
    assert.deepEqual([before.currentLevel, before.nextLevel], ['aal1', 'aal2']);

    const wrong = await second.mfa.recoveryCodes.verify({ code: '0000-0000-0000-0000' });
    assertApiError(wrong.error, 422, 'mfa_verification_failed');

    // As a person types it: upper case and dashed.
    const typed = codes[0].toUpperCase().match(/.{4}/g).join('-');
    const raised = await second.mfa.recoveryCodes.verify({ code: typed });
    assert.equal(raised.error, null);
    assert.equal(jwtClaims(raised.data.access_token).aal, 'aal2');
    const after = await level(second);
    assert.deepEqual([after.currentLevel, after.nextLevel], ['aal2', 'aal2']);
    assert.deepEqual(
      after.currentAuthenticationMethods.map((m) => m.method),
      ['mfa/recovery_code', 'password'],
    );
    const refreshed = await second.refreshSession();
    assert.equal(refreshed.error, null, 'the raised session refreshes');
    assert.equal(jwtClaims(refreshed.data.session.access_token).aal, 'aal2');

    const third = await signedIn(portal, EMAIL);
    const reused = await third.mfa.recoveryCodes.verify({ code: codes[0] });
    assertApiError(reused.error, 422, 'mfa_verification_failed');
    const status = await owner.mfa.recoveryCodes.getStatus();
    assert.equal(status.data.remaining, 9);
  });

  test('regenerating keeps the set and retires every old code; unenroll removes it', async () => {
    const renewed = await owner.mfa.recoveryCodes.regenerate();
    assert.equal(renewed.error, null);
    assert.equal(renewed.data.id, setId);
    assert.equal(renewed.data.codes.length, 10);

    const late = await signedIn(portal, EMAIL);
    const old = await late.mfa.recoveryCodes.verify({ code: codes[1] });
    assertApiError(old.error, 422, 'mfa_verification_failed');
    const fresh = await late.mfa.recoveryCodes.verify({ code: renewed.data.codes[0] });
    assert.equal(fresh.error, null);

    const removed = await owner.mfa.recoveryCodes.unenroll();
    assert.equal(removed.error, null);
    assert.equal(removed.data.id, setId);
    const gone = await owner.mfa.recoveryCodes.getStatus();
    assertApiError(gone.error, 404, 'mfa_factor_not_found');
  });
});
