// App journeys in a real Chromium against a real portal (spec §2 Dashboard, My Apps, Apps table, Create App;
// §5 and §8 messages; PRODUCT.md §4 share links and §9 the publish checklist): a new user registers an app with
// an uploaded logo, sees its key once, finds it in the list, opens its tester link signed out, completes the
// organization profile the checklist asks for, submits the app, and deletes it; an accessibility scan of each
// screen.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { deflateSync } from 'node:zlib';

import { screenshot, settled } from '../support/harness.mjs';
import { expectNoSeriousA11yViolations, newPage as freshPage, signUp as signUpWith } from '../support/journey.mjs';
import { journeyServers } from '../support/servers.mjs';

const PACKAGE = 'com.acme.weather';

const servers = journeyServers('apps');

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k += 1) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(bytes) {
  let c = 0xffffffff;
  for (const byte of bytes) c = CRC_TABLE[(c ^ byte) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function pngChunk(type, data) {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

/** A real `size`×`size` RGB PNG: a blue square with a lighter diagonal. */
function logoPng(size = 64) {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(size, 0);
  header.writeUInt32BE(size, 4);
  header[8] = 8; // bit depth
  header[9] = 2; // RGB
  const rows = [];
  for (let y = 0; y < size; y += 1) {
    const row = Buffer.alloc(1 + size * 3);
    for (let x = 0; x < size; x += 1) {
      const diagonal = Math.abs(x - y) < 6;
      row[1 + x * 3] = diagonal ? 120 : 25;
      row[2 + x * 3] = diagonal ? 200 : 90;
      row[3 + x * 3] = 230;
    }
    rows.push(row);
  }
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk('IHDR', header),
    pngChunk('IDAT', deflateSync(Buffer.concat(rows))),
    pngChunk('IEND', Buffer.alloc(0)),
  ]);
}

function newPage(options) {
  return freshPage(servers.browser, options);
}

/** A screenshot once the page is still. */
async function shot(page, name) {
  await settled(page);
  await screenshot(page, name);
}

function signUp(page, email) {
  return signUpWith(page, servers, email);
}

/** Opens the row menu of an app in the apps table and picks an action. */
async function rowAction(page, appName, action) {
  await page.getByRole('button', { name: `Actions for ${appName}` }).click();
  await page.getByRole('menuitem', { name: action }).click();
}

describe('app journeys', () => {
  test('a developer registers an app, shares it, submits it for review and deletes it', async () => {
    const ada = await newPage({ clipboard: true });
    await signUp(ada, 'ada@example.com');
    await ada.getByRole('heading', { level: 1, name: 'Developer Dashboard' }).waitFor();
    await ada.getByText('Get started by creating your first app').waitFor();
    await ada.getByText('No apps to display').waitFor();
    await shot(ada, 'apps-dashboard-empty');
    await expectNoSeriousA11yViolations(ada, 'dashboard (no apps)');

    // Create App: every required field is checked first.
    await ada.getByRole('link', { name: 'Create App' }).first().click();
    await ada.getByRole('heading', { level: 1, name: 'Create App' }).waitFor();
    assert.equal(new URL(ada.url()).pathname, '/apps/create');
    await ada.getByRole('button', { name: 'Create App' }).click();
    for (const message of [
      'Package name is required',
      'Display name is required',
      'Description is required',
      'Server URL is required',
      'Logo is required',
    ]) {
      await ada.getByText(message).waitFor();
    }
    await shot(ada, 'apps-create-errors');
    await expectNoSeriousA11yViolations(ada, 'create app (errors)');

    await ada.getByLabel(/Package Name/).fill('Com.Acme.Weather');
    await ada.getByRole('button', { name: 'Create App' }).click();
    await ada.getByText('Package name must use lowercase letters, numbers, dots, and hyphens only').waitFor();
    await ada.getByLabel(/Package Name/).fill(PACKAGE);
    await ada.getByLabel(/Display Name/).fill('Weather');
    await ada.getByLabel(/^Description/).fill('Forecasts on your glasses');
    await ada.getByLabel(/Onboarding Instructions/).fill('Say "weather" to hear the forecast.');
    await ada.getByLabel(/Server URL/).fill('http://weather.acme.test/');
    await ada.getByLabel(/Webview URL/).focus();
    // Normalised on blur: https, no trailing slash.
    assert.equal(await ada.getByLabel(/Server URL/).inputValue(), 'https://weather.acme.test');
    await ada.getByTestId('image-upload-input').setInputFiles({
      name: 'logo.png',
      mimeType: 'image/png',
      buffer: logoPng(),
    });
    await ada.getByRole('img', { name: 'App logo preview' }).waitFor();
    await ada.getByRole('radio', { name: /Foreground App/ }).check();
    await ada.getByRole('button', { name: 'Add Permission' }).click();
    await shot(ada, 'apps-create-filled');
    await ada.getByRole('button', { name: 'Create App' }).click();

    // The key is shown once and copied.
    const keyDialog = ada.getByRole('dialog', { name: 'API Key for Weather' });
    await keyDialog.waitFor();
    await keyDialog.getByText('Important: This key is only shown once. Please copy it now!').waitFor();
    const key = await keyDialog.getByTestId('api-key').inputValue();
    assert.ok(key.length > 10, `a key longer than 10 characters: ${key}`);
    await keyDialog.getByText('Copied to clipboard').waitFor();
    assert.equal(await ada.evaluate(() => navigator.clipboard.readText()), key);
    await shot(ada, 'apps-create-key');
    await expectNoSeriousA11yViolations(ada, 'API key dialog');
    await keyDialog.getByRole('button', { name: 'Close' }).click();
    await ada.waitForURL(`**/apps/${PACKAGE}/edit`);

    // My Apps lists it in Development.
    await ada.goto(`${servers.portal.url}/apps`);
    await ada.getByRole('heading', { level: 1, name: 'My Apps' }).waitFor();
    const row = ada.getByRole('row').filter({ hasText: PACKAGE });
    await row.getByText('Development').waitFor();
    await ada.getByRole('textbox', { name: 'Search your apps' }).fill('nothing like it');
    await ada.getByText('No apps match your search criteria').waitFor();
    await ada.getByRole('textbox', { name: 'Search your apps' }).fill('WEATHER');
    await row.waitFor();
    await shot(ada, 'apps-list');
    await expectNoSeriousA11yViolations(ada, 'my apps');

    // Share: the link opens the tester page for someone signed out.
    await rowAction(ada, 'Weather', 'Share with Testers');
    const share = ada.getByRole('dialog', { name: 'Share Weather with Testers' });
    await share.getByText(/does not send emails automatically/).waitFor();
    const installUrl = await share.getByTestId('install-url').inputValue();
    assert.match(installUrl, new RegExp(`^${servers.portal.url}/install/`));
    await share.getByLabel('Tester email').fill('tess@example');
    await share.getByLabel('Tester email').blur();
    await share.getByText('Please enter a valid email address').waitFor();
    await share.getByLabel('Tester email').fill('tess@example.com');
    await share.getByLabel('Tester email').press('Enter');
    await share.getByRole('button', { name: 'Save Testers' }).click();
    await share.getByText('Tester list saved').waitFor();
    await shot(ada, 'apps-share');
    await expectNoSeriousA11yViolations(ada, 'share dialog');
    await share.getByRole('button', { name: 'Close' }).click();

    const tester = await newPage();
    await tester.goto(installUrl);
    await tester.getByRole('heading', { level: 1, name: 'Weather' }).waitFor();
    await tester.getByText('Say "weather" to hear the forecast.').waitFor();
    await tester.getByText('Foreground App').waitFor();
    await tester.getByText('Microphone').waitFor();
    await shot(tester, 'apps-tester-page');
    await expectNoSeriousA11yViolations(tester, 'tester page');
    await tester.goto(`${servers.portal.url}/install/not-a-token`);
    await tester.getByRole('heading', { name: 'Test link not found' }).waitFor();

    // Resetting the link retires the old one at once.
    await rowAction(ada, 'Weather', 'Share with Testers');
    const again = ada.getByRole('dialog', { name: 'Share Weather with Testers' });
    await again.getByTestId('install-url').waitFor();
    await again.getByRole('button', { name: 'Reset Link' }).click();
    await again.getByText(/The current link stops working at once/).waitFor();
    await again.getByRole('alert').getByRole('button', { name: 'Reset Link' }).click();
    await again.getByText('A new link was made. The old link no longer works.').waitFor();
    const newInstallUrl = await again.getByTestId('install-url').inputValue();
    assert.notEqual(newInstallUrl, installUrl);
    await again.getByRole('button', { name: 'Close' }).click();
    await tester.goto(installUrl);
    await tester.getByRole('heading', { name: 'Test link not found' }).waitFor();
    await tester.goto(newInstallUrl);
    await tester.getByRole('heading', { level: 1, name: 'Weather' }).waitFor();

    // A new key from the list: shown once, and different.
    await rowAction(ada, 'Weather', 'Manage API Key');
    const manage = ada.getByRole('dialog', { name: 'API Key for Weather' });
    await manage.getByRole('button', { name: 'Regenerate API Key' }).click();
    await manage.getByText(/current key stops working at once/).waitFor();
    await manage.getByRole('button', { name: 'Yes, Regenerate' }).click();
    await manage.getByText('API key regenerated successfully').waitFor();
    const newKey = await manage.getByTestId('api-key').inputValue();
    assert.ok(newKey.length > 10 && newKey !== key, 'a new key');
    await manage.getByRole('button', { name: 'Close' }).click();

    // The package name is taken now.
    await ada.goto(`${servers.portal.url}/apps/create`);
    await ada.getByLabel(/Package Name/).fill(PACKAGE);
    await ada.getByLabel(/Display Name/).fill('Weather Again');
    await ada.getByLabel(/^Description/).fill('Same name');
    await ada.getByLabel(/Server URL/).fill('weather2.acme.test');
    await ada.getByTestId('image-upload-input').setInputFiles({
      name: 'logo.png',
      mimeType: 'image/png',
      buffer: logoPng(32),
    });
    await ada.getByRole('img', { name: 'App logo preview' }).waitFor();
    await ada.getByRole('button', { name: 'Create App' }).click();
    await ada.getByRole('alert').filter({ hasText: 'Package name is already in use' }).waitFor();
    await ada.getByText('This package name is already in use. Please choose another.').waitFor();
    await shot(ada, 'apps-create-taken');

    // The dashboard shows it, with View All.
    await ada.getByRole('link', { name: 'Dashboard' }).click();
    await ada.getByRole('link', { name: 'Weather' }).waitFor();
    await expectNoSeriousA11yViolations(ada, 'dashboard (one app)');
    await shot(ada, 'apps-dashboard');
    await ada.getByRole('link', { name: 'View All' }).click();
    await ada.getByRole('heading', { level: 1, name: 'My Apps' }).waitFor();

    // Publish: the checklist asks for the organization's contact e-mail first.
    await rowAction(ada, 'Weather', 'Publish to App Store');
    const publish = ada.getByRole('dialog', { name: 'Publish to App Store' });
    await publish
      .getByText(
        'Your organization profile is incomplete. Please fill out your organization name and contact email before publishing an app.',
      )
      .waitFor();
    assert.equal(await publish.getByRole('button', { name: 'Submit for Review' }).isDisabled(), true);
    await shot(ada, 'apps-publish-incomplete');
    await expectNoSeriousA11yViolations(ada, 'publish dialog (profile incomplete)');
    await publish.getByRole('link', { name: 'Complete Organization Profile' }).click();
    await ada.getByRole('heading', { level: 1, name: 'Organization Settings' }).waitFor();
    await ada.getByLabel(/Contact email/).fill('team@acme.test');
    await ada.getByTestId('image-upload-input').setInputFiles({
      name: 'org.png',
      mimeType: 'image/png',
      buffer: logoPng(48),
    });
    await ada.getByRole('img', { name: /logo preview/ }).waitFor();
    await ada.getByRole('button', { name: 'Save Changes' }).click();
    await ada.getByRole('alert').filter({ hasText: 'Organization updated successfully' }).first().waitFor();
    await shot(ada, 'apps-org-logo');

    // The navigation's link (the Delete card of an organization that owns apps links to My Apps too).
    await ada.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'My Apps' }).click();
    await rowAction(ada, 'Weather', 'Publish to App Store');
    const ready = ada.getByRole('dialog', { name: 'Publish to App Store' });
    await ready.getByText('Server URL uses HTTPS').waitFor();
    await shot(ada, 'apps-publish-ready');
    await ready.getByRole('button', { name: 'Submit for Review' }).click();
    await ada.getByText('App submitted for publication!').waitFor();
    await row.getByText('Submitted').waitFor();
    await ada.getByRole('button', { name: 'Actions for Weather' }).click();
    assert.equal(await ada.getByRole('menuitem', { name: /App Store/ }).count(), 0);
    await ada.keyboard.press('Escape');
    await shot(ada, 'apps-list-submitted');

    // Delete: confirmed, and the list is empty again.
    await rowAction(ada, 'Weather', 'Delete App');
    const remove = ada.getByRole('dialog', { name: 'Delete Weather?' });
    await expectNoSeriousA11yViolations(ada, 'delete dialog');
    await remove.getByRole('button', { name: 'Delete App' }).click();
    await remove.waitFor({ state: 'detached' });
    await ada.getByText('Get started by creating your first app').waitFor();

    // The deleted app's link no longer opens.
    await tester.goto(newInstallUrl);
    await tester.getByRole('heading', { name: 'Test link not found' }).waitFor();
  });
});
