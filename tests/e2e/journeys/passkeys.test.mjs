// Passkeys in a real Chromium (PRODUCT.md §1a) with a virtual authenticator of the DevTools protocol (a
// platform authenticator with resident keys and user verification): add a passkey on Account Security, sign
// out, sign in with the passkey alone and land on the dashboard; then the account's password session is
// asked to step up, and the passkey does it. Accessibility scans of the screens.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import { screenshot } from '../support/harness.mjs';
import { PASSWORD, expectNoSeriousA11yViolations, newPage, signUp, fromAccountMenu } from '../support/journey.mjs';
import { journeyServers } from '../support/servers.mjs';

// A host name, not 127.0.0.1: browsers refuse an IP address as a WebAuthn relying party.
const servers = journeyServers('passkeys', { host: 'localhost' });

/** Gives the page's browser a virtual platform authenticator that verifies its user; answers its CDP session. */
async function virtualAuthenticator(page) {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('WebAuthn.enable', { enableUI: false });
  const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: {
      protocol: 'ctap2',
      transport: 'internal',
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: true,
    },
  });
  return { cdp, authenticatorId };
}

async function signOut(page) {
  await fromAccountMenu(page, 'Sign Out');
  await page.waitForURL(/\/signin/);
}

describe('passkeys', () => {
  test('add a passkey on Account Security, sign out, sign in with it', async () => {
    const email = 'passkey@example.com';
    const page = await newPage(servers.browser);
    const { cdp, authenticatorId } = await virtualAuthenticator(page);
    await signUp(page, servers, email);

    await fromAccountMenu(page, 'Account Security');
    const section = page.getByRole('region', { name: 'Passkeys' });
    await section.getByText('No passkey yet.').waitFor();
    await section.getByLabel('Passkey name').fill('Work laptop');
    await section.getByRole('button', { name: 'Add a passkey' }).click();
    await section.getByText('Your passkey is set up.').waitFor();
    const list = section.getByRole('list', { name: 'Your passkeys' });
    await list.getByText('Work laptop').waitFor();
    await list.getByText(/never used/).waitFor();
    const { credentials } = await cdp.send('WebAuthn.getCredentials', { authenticatorId });
    assert.equal(credentials.length, 1);
    assert.equal(credentials[0].isResidentCredential, true, 'a discoverable credential');
    await expectNoSeriousA11yViolations(page, 'Account Security with a passkey');
    await screenshot(page, 'passkeys-added');

    await signOut(page);
    await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
    await page.getByRole('heading', { level: 1, name: 'Developer Dashboard' }).waitFor();
    // The identity session the portal keeps (its storage key, `portal-auth`).
    const session = await page.evaluate(() => JSON.parse(localStorage.getItem('portal-auth')));
    const claims = JSON.parse(Buffer.from(session.access_token.split('.')[1], 'base64url').toString());
    assert.equal(claims.aal, 'aal2');
    assert.equal(claims.amr[0].method, 'passkey');
    await screenshot(page, 'passkeys-signed-in');

    await fromAccountMenu(page, 'Account Security');
    await section.getByText(/last used/).waitFor();
    await section.getByRole('button', { name: 'Rename Work laptop' }).click();
    await section.getByLabel('New name').fill('Laptop');
    await section.getByRole('button', { name: 'Save' }).click();
    await list.getByText('Laptop', { exact: true }).waitFor();

    // The password alone is not enough any more: the challenge step offers the passkey. (The authenticator
    // stops answering by itself meanwhile, or the e-mail field's passkey autofill would sign in at once.)
    await cdp.send('WebAuthn.setAutomaticPresenceSimulation', { authenticatorId, enabled: false });
    await signOut(page);
    await page.getByRole('button', { name: 'Continue with Email' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('Email address').fill(email);
    await dialog.getByLabel('Password').fill(PASSWORD);
    await dialog.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.getByRole('heading', { level: 1, name: 'Confirm it’s you' }).waitFor();
    await page.getByRole('button', { name: 'Use a passkey' }).waitFor();
    await expectNoSeriousA11yViolations(page, 'the challenge step with a passkey');
    await screenshot(page, 'passkeys-challenge');
    await cdp.send('WebAuthn.setAutomaticPresenceSimulation', { authenticatorId, enabled: true });
    await page.getByRole('button', { name: 'Use a passkey' }).click();
    await page.getByRole('heading', { level: 1, name: 'Developer Dashboard' }).waitFor();

    // Passkey autofill: opening the e-mail sign-in offers the passkey, and choosing it signs in.
    await signOut(page);
    await page.getByRole('button', { name: 'Continue with Email' }).click();
    await page.getByRole('heading', { level: 1, name: 'Developer Dashboard' }).waitFor();
  });

  test('the sign-in page offers passkeys, and their autofill on the e-mail field', async () => {
    const page = await newPage(servers.browser);
    await page.goto(`${servers.portal.url}/signin`);
    // Enabled once the identity client has loaded (a trial click waits for that).
    await page.getByRole('button', { name: 'Sign in with a passkey' }).click({ trial: true });
    await expectNoSeriousA11yViolations(page, 'the sign-in page');
    await screenshot(page, 'passkeys-signin');
    await page.getByRole('button', { name: 'Continue with Email' }).click();
    const email = page.getByRole('dialog').getByLabel('Email address');
    assert.equal(await email.getAttribute('autocomplete'), 'username webauthn');
  });
});
