// A signed-in session with the real `@supabase/auth-js` client: the user and its profile metadata, refresh
// token rotation and reuse detection, and the three sign-out scopes (checked from other clients).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { isAuthApiError, isAuthSessionMissingError } from '@supabase/auth-js';

import { authClient, saveLogs, startPortal, startSmtp } from '../support/harness.mjs';
import { assertApiError, confirmedAccount, signedIn } from '../support/flows.mjs';

const EMAIL = 'eve@example.com';

let smtp;
let portal;

before(async () => {
  smtp = await startSmtp();
  portal = await startPortal({ SMTP_URL: smtp.url });
  await confirmedAccount({ portal, smtp }, EMAIL, { full_name: 'Eve' });
});

after(async () => {
  if (portal) saveLogs('flows-session-portal', portal.logs());
  await portal?.stop();
  await smtp?.stop();
});

async function currentSession(client) {
  const { data, error } = await client.getSession();
  assert.equal(error, null);
  return data.session;
}

/** Whether the session of `accessToken` is still alive on the server (GET /user with it). */
async function alive(client, accessToken) {
  const { data, error } = await client.getUser(accessToken);
  if (error) {
    assert.ok(isAuthSessionMissingError(error), `a signed-out session is "session_not_found": ${error}`);
    return false;
  }
  assert.equal(data.user.email, EMAIL);
  return true;
}

/** Tries `refreshToken` from a fresh client. */
async function refreshWith(refreshToken) {
  const other = await authClient(portal);
  return other.refreshSession({ refresh_token: refreshToken });
}

describe('session', () => {
  test('getUser answers the signed-in user; updateUser({ data }) keeps profile metadata', async () => {
    const client = await signedIn(portal, EMAIL);
    const { data, error } = await client.getUser();
    assert.equal(error, null);
    assert.equal(data.user.email, EMAIL);
    assert.equal(data.user.aud, 'authenticated');
    assert.equal(data.user.user_metadata.full_name, 'Eve');
    assert.equal(data.user.app_metadata.provider, 'email');

    const updated = await client.updateUser({ data: { full_name: 'Eve Example', company: 'Acme' } });
    assert.equal(updated.error, null);
    assert.equal(updated.data.user.user_metadata.full_name, 'Eve Example');
    assert.equal(updated.data.user.user_metadata.company, 'Acme');

    // Kept on the server: another session sees it.
    const other = await signedIn(portal, EMAIL);
    const { data: seen } = await other.getUser();
    assert.equal(seen.user.user_metadata.full_name, 'Eve Example');
    assert.equal(seen.user.user_metadata.company, 'Acme');

    const anonymous = await (await authClient(portal)).getUser();
    assert.ok(isAuthSessionMissingError(anonymous.error), `${anonymous.error}`);
  });

  test('refreshSession rotates; reusing the old refresh token revokes the whole session', async () => {
    const client = await signedIn(portal, EMAIL);
    const first = await currentSession(client);
    const refreshed = await client.refreshSession();
    assert.equal(refreshed.error, null);
    const second = refreshed.data.session;
    assert.notEqual(second.refresh_token, first.refresh_token, 'a new refresh token');
    assert.equal(second.user.email, EMAIL);
    assert.equal((await currentSession(client)).refresh_token, second.refresh_token, 'the client keeps the new one');
    assert.ok(await alive(client, second.access_token));

    const reused = await refreshWith(first.refresh_token);
    assertApiError(reused.error, 400, 'refresh_token_already_used');
    assert.equal(reused.data.session, null);

    // The family is revoked: the new refresh token and the session's access tokens are refused too.
    const after = await client.refreshSession();
    // (This server names the revoked session `session_expired`.)
    assertApiError(after.error, 400, 'session_expired');
    assert.equal(await alive(client, second.access_token), false);
  });

  test('signOut({ scope: "local" }) ends only this session', async () => {
    const one = await signedIn(portal, EMAIL);
    const two = await signedIn(portal, EMAIL);
    const oneSession = await currentSession(one);
    const { error } = await one.signOut({ scope: 'local' });
    assert.equal(error, null);
    assert.equal(await currentSession(one), null, 'the client forgot its session');
    assert.equal(await alive(one, oneSession.access_token), false);
    assert.ok(isAuthApiError((await refreshWith(oneSession.refresh_token)).error));

    assert.ok(await alive(two, (await currentSession(two)).access_token));
    const refreshed = await two.refreshSession();
    assert.equal(refreshed.error, null, 'the other session still refreshes');
  });

  test('signOut({ scope: "others" }) ends the other sessions and keeps this one', async () => {
    const keeper = await signedIn(portal, EMAIL);
    const other = await signedIn(portal, EMAIL);
    const otherSession = await currentSession(other);
    const { error } = await keeper.signOut({ scope: 'others' });
    assert.equal(error, null);
    const kept = await currentSession(keeper);
    assert.ok(kept, 'the client keeps its session');
    assert.ok(await alive(keeper, kept.access_token));
    assert.equal((await keeper.refreshSession()).error, null);

    assert.equal(await alive(other, otherSession.access_token), false);
    const refused = await refreshWith(otherSession.refresh_token);
    assert.ok(isAuthApiError(refused.error), `${refused.error}`);
    assert.equal(refused.error.status, 400);
  });

  test('signOut() (global) ends every session of the user', async () => {
    const one = await signedIn(portal, EMAIL);
    const two = await signedIn(portal, EMAIL);
    const oneSession = await currentSession(one);
    const twoSession = await currentSession(two);
    const { error } = await one.signOut();
    assert.equal(error, null);
    assert.equal(await currentSession(one), null);
    for (const session of [oneSession, twoSession]) {
      assert.equal(await alive(two, session.access_token), false);
      const refused = await refreshWith(session.refresh_token);
      assert.ok(isAuthApiError(refused.error), `${refused.error}`);
      assert.equal(refused.error.status, 400);
    }
    // The other client finds out at its next call and drops the session.
    const { error: gone } = await two.getUser();
    assert.ok(isAuthSessionMissingError(gone), `${gone}`);
    assert.equal(await currentSession(two), null);
  });
});
