// Sessions and recovery codes on Account Security in a real Chromium (PRODUCT.md §1a): the same account signed in
// from two browsers, the other session signed out from the list (that browser is sent to sign-in); recovery
// codes made and made anew, then used on the challenge step; accessibility scans of each screen.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import { screenshot, settled } from '../support/harness.mjs';
import { PASSWORD, expectNoSeriousA11yViolations, newPage, signUp, fromAccountMenu } from '../support/journey.mjs';
import { totpCode } from '../support/totp.mjs';
import { journeyServers } from '../support/servers.mjs';

const servers = journeyServers('sessions');

/** Signs in from the sign-in page with the password; answers the sign-in dialog. */
async function signIn(page, email) {
  await page.goto(`${servers.portal.url}/signin`);
  await page.getByRole('button', { name: 'Continue with Email' }).click();
  const dialog = page.getByRole('dialog');
  await dialog.getByLabel('Email address').fill(email);
  await dialog.getByLabel('Password').fill(PASSWORD);
  await dialog.getByRole('button', { name: 'Sign in', exact: true }).click();
  return dialog;
}

async function openAccountSecurity(page) {
  await fromAccountMenu(page, 'Account Security');
  await page.getByRole('heading', { level: 1, name: 'Account Security' }).waitFor();
}

describe('sessions and recovery codes', () => {
  test('sign in from two browsers, sign the other out from the list: it is sent to sign-in', async () => {
    const email = 'two-browsers@example.com';
    const here = await newPage(servers.browser);
    await signUp(here, servers, email);
    const there = await newPage(servers.browser);
    await signIn(there, email);
    await there.getByRole('heading', { level: 1, name: 'Developer Dashboard' }).waitFor();

    await openAccountSecurity(here);
    const section = here.getByRole('region', { name: 'Sessions' });
    const list = section.getByRole('list', { name: 'Your sessions' });
    await list.getByRole('listitem').nth(1).waitFor();
    assert.equal(await list.getByRole('listitem').count(), 2);
    await list.getByText('This device').waitFor();
    await list.getByText('Headless Chrome on Linux').first().waitFor();
    await expectNoSeriousA11yViolations(here, 'Account Security, two sessions');
    await screenshot(here, 'sessions-list');

    await section.getByRole('button', { name: /^Sign out Headless Chrome on Linux/ }).click();
    const confirm = here.getByRole('dialog', { name: 'Sign out this session?' });
    await confirm.waitFor();
    await settled(here);
    await expectNoSeriousA11yViolations(here, 'Account Security, confirming a sign-out');
    await screenshot(here, 'sessions-confirm');
    await confirm.getByRole('button', { name: 'Sign out' }).click();
    await section.getByText('was signed out.').waitFor();
    await section.getByText('You are signed in on this device only.').waitFor();
    assert.equal(await list.getByRole('listitem').count(), 1);
    await screenshot(here, 'sessions-signed-out');

    // The other browser's next step finds its session over.
    await there.goto(`${servers.portal.url}/dashboard`);
    await there.waitForURL(/\/signin/, { timeout: 20_000 });
    // The second e-mail to the address (the first confirmed it) tells the owner.
    const mail = await servers.smtp.mailTo(email, 2);
    assert.match(mail.subject, /other sessions were signed out/);
  });

  test('make recovery codes, make them anew, then sign in with one on the challenge step', async () => {
    const email = 'recovery@example.com';
    const page = await newPage(servers.browser);
    await signUp(page, servers, email);
    await openAccountSecurity(page);
    const codesSection = page.getByRole('region', { name: 'Recovery codes' });
    await codesSection.getByText('Add an authenticator app first').waitFor();

    await page.getByRole('button', { name: 'Add authenticator app' }).click();
    const secret = (await page.getByTestId('totp-secret').textContent()).trim();
    const firstStep = Date.now() / 1000;
    await page.getByLabel('Code from the app').fill(totpCode(secret, firstStep));
    await page.getByRole('button', { name: 'Confirm' }).click();
    await page.getByText('Your authenticator app is set up.').waitFor();

    await codesSection.getByRole('button', { name: 'Make recovery codes' }).click();
    const shown = codesSection.getByTestId('recovery-codes');
    await shown.getByRole('listitem').nth(9).waitFor();
    const first = await shown.getByRole('listitem').allTextContents();
    assert.equal(first.length, 10);
    for (const code of first) assert.match(code, /^[0-9a-z]{4}(-[0-9a-z]{4}){3}$/);
    await codesSection.getByText('10 of 10 codes unused.').waitFor();
    await expectNoSeriousA11yViolations(page, 'Account Security, new recovery codes');
    await screenshot(page, 'recovery-codes-shown');
    const download = page.waitForEvent('download');
    await codesSection.getByRole('button', { name: 'Download .txt' }).click();
    assert.equal((await download).suggestedFilename(), 'recovery-codes.txt');
    await codesSection.getByRole('button', { name: 'I have saved them' }).click();
    assert.equal(await shown.count(), 0, 'shown once');

    await codesSection.getByRole('button', { name: 'Make new codes' }).click();
    const confirm = page.getByRole('dialog', { name: 'Make new recovery codes?' });
    await confirm.getByRole('button', { name: 'Make new codes' }).click();
    await shown.getByRole('listitem').nth(9).waitFor();
    const renewed = await shown.getByRole('listitem').allTextContents();
    assert.notDeepEqual(renewed, first);

    await fromAccountMenu(page, 'Sign Out');
    await page.waitForURL(/\/signin/);
    await signIn(page, email);
    await page.getByRole('heading', { level: 1, name: 'Confirm it’s you' }).waitFor();
    await page.getByRole('button', { name: 'Use a recovery code' }).click();
    await page.getByLabel('Recovery code').fill(first[0]);
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByRole('alert').getByText('That recovery code is not right').waitFor();
    await expectNoSeriousA11yViolations(page, 'the challenge step, with a recovery code');
    await screenshot(page, 'recovery-code-challenge');
    await page.getByLabel('Recovery code').fill(renewed[0].toUpperCase());
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByRole('heading', { level: 1, name: 'Developer Dashboard' }).waitFor();

    await openAccountSecurity(page);
    await codesSection.getByText('9 of 10 codes unused.').waitFor();
    await screenshot(page, 'recovery-codes-remaining');
  });
});
