import { act, screen, waitFor, within } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { describe, expect, it, vi } from 'vitest';

import {
  recordRequest,
  serveOrgs,
  signedInStore,
  testApp,
  testOrg,
  type SentRequest,
} from '../../../testing/apps';
import { renderWithProviders } from '../../../testing/render';
import { server } from '../../../testing/server';
import { ApiKeyDialog } from './ApiKeyDialog';
import { DeleteAppDialog } from './DeleteAppDialog';
import { PublishDialog } from './PublishDialog';
import { ShareDialog } from './ShareDialog';
import { publishChecklist, PROFILE_INCOMPLETE_MESSAGE } from './publishChecklist';
import { addTester, isTesterEmail } from './testerEmails';
import { COPY_INDICATOR_MS } from '../../../components/useCopyToClipboard';

const APP = testApp();
const NEW_KEY = 'dp_live_0123456789abcdefghijklmnopqrstuvwxyz';

describe('API key dialog', { timeout: 20000 }, () => {
  it('regenerates after a warning, shows the new key once and copies it', async () => {
    const sent: SentRequest[] = [];
    server.use(
      http.post('*/api/dev/apps/:pkg/api-key', async ({ request }) => {
        await recordRequest(request, sent);
        return HttpResponse.json({ apiKey: NEW_KEY });
      }),
    );
    const onClose = vi.fn();
    const { user } = renderWithProviders(
      <ApiKeyDialog
        open
        onClose={onClose}
        orgId="org-1"
        packageName={APP.packageName}
        appName="Weather"
      />,
      { store: signedInStore() },
    );
    const dialog = screen.getByRole('dialog', { name: 'API Key for Weather' });
    expect(within(dialog).queryByTestId('api-key')).not.toBeInTheDocument();

    await user.click(within(dialog).getByRole('button', { name: 'Regenerate API Key' }));
    expect(within(dialog).getByText(/current key stops working at once/)).toBeInTheDocument();
    await user.click(within(dialog).getByRole('button', { name: 'Yes, Regenerate' }));

    expect(await within(dialog).findByTestId('api-key')).toHaveValue(NEW_KEY);
    expect(
      within(dialog).getByText('Important: This key is only shown once. Please copy it now!'),
    ).toBeInTheDocument();
    expect(within(dialog).getByText('API key regenerated successfully')).toBeInTheDocument();
    expect(await within(dialog).findByText('Copied to clipboard')).toBeInTheDocument();
    expect(await navigator.clipboard.readText()).toBe(NEW_KEY);
    expect(sent[0]).toMatchObject({
      method: 'POST',
      path: '/api/dev/apps/com.acme.weather/api-key',
      orgId: 'org-1',
    });

    await user.click(within(dialog).getByRole('button', { name: 'Close' }));
    expect(onClose).toHaveBeenCalled();
  });

  it('says how to use the key: the variable, the SDK option, a copyable snippet and /health', async () => {
    const { user } = renderWithProviders(
      <ApiKeyDialog
        open
        onClose={() => undefined}
        orgId="org-1"
        packageName={APP.packageName}
        initialKey={NEW_KEY}
      />,
      { store: signedInStore() },
    );
    const howTo = screen.getByRole('region', { name: 'How to use the key' });
    expect(within(howTo).getAllByText('MENTRAOS_API_KEY')[0]).toBeInTheDocument();
    expect(within(howTo).getByText('apiKey')).toBeInTheDocument();
    expect(within(howTo).getByText('GET /health')).toBeInTheDocument();
    // The same rule as the checklist and the monitor (issue 48 item 2).
    expect(within(howTo).getByText('{"status":"healthy"}')).toBeInTheDocument();
    const snippet = within(howTo).getByTestId('api-key-snippet');
    expect(snippet).toHaveTextContent(`MENTRAOS_API_KEY=${NEW_KEY}`);
    expect(snippet).toHaveTextContent(`PACKAGE_NAME=${APP.packageName}`);
    expect(snippet).toHaveTextContent('apiKey: process.env.MENTRAOS_API_KEY!');
    await user.click(within(howTo).getByRole('button', { name: 'Copy snippet' }));
    expect(
      await within(howTo).findByRole('button', { name: 'Snippet copied' }),
    ).toBeInTheDocument();
    expect(await navigator.clipboard.readText()).toBe(snippet.textContent);
  });

  it('shows the how-to without a key before one is issued', () => {
    renderWithProviders(
      <ApiKeyDialog open onClose={() => undefined} orgId="org-1" packageName={APP.packageName} />,
      { store: signedInStore() },
    );
    expect(screen.getByTestId('api-key-snippet')).toHaveTextContent(
      'MENTRAOS_API_KEY=paste-your-api-key-here',
    );
  });

  it('says so when regeneration fails', async () => {
    server.use(
      http.post('*/api/dev/apps/:pkg/api-key', () =>
        HttpResponse.json({ error: 'nope', code: 'INTERNAL' }, { status: 500 }),
      ),
    );
    const { user } = renderWithProviders(
      <ApiKeyDialog open onClose={() => undefined} orgId="org-1" packageName={APP.packageName} />,
      { store: signedInStore() },
    );
    await user.click(screen.getByRole('button', { name: 'Regenerate API Key' }));
    await user.click(screen.getByRole('button', { name: 'Yes, Regenerate' }));
    expect(
      await screen.findByText('Failed to regenerate API key. Please try again.'),
    ).toBeInTheDocument();
  });

  it('shows a key only when it is longer than 10 characters', () => {
    renderWithProviders(
      <ApiKeyDialog
        open
        onClose={() => undefined}
        orgId="org-1"
        packageName={APP.packageName}
        initialKey="short"
      />,
      { store: signedInStore() },
    );
    expect(screen.queryByTestId('api-key')).not.toBeInTheDocument();
    expect(screen.getByText(/No valid API key was returned/)).toBeInTheDocument();
  });

  it('hides the copy indicator after two seconds', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    try {
      renderWithProviders(
        <ApiKeyDialog
          open
          onClose={() => undefined}
          orgId="org-1"
          packageName={APP.packageName}
          initialKey={NEW_KEY}
        />,
        { store: signedInStore() },
      );
      expect(await screen.findByText('Copied to clipboard')).toBeInTheDocument();
      act(() => {
        vi.advanceTimersByTime(COPY_INDICATOR_MS + 10);
      });
      expect(screen.queryByText('Copied to clipboard')).not.toBeInTheDocument();
    } finally {
      vi.useRealTimers();
    }
  });
});

describe('share dialog', { timeout: 20000 }, () => {
  function serveShare() {
    const sent: SentRequest[] = [];
    let token = 'tok-1';
    server.use(
      http.get('*/api/dev/apps/:pkg/share', async ({ request }) => {
        await recordRequest(request, sent);
        return HttpResponse.json({ installUrl: `http://portal.test/install/${token}` });
      }),
      http.post('*/api/dev/apps/:pkg/share', async ({ request }) => {
        await recordRequest(request, sent);
        const { emails } = sent.at(-1)?.body as { emails: string[] };
        return HttpResponse.json({
          installUrl: `http://portal.test/install/${token}`,
          sharedWithEmails: emails,
        });
      }),
      http.post('*/api/dev/apps/:pkg/share/reset', async ({ request }) => {
        await recordRequest(request, sent);
        token = 'tok-2';
        return HttpResponse.json({ installUrl: `http://portal.test/install/${token}` });
      }),
    );
    return sent;
  }

  it('shows the install link and the manual-sharing note', async () => {
    serveShare();
    renderWithProviders(<ShareDialog open onClose={() => undefined} orgId="org-1" app={APP} />, {
      store: signedInStore(),
    });
    expect(await screen.findByTestId('install-url')).toHaveValue(
      'http://portal.test/install/tok-1',
    );
    expect(screen.getByText(/The system does not send emails automatically/)).toBeInTheDocument();
    expect(
      screen.getByRole('img', { name: 'QR code of http://portal.test/install/tok-1' }),
    ).toBeInTheDocument();
  });

  it('adds testers with Enter, refuses a malformed address and a duplicate, and saves the list', async () => {
    const sent = serveShare();
    const { user } = renderWithProviders(
      <ShareDialog
        open
        onClose={() => undefined}
        orgId="org-1"
        app={{ ...APP, sharedWithEmails: ['bob@example.com'] }}
      />,
      { store: signedInStore() },
    );
    await screen.findByTestId('install-url');
    const input = screen.getByRole('textbox', { name: 'Tester email' });

    await user.type(input, 'not-an-address');
    await user.tab();
    expect(screen.getByText('Please enter a valid email address')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Add' })).toBeDisabled();

    await user.clear(input);
    await user.type(input, 'cy@example.com{Enter}');
    expect(input).toHaveValue('');
    await user.type(input, 'BOB@example.com{Enter}');
    const list = screen.getByRole('list', { name: 'Testers' });
    const items = within(list).getAllByRole('listitem');
    expect(items).toHaveLength(2);
    expect(items[0]).toHaveTextContent('bob@example.com');
    expect(items[1]).toHaveTextContent('cy@example.com');

    await user.click(screen.getByRole('button', { name: 'Save Testers' }));
    expect(await screen.findByText('Tester list saved')).toBeInTheDocument();
    const saved = sent.find((request) => request.method === 'POST');
    expect(saved).toMatchObject({
      path: '/api/dev/apps/com.acme.weather/share',
      orgId: 'org-1',
      body: { emails: ['bob@example.com', 'cy@example.com'] },
    });
  });

  it('resets the link only after a confirmation', async () => {
    const sent = serveShare();
    const { user } = renderWithProviders(
      <ShareDialog open onClose={() => undefined} orgId="org-1" app={APP} />,
      { store: signedInStore() },
    );
    await screen.findByTestId('install-url');
    await user.click(screen.getByRole('button', { name: 'Reset Link' }));
    expect(screen.getByText(/The current link stops working at once/)).toBeInTheDocument();
    expect(sent.some((request) => request.path.endsWith('/share/reset'))).toBe(false);
    const confirm = screen
      .getAllByRole('button', { name: 'Reset Link' })
      .find((button) => button.closest('[role="alert"]'));
    expect(confirm).toBeDefined();
    if (confirm) await user.click(confirm);
    await waitFor(() => {
      expect(screen.getByTestId('install-url')).toHaveValue('http://portal.test/install/tok-2');
    });
    // The QR code follows the new link.
    expect(screen.getByTestId('install-qr')).toHaveAttribute(
      'data-url',
      'http://portal.test/install/tok-2',
    );
    expect(sent.some((request) => request.path.endsWith('/share/reset'))).toBe(true);
  });

  it('says when the link cannot be made', async () => {
    server.use(
      http.get('*/api/dev/apps/:pkg/share', () =>
        HttpResponse.json({ error: 'x', code: 'INTERNAL' }, { status: 500 }),
      ),
    );
    renderWithProviders(<ShareDialog open onClose={() => undefined} orgId="org-1" app={APP} />, {
      store: signedInStore(),
    });
    expect(await screen.findByText('Failed to generate sharing link')).toBeInTheDocument();
  });
});

describe('delete dialog', { timeout: 20000 }, () => {
  it('shows the failure and stays open', async () => {
    server.use(
      http.delete('*/api/dev/apps/:pkg', () =>
        HttpResponse.json({ error: 'x', code: 'INTERNAL' }, { status: 500 }),
      ),
    );
    const onClose = vi.fn();
    const { user } = renderWithProviders(
      <DeleteAppDialog open onClose={onClose} orgId="org-1" app={APP} />,
      { store: signedInStore() },
    );
    await user.click(screen.getByRole('button', { name: 'Delete App' }));
    expect(await screen.findByText('Failed to delete App. Please try again.')).toBeInTheDocument();
    expect(onClose).not.toHaveBeenCalled();
  });

  it('closes and reports once the app is deleted', async () => {
    const sent: SentRequest[] = [];
    server.use(
      http.delete('*/api/dev/apps/:pkg', async ({ request }) => {
        await recordRequest(request, sent);
        return new HttpResponse(null, { status: 204 });
      }),
    );
    const onClose = vi.fn();
    const onDeleted = vi.fn();
    const store = signedInStore();
    const { user } = renderWithProviders(
      <DeleteAppDialog open onClose={onClose} onDeleted={onDeleted} orgId="org-1" app={APP} />,
      { store },
    );
    await user.click(screen.getByRole('button', { name: 'Delete App' }));
    await waitFor(() => {
      expect(onDeleted).toHaveBeenCalled();
    });
    expect(onClose).toHaveBeenCalled();
    expect(store.getState().auth.notice).toEqual({
      severity: 'success',
      text: 'App deleted successfully',
    });
    expect(sent[0]).toMatchObject({ method: 'DELETE', orgId: 'org-1' });
  });
});

describe('deleting a published app', { timeout: 20000 }, () => {
  it('asks for the app name to be typed before Delete App is enabled', async () => {
    const sent: SentRequest[] = [];
    server.use(
      http.delete('*/api/dev/apps/:pkg', async ({ request }) => {
        await recordRequest(request, sent);
        return new HttpResponse(null, { status: 204 });
      }),
    );
    const onDeleted = vi.fn();
    const published = { ...APP, appStoreStatus: 'PUBLISHED' as const };
    const { user } = renderWithProviders(
      <DeleteAppDialog
        open
        onClose={() => undefined}
        onDeleted={onDeleted}
        orgId="org-1"
        app={published}
      />,
      { store: signedInStore() },
    );
    const remove = screen.getByRole('button', { name: 'Delete App' });
    expect(remove).toBeDisabled();
    const field = screen.getByLabelText(`Type ${APP.name} to confirm`);
    await user.type(field, APP.name.slice(0, -1));
    expect(remove).toBeDisabled();
    await user.type(field, APP.name.slice(-1));
    expect(remove).toBeEnabled();
    await user.click(remove);
    await waitFor(() => {
      expect(onDeleted).toHaveBeenCalled();
    });
    expect(sent[0]).toMatchObject({ method: 'DELETE' });
  });

  it('does not ask for an app in development', () => {
    renderWithProviders(
      <DeleteAppDialog open onClose={() => undefined} orgId="org-1" app={APP} />,
      { store: signedInStore() },
    );
    expect(screen.queryByTestId('type-to-confirm')).not.toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Delete App' })).toBeEnabled();
  });
});

describe('publish dialog', { timeout: 20000 }, () => {
  it('lists the checklist and submits, with the success toast text', async () => {
    serveOrgs();
    const sent: SentRequest[] = [];
    server.use(
      http.post('*/api/dev/apps/:pkg/publish', async ({ request }) => {
        await recordRequest(request, sent);
        return HttpResponse.json({ ...APP, appStoreStatus: 'SUBMITTED' });
      }),
    );
    const onPublished = vi.fn();
    const store = signedInStore();
    const { user } = renderWithProviders(
      <PublishDialog
        open
        onClose={() => undefined}
        onPublished={onPublished}
        orgId="org-1"
        app={APP}
      />,
      { store },
    );
    const checklist = await screen.findByRole('list', { name: 'Before you submit' });
    expect(within(checklist).getByText('Server URL uses HTTPS')).toBeInTheDocument();
    expect(within(checklist).getByText('App logo uploaded')).toBeInTheDocument();
    const submit = screen.getByRole('button', { name: 'Submit for Review' });
    await waitFor(() => {
      expect(submit).toBeEnabled();
    });
    await user.click(submit);
    await waitFor(() => {
      expect(onPublished).toHaveBeenCalled();
    });
    expect(store.getState().auth.notice).toEqual({
      severity: 'success',
      text: 'App submitted for publication!',
    });
    expect(sent[0]).toMatchObject({ path: '/api/dev/apps/com.acme.weather/publish' });
  });

  it('checks the app server live and says so, without blocking the submission', async () => {
    serveOrgs();
    renderWithProviders(<PublishDialog open onClose={() => undefined} orgId="org-1" app={APP} />, {
      store: signedInStore(),
    });
    expect(await screen.findByText('Answered in 18 ms')).toBeInTheDocument();
    expect(
      screen.getByText('Server answers GET /health with 200 {"status":"healthy"}'),
    ).toBeInTheDocument();
  });

  it.each([
    [200, null, 'it answered HTTP 200 without the JSON body {"status":"healthy"}'],
    [200, 'ok', 'it answered HTTP 200 with "status": "ok" instead of "healthy"'],
    [503, null, 'it answered HTTP 503 instead of 200'],
  ])(
    'says what a server answering %s with status %s answered, by the one rule',
    async (status, word, said) => {
      serveOrgs();
      server.use(
        http.get('*/api/dev/apps/:pkg/health-check', () =>
          HttpResponse.json({
            success: false,
            status,
            data: { status: word },
            packageName: APP.packageName,
            health: 'unhealthy',
            online: false,
            latencyMs: 12,
          }),
        ),
      );
      renderWithProviders(
        <PublishDialog open onClose={() => undefined} orgId="org-1" app={APP} />,
        {
          store: signedInStore(),
        },
      );
      expect(
        await screen.findByText(new RegExp(said.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))),
      ).toBeInTheDocument();
    },
  );

  it('warns when the app server does not answer healthy, and still lets the developer submit', async () => {
    serveOrgs();
    server.use(
      http.get('*/api/dev/apps/:pkg/health-check', () =>
        HttpResponse.json({
          success: false,
          status: null,
          data: { status: null },
          packageName: APP.packageName,
          health: 'unreachable',
          online: false,
          latencyMs: null,
        }),
      ),
    );
    renderWithProviders(<PublishDialog open onClose={() => undefined} orgId="org-1" app={APP} />, {
      store: signedInStore(),
    });
    expect(
      await screen.findByText(/it could not be reached\. You can still submit/),
    ).toBeInTheDocument();
    await waitFor(() => {
      expect(screen.getByRole('button', { name: 'Submit for Review' })).toBeEnabled();
    });
  });

  it("shows the server's reason when a limit refuses the live check, and still lets the developer submit", async () => {
    serveOrgs();
    const reason =
      "This app's server was checked less than 10 seconds ago. Please wait a moment before checking again.";
    server.use(
      http.get('*/api/dev/apps/:pkg/health-check', () =>
        HttpResponse.json(
          { error: reason, code: 'RATE_LIMITED' },
          { status: 429, headers: { 'Retry-After': '9' } },
        ),
      ),
    );
    renderWithProviders(<PublishDialog open onClose={() => undefined} orgId="org-1" app={APP} />, {
      store: signedInStore(),
    });
    expect(await screen.findByText(`${reason} You can still submit.`)).toBeInTheDocument();
    await waitFor(() => {
      expect(screen.getByRole('button', { name: 'Submit for Review' })).toBeEnabled();
    });
  });

  it('blocks an incomplete organization profile with a way to complete it', async () => {
    serveOrgs([
      testOrg({ profile: { contactEmail: null, website: null, description: null, logo: null } }),
    ]);
    renderWithProviders(<PublishDialog open onClose={() => undefined} orgId="org-1" app={APP} />, {
      store: signedInStore(),
    });
    expect(await screen.findByText(PROFILE_INCOMPLETE_MESSAGE)).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Complete Organization Profile' })).toHaveAttribute(
      'href',
      '/org-settings',
    );
    expect(screen.getByRole('button', { name: 'Submit for Review' })).toBeDisabled();
  });

  it('shows the profile message when the server answers PROFILE_INCOMPLETE', async () => {
    serveOrgs();
    server.use(
      http.post('*/api/dev/apps/:pkg/publish', () =>
        HttpResponse.json(
          { error: 'Organization profile incomplete', code: 'PROFILE_INCOMPLETE' },
          { status: 400 },
        ),
      ),
    );
    const { user } = renderWithProviders(
      <PublishDialog
        open
        onClose={() => undefined}
        orgId="org-1"
        app={{ ...APP, appStoreStatus: 'REJECTED' }}
      />,
      { store: signedInStore() },
    );
    expect(screen.getByRole('dialog', { name: 'Resubmit to App Store' })).toBeInTheDocument();
    const submit = screen.getByRole('button', { name: 'Resubmit' });
    await waitFor(() => {
      expect(submit).toBeEnabled();
    });
    await user.click(submit);
    expect(await screen.findByText(PROFILE_INCOMPLETE_MESSAGE)).toBeInTheDocument();
  });

  it('shows the publish failure', async () => {
    serveOrgs();
    server.use(
      http.post('*/api/dev/apps/:pkg/publish', () =>
        HttpResponse.json({ error: 'x', code: 'INTERNAL' }, { status: 500 }),
      ),
    );
    const store = signedInStore();
    const { user } = renderWithProviders(
      <PublishDialog open onClose={() => undefined} orgId="org-1" app={APP} />,
      { store },
    );
    const submit = screen.getByRole('button', { name: 'Submit for Review' });
    await waitFor(() => {
      expect(submit).toBeEnabled();
    });
    await user.click(submit);
    expect(await screen.findByText('Failed to publish app. Please try again.')).toBeInTheDocument();
    expect(store.getState().auth.notice?.text).toBe('Failed to publish app');
  });
});

describe('dialog rules', () => {
  it('accepts text@text.text tester addresses only, without duplicates', () => {
    expect(isTesterEmail('a@b.co')).toBe(true);
    expect(isTesterEmail('a@b')).toBe(false);
    expect(isTesterEmail('a b@c.d')).toBe(false);
    expect(addTester(['A@b.co'], 'a@B.co')).toEqual(['A@b.co']);
    expect(addTester([], ' x@y.z ')).toEqual(['x@y.z']);
  });

  it('fails the checklist for plain http, a missing logo or a missing contact e-mail', () => {
    const org = { name: 'Acme', profile: { contactEmail: null } };
    const items = publishChecklist({ publicUrl: 'http://x.test', logoURL: '' }, org);
    expect(items.map((item) => item.ok)).toEqual([false, false, false]);
    expect(
      publishChecklist(
        { publicUrl: 'https://x.test', logoURL: 'https://x.test/l.png' },
        { name: 'Acme', profile: { contactEmail: 'a@b.co' } },
      ).every((item) => item.ok),
    ).toBe(true);
  });

  it('accepts a loopback http:// server only on a portal run for local development', () => {
    const org = { name: 'Acme', profile: { contactEmail: 'a@b.co' } };
    const local = { publicUrl: 'http://localhost:3000', logoURL: 'https://x.test/l.png' };
    expect(publishChecklist(local, org)[0]).toMatchObject({
      ok: false,
      label: 'Server URL uses HTTPS',
    });
    expect(publishChecklist(local, org, true)[0]).toMatchObject({
      ok: true,
      label: 'Server URL on this machine (local development)',
    });
    const remote = { publicUrl: 'http://x.test', logoURL: 'https://x.test/l.png' };
    expect(publishChecklist(remote, org, true)[0]?.ok).toBe(false);
  });
});
