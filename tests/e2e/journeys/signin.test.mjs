// Sign-in journeys in a real Chromium against a real portal that sends real e-mail (spec §2, PRODUCT.md §1):
// sign up and confirm, sign out, forgotten password, magic link, six-digit code; plus the 404 page and an
// accessibility scan of each screen.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import { screenshot } from '../support/harness.mjs';
import { PASSWORD, expectNoSeriousA11yViolations, newPage as freshPage, fromAccountMenu } from '../support/journey.mjs';
import { journeyServers } from '../support/servers.mjs';

const NEW_PASSWORD = 'a brand new passphrase for glasses';

const servers = journeyServers('signin');

/** A fresh browser profile (no stored session). */
function newPage() {
  return freshPage(servers.browser);
}

async function openEmailDialog(page) {
  await page.getByRole('button', { name: 'Continue with Email' }).click();
  return page.getByRole('dialog');
}

async function signInWithPassword(page, email, password) {
  await page.goto(`${servers.portal.url}/signin`);
  const dialog = await openEmailDialog(page);
  await dialog.getByLabel('Email address').fill(email);
  await dialog.getByLabel('Password').fill(password);
  await dialog.getByRole('button', { name: 'Sign in', exact: true }).click();
  await page.getByRole('heading', { level: 1, name: 'Developer Dashboard' }).waitFor();
}

async function signOut(page) {
  await fromAccountMenu(page, 'Sign Out');
  await page.getByRole('heading', { level: 1, name: 'Welcome' }).waitFor();
  assert.equal(new URL(page.url()).pathname, '/signin');
}

describe('sign-in journeys', () => {
  test('the landing page and the 404 page', async () => {
    const page = await newPage();
    await page.goto(servers.portal.url);
    await page.getByRole('heading', { level: 1 }).waitFor();
    await screenshot(page, 'landing');
    await expectNoSeriousA11yViolations(page, 'landing');

    await page.goto(`${servers.portal.url}/no/such/page`);
    await page.getByRole('heading', { level: 1, name: 'Page not found' }).waitFor();
    assert.equal(await page.getByRole('link', { name: 'Back to Dashboard' }).getAttribute('href'), '/dashboard');
    await screenshot(page, 'not-found');
    await expectNoSeriousA11yViolations(page, '404');
  });

  test('an authenticated page sends a visitor to sign in', async () => {
    const page = await newPage();
    await page.goto(`${servers.portal.url}/dashboard`);
    await page.getByRole('heading', { level: 1, name: 'Welcome' }).waitFor();
    assert.equal(new URL(page.url()).pathname, '/signin');
    await page.getByRole('button', { name: 'Continue with Email' }).waitFor();
    // No provider is configured on this server: none is offered (once the configuration has arrived).
    await page.waitForLoadState('networkidle');
    assert.equal(await page.getByText('Or continue with').count(), 0);
    assert.equal(await page.getByRole('button', { name: 'Google' }).count(), 0);
    assert.equal(await page.getByRole('button', { name: 'Apple' }).count(), 0);
    await page.getByRole('button', { name: /^Color scheme:/ }).waitFor();
    await screenshot(page, 'signin');
    await expectNoSeriousA11yViolations(page, 'sign-in');
  });

  test('before its code has loaded, the dashboard shows its signed-in shell only to a visitor with a session', async () => {
    // The page's code never arrives: what shows is the HTML built ahead of time and its inline scripts.
    const page = await newPage();
    await page.route('**/assets/*.js', (route) => route.abort());
    await page.goto(`${servers.portal.url}/dashboard`);
    await page.waitForLoadState('load');
    assert.equal(await page.getByRole('button', { name: 'Account menu' }).count(), 0, 'no shell for a signed-out visitor');
    assert.equal(await page.locator('#root').innerHTML(), '');

    await page.evaluate(() => localStorage.setItem('portal-auth', '{}'));
    await page.reload();
    await page.waitForLoadState('load');
    await page.getByRole('button', { name: 'Account menu' }).waitFor();
  });

  test('sign up, confirm from the e-mail, reach the dashboard, sign out, sign in again', async () => {
    const email = 'ada@example.com';
    const page = await newPage();
    await page.goto(`${servers.portal.url}/signup`);
    const dialog = await openEmailDialog(page);
    await dialog.getByRole('heading', { name: 'Create an account' }).waitFor();
    await dialog.getByLabel('Email address').fill(email);
    await dialog.getByLabel('Password').fill(PASSWORD);
    await screenshot(page, 'signup-dialog');
    await expectNoSeriousA11yViolations(page, 'sign-up dialog');
    await dialog.getByRole('button', { name: 'Create account' }).click();
    await dialog.getByText('Account created! Check your email for confirmation.').waitFor();

    const mail = await servers.smtp.mailTo(email);
    assert.ok(mail.link, `a confirmation link in: ${mail.message}`);
    await page.goto(mail.link);
    await page.getByRole('heading', { level: 1, name: 'Developer Dashboard' }).waitFor();
    await page.getByText(`Signed in as ${email}`).waitFor();
    assert.ok(await page.evaluate(() => localStorage.getItem('coreToken')), 'a core token is stored');
    await screenshot(page, 'dashboard');
    await expectNoSeriousA11yViolations(page, 'dashboard');

    await signOut(page);
    assert.equal(await page.evaluate(() => localStorage.getItem('coreToken')), null);
    await signInWithPassword(page, email, PASSWORD);
    await signOut(page);
  });

  test('a wrong password is refused with the service message', async () => {
    const page = await newPage();
    await page.goto(`${servers.portal.url}/signin`);
    const dialog = await openEmailDialog(page);
    await dialog.getByLabel('Email address').fill('nobody@example.com');
    await dialog.getByLabel('Password').fill('not the right password at all');
    await dialog.getByRole('button', { name: 'Sign in', exact: true }).click();
    await dialog.getByRole('alert').getByText('Invalid login credentials').waitFor();
  });

  test('forgotten password: the link lets the user choose a new one', async () => {
    const email = 'grace@example.com';
    await signUpAndConfirm(email);
    const page = await newPage();
    await page.goto(`${servers.portal.url}/signin`);
    const dialog = await openEmailDialog(page);
    await dialog.getByRole('button', { name: 'Forgot your password?' }).click();
    await dialog.getByLabel('Email address').fill(email);
    await dialog.getByRole('button', { name: 'Send reset link' }).click();
    await dialog.getByText('Check your email for the password reset link').waitFor();

    const mail = await servers.smtp.mailTo(email, 2);
    await page.goto(mail.link);
    const update = page.getByRole('dialog');
    await update.getByRole('heading', { name: 'Choose a new password' }).waitFor();
    await update.getByLabel(/^New password/).fill(NEW_PASSWORD);
    await screenshot(page, 'update-password');
    await update.getByRole('button', { name: 'Update password' }).click();
    await page.getByRole('heading', { level: 1, name: 'Developer Dashboard' }).waitFor();
    await signOut(page);
    await signInWithPassword(page, email, NEW_PASSWORD);
  });

  test('magic link signs in', async () => {
    const email = 'linus@example.com';
    await signUpAndConfirm(email);
    const page = await newPage();
    await page.goto(`${servers.portal.url}/signin`);
    const dialog = await openEmailDialog(page);
    await dialog.getByRole('button', { name: 'Email me a magic link' }).click();
    await dialog.getByLabel('Email address').fill(email);
    await dialog.getByRole('button', { name: 'Send magic link' }).click();
    await dialog.getByText('Check your email for the magic link').waitFor();
    const mail = await servers.smtp.mailTo(email, 2);
    await page.goto(mail.link);
    await page.getByRole('heading', { level: 1, name: 'Developer Dashboard' }).waitFor();
  });

  test('a six-digit code signs in', async () => {
    const email = 'margaret@example.com';
    await signUpAndConfirm(email);
    const page = await newPage();
    await page.goto(`${servers.portal.url}/signin`);
    const dialog = await openEmailDialog(page);
    await dialog.getByRole('button', { name: 'Sign in with a code' }).click();
    await dialog.getByLabel('Email address').fill(email);
    await dialog.getByRole('button', { name: 'Send code' }).click();
    await dialog.getByText('Check your email for the six-digit code').waitFor();
    const mail = await servers.smtp.mailTo(email, 2);
    assert.match(mail.code ?? '', /^\d{6}$/);
    await dialog.getByLabel('Six-digit code').fill(mail.code);
    await screenshot(page, 'code');
    await dialog.getByRole('button', { name: 'Verify code' }).click();
    await page.getByRole('heading', { level: 1, name: 'Developer Dashboard' }).waitFor();
  });
});

/** Creates and confirms an account through the API, as the browser's client would. */
async function signUpAndConfirm(email) {
  const response = await fetch(`${servers.portal.url}/auth/v1/signup`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', apikey: 'built-in' },
    body: JSON.stringify({ email, password: PASSWORD }),
  });
  assert.equal(response.status, 200, await response.text());
  const mail = await servers.smtp.mailTo(email);
  const confirmed = await fetch(mail.link, { redirect: 'manual' });
  assert.equal(confirmed.status, 303);
  assert.match(confirmed.headers.get('location') ?? '', /#access_token=/);
}
