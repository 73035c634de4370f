// Provider sign-in with PKCE through the real `@supabase/auth-js` client: signInWithOAuth gives the
// authorize URL, the test follows it by hand through the local OpenID Connect provider (oauth2-mock-server)
// and the portal's /callback, and exchangeCodeForSession turns the `?code=` into a session.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import { authClient, saveLogs, startOidcProvider, startPortal, urlParams } from '../support/harness.mjs';
import { assertApiError } from '../support/flows.mjs';

let oidc;
let portal;

before(async () => {
  oidc = await startOidcProvider();
  portal = await startPortal({
    PORTAL_OAUTH_GOOGLE_ISSUER: oidc.issuer,
    PORTAL_OAUTH_GOOGLE_CLIENT_ID: 'portal-client',
    PORTAL_OAUTH_GOOGLE_CLIENT_SECRET: 'test-only-secret',
  });
});

after(async () => {
  if (portal) saveLogs('flows-oauth-portal', portal.logs());
  await portal?.stop();
  await oidc?.stop();
});

/** One redirect hop, not followed: answers its status and Location. */
async function hop(url) {
  const response = await fetch(url, { redirect: 'manual' });
  assert.ok([302, 303].includes(response.status), `${url} redirects, got ${response.status}`);
  return response.headers.get('location');
}

/**
 * signInWithOAuth for `provider` with a fresh PKCE client, then the browser's way through the provider and
 * back: answers the client and the page the portal finally sends the browser to.
 */
async function throughProvider(provider, redirectTo) {
  const client = await authClient(portal, { flowType: 'pkce' });
  const { data, error } = await client.signInWithOAuth({
    provider,
    options: { redirectTo, skipBrowserRedirect: true },
  });
  assert.equal(error, null);
  assert.equal(data.provider, provider);
  const authorize = new URL(data.url);
  assert.equal(`${authorize.origin}${authorize.pathname}`, `${portal.url}/auth/v1/authorize`);
  assert.equal(authorize.searchParams.get('provider'), provider);
  assert.equal(authorize.searchParams.get('code_challenge_method'), 's256');
  assert.ok(authorize.searchParams.get('code_challenge'));
  assert.ok(client.storage.getItem(`${client.storageKey}-code-verifier`), 'the verifier stays with the client');

  let location = await hop(data.url);
  if (location.startsWith(oidc.issuer)) {
    const callback = await hop(location);
    assert.ok(callback.startsWith(`${portal.url}/auth/v1/callback?`), callback);
    location = await hop(callback);
  }
  return { client, landed: location };
}

describe('OAuth with PKCE', () => {
  test('Google: authorize → provider → callback → ?code= → exchangeCodeForSession; the code works once', async () => {
    const redirectTo = `${portal.url}/signin?next=%2Fapps`;
    const { client, landed } = await throughProvider('google', redirectTo);
    assert.ok(landed.startsWith(`${redirectTo}&code=`), landed);
    const { code } = urlParams(landed, 'search');
    const verifierKey = `${client.storageKey}-code-verifier`;
    const verifier = client.storage.getItem(verifierKey);

    const exchanged = await client.exchangeCodeForSession(code);
    assert.equal(exchanged.error, null);
    assert.equal(exchanged.data.session.user.email, 'mock@example.com');
    assert.equal(exchanged.data.user.app_metadata.provider, 'google');
    assert.ok(exchanged.data.session.refresh_token);
    const { data: user, error } = await client.getUser();
    assert.equal(error, null);
    assert.equal(user.user.email, 'mock@example.com');
    assert.ok(user.user.email_confirmed_at, 'the provider vouched for the address');

    // The same code with the right verifier again: GoTrue's 404 flow_state_not_found.
    client.storage.setItem(verifierKey, verifier);
    const reused = await client.exchangeCodeForSession(code);
    assertApiError(reused.error, 404, 'flow_state_not_found');
    assert.equal(reused.data.session, null);

    // Signing in again finds the same account.
    const second = await throughProvider('google', redirectTo);
    const again = await second.client.exchangeCodeForSession(urlParams(second.landed, 'search').code);
    assert.equal(again.error, null);
    assert.equal(again.data.user.id, exchanged.data.user.id);
  });

  test('a wrong verifier is refused and spends the code', async () => {
    const { client, landed } = await throughProvider('google', `${portal.url}/signin`);
    const { code } = urlParams(landed, 'search');
    const verifierKey = `${client.storageKey}-code-verifier`;
    const verifier = client.storage.getItem(verifierKey);
    // auth-js stores its items as JSON.
    client.storage.setItem(verifierKey, JSON.stringify('another-verifier-another-verifier-another-verifier'));
    const wrong = await client.exchangeCodeForSession(code);
    assertApiError(wrong.error, 400, 'bad_code_verifier');
    assert.equal(wrong.data.session, null);

    client.storage.setItem(verifierKey, verifier);
    const spent = await client.exchangeCodeForSession(code);
    assertApiError(spent.error, 404, 'flow_state_not_found');
  });

  test('an unknown code is refused', async () => {
    const client = await authClient(portal, { flowType: 'pkce' });
    client.storage.setItem(
      `${client.storageKey}-code-verifier`,
      JSON.stringify('a-verifier-for-no-flow-a-verifier-for-no-flow'),
    );
    const unknown = await client.exchangeCodeForSession('00000000-0000-4000-8000-000000000000');
    assertApiError(unknown.error, 404, 'flow_state_not_found');
  });

  test('Apple, not configured here, comes back to the page with error_description', async () => {
    const redirectTo = `${portal.url}/signin`;
    const { landed } = await throughProvider('apple', redirectTo);
    assert.ok(landed.startsWith(`${redirectTo}?`), landed);
    const query = urlParams(landed, 'search');
    assert.equal(query.code, undefined);
    assert.equal(query.error, 'invalid_request', landed);
    assert.equal(query.error_code, 'provider_disabled', landed);
    assert.equal(query.error_description, 'Sign-in with Apple is not configured on this server');
  });

  test('GET /settings names the configured providers', async () => {
    const response = await fetch(`${portal.url}/auth/v1/settings`, { headers: { apikey: 'built-in' } });
    assert.equal(response.status, 200);
    const settings = await response.json();
    assert.deepEqual(
      { ...settings.external },
      { email: true, phone: false, anonymous_users: false, google: true, apple: false, github: false, azure: false },
    );
    assert.equal(settings.mailer_autoconfirm, true, 'no SMTP here: accounts need no confirmation');
  });
});
