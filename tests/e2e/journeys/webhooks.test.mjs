// Webhooks journey in a real Chromium against a real portal (issue 38): an organization admin opens
// Organization Settings → Webhooks, adds an endpoint (a local receiver that verifies every delivery with the
// `standardwebhooks` package), keeps the secret shown once, sends a test, reads the delivery in the log,
// retries it, and sees the receiver get the same `webhook-id` twice, both verified. The delivery's body is
// indented, wrapped on a phone and copied exactly as sent; the answer's place says why it holds no body; a
// disabled endpoint's Send test is off, with the reason beside it (issue 48 items 7, 12 and 13).
// An accessibility scan and a screenshot of each screen.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';

import { screenshot, settled } from '../support/harness.mjs';
import {
  expectNoSeriousA11yViolations as scan,
  lookAtEverySize,
  newPage as freshPage,
  signUp as signUpWith,
} from '../support/journey.mjs';
import { journeyServers } from '../support/servers.mjs';

const ADA = 'ada@example.com';

let receiver;
let receiverUrl;

/** Starts `webhook-receiver.mjs`: answers its base URL. */
async function startReceiver() {
  const script = fileURLToPath(new URL('../webhook-receiver.mjs', import.meta.url));
  receiver = spawn(process.execPath, [script], { stdio: ['ignore', 'pipe', 'inherit'] });
  const [chunk] = await once(receiver.stdout, 'data');
  const port = chunk.toString().trim().replace('listening ', '');
  return `http://127.0.0.1:${port}`;
}

const received = async () => (await fetch(`${receiverUrl}/_received`)).json();

async function waitFor(what, check, limitMs = 20_000) {
  const started = Date.now();
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() - started > limitMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

before(async () => {
  receiverUrl = await startReceiver();
});

const servers = journeyServers('webhooks', { env: { PORTAL_WEBHOOKS_ALLOW_PRIVATE_TARGETS: 'true' } });

after(() => {
  receiver?.kill();
});

async function still(page) {
  await settled(page);
  await page.waitForFunction(() =>
    [...document.querySelectorAll('[role="dialog"]')].every((dialog) => {
      for (let e = dialog; e; e = e.parentElement) if (getComputedStyle(e).opacity !== '1') return false;
      return true;
    }),
  );
}

describe('webhooks journey', () => {
  test('an admin adds an endpoint, sends a test, reads its delivery and retries it', async () => {
    const ada = await freshPage(servers.browser, { clipboard: true });
    await signUpWith(ada, servers, ADA);

    await ada.getByRole('link', { name: 'Organization Settings' }).click();
    await ada.getByRole('heading', { level: 1, name: 'Organization Settings' }).waitFor();
    await ada.getByRole('link', { name: 'Manage webhooks' }).click();
    await ada.getByRole('heading', { level: 1, name: 'Webhooks' }).waitFor();
    assert.equal(new URL(ada.url()).pathname, '/org-settings/webhooks');
    await ada.getByText(/has no webhook endpoint yet/).waitFor();
    await still(ada);
    await screenshot(ada, 'webhooks-empty');
    await scan(ada, 'webhooks (empty)');

    // Add: a URL that is not https is refused on its field; the receiver's loopback address is allowed here.
    await ada.getByRole('button', { name: 'Add endpoint' }).click();
    const dialog = ada.getByRole('dialog', { name: 'Add endpoint' });
    await dialog.getByLabel(/Endpoint URL/).fill('ftp://example.com/hooks');
    await dialog.getByRole('button', { name: 'Add endpoint' }).click();
    await dialog.getByText(/Enter a URL such as https/).waitFor();
    await dialog.getByLabel(/Endpoint URL/).fill(`${receiverUrl}/hooks`);
    await dialog.getByLabel('Description').fill('The team chat');
    await dialog.getByLabel(/app\.approved/).check();
    await dialog.getByLabel(/member\.joined/).check();
    await still(ada);
    await screenshot(ada, 'webhooks-add');
    await scan(ada, 'webhooks (add endpoint)');
    await dialog.getByRole('button', { name: 'Add endpoint' }).click();

    // The secret, once.
    const secretDialog = ada.getByRole('dialog', { name: 'Signing secret' });
    const secret = await secretDialog.getByTestId('webhook-secret').inputValue();
    assert.match(secret, /^whsec_[A-Za-z0-9+/=]{40,}$/);
    await fetch(`${receiverUrl}/_secrets`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ secrets: [secret] }),
    });
    await secretDialog.getByRole('button', { name: 'Done' }).click();
    await secretDialog.waitFor({ state: 'detached' });
    const endpoints = ada.getByRole('list', { name: 'Webhook endpoints' });
    await endpoints.getByText(`${receiverUrl}/hooks`).waitFor();
    await endpoints.getByText(/Events: app\.approved, member\.joined|Events: member\.joined, app\.approved/).waitFor();

    // A test, then its delivery in the log.
    await ada.getByRole('button', { name: 'Send test' }).click();
    await ada.getByText(/A webhook\.test delivery was queued/).waitFor();
    const log = ada.getByRole('region', { name: 'Delivery log' });
    const delivery = log.getByRole('listitem').filter({ hasText: 'webhook.test' });
    await delivery.getByText('DELIVERED').waitFor({ timeout: 20_000 });
    await delivery.getByText(/HTTP 204/).waitFor();
    await delivery.getByRole('button', { name: 'Details' }).click();
    // The body indented for reading and wrapped at the card's edge, even on a phone (issue 48 item 12).
    const requestBody = delivery.getByRole('region', { name: 'Request body' });
    await requestBody.getByText(/"type": "webhook\.test"/).waitFor();
    // The receiver is on loopback: its answer is never read, and the log says so rather than show nothing.
    await delivery
      .getByText('HTTP 204, body not kept: the endpoint is on a private address, whose answers are never read.')
      .waitFor();
    await still(ada);
    await screenshot(ada, 'webhooks-log');
    await scan(ada, 'webhooks (delivery log)');
    await lookAtEverySize(ada, 'webhooks-log-details');
    await ada.setViewportSize({ width: 390, height: 844 });
    const cut = await requestBody.evaluate((box) => box.scrollWidth - box.clientWidth);
    assert.equal(cut, 0, 'the request body wraps at 390 px: nothing of it is cut at the edge');
    await ada.setViewportSize({ width: 1280, height: 900 });
    // Copy body copies the bytes that were signed, as the receiver got them.
    await delivery.getByRole('button', { name: 'Copy body' }).click();
    await delivery.getByRole('button', { name: 'Copied' }).waitFor();
    const [first] = await received();
    assert.equal(await ada.evaluate(() => navigator.clipboard.readText()), first.body);

    // Retry: the receiver gets the same delivery again (same webhook-id), verified both times.
    await delivery.getByRole('button', { name: 'Retry' }).click();
    const deliveries = await waitFor('the retried delivery', async () => {
      const list = await received();
      return list.length >= 2 ? list : null;
    });
    assert.equal(deliveries.length, 2);
    assert.equal(deliveries[0].id, deliveries[1].id, 'the same webhook-id');
    for (const d of deliveries) assert.deepEqual(d.verifiedWith, [0], `verified: ${JSON.stringify(d)}`);
    await delivery.getByText(/2 attempts/).waitFor({ timeout: 20_000 });

    // A disabled endpoint is sent nothing: Send test is off, and the card says why (issue 48 item 7).
    const card = endpoints.getByRole('listitem').filter({ hasText: `${receiverUrl}/hooks` }).first();
    await card.getByRole('button', { name: 'Disable' }).click();
    await card.getByText('Disabled.').waitFor();
    // The card shows the endpoint as the server answers it after the change.
    const reason = card.getByText(/Send test is off while this endpoint is disabled/);
    await reason.waitFor();
    const sendTest = card.getByRole('button', { name: 'Send test' });
    assert.equal(await sendTest.isDisabled(), true, 'Send test is off on a disabled endpoint');
    await lookAtEverySize(ada, 'webhooks-disabled');
    await card.getByRole('button', { name: 'Enable' }).click();
    await card.getByText('Enabled.').waitFor();
    await reason.waitFor({ state: 'detached' });
    assert.equal(await sendTest.isEnabled(), true, 'Send test is on again once the endpoint is enabled');
  });
});
