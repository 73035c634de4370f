import { configure, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { delay, http, HttpResponse } from 'msw';
import { createMemoryRouter, RouterProvider } from 'react-router';
import { describe, expect, it, vi } from 'vitest';

import { AppProviders } from '../../app/AppProviders';
import { makeStore } from '../../app/store';
import { server } from '../../testing/server';
import { AdminPage } from './AdminPage';
import type { AdminApp, AdminStats, AdminUser, PlatformRole, SubmittedApp } from './types';
import { currentUtcMonth } from './uptime/month';

// Lazy MUI dialogs and menus take their time on a loaded machine.
configure({ asyncUtilTimeout: 5000 });
vi.setConfig({ testTimeout: 20_000 });

const ME = { id: 'u-ada', email: 'ada@example.com' };

function signedInStore() {
  return makeStore({
    auth: {
      status: 'signedIn',
      user: ME,
      accessToken: 'access-1',
      coreToken: 'core-1',
      recovery: false,
      notice: null,
    },
  });
}

/** `/admin` and a stand-in dashboard, in a memory router, as the app mounts them. */
function renderAdmin(route = '/admin') {
  const store = signedInStore();
  const router = createMemoryRouter(
    [
      { path: '/admin', element: <AdminPage /> },
      { path: '/dashboard', element: <h1>Developer dashboard</h1> },
    ],
    { initialEntries: [route] },
  );
  const user = userEvent.setup();
  render(
    <AppProviders store={store}>
      <RouterProvider router={router} />
    </AppProviders>,
  );
  return { store, router, user };
}

function submitted(overrides: Partial<SubmittedApp> = {}): SubmittedApp {
  return {
    _id: 'com.acme.notes',
    name: 'Acme Notes',
    packageName: 'com.acme.notes',
    logoURL: 'https://cdn.acme.test/notes.png',
    description: 'Notes on your glasses',
    publicUrl: 'https://notes.acme.test',
    updatedAt: '2026-11-20T12:00:00Z',
    createdAt: '2026-11-01T12:00:00Z',
    developerId: 'u-dev',
    organization: { id: 'org-acme', name: 'Acme' },
    appHealthStatus: 'unknown',
    ...overrides,
  };
}

const SECOND = submitted({
  _id: 'com.beta.maps',
  name: 'Beta Maps',
  packageName: 'com.beta.maps',
  logoURL: '',
  updatedAt: '2026-11-21T12:00:00Z',
});

function adminApp(overrides: Partial<AdminApp> = {}): AdminApp {
  return {
    packageName: 'com.acme.notes',
    orgId: 'org-acme',
    developerId: 'u-dev',
    name: 'Acme Notes',
    description: 'Notes on your glasses',
    onboardingInstructions: '',
    publicUrl: 'https://notes.acme.test',
    logoURL: 'https://cdn.acme.test/notes.png',
    webviewURL: null,
    isPublic: false,
    appStoreStatus: 'SUBMITTED',
    appType: 'standard',
    createdAt: '2026-11-01T12:00:00Z',
    updatedAt: '2026-11-20T12:00:00Z',
    reviewNotes: null,
    reviewedBy: null,
    reviewedAt: null,
    tools: [],
    settings: [],
    hardwareRequirements: [],
    permissions: [],
    sharedWithOrganization: false,
    organization: { id: 'org-acme', name: 'Acme' },
    history: [
      {
        id: 'e1',
        kind: 'submitted',
        at: '2026-11-10T12:00:00Z',
        actorEmail: 'dev@acme.test',
        notes: null,
        selfReview: false,
        detail: null,
      },
      {
        id: 'e2',
        kind: 'rejected',
        at: '2026-11-12T12:00:00Z',
        actorEmail: 'ada@example.com',
        notes: 'The logo is blurry',
        selfReview: true,
        detail: null,
      },
      {
        id: 'e3',
        kind: 'submitted',
        at: '2026-11-19T12:00:00Z',
        actorEmail: 'dev@acme.test',
        notes: null,
        selfReview: false,
        detail: null,
      },
    ],
    selfReview: false,
    testerUrl: null,
    sinceLastDecision: { state: 'first_review', changedFields: [], changes: [] },
    ...overrides,
  };
}

interface Served {
  role?: PlatformRole | null;
  stats?: AdminStats;
  queue?: SubmittedApp[];
  app?: AdminApp;
  users?: AdminUser[];
}

/** The platform-admin calls; counts the reads and records what was sent. */
function serveAdmin({
  role = 'admin',
  stats = {
    counts: { development: 4, submitted: 2, published: 3, rejected: 1, admins: 1, reviewers: 0 },
    recentSubmissions: [SECOND, submitted()],
  },
  queue = [submitted(), SECOND],
  app = adminApp(),
  users = [
    {
      email: 'ada@example.com',
      role: 'admin',
      addedAt: '2026-11-01T12:00:00Z',
      addedBy: null,
      pending: false,
    },
  ],
}: Served = {}) {
  const reads = { stats: 0, queue: 0, app: 0, users: 0 };
  const sent: { method: string; path: string; body: unknown }[] = [];
  const pinged: string[] = [];
  server.use(
    http.get('*/api/admin/check', () =>
      HttpResponse.json({ isAdmin: role !== null, role: role ?? null }),
    ),
    http.get('*/api/admin/apps/stats', () => {
      reads.stats += 1;
      return HttpResponse.json(stats);
    }),
    http.get('*/api/admin/apps/submitted', () => {
      reads.queue += 1;
      return HttpResponse.json(queue);
    }),
    http.get('*/api/admin/apps/:pkg', () => {
      reads.app += 1;
      return HttpResponse.json(app);
    }),
    http.post('*/api/admin/apps/:pkg/:decision', async ({ request }) => {
      sent.push({
        method: 'POST',
        path: new URL(request.url).pathname,
        body: await request.json(),
      });
      return HttpResponse.json({ ...app, appStoreStatus: 'PUBLISHED' });
    }),
    http.get('*/api/admin/users', () => {
      reads.users += 1;
      return HttpResponse.json(users);
    }),
    // The review dialog's live check of the app's health URL.
    http.get('*/api/app-uptime/ping', ({ request }) => {
      pinged.push(new URL(request.url).searchParams.get('url') ?? '');
      return HttpResponse.json({
        success: true,
        status: 200,
        data: { status: 'ok' },
        packageName: app.packageName,
        health: 'healthy',
        online: true,
        latencyMs: 42,
      });
    }),
  );
  return { reads, sent, pinged };
}

/** The `index`th element, failing the test when there is none. */
function nth(elements: HTMLElement[], index: number): HTMLElement {
  const element = elements[index];
  if (!element) throw new Error(`no element at ${String(index)} of ${String(elements.length)}`);
  return element;
}

const tab = (name: string) => screen.findByRole('tab', { name });

describe('the /admin guard', () => {
  it('shows a spinner while the admin check runs, then the panel', async () => {
    serveAdmin();
    server.use(
      http.get('*/api/admin/check', async () => {
        await delay(50);
        return HttpResponse.json({ isAdmin: true, role: 'admin' });
      }),
    );
    renderAdmin();

    expect(screen.getByRole('progressbar', { name: 'Checking your access' })).toBeInTheDocument();
    expect(
      await screen.findByRole('heading', { level: 1, name: 'Admin Panel' }),
    ).toBeInTheDocument();
  });

  it('sends anyone without a platform role to the dashboard', async () => {
    serveAdmin({ role: null });
    const { router } = renderAdmin();

    expect(await screen.findByRole('heading', { name: 'Developer dashboard' })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/dashboard');
  });

  it('says so when the check fails, and retries', async () => {
    server.use(
      http.get('*/api/admin/check', () =>
        HttpResponse.json({ error: 'Internal error', code: 'INTERNAL' }, { status: 500 }),
      ),
    );
    const { user } = renderAdmin();

    expect(
      await screen.findByText('Could not check your access to the Admin Panel. Please try again.'),
    ).toBeInTheDocument();
    serveAdmin();
    await user.click(screen.getByRole('button', { name: 'Retry' }));
    expect(
      await screen.findByRole('heading', { level: 1, name: 'Admin Panel' }),
    ).toBeInTheDocument();
  });
});

describe('the Admin Panel', () => {
  it('shows an admin the five tabs, the counts and the recent submissions', async () => {
    serveAdmin();
    renderAdmin();

    const tabs = await screen.findByRole('tablist', { name: 'Admin Panel sections' });
    expect(
      within(tabs)
        .getAllByRole('tab')
        .map((t) => t.textContent),
    ).toEqual(['Dashboard', 'App Submissions', 'App Status', 'Platform Users', 'Audit Log']);
    const pending = await screen.findByRole('region', { name: 'Pending Review' });
    expect(within(pending).getByText('2')).toBeInTheDocument();
    expect(
      within(screen.getByRole('region', { name: 'Published' })).getByText('3'),
    ).toBeInTheDocument();
    expect(
      within(screen.getByRole('region', { name: 'Rejected' })).getByText('1'),
    ).toBeInTheDocument();
    // development + submitted + published + rejected; the platform roles are not apps.
    expect(
      within(screen.getByRole('region', { name: 'Total Apps' })).getByText('10'),
    ).toBeInTheDocument();

    const recent = screen.getByRole('list', { name: 'Recent Submissions' });
    const items = within(recent).getAllByRole('listitem');
    const first = nth(items, 0);
    expect(items).toHaveLength(2);
    expect(within(first).getByText('Beta Maps')).toBeInTheDocument();
    expect(within(first).getByText('com.beta.maps')).toBeInTheDocument();
    expect(
      within(first).getByText(/^Submitted Nov 21, 2026, \d{1,2}:\d{2}\s?(AM|PM)$/),
    ).toBeInTheDocument();
    expect(within(first).getByRole('button', { name: 'Review Beta Maps' })).toBeEnabled();
  });

  it('says when nothing waits for review', async () => {
    serveAdmin({
      stats: {
        counts: {
          development: 0,
          submitted: 0,
          published: 0,
          rejected: 0,
          admins: 1,
          reviewers: 0,
        },
        recentSubmissions: [],
      },
      queue: [],
    });
    const { user } = renderAdmin();

    expect(await screen.findByText('No pending submissions')).toBeInTheDocument();
    await user.click(await tab('App Submissions'));
    expect(await screen.findByText('No pending submissions')).toBeInTheDocument();
  });

  it('shows a load failure of the statistics with a retry', async () => {
    serveAdmin();
    server.use(
      http.get('*/api/admin/apps/stats', () =>
        HttpResponse.json({ error: 'Internal error', code: 'INTERNAL' }, { status: 500 }),
      ),
    );
    renderAdmin();

    expect(
      await screen.findByText('Failed to load the admin statistics. Please try again.'),
    ).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Retry' })).toBeInTheDocument();
  });

  it.each(['users', 'audit'])(
    'hides Platform Users and Audit Log from a reviewer, also when the address asks for %s',
    async (asked) => {
      serveAdmin({ role: 'reviewer' });
      renderAdmin(`/admin?tab=${asked}`);

      const tabs = await screen.findByRole('tablist', { name: 'Admin Panel sections' });
      expect(within(tabs).queryByRole('tab', { name: 'Platform Users' })).not.toBeInTheDocument();
      expect(within(tabs).queryByRole('tab', { name: 'Audit Log' })).not.toBeInTheDocument();
      expect(within(tabs).getByRole('tab', { name: 'Dashboard' })).toHaveAttribute(
        'aria-selected',
        'true',
      );
      expect(await screen.findByRole('region', { name: 'Pending Review' })).toBeInTheDocument();
    },
  );

  it("shows the platform's audit log in its tab", async () => {
    serveAdmin();
    const read: URL[] = [];
    server.use(
      http.get('*/api/admin/audit-log', ({ request }) => {
        read.push(new URL(request.url));
        return HttpResponse.json({
          success: true,
          data: {
            entries: [
              {
                id: 'e-1',
                at: '2026-11-20T10:00:00Z',
                organizationId: 'org-acme',
                actor: { id: 'u-ada', email: 'ada@example.com' },
                action: 'review.approved',
                target: { kind: 'app', id: 'com.acme.notes', label: null },
                changes: [{ field: 'appStoreStatus', old: 'SUBMITTED', new: 'PUBLISHED' }],
                clientIp: '203.0.113.7',
                userAgent: 'Chromium',
              },
            ],
            nextCursor: null,
          },
        });
      }),
    );
    const { user, router } = renderAdmin();

    await user.click(await tab('Audit Log'));
    const grid = await screen.findByRole('grid', { name: 'Platform audit log' });
    expect(await within(grid).findByText('Submission approved')).toBeInTheDocument();
    expect(within(grid).getByText('com.acme.notes')).toBeInTheDocument();
    expect(read[0]?.pathname).toBe('/api/admin/audit-log');
    expect(router.state.location.search).toBe('?tab=audit');
  });

  it('lists the submissions with a placeholder for a missing or broken logo', async () => {
    serveAdmin();
    const { user } = renderAdmin();

    await user.click(await tab('App Submissions'));
    const table = await screen.findByRole('table', { name: 'App submissions' });
    const rows = within(table).getAllByRole('row');
    const notes = nth(rows, 1);
    const maps = nth(rows, 2);
    expect(within(notes).getByText('Acme Notes')).toBeInTheDocument();
    expect(within(notes).getByText('com.acme.notes')).toBeInTheDocument();
    expect(within(notes).getByText('Nov 20, 2026')).toBeInTheDocument();
    const logo = notes.querySelector('img');
    expect(logo).toHaveAttribute('src', 'https://cdn.acme.test/notes.png');
    expect(maps.querySelector('img')).toHaveAttribute('data-placeholder', 'true');

    // The logo fails to load: the placeholder takes its place.
    if (logo) fireEvent.error(logo);
    await waitFor(() => {
      expect(notes.querySelector('img')).toHaveAttribute('data-placeholder', 'true');
    });
  });

  it('opens a closable app tab from App Status', async () => {
    serveAdmin();
    // The uptime of one app, with no checks yet (the uptime screens have their own tests in uptime/).
    // The tab opens on the current UTC month and shows an answer for that month only.
    const month = currentUtcMonth();
    const uptime = { uptimePercent: 0, days: [], online: false, healthStatus: 'unknown' };
    server.use(
      http.get('*/api/app-uptime/get-app-uptime-days', () =>
        HttpResponse.json({
          success: true,
          month,
          previous: null,
          next: null,
          daysInMonth: new Date(Date.UTC(month.year, month.month, 0)).getUTCDate(),
          data: [
            {
              ...uptime,
              packageName: 'com.acme.notes',
              name: 'Acme Notes',
              appStoreStatus: 'SUBMITTED',
              checkedAt: null,
            },
          ],
          matching: 1,
          total: 1,
          page: 1,
          pageSize: 25,
        }),
      ),
      http.get('*/api/app-uptime/apps/:pkg', () =>
        HttpResponse.json({
          ...uptime,
          packageName: 'com.acme.notes',
          month,
          lastCheckedAt: null,
          statusChangedAt: null,
          consecutiveOffline: 0,
        }),
      ),
    );
    const { user, router } = renderAdmin();

    await user.click(await tab('App Status'));
    await user.click(await screen.findByRole('button', { name: 'Acme Notes' }));

    const appTab = await tab('Acme Notes');
    expect(appTab).toHaveAttribute('aria-selected', 'true');
    expect(router.state.location.search).toBe('?tab=app&app=com.acme.notes');
    expect(await screen.findByRole('heading', { name: 'Acme Notes' })).toBeInTheDocument();

    await user.click(screen.getByRole('button', { name: 'Close the Acme Notes tab' }));
    expect(screen.queryByRole('tab', { name: 'Acme Notes' })).not.toBeInTheDocument();
    expect(await tab('App Status')).toHaveAttribute('aria-selected', 'true');
  });
});

describe('Review App Submission', () => {
  async function openReview(served: Served = {}) {
    const serving = serveAdmin(served);
    const rendered = renderAdmin();
    await rendered.user.click(await screen.findByRole('button', { name: 'Review Acme Notes' }));
    const dialog = await screen.findByRole('dialog', { name: 'Review App Submission' });
    await within(dialog).findByText('Acme Notes');
    return { ...rendered, ...serving, dialog };
  }

  it('shows what the reviewer judges: URLs, permissions, hardware, settings and tools', async () => {
    const app = adminApp({
      webviewURL: 'https://notes.acme.test/webview',
      permissions: [{ type: 'MICROPHONE', description: 'Dictates notes' }] as never[],
      hardwareRequirements: [{ type: 'DISPLAY', level: 'REQUIRED' }] as never[],
      settings: [{}, {}] as never[],
      tools: [{}] as never[],
    });
    const { dialog } = await openReview({ app });
    expect(within(dialog).getByText('https://notes.acme.test')).toBeInTheDocument();
    expect(within(dialog).getByText('https://notes.acme.test/webview')).toBeInTheDocument();
    expect(within(dialog).getByText('Microphone: Dictates notes')).toBeInTheDocument();
    expect(within(dialog).getByText('Display (required)')).toBeInTheDocument();
    expect(within(dialog).getByText('2 settings, 1 AI tool')).toBeInTheDocument();
  });

  it('shows the live health of the server, the tester link and what changed since the last decision', async () => {
    const app = adminApp({
      testerUrl: 'https://portal.test/install/tok-1',
      sinceLastDecision: {
        state: 'compared',
        changedFields: ['description', 'publicUrl'],
        changes: [
          { field: 'description', old: 'Takes notes', new: 'Takes better notes' },
          { field: 'publicUrl', old: 'https://old.acme.test', new: 'https://notes.acme.test' },
        ],
      },
    });
    const { dialog, pinged } = await openReview({ app });
    expect(
      await within(dialog).findByText('Online: healthy (HTTP 200, 42 ms)'),
    ).toBeInTheDocument();
    expect(pinged).toEqual(['https://notes.acme.test/health']);
    expect(
      within(dialog).getByRole('link', { name: 'https://portal.test/install/tok-1' }),
    ).toHaveAttribute('href', 'https://portal.test/install/tok-1');
    expect(within(dialog).getByText('Changed: Description, Server URL')).toBeInTheDocument();
    // Each changed field with its value at the last decision and now.
    const description = within(dialog).getByRole('group', { name: 'Description changes' });
    expect(within(description).getByText('Takes notes').tagName).toBe('DEL');
    expect(within(description).getByText('Takes better notes').tagName).toBe('INS');
    const server = within(dialog).getByRole('group', { name: 'Server URL changes' });
    expect(server).toHaveTextContent('Beforehttps://old.acme.testNowhttps://notes.acme.test');
  });

  it('marks the permissions added, removed and changed since the last decision', async () => {
    const app = adminApp({
      sinceLastDecision: {
        state: 'compared',
        changedFields: ['permissions', 'webviewURL'],
        changes: [
          {
            field: 'permissions',
            old: [
              { type: 'MICROPHONE', description: 'Dictates notes' },
              { type: 'LOCATION', description: 'Tags notes' },
            ],
            new: [
              { type: 'MICROPHONE', description: 'Dictates and transcribes notes' },
              { type: 'CAMERA', description: 'Photos of the whiteboard' },
            ],
          },
          { field: 'webviewURL', old: null, new: 'https://notes.acme.test/webview' },
        ],
      },
    });
    const { dialog } = await openReview({ app });
    const permissions = within(dialog).getByRole('group', { name: 'Permissions changes' });
    const rows = within(permissions)
      .getAllByRole('listitem')
      .map((item) => item.textContent);
    expect(rows).toEqual([
      'ChangedMicrophone: Dictates and transcribes notes (was Microphone: Dictates notes)',
      'AddedCamera: Photos of the whiteboard',
      'RemovedLocation: Tags notes',
    ]);
    const webview = within(dialog).getByRole('group', { name: 'Webview URL changes' });
    expect(webview).toHaveTextContent('Before(none)Nowhttps://notes.acme.test/webview');
  });

  it.each([
    [{ state: 'first_review', changedFields: [], changes: [] }, 'First review'],
    [{ state: 'compared', changedFields: [], changes: [] }, 'Nothing changed'],
    [
      { state: 'not_recorded', changedFields: [], changes: [] },
      'Not recorded at the last decision',
    ],
  ] as [AdminApp['sinceLastDecision'], string][])(
    'says %o since the last decision as %s, and when there is no tester link',
    async (since, text) => {
      const { dialog } = await openReview({ app: adminApp({ sinceLastDecision: since }) });
      expect(within(dialog).getByText(text)).toBeInTheDocument();
      expect(
        within(dialog).getByText('None: the developer has not shared the app with testers'),
      ).toBeInTheDocument();
    },
  );

  it('says when the live health check cannot be run, and checks again', async () => {
    const { pinged } = serveAdmin();
    let refused = true;
    server.use(
      http.get('*/api/app-uptime/ping', () => {
        // Nothing answered here: the next handler (serveAdmin's) answers.
        if (!refused) return undefined;
        refused = false;
        return HttpResponse.json(
          { error: 'Too many live checks. Please try again later.', code: 'RATE_LIMITED' },
          { status: 429 },
        );
      }),
    );
    const { user } = renderAdmin();
    await user.click(await screen.findByRole('button', { name: 'Review Acme Notes' }));
    const dialog = await screen.findByRole('dialog', { name: 'Review App Submission' });
    expect(
      await within(dialog).findByText(/Too many live checks\. Please try again later\./),
    ).toBeInTheDocument();
    await user.click(within(dialog).getByRole('button', { name: 'Check again' }));
    expect(
      await within(dialog).findByText('Online: healthy (HTTP 200, 42 ms)'),
    ).toBeInTheDocument();
    expect(pinged).toEqual(['https://notes.acme.test/health']);
  });

  it('shows every field and the review history with its self-review', async () => {
    const { dialog } = await openReview();

    expect(within(dialog).getByText('com.acme.notes')).toBeInTheDocument();
    expect(within(dialog).getByText('Notes on your glasses')).toBeInTheDocument();
    expect(within(dialog).getByText('Acme')).toBeInTheDocument();
    // The newest submission.
    expect(within(dialog).getByText('Nov 19, 2026')).toBeInTheDocument();
    const history = within(dialog).getByRole('list', { name: 'Review history' });
    const entries = within(history).getAllByRole('listitem');
    expect(entries).toHaveLength(3);
    expect(within(nth(entries, 1)).getByText('Rejected')).toBeInTheDocument();
    expect(within(nth(entries, 1)).getByText('The logo is blurry')).toBeInTheDocument();
    expect(within(nth(entries, 1)).getByText('Self-review')).toBeInTheDocument();
    expect(within(nth(entries, 0)).queryByText('Self-review')).not.toBeInTheDocument();
    expect(
      within(dialog).getByPlaceholderText('Add review notes here (required for rejection)'),
    ).toBeInTheDocument();
    expect(within(dialog).getByRole('button', { name: 'Cancel' })).toBeEnabled();
    expect(within(dialog).getByRole('button', { name: 'Reject' })).toBeDisabled();
    expect(within(dialog).getByRole('button', { name: 'Approve' })).toBeEnabled();
  });

  it.each([
    [{ description: '' }, 'No description provided'],
    [{ organization: { id: 'org-x', name: null } }, 'u-dev'],
    [{ organization: { id: 'org-x', name: null }, developerId: '' }, 'Unknown'],
  ] as [Partial<AdminApp>, string][])('falls back for %o to %s', async (overrides, text) => {
    const { dialog } = await openReview({ app: adminApp(overrides) });
    expect(within(dialog).getByText(text)).toBeInTheDocument();
  });

  it('warns a member of the app organization that the decision is a self-review', async () => {
    const { dialog } = await openReview({ app: adminApp({ selfReview: true }) });
    expect(
      within(dialog).getByText(/your decision will be recorded as a self-review/),
    ).toBeInTheDocument();
  });

  it('rejects with the notes and the revision, then reloads the lists and closes', async () => {
    const { dialog, user, sent, reads, store } = await openReview();
    const before = { ...reads };

    await user.type(within(dialog).getByLabelText('Review Notes'), '  Crashes on start  ');
    await user.click(within(dialog).getByRole('button', { name: 'Reject' }));

    await waitFor(() => {
      expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
    });
    expect(sent).toEqual([
      {
        method: 'POST',
        path: '/api/admin/apps/com.acme.notes/reject',
        body: { notes: 'Crashes on start', expectedUpdatedAt: '2026-11-20T12:00:00Z' },
      },
    ]);
    expect(store.getState().auth.notice).toEqual({
      severity: 'success',
      text: 'App rejected. Developer has been notified.',
    });
    await waitFor(() => {
      expect(reads.stats).toBeGreaterThan(before.stats);
    });
  });

  it('approves without notes', async () => {
    const { dialog, user, sent, store } = await openReview();

    await user.click(within(dialog).getByRole('button', { name: 'Approve' }));

    await waitFor(() => {
      expect(store.getState().auth.notice?.text).toBe('App approved successfully!');
    });
    expect(sent[0]).toEqual({
      method: 'POST',
      path: '/api/admin/apps/com.acme.notes/approve',
      body: { notes: '', expectedUpdatedAt: '2026-11-20T12:00:00Z' },
    });
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
  });

  it.each([
    ['approve', 'Approve', 'Failed to approve app. Please try again.'],
    ['reject', 'Reject', 'Failed to reject app. Please try again.'],
  ])('keeps the dialog open when %s fails', async (decision, button, message) => {
    const { dialog, user } = await openReview();
    server.use(
      http.post(`*/api/admin/apps/:pkg/${decision}`, () =>
        HttpResponse.json({ error: 'Internal error', code: 'INTERNAL' }, { status: 500 }),
      ),
    );

    await user.type(within(dialog).getByLabelText('Review Notes'), 'Looks fine');
    await user.click(within(dialog).getByRole('button', { name: button }));

    expect(await within(dialog).findByText(message)).toBeInTheDocument();
    expect(screen.getByRole('dialog', { name: 'Review App Submission' })).toBeInTheDocument();
  });

  it('says the app changed since it was opened, and reloads it', async () => {
    const { dialog, user, reads } = await openReview();
    const before = reads.app;
    server.use(
      http.post('*/api/admin/apps/:pkg/approve', () =>
        HttpResponse.json(
          { error: 'The app changed since you opened it', code: 'APP_CHANGED' },
          { status: 409 },
        ),
      ),
    );

    await user.click(within(dialog).getByRole('button', { name: 'Approve' }));

    expect(
      await within(dialog).findByText(/^The app changed since you opened it/),
    ).toBeInTheDocument();
    await waitFor(() => {
      expect(reads.app).toBeGreaterThan(before);
    });
  });

  it('says when the app cannot be loaded', async () => {
    serveAdmin();
    server.use(
      http.get('*/api/admin/apps/com.acme.notes', () =>
        HttpResponse.json({ error: 'Internal error', code: 'INTERNAL' }, { status: 500 }),
      ),
    );
    const { user } = renderAdmin();
    await user.click(await screen.findByRole('button', { name: 'Review Acme Notes' }));

    const dialog = await screen.findByRole('dialog', { name: 'Review App Submission' });
    expect(
      await within(dialog).findByText('Error loading app details. Please try again.'),
    ).toBeInTheDocument();
    expect(within(dialog).getByRole('button', { name: 'Approve' })).toBeDisabled();
  });

  it('closes on Cancel and starts the next app with empty notes', async () => {
    const { dialog, user } = await openReview();

    await user.type(within(dialog).getByLabelText('Review Notes'), 'Draft');
    await user.click(within(dialog).getByRole('button', { name: 'Cancel' }));
    await waitFor(() => {
      expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
    });
    await user.click(screen.getByRole('button', { name: 'Review Acme Notes' }));
    const again = await screen.findByRole('dialog', { name: 'Review App Submission' });
    expect(await within(again).findByLabelText('Review Notes')).toHaveValue('');
  });
});

describe('Platform Users', () => {
  async function openUsers(served: Served = {}) {
    const serving = serveAdmin(served);
    const rendered = renderAdmin();
    await rendered.user.click(await tab('Platform Users'));
    return { ...rendered, ...serving };
  }

  it('lists the platform users', async () => {
    await openUsers({
      users: [
        {
          email: 'ada@example.com',
          role: 'admin',
          addedAt: '2026-11-01T12:00:00Z',
          addedBy: null,
          pending: false,
        },
        {
          email: 'rev@example.com',
          role: 'reviewer',
          addedAt: '2026-11-02T12:00:00Z',
          addedBy: 'ada@example.com',
          pending: true,
        },
      ],
    });

    const table = await screen.findByRole('table', { name: 'Platform users' });
    const rows = within(table).getAllByRole('row');
    const ada = nth(rows, 1);
    const rev = nth(rows, 2);
    expect(within(ada).getByText('ada@example.com (you)')).toBeInTheDocument();
    expect(within(ada).getByText('Admin')).toBeInTheDocument();
    expect(within(rev).getByText('Reviewer')).toBeInTheDocument();
    expect(within(rev).getByText('Not signed in yet')).toBeInTheDocument();
    expect(within(rev).getByText('Nov 2, 2026')).toBeInTheDocument();
  });

  it('checks the address, then adds a reviewer', async () => {
    const { user, reads } = await openUsers();
    const posted: unknown[] = [];
    server.use(
      http.post('*/api/admin/users', async ({ request }) => {
        posted.push(await request.json());
        return HttpResponse.json(
          {
            email: 'rev@example.com',
            role: 'reviewer',
            addedAt: '2026-11-24T12:00:00Z',
            addedBy: 'ada@example.com',
            pending: true,
          },
          { status: 201 },
        );
      }),
    );
    await screen.findByRole('table', { name: 'Platform users' });
    const before = reads.users;

    const email = screen.getByRole('textbox', { name: 'Email' });
    await user.type(email, 'not-an-address');
    await user.click(screen.getByRole('button', { name: 'Add User' }));
    expect(await screen.findByText('Please enter a valid email address')).toBeInTheDocument();
    expect(posted).toEqual([]);

    await user.clear(email);
    await user.type(email, 'rev@example.com');
    await user.click(screen.getByRole('button', { name: 'Add User' }));

    await waitFor(() => {
      expect(posted).toEqual([{ email: 'rev@example.com', role: 'reviewer' }]);
    });
    await waitFor(() => {
      expect(reads.users).toBeGreaterThan(before);
    });
    expect(email).toHaveValue('');
  });

  it('adds an admin when the role says so, and shows the server refusal', async () => {
    const { user } = await openUsers();
    const posted: unknown[] = [];
    server.use(
      http.post('*/api/admin/users', async ({ request }) => {
        posted.push(await request.json());
        return HttpResponse.json(
          {
            error: 'Validation failed',
            code: 'VALIDATION',
            fields: { email: 'This address cannot hold a platform role' },
          },
          { status: 422 },
        );
      }),
    );
    await screen.findByRole('table', { name: 'Platform users' });

    await user.type(screen.getByRole('textbox', { name: 'Email' }), 'boss@example.com');
    await user.click(screen.getByRole('combobox', { name: 'Role' }));
    await user.click(await screen.findByRole('option', { name: 'Admin' }));
    await user.click(screen.getByRole('button', { name: 'Add User' }));

    expect(await screen.findByText('This address cannot hold a platform role')).toBeInTheDocument();
    expect(posted).toEqual([{ email: 'boss@example.com', role: 'admin' }]);
  });

  it('removes after a confirmation naming the address, and shows why the last admin stays', async () => {
    const { user } = await openUsers();
    const removed: string[] = [];
    server.use(
      http.delete('*/api/admin/users/:email', ({ params }) => {
        removed.push(String(params.email));
        return HttpResponse.json(
          { error: 'The last platform admin cannot be removed', code: 'LAST_ADMIN' },
          { status: 409 },
        );
      }),
    );

    await user.click(await screen.findByRole('button', { name: 'Remove ada@example.com' }));
    const confirm = await screen.findByRole('dialog', { name: 'Remove platform user' });
    expect(within(confirm).getByText(/ada@example\.com/)).toBeInTheDocument();
    await user.click(within(confirm).getByRole('button', { name: 'Remove' }));

    expect(
      await within(confirm).findByText('The last platform admin cannot be removed'),
    ).toBeInTheDocument();
    expect(removed).toEqual(['ada@example.com']);
    await user.click(within(confirm).getByRole('button', { name: 'Cancel' }));
    await waitFor(() => {
      expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
    });
  });

  it('shows a load failure', async () => {
    serveAdmin();
    server.use(
      http.get('*/api/admin/users', () =>
        HttpResponse.json({ error: 'Internal error', code: 'INTERNAL' }, { status: 500 }),
      ),
    );
    const { user } = renderAdmin();
    await user.click(await tab('Platform Users'));
    expect(
      await screen.findByText('Failed to load the platform users. Please try again.'),
    ).toBeInTheDocument();
  });
});
