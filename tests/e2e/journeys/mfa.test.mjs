// Account Security in a real Chromium (PRODUCT.md §1a): changing the password, and adding an authenticator app by
// reading the key the page shows and typing a code computed from it, then signing in again through the
// challenge step; accessibility scans of both screens.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import { screenshot } from '../support/harness.mjs';
import {
  PASSWORD,
  expectNoSeriousA11yViolations,
  newPage,
  productCall,
  signUp,
  fromAccountMenu,
} from '../support/journey.mjs';
import { totpCode } from '../support/totp.mjs';
import { journeyServers } from '../support/servers.mjs';

const servers = journeyServers('mfa');

/** The organization the page works on (its stored choice). */
function currentOrgId(page) {
  return page.evaluate(() => localStorage.getItem('currentOrgId'));
}

/** Signs out from the top bar's account menu and signs in again with the password; answers the sign-in dialog. */
async function signOutAndIn(page, email, password) {
  await fromAccountMenu(page, 'Sign Out');
  await page.waitForURL(/\/signin/);
  await page.getByRole('button', { name: 'Continue with Email' }).click();
  const dialog = page.getByRole('dialog');
  await dialog.getByLabel('Email address').fill(email);
  await dialog.getByLabel('Password').fill(password);
  await dialog.getByRole('button', { name: 'Sign in', exact: true }).click();
  return dialog;
}

/** On Account Security: adds an authenticator app with a code computed from the key shown; answers the key. */
async function addAuthenticatorApp(page) {
  await page.getByRole('heading', { level: 1, name: 'Account Security' }).waitFor();
  await page.getByRole('button', { name: 'Add authenticator app' }).click();
  const secret = (await page.getByTestId('totp-secret').textContent()).trim();
  await page.getByLabel('Code from the app').fill(totpCode(secret));
  await page.getByRole('button', { name: 'Confirm' }).click();
  await page.getByText('Your authenticator app is set up.').waitFor();
  return secret;
}

describe('second factor', () => {
  test('add an authenticator app on Account Security, then sign in with a code', async () => {
    const email = 'totp@example.com';
    const page = await newPage(servers.browser);
    await signUp(page, servers, email);

    await fromAccountMenu(page, 'Account Security');
    await page.getByRole('heading', { level: 1, name: 'Account Security' }).waitFor();
    await page.getByText('No authenticator app yet.').waitFor();
    await page.getByRole('button', { name: 'Add authenticator app' }).click();
    const secret = (await page.getByTestId('totp-secret').textContent()).trim();
    assert.match(secret, /^[A-Z2-7]{32}$/);
    await page.getByRole('img', { name: 'QR code for your authenticator app' }).waitFor();
    await expectNoSeriousA11yViolations(page, 'Account Security, adding an app');
    await screenshot(page, 'mfa-enroll');
    const firstStep = Date.now() / 1000;
    await page.getByLabel('Code from the app').fill(totpCode(secret, firstStep));
    await page.getByRole('button', { name: 'Confirm' }).click();
    await page.getByText('Your authenticator app is set up.').waitFor();
    await page.getByRole('list', { name: 'Your authenticator apps' }).getByText('Authenticator app').waitFor();

    // Sign out, sign in with the password: the product API asks for the second factor first.
    await signOutAndIn(page, email, PASSWORD);
    await page.getByRole('heading', { level: 1, name: 'Confirm it’s you' }).waitFor();
    assert.match(new URL(page.url()).pathname, /^\/signin\/mfa$/);
    await expectNoSeriousA11yViolations(page, 'the challenge step');
    await screenshot(page, 'mfa-challenge');

    await page.getByLabel('Code').fill('000000' === totpCode(secret) ? '111111' : '000000');
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByRole('alert').getByText('That code is not right').waitFor();
    // The first code was used: the next step's (one step of drift is accepted) signs in.
    await page.getByLabel('Code').fill(totpCode(secret, firstStep + 30));
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByRole('heading', { level: 1, name: 'Developer Dashboard' }).waitFor();
  });
  test('an organization requires a second factor: a member without one is held back until adding one', async () => {
    // The admin adds an authenticator app, then requires one of every member.
    const admin = await newPage(servers.browser);
    await signUp(admin, servers, 'guard@example.com');
    await fromAccountMenu(admin, 'Account Security');
    await addAuthenticatorApp(admin);
    await admin.getByRole('link', { name: 'Organization Settings' }).click();
    const toggle = admin.getByRole('switch', { name: 'Require two-factor authentication' });
    await toggle.click();
    await admin.getByText('Two-factor authentication is now required of every member.').waitFor();
    await admin.getByRole('switch', { name: 'Require two-factor authentication', checked: true }).waitFor();
    await expectNoSeriousA11yViolations(admin, 'organization settings, two-factor required');
    await screenshot(admin, 'org-two-factor-required');

    // A colleague without a factor joins through an invitation.
    const member = await newPage(servers.browser);
    await signUp(member, servers, 'plain@example.com');
    await admin.getByRole('link', { name: 'Members' }).click();
    await admin.getByLabel(/Email Address/).fill('plain@example.com');
    await admin.getByRole('button', { name: 'Send Invitation' }).click();
    await admin.getByText('Invitation sent successfully!').waitFor();
    const invitation = await servers.smtp.mailTo('plain@example.com', 2);
    assert.match(invitation.link, /\/invite\/accept\?token=/);
    await member.goto(invitation.link);

    // The organization's screens show the notice, not errors.
    const notice = member.getByRole('alert').filter({ hasText: 'requires two-factor authentication' });
    await notice.getByText("guard's Organization requires two-factor authentication").waitFor({ timeout: 15_000 });
    await member.getByRole('link', { name: 'Dashboard' }).first().click();
    await notice.waitFor();
    assert.equal(await member.getByRole('heading', { level: 1, name: 'Developer Dashboard' }).count(), 0);
    const refused = await productCall(member, 'GET', '/api/dev/apps', null, await currentOrgId(member));
    assert.equal(refused.status, 403);
    assert.equal(refused.body.code, 'ORG_MFA_REQUIRED');
    await expectNoSeriousA11yViolations(member, 'the notice of an organization requiring two-factor authentication');
    await screenshot(member, 'org-two-factor-notice');

    // The member adds an authenticator app on Account Security and acts again.
    await notice.getByRole('link', { name: 'Set up two-factor authentication' }).click();
    await member.getByText(/Add an authenticator app below/).waitFor();
    await member.getByText('No authenticator app yet.').waitFor();
    await expectNoSeriousA11yViolations(member, 'Account Security below the notice');
    await screenshot(member, 'org-two-factor-account-security');
    await addAuthenticatorApp(member);
    await notice.waitFor({ state: 'detached', timeout: 15_000 });
    await member.getByRole('link', { name: 'Dashboard' }).first().click();
    await member.getByRole('heading', { level: 1, name: 'Developer Dashboard' }).waitFor();
    // The organization's apps load (none yet), without an error.
    await member.getByText('No apps to display').first().waitFor();
    const allowed = await productCall(member, 'GET', '/api/dev/apps', null, await currentOrgId(member));
    assert.equal(allowed.status, 200, JSON.stringify(allowed.body));
    await screenshot(member, 'org-two-factor-member-back');

    // The admin sees on the Members page who has a second factor.
    await admin.reload();
    await admin.getByRole('table', { name: 'Members' }).waitFor();
    await admin.getByLabel('Two-factor authentication on for plain@example.com').waitFor();
    await admin.getByLabel('Two-factor authentication on for guard@example.com').waitFor();
    await expectNoSeriousA11yViolations(admin, 'members with the two-factor column');
    await screenshot(admin, 'org-two-factor-members');
  });
  test('change the password on Account Security, then sign in with the new one', async () => {
    const email = 'password@example.com';
    const fresh = 'a quieter passphrase for the glasses';
    const page = await newPage(servers.browser);
    await signUp(page, servers, email);
    await fromAccountMenu(page, 'Account Security');
    const section = page.getByRole('region', { name: 'Password' });
    await section.getByRole('button', { name: 'Change password' }).click();
    await section.getByText('Enter your current password.').waitFor();

    await section.getByLabel('Current password').fill('not the password at all');
    await section.getByLabel(/^New password/).fill(fresh);
    await section.getByLabel('Confirm new password').fill(`${fresh}!`);
    await section.getByRole('button', { name: 'Change password' }).click();
    await section.getByText('The two new passwords differ.').waitFor();
    await section.getByLabel('Confirm new password').fill(fresh);
    await section.getByRole('button', { name: 'Change password' }).click();
    // Just signed in, yet a wrong current password is refused.
    await section.getByText('That is not your current password.').waitFor();
    await expectNoSeriousA11yViolations(page, 'Account Security, a refused password change');
    await screenshot(page, 'account-password-refused');

    await section.getByLabel('Current password').fill(PASSWORD);
    await section.getByRole('button', { name: 'Change password' }).click();
    await section.getByText('Your password was changed.').waitFor();
    assert.equal(await section.getByLabel('Current password').inputValue(), '');

    const dialog = await signOutAndIn(page, email, PASSWORD);
    await dialog.getByRole('alert').waitFor();
    await dialog.getByLabel('Password').fill(fresh);
    await dialog.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.getByRole('heading', { level: 1, name: 'Developer Dashboard' }).waitFor();
  });
});
