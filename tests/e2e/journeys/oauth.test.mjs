// Sign-in with a provider (Google, as a local OpenID Connect provider) in a real Chromium against a real
// portal: the button goes through /auth/v1/authorize, the provider and /callback, and back to the dashboard.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';

import { screenshot, startOidcProvider } from '../support/harness.mjs';
import { fromAccountMenu } from '../support/journey.mjs';
import { journeyServers } from '../support/servers.mjs';

let oidc;

const servers = journeyServers('oauth', {
  smtp: false,
  // The local identity provider first: the portal is configured with its issuer.
  env: async () => {
    oidc = await startOidcProvider();
    return {
      PORTAL_OAUTH_GOOGLE_ISSUER: oidc.issuer,
      PORTAL_OAUTH_GOOGLE_CLIENT_ID: 'portal-client',
      PORTAL_OAUTH_GOOGLE_CLIENT_SECRET: 'test-only-secret',
    };
  },
});

after(async () => {
  await oidc?.stop();
});

test('Google sign-in reaches the dashboard, and the account is kept for the next sign-in', async () => {
  const context = await servers.browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  for (let round = 0; round < 2; round++) {
    await page.goto(`${servers.portal.url}/signin`);
    await page.getByRole('button', { name: 'Google' }).click();
    await page.getByRole('heading', { level: 1, name: 'Developer Dashboard' }).waitFor();
    await page.getByText('Signed in as mock@example.com').waitFor();
    assert.ok(await page.evaluate(() => localStorage.getItem('coreToken')), 'a core token is stored');
    assert.equal(new URL(page.url()).search, '', 'the code is removed from the address');
    if (round === 0) await screenshot(page, 'oauth-dashboard');
    await fromAccountMenu(page, 'Sign Out');
    await page.getByRole('heading', { level: 1, name: 'Welcome' }).waitFor();
  }
});

test('Apple, not configured here, is not offered', async () => {
  const page = await (await servers.browser.newContext()).newPage();
  await page.goto(`${servers.portal.url}/signin`);
  await page.getByRole('button', { name: 'Google' }).waitFor();
  assert.equal(await page.getByRole('button', { name: 'Apple' }).count(), 0);
});
