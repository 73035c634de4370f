import { screen, waitFor, within } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { describe, expect, it, vi } from 'vitest';

import type { WebhookDelivery, WebhookEndpoint, WebhookEventType } from '../../api/types';
import {
  recordRequest,
  serveOrgs,
  signedInStore,
  testOrg,
  type SentRequest,
} from '../../testing/apps';
import { renderWithProviders } from '../../testing/render';
import { server } from '../../testing/server';
import { TEST_OFF_WHILE_DISABLED } from './EndpointCard';
import { ONLY_ADMINS, WebhooksPage } from './WebhooksPage';

const EVENT_TYPES: WebhookEventType[] = ['app.approved', 'member.joined'];

function endpoint(overrides: Partial<WebhookEndpoint> = {}): WebhookEndpoint {
  return {
    id: '0b3c0000-0000-4000-8000-000000000001',
    url: 'https://hooks.acme.test/portal',
    description: 'Team chat',
    events: [],
    allEvents: true,
    enabled: true,
    disabledReason: null,
    createdAt: '2026-11-20T10:00:00Z',
    updatedAt: '2026-11-20T10:00:00Z',
    failingSince: null,
    lastAttemptAt: null,
    lastAttemptOk: null,
    previousSecretValidUntil: null,
    ...overrides,
  };
}

const delivery: WebhookDelivery = {
  id: 'msg_0001',
  eventType: 'webhook.test',
  status: 'FAILED',
  attempts: 10,
  createdAt: '2026-11-21T10:00:00Z',
  nextAttemptAt: null,
  lastAttemptAt: '2026-11-24T10:00:00Z',
  responseStatus: 500,
  durationMs: 12,
  requestBody: '{"type":"webhook.test"}',
  responseBody: 'boom',
  error: 'answered HTTP 500',
};

function serveWebhooks(initial: WebhookEndpoint[]) {
  let endpoints = [...initial];
  const sent: SentRequest[] = [];
  server.use(
    http.get('*/api/orgs/:orgId/webhooks', () =>
      HttpResponse.json({ endpoints, eventTypes: EVENT_TYPES }),
    ),
    http.post('*/api/orgs/:orgId/webhooks', async ({ request }) => {
      await recordRequest(request, sent);
      const body = sent.at(-1)?.body as { url: string; events: WebhookEventType[] };
      if (!body.url.startsWith('https://')) {
        return HttpResponse.json(
          {
            error: 'Some fields are invalid.',
            code: 'VALIDATION',
            fields: { url: 'The URL must start with https://' },
          },
          { status: 400 },
        );
      }
      const created = endpoint({
        url: body.url,
        events: body.events,
        allEvents: body.events.length === 0,
      });
      endpoints = [...endpoints, created];
      return HttpResponse.json(
        { ...created, secret: 'whsec_c2VjcmV0c2VjcmV0c2VjcmV0c2VjcmV0' },
        { status: 201 },
      );
    }),
    http.get('*/api/orgs/:orgId/webhooks/:id/deliveries', () =>
      HttpResponse.json({ deliveries: [delivery], nextCursor: null }),
    ),
    http.post(
      '*/api/orgs/:orgId/webhooks/:id/deliveries/:deliveryId/retry',
      async ({ request }) => {
        await recordRequest(request, sent);
        return HttpResponse.json({ deliveryId: 'msg_0001' }, { status: 202 });
      },
    ),
  );
  return sent;
}

describe('the Webhooks page', { timeout: 20000 }, () => {
  it('tells a member that only admins manage webhooks', async () => {
    serveOrgs([testOrg({ role: 'member' })]);
    renderWithProviders(<WebhooksPage />, { store: signedInStore() });
    expect(await screen.findByText(ONLY_ADMINS)).toBeInTheDocument();
  });

  it('says when there is no endpoint, adds one with chosen events and shows its secret once', async () => {
    serveOrgs();
    const sent = serveWebhooks([]);
    const { user } = renderWithProviders(<WebhooksPage />, { store: signedInStore() });
    expect(await screen.findByText(/has no webhook endpoint yet/)).toBeInTheDocument();

    await user.click(screen.getByRole('button', { name: 'Add endpoint' }));
    const dialog = await screen.findByRole('dialog', { name: 'Add endpoint' });
    await user.type(within(dialog).getByLabelText(/Endpoint URL/), 'http://hooks.acme.test/in');
    await user.click(within(dialog).getByLabelText(/member\.joined/));
    await user.click(within(dialog).getByRole('button', { name: 'Add endpoint' }));
    expect(await within(dialog).findByText('The URL must start with https://')).toBeInTheDocument();

    await user.clear(within(dialog).getByLabelText(/Endpoint URL/));
    await user.type(within(dialog).getByLabelText(/Endpoint URL/), 'https://hooks.acme.test/in');
    // The refusal was about the value sent: editing the field takes it away.
    expect(within(dialog).queryByText('The URL must start with https://')).toBeNull();
    await user.click(within(dialog).getByRole('button', { name: 'Add endpoint' }));
    const secret = await screen.findByRole('dialog', { name: 'Signing secret' });
    expect(within(secret).getByTestId('webhook-secret')).toHaveValue(
      'whsec_c2VjcmV0c2VjcmV0c2VjcmV0c2VjcmV0',
    );
    expect(sent.at(-1)?.body).toEqual({
      url: 'https://hooks.acme.test/in',
      description: '',
      events: ['member.joined'],
    });
    await user.click(within(secret).getByRole('button', { name: 'Done' }));
    const list = await screen.findByRole('list', { name: 'Webhook endpoints' });
    expect(await within(list).findByText('https://hooks.acme.test/in')).toBeInTheDocument();
  });

  it('shows an endpoint’s health and its delivery log, and retries a delivery', async () => {
    serveOrgs();
    const sent = serveWebhooks([endpoint({ failingSince: '2026-11-21T10:00:00Z' })]);
    const { user } = renderWithProviders(<WebhooksPage />, { store: signedInStore() });
    expect(await screen.findByText(/Failing since/)).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Deliveries' }));
    const log = await screen.findByRole('region', { name: 'Delivery log' });
    expect(await within(log).findByText('FAILED')).toBeInTheDocument();
    expect(within(log).getByText(/10 attempts · HTTP 500 · 12 ms/)).toBeInTheDocument();
    await user.click(within(log).getByRole('button', { name: 'Details' }));
    expect(within(log).getByRole('region', { name: 'Request body' })).toHaveTextContent(
      '{ "type": "webhook.test" }',
    );
    await user.click(within(log).getByRole('button', { name: 'Retry' }));
    await waitFor(() => {
      expect(sent.some((request) => request.path.endsWith('/deliveries/msg_0001/retry'))).toBe(
        true,
      );
    });
  });

  it('shows the request body indented and wrapped, and copies it exactly as sent (issue 48 item 12)', async () => {
    serveOrgs();
    const sent = serveWebhooks([endpoint()]);
    const requestBody =
      '{"type":"app.approved","timestamp":"2026-11-21T10:00:00Z","data":{"packageName":"com.acme.weather","notes":"A long line of notes that would run past the edge of a phone if it were not wrapped"}}';
    server.use(
      http.get('*/api/orgs/:orgId/webhooks/:id/deliveries', () =>
        HttpResponse.json({
          deliveries: [{ ...delivery, requestBody, responseBody: '{"ok":true}' }],
          nextCursor: null,
        }),
      ),
    );
    const { user } = renderWithProviders(<WebhooksPage />, { store: signedInStore() });
    await user.click(await screen.findByRole('button', { name: 'Deliveries' }));
    const log = await screen.findByRole('region', { name: 'Delivery log' });
    await user.click(await within(log).findByRole('button', { name: 'Details' }));

    const body = within(log).getByRole('region', { name: 'Request body' });
    expect(body.textContent).toBe(JSON.stringify(JSON.parse(requestBody), null, 2));
    expect(body.textContent).toContain('\n  "data": {\n    "packageName": "com.acme.weather",');
    // Wrapped at the card's edge rather than cut (jsdom lays nothing out: the style says it).
    expect(getComputedStyle(body).whiteSpace).toBe('pre-wrap');
    expect(getComputedStyle(body).overflowWrap).toBe('anywhere');
    expect(within(log).getByText(/Indented here for reading/)).toBeInTheDocument();
    expect(within(log).getByRole('region', { name: 'Answer' }).textContent).toBe(
      '{\n  "ok": true\n}',
    );

    await user.click(within(log).getByRole('button', { name: 'Copy body' }));
    // user-event's clipboard stands in for the browser's: it holds the bytes that were signed.
    expect(await navigator.clipboard.readText()).toBe(requestBody);
    expect(await within(log).findByRole('button', { name: 'Copied' })).toBeInTheDocument();
    expect(within(log).getByRole('status')).toHaveTextContent(
      'Copied the request body, exactly as sent.',
    );
    expect(sent).toEqual([]);
  });

  it('asks for a copy by hand when the browser refuses the clipboard', async () => {
    serveOrgs();
    serveWebhooks([endpoint()]);
    const { user } = renderWithProviders(<WebhooksPage />, { store: signedInStore() });
    vi.spyOn(navigator.clipboard, 'writeText').mockRejectedValueOnce(new Error('denied'));
    await user.click(await screen.findByRole('button', { name: 'Deliveries' }));
    const log = await screen.findByRole('region', { name: 'Delivery log' });
    await user.click(await within(log).findByRole('button', { name: 'Details' }));
    await user.click(within(log).getByRole('button', { name: 'Copy body' }));
    expect(
      await within(log).findByText(
        'Your browser did not allow copying. Select the body and copy it yourself.',
      ),
    ).toBeInTheDocument();
    expect(within(log).getByRole('button', { name: 'Copy body' })).toBeInTheDocument();
  });

  it.each([
    [
      'an answer without a body (a 204)',
      { responseStatus: 204, responseBody: '', status: 'DELIVERED', error: null },
      'HTTP 204, no body.',
    ],
    [
      'an answer from a private address, whose body is not kept',
      { responseStatus: 204, responseBody: null, status: 'DELIVERED', error: null },
      'HTTP 204, body not kept: the endpoint is on a private address, whose answers are never read.',
    ],
    [
      'no answer at all',
      { responseStatus: null, responseBody: null, durationMs: null, error: 'timed out' },
      'No answer came.',
    ],
  ] as const)('says so instead of an empty answer box for %s', async (_case, change, words) => {
    serveOrgs();
    serveWebhooks([endpoint()]);
    server.use(
      http.get('*/api/orgs/:orgId/webhooks/:id/deliveries', () =>
        HttpResponse.json({ deliveries: [{ ...delivery, ...change }], nextCursor: null }),
      ),
    );
    const { user } = renderWithProviders(<WebhooksPage />, { store: signedInStore() });
    await user.click(await screen.findByRole('button', { name: 'Deliveries' }));
    const log = await screen.findByRole('region', { name: 'Delivery log' });
    await user.click(await within(log).findByRole('button', { name: 'Details' }));
    expect(within(log).getByText(words)).toBeInTheDocument();
    expect(within(log).queryByRole('region', { name: 'Answer' })).toBeNull();
  });

  it('turns Send test off on a disabled endpoint and says why (issue 48 item 7)', async () => {
    serveOrgs();
    serveWebhooks([
      endpoint({ enabled: false, disabledReason: 'GONE' }),
      endpoint({ id: '0b3c0000-0000-4000-8000-000000000002', url: 'https://hooks.acme.test/ci' }),
    ]);
    server.use(
      http.post('*/api/orgs/:orgId/webhooks/:id/test', () =>
        HttpResponse.json({ deliveryId: 'msg_0002' }, { status: 202 }),
      ),
    );
    const { user } = renderWithProviders(<WebhooksPage />, { store: signedInStore() });
    const list = await screen.findByRole('list', { name: 'Webhook endpoints' });
    const [disabled, enabled] = within(list).getAllByRole('listitem');
    if (!disabled || !enabled) throw new Error('two endpoints are listed');

    const off = within(disabled).getByRole('button', { name: 'Send test' });
    expect(off).toBeDisabled();
    expect(off).toHaveAccessibleDescription(TEST_OFF_WHILE_DISABLED);
    expect(within(disabled).getByText(TEST_OFF_WHILE_DISABLED)).toBeVisible();
    // Enable stays in reach beside it.
    expect(within(disabled).getByRole('button', { name: 'Enable' })).toBeEnabled();

    const on = within(enabled).getByRole('button', { name: 'Send test' });
    expect(on).toBeEnabled();
    expect(on).not.toHaveAttribute('aria-describedby');
    expect(within(enabled).queryByText(TEST_OFF_WHILE_DISABLED)).toBeNull();
    await user.click(on);
    expect(
      await within(enabled).findByText(/A webhook\.test delivery was queued/),
    ).toBeInTheDocument();
  });

  it('keeps the status chips at their own width when the rows stack on a phone (issue 48 item 13)', async () => {
    serveOrgs();
    serveWebhooks([endpoint({ failingSince: '2026-11-21T10:00:00Z' })]);
    const { user } = renderWithProviders(<WebhooksPage />, { store: signedInStore() });
    const status = await screen.findByText('Failing');
    await user.click(screen.getByRole('button', { name: 'Deliveries' }));
    const log = await screen.findByRole('region', { name: 'Delivery log' });
    const deliveryStatus = await within(log).findByText('FAILED');
    for (const label of [status, deliveryStatus]) {
      const chip = label.closest('.MuiChip-root');
      if (!(chip?.parentElement instanceof HTMLElement)) throw new Error('a chip in a row');
      // jsdom applies no media query: what it computes is the narrowest screen's layout, where the row
      // is a column. A column's items stretch across unless the column aligns them at the start.
      const row = getComputedStyle(chip.parentElement);
      expect(row.flexDirection).toBe('column');
      expect(row.alignItems).toBe('flex-start');
      expect(getComputedStyle(chip).alignSelf).not.toBe('stretch');
      expect(getComputedStyle(chip).width).not.toBe('100%');
    }
  });

  it('shows the server’s words when Send test or Retry is refused for sending too often', async () => {
    serveOrgs();
    serveWebhooks([endpoint()]);
    const tooOften =
      'This endpoint has had 5 tests and retries in the last minute, the most allowed. Try again in 42 seconds.';
    server.use(
      http.post('*/api/orgs/:orgId/webhooks/:id/test', () =>
        HttpResponse.json(
          { error: tooOften, code: 'RATE_LIMITED' },
          { status: 429, headers: { 'Retry-After': '42' } },
        ),
      ),
      http.post('*/api/orgs/:orgId/webhooks/:id/deliveries/:deliveryId/retry', () =>
        HttpResponse.json(
          {
            error:
              'Your organization has sent 20 webhook tests and retries in the last minute, the most allowed. Try again in 7 seconds.',
            code: 'RATE_LIMITED',
          },
          { status: 429, headers: { 'Retry-After': '7' } },
        ),
      ),
    );
    const { user } = renderWithProviders(<WebhooksPage />, { store: signedInStore() });
    await user.click(await screen.findByRole('button', { name: 'Send test' }));
    expect(await screen.findByText(tooOften)).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Deliveries' }));
    const log = await screen.findByRole('region', { name: 'Delivery log' });
    await user.click(await within(log).findByRole('button', { name: 'Retry' }));
    expect(
      await within(log).findByText(/Your organization has sent 20 webhook tests and retries/),
    ).toBeInTheDocument();
  });

  it('offers Retry when the list cannot be loaded', async () => {
    serveOrgs();
    server.use(
      http.get('*/api/orgs/:orgId/webhooks', () =>
        HttpResponse.json(
          { error: 'The database is unavailable', code: 'DATABASE_UNAVAILABLE' },
          { status: 503 },
        ),
      ),
    );
    renderWithProviders(<WebhooksPage />, { store: signedInStore() });
    expect(await screen.findByText('The database is unavailable')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Retry' })).toBeInTheDocument();
  });
});
