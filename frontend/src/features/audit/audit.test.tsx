import { configure, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

import { serveOrgs, signedInStore, testOrg, TEST_USER } from '../../testing/apps';
import { renderRoute, renderWithProviders } from '../../testing/render';
import { server } from '../../testing/server';
import { AuditLog } from './AuditLog';
import { ONLY_ADMINS } from './AuditLogPage';
import { localDayStart } from './format';
import type { AuditEntry, AuditPage } from './types';

// The grid and the lazy route take their time on a loaded machine.
configure({ asyncUtilTimeout: 5000 });
vi.setConfig({ testTimeout: 20_000 });

const BOB = { id: 'u-bob', email: 'bob@example.com' };

function entry(overrides: Partial<AuditEntry> = {}): AuditEntry {
  return {
    id: 'e-1',
    at: '2026-11-20T10:15:30.000Z',
    organizationId: 'org-1',
    actor: TEST_USER,
    action: 'member.role_changed',
    target: { kind: 'member', id: BOB.id, label: BOB.email },
    changes: [{ field: 'role', old: 'member', new: 'admin' }],
    clientIp: '203.0.113.7',
    userAgent: 'Mozilla/5.0 (X11; Linux x86_64) Chromium/131',
    ...overrides,
  };
}

const KEY_REGENERATED = entry({
  id: 'e-2',
  at: '2026-11-21T08:00:00.000Z',
  action: 'app.key_regenerated',
  target: { kind: 'app', id: 'com.acme.weather', label: null },
  changes: [],
});

/** The log's calls: `pages` answered in turn by cursor (`c1`, `c2`, …); every request's query is kept. */
function serveLog(pages: AuditEntry[][], path = '*/api/orgs/:orgId/audit-log') {
  const requests: { url: URL; auth: string | null; accept: string | null }[] = [];
  server.use(
    http.get(path, ({ request }) => {
      const url = new URL(request.url);
      requests.push({
        url,
        auth: request.headers.get('Authorization'),
        accept: request.headers.get('Accept'),
      });
      if (url.searchParams.get('format') === 'csv') {
        return new HttpResponse(
          'time,actorEmail,action\r\n2026-11-21T08:00:00.000Z,ada@example.com,app.key_regenerated\r\n',
          {
            headers: {
              'Content-Type': 'text/csv; charset=utf-8',
              'Content-Disposition': 'attachment; filename="audit-log-org-1.csv"',
            },
          },
        );
      }
      const cursor = url.searchParams.get('cursor');
      const index = cursor ? Number(cursor.slice(1)) : 0;
      const data: AuditPage = {
        entries: pages[index] ?? [],
        nextCursor: index + 1 < pages.length ? `c${index + 1}` : null,
      };
      return HttpResponse.json({ success: true, data });
    }),
  );
  return requests;
}

/** A request's query parameters (none for no request). */
const queryOf = (request: { url: URL } | undefined) =>
  Object.fromEntries(request?.url.searchParams.entries() ?? []);

function renderLog(people = [TEST_USER, BOB]) {
  return renderWithProviders(
    <AuditLog scope={{ kind: 'org', orgId: 'org-1' }} people={people} label="Audit log of Acme" />,
    { store: signedInStore() },
  );
}

/** Picks `option` in the select labelled `label`. */
async function pick(label: string, option: string | RegExp) {
  fireEvent.mouseDown(screen.getByRole('combobox', { name: label }));
  const listbox = await screen.findByRole('listbox');
  fireEvent.click(within(listbox).getByRole('option', { name: option }));
  await waitFor(() => {
    expect(screen.queryByRole('listbox')).not.toBeInTheDocument();
  });
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('the audit log', () => {
  it('lists the newest entries with time, person, action, target and client address', async () => {
    const requests = serveLog([[KEY_REGENERATED, entry()]]);
    renderLog();

    const grid = await screen.findByRole('grid', { name: 'Audit log of Acme' });
    await within(grid).findByText('API key regenerated');
    expect(within(grid).getByText('app.key_regenerated')).toBeInTheDocument();
    expect(within(grid).getByText('com.acme.weather')).toBeInTheDocument();
    expect(within(grid).getByText('Member role changed')).toBeInTheDocument();
    expect(within(grid).getByText('bob@example.com')).toBeInTheDocument();
    expect(within(grid).getAllByText('ada@example.com')).toHaveLength(2);
    // The client address has a column only on a wide screen (below, it is in each entry's detail).
    expect(within(grid).queryByText('203.0.113.7')).not.toBeInTheDocument();
    // The local time, with the exact instant in the markup (and in the tooltip).
    const time = grid.querySelector('time[datetime="2026-11-21T08:00:00.000Z"]');
    expect(time?.textContent).toBe(
      new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'medium' }).format(
        new Date('2026-11-21T08:00:00.000Z'),
      ),
    );

    expect(requests).toHaveLength(1);
    expect(requests[0]?.url.pathname).toBe('/api/orgs/org-1/audit-log');
    expect(queryOf(requests[0])).toEqual({ limit: '50' });
    expect(requests[0]?.auth).toBe('Bearer core-1');
  });

  it('says when a change was made through a personal access token, in the row and its detail', async () => {
    serveLog([[{ ...KEY_REGENERATED, viaToken: 'CI deploy' }]]);
    renderLog();

    const grid = await screen.findByRole('grid', { name: 'Audit log of Acme' });
    expect(await within(grid).findByText('via token “CI deploy”')).toBeInTheDocument();
    fireEvent.click(within(grid).getByText('API key regenerated'));
    const detail = await screen.findByRole('dialog');
    expect(within(detail).getByText('via token “CI deploy”')).toBeInTheDocument();
  });

  it('sends the filters as query parameters and starts again from the first page', async () => {
    const requests = serveLog([[entry()]]);
    renderLog();
    await screen.findByText('Member role changed');

    await pick('Person', 'bob@example.com');
    await waitFor(() => {
      expect(queryOf(requests.at(-1))).toEqual({ actor: BOB.id, limit: '50' });
    });

    await pick('Action', /API key regenerated/);
    await waitFor(() => {
      expect(queryOf(requests.at(-1))).toEqual({
        actor: BOB.id,
        action: 'app.key_regenerated',
        limit: '50',
      });
    });

    // The package name applies on Enter (not on every key).
    const app = screen.getByRole('textbox', { name: 'App package name' });
    fireEvent.change(app, { target: { value: ' com.acme.weather ' } });
    const before = requests.length;
    fireEvent.keyDown(app, { key: 'Enter' });
    await waitFor(() => {
      expect(queryOf(requests.at(-1))).toMatchObject({ app: 'com.acme.weather' });
    });
    expect(requests.length).toBe(before + 1);

    // Days are the reader's local days: from the start of the first to the start of the day after the last.
    fireEvent.change(screen.getByLabelText('From'), { target: { value: '2026-11-01' } });
    fireEvent.change(screen.getByLabelText('To'), { target: { value: '2026-11-20' } });
    await waitFor(() => {
      expect(queryOf(requests.at(-1))).toEqual({
        actor: BOB.id,
        action: 'app.key_regenerated',
        app: 'com.acme.weather',
        from: new Date(2026, 10, 1).toISOString(),
        to: new Date(2026, 10, 21).toISOString(),
        limit: '50',
      });
    });
    expect(localDayStart('2026-11-20', true)).toBe(new Date(2026, 10, 21).toISOString());

    fireEvent.click(screen.getByRole('button', { name: 'Clear filters' }));
    await waitFor(() => {
      expect(queryOf(requests.at(-1))).toEqual({ limit: '50' });
    });
    expect(screen.getByRole('textbox', { name: 'App package name' })).toHaveValue('');
  });

  it('offers the people of the entries too, such as someone who has left', async () => {
    const former = { id: 'u-cy', email: 'cy@example.com' };
    serveLog([[entry({ actor: former })]]);
    renderLog();
    await screen.findByText('cy@example.com');

    fireEvent.mouseDown(screen.getByRole('combobox', { name: 'Person' }));
    const listbox = await screen.findByRole('listbox');
    expect(
      within(listbox)
        .getAllByRole('option')
        .map((option) => option.textContent),
    ).toEqual(['Anyone', 'ada@example.com', 'bob@example.com', 'cy@example.com']);
  });

  it('reads the next page by its cursor, newest first, and goes back without reading again', async () => {
    const first = Array.from({ length: 50 }, (_, n) =>
      entry({ id: `a-${n}`, at: new Date(Date.UTC(2026, 10, 25, 12, 0, 50 - n)).toISOString() }),
    );
    const second = [entry({ id: 'b-0', action: 'invite.sent', at: '2026-11-01T00:00:00.000Z' })];
    const requests = serveLog([first, second]);
    renderLog();
    await screen.findAllByText('Member role changed');
    expect(screen.queryByText('Invitation sent')).not.toBeInTheDocument();

    fireEvent.click(screen.getByRole('button', { name: /next page/i }));
    await screen.findByText('Invitation sent');
    expect(queryOf(requests.at(-1))).toEqual({ limit: '50', cursor: 'c1' });
    expect(screen.queryByText('Member role changed')).not.toBeInTheDocument();
    // The last page: nothing after it.
    await waitFor(() => {
      expect(screen.getByRole('button', { name: /next page/i })).toBeDisabled();
    });

    const count = requests.length;
    fireEvent.click(screen.getByRole('button', { name: /previous page/i }));
    await screen.findAllByText('Member role changed');
    expect(requests.length).toBe(count);
  });

  it('says when the log is empty, and when the filters match nothing', async () => {
    serveLog([[]]);
    renderLog();
    await screen.findByText('No audit entries yet');

    await pick('Action', /Invitation sent/);
    await screen.findByText('No entries match these filters');
  });

  it('shows a failure with Retry, which reads again', async () => {
    let calls = 0;
    server.use(
      http.get('*/api/orgs/:orgId/audit-log', () => {
        calls += 1;
        if (calls === 1) {
          return HttpResponse.json({ error: 'The database cannot be reached' }, { status: 503 });
        }
        const data: AuditPage = { entries: [entry()], nextCursor: null };
        return HttpResponse.json({ success: true, data });
      }),
    );
    renderLog();

    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent('The database cannot be reached');
    fireEvent.click(within(alert).getByRole('button', { name: 'Retry' }));
    await screen.findByText('Member role changed');
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();
  });

  it('shows the server message of a refused filter', async () => {
    server.use(
      http.get('*/api/orgs/:orgId/audit-log', () =>
        HttpResponse.json(
          {
            error: '`app` must be a package name',
            code: 'VALIDATION',
            fields: { app: '`app` must be a package name' },
          },
          { status: 400 },
        ),
      ),
    );
    renderLog();
    expect(await screen.findByRole('alert')).toHaveTextContent('`app` must be a package name');
  });

  it("opens a row's detail: old and new values, client address and user agent", async () => {
    serveLog([
      [
        entry({
          changes: [
            { field: 'role', old: 'member', new: 'admin' },
            { field: 'note', old: null, new: { tags: ['a'] } },
          ],
        }),
      ],
    ]);
    renderLog();
    await screen.findByText('Member role changed');

    fireEvent.click(screen.getByRole('button', { name: /^Details of Member role changed by ada/ }));
    const dialog = await screen.findByRole('dialog', { name: 'Member role changed' });
    const changes = within(dialog).getByRole('table', { name: 'Changed fields' });
    const role = within(changes).getByRole('row', { name: /role/ });
    expect(
      within(role)
        .getAllByRole('cell')
        .map((cell) => cell.textContent),
    ).toEqual(['member', '→admin']);
    const note = within(changes).getByRole('row', { name: /note/ });
    expect(
      within(note)
        .getAllByRole('cell')
        .map((cell) => cell.textContent),
    ).toEqual(['(none)', '→{"tags":["a"]}']);
    expect(within(dialog).getByText('Mozilla/5.0 (X11; Linux x86_64) Chromium/131')).toBeVisible();
    expect(within(dialog).getByText('203.0.113.7')).toBeVisible();
    expect(within(dialog).getByText(/2026-11-20T10:15:30.000Z/)).toBeVisible();

    fireEvent.click(within(dialog).getByRole('button', { name: 'Close' }));
    await waitFor(() => {
      expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
    });
  });

  it("opens a row's detail by keyboard: Enter on a cell", async () => {
    serveLog([[entry()]]);
    renderLog();
    const cell = await screen.findByRole('gridcell', { name: /bob@example.com/ });

    fireEvent.keyDown(cell, { key: 'Enter' });
    expect(await screen.findByRole('dialog', { name: 'Member role changed' })).toBeInTheDocument();
  });

  it('downloads the CSV of the filtered entries with the bearer token', async () => {
    const requests = serveLog([[KEY_REGENERATED]]);
    const blobs: Blob[] = [];
    const createObjectURL = vi.fn((blob: Blob) => {
      blobs.push(blob);
      return 'blob:audit';
    });
    Object.assign(URL, { createObjectURL, revokeObjectURL: vi.fn() });
    const names: string[] = [];
    vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (
      this: HTMLAnchorElement,
    ) {
      names.push(this.download);
    });
    renderLog();
    await screen.findByText('API key regenerated');
    await pick('Action', /API key regenerated/);

    fireEvent.click(screen.getByRole('button', { name: 'Download CSV' }));
    await waitFor(() => {
      expect(names).toEqual(['audit-log-org-1.csv']);
    });
    const sent = requests.find((request) => request.url.searchParams.get('format') === 'csv');
    expect(queryOf(sent)).toEqual({ action: 'app.key_regenerated', format: 'csv' });
    expect(sent?.auth).toBe('Bearer core-1');
    expect(sent?.accept).toBe('text/csv');
    expect(blobs[0]?.type).toBe('text/csv');
    expect(await blobs[0]?.text()).toContain('ada@example.com,app.key_regenerated');
  });

  it('says when the CSV could not be downloaded', async () => {
    serveLog([[KEY_REGENERATED]]);
    server.use(
      http.get('*/api/orgs/:orgId/audit-log', ({ request }) =>
        new URL(request.url).searchParams.get('format') === 'csv'
          ? HttpResponse.json(
              { error: 'Only organization admins read the audit log' },
              { status: 403 },
            )
          : undefined,
      ),
    );
    renderLog();
    await screen.findByText('API key regenerated');

    fireEvent.click(screen.getByRole('button', { name: 'Download CSV' }));
    expect(await screen.findByRole('alert')).toHaveTextContent(
      'Only organization admins read the audit log',
    );
    expect(screen.getByRole('button', { name: 'Download CSV' })).toBeEnabled();
  });
});

describe('the Audit Log page', () => {
  beforeEach(() => {
    server.use(
      http.get('*/api/admin/check', () =>
        HttpResponse.json({ isAdmin: false, role: null, roleAwaitsProof: false }),
      ),
    );
  });

  it("reads the current organization's log for its admins, offering its members", async () => {
    serveOrgs([testOrg({ role: 'admin' })]);
    server.use(
      http.get('*/api/orgs/:orgId', () =>
        HttpResponse.json({
          success: true,
          data: testOrg({
            members: [
              {
                user: TEST_USER,
                role: 'admin',
                joinedAt: '2026-11-01T10:00:00Z',
                hasTwoFactor: false,
              },
              { user: BOB, role: 'member', joinedAt: '2026-11-02T10:00:00Z', hasTwoFactor: false },
            ],
          }),
        }),
      ),
    );
    const requests = serveLog([[entry()]]);
    renderRoute('/audit-log', { store: signedInStore() });

    await screen.findByRole('heading', { level: 1, name: 'Audit Log' });
    await screen.findByRole('grid', { name: 'Audit log of Acme' });
    await screen.findByText('Member role changed');
    expect(requests[0]?.url.pathname).toBe('/api/orgs/org-1/audit-log');
    await waitFor(() => {
      expect(document.title).toBe('Audit Log · Developer Portal');
    });
    // The sidebar has the link, and it is the current page.
    expect(screen.getByRole('link', { name: 'Audit Log' })).toHaveClass('active');
  });

  it('tells a member that only admins see it, reads nothing, and has no sidebar link', async () => {
    serveOrgs([testOrg({ role: 'member' })]);
    const requests = serveLog([[entry()]]);
    renderRoute('/audit-log', { store: signedInStore() });

    await screen.findByText(ONLY_ADMINS);
    expect(screen.queryByRole('grid')).not.toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Members' })).toBeInTheDocument();
    expect(screen.queryByRole('link', { name: 'Audit Log' })).not.toBeInTheDocument();
    expect(requests).toHaveLength(0);
  });
});

/**
 * Makes MUI's `down(…)` queries match (a 390 px screen), or with `wide` its `up(…)` ones (a wide screen),
 * until the returned function is called.
 */
function atPhoneWidth(wide = false) {
  const spy = vi
    .spyOn(window, 'matchMedia')
    .mockImplementation((query: string): MediaQueryList => ({
      matches: query.includes(wide ? 'min-width' : 'max-width'),
      media: query,
      onchange: null,
      // eslint-disable-next-line @typescript-eslint/no-deprecated
      addListener: () => undefined,
      // eslint-disable-next-line @typescript-eslint/no-deprecated
      removeListener: () => undefined,
      addEventListener: () => undefined,
      removeEventListener: () => undefined,
      dispatchEvent: () => false,
    }));
  return () => {
    spy.mockRestore();
  };
}

const SHARED = entry({
  id: 'e-3',
  at: '2026-11-22T08:00:00.000Z',
  action: 'app.visibility_changed',
  target: { kind: 'app', id: 'com.acme.weather', label: 'Weather' },
  changes: [{ field: 'sharedWithOrganization', old: false, new: true }],
});
const DELETED = entry({
  id: 'e-4',
  at: '2026-11-23T08:00:00.000Z',
  action: 'app.deleted',
  target: { kind: 'app', id: 'com.acme.old', label: 'Old Notes', deleted: true },
  changes: [],
});
const REQUIRED = entry({
  id: 'e-5',
  at: '2026-11-24T08:00:00.000Z',
  action: 'org.updated',
  target: { kind: 'organization', id: 'org-1', label: 'Acme' },
  changes: [{ field: 'requireTwoFactor', old: false, new: true }],
});

describe('the audit log names targets and actions for people', () => {
  it('shows the target’s name with its kind and id, and marks a deleted one', async () => {
    serveLog([[REQUIRED, DELETED, SHARED]]);
    renderLog();
    const grid = await screen.findByRole('grid', { name: 'Audit log of Acme' });
    expect(await within(grid).findByText('Weather')).toBeInTheDocument();
    expect(within(grid).getByText('App · com.acme.weather')).toBeInTheDocument();
    expect(within(grid).getByText('Old Notes (deleted)')).toBeInTheDocument();
    expect(within(grid).getByText('App · com.acme.old')).toBeInTheDocument();
    // A UUID is no help to people: only an app's package name stands under its name.
    expect(within(grid).getByText('Organization')).toBeInTheDocument();
    // No raw id stands where a name is known.
    expect(within(grid).queryByText('com.acme.weather')).not.toBeInTheDocument();
  });

  it('says what a sharing change and a two-factor change did, not a vague label', async () => {
    serveLog([[REQUIRED, SHARED]]);
    renderLog();
    const grid = await screen.findByRole('grid', { name: 'Audit log of Acme' });
    expect(await within(grid).findByText('App shared with the whole organization')).toBeVisible();
    expect(within(grid).getByText('Two-factor authentication required of members')).toBeVisible();
    expect(within(grid).queryByText(/Organization testing/)).not.toBeInTheDocument();

    fireEvent.click(
      screen.getByRole('button', { name: /^Details of App shared with the whole organization/ }),
    );
    const dialog = await screen.findByRole('dialog', {
      name: 'App shared with the whole organization',
    });
    expect(within(dialog).getByText(/App: Weather/)).toBeInTheDocument();
  });

  it('labels the action filter’s codes for what they are', async () => {
    serveLog([[]]);
    renderLog();
    await screen.findByRole('grid', { name: 'Audit log of Acme' });
    fireEvent.mouseDown(screen.getByRole('combobox', { name: 'Action' }));
    const listbox = await screen.findByRole('listbox');
    expect(
      within(listbox).getByRole('option', { name: /Sharing with the whole organization changed/ }),
    ).toBeInTheDocument();
    expect(
      within(listbox).getByRole('option', { name: /App moved between organizations/ }),
    ).toBeInTheDocument();
    expect(
      within(listbox).getByRole('option', { name: /Organization settings changed/ }),
    ).toBeInTheDocument();
  });
});

describe('the audit log on a wide screen', () => {
  it('has a Client address column', async () => {
    const restore = atPhoneWidth(true);
    try {
      serveLog([[KEY_REGENERATED, entry()]]);
      renderLog();
      const grid = await screen.findByRole('grid', { name: 'Audit log of Acme' });
      expect(
        await within(grid).findByRole('columnheader', { name: 'Client address' }),
      ).toBeVisible();
      expect(within(grid).getAllByText('203.0.113.7')).toHaveLength(2);
    } finally {
      restore();
    }
  });
});

describe('the audit log at phone width', () => {
  it('is a list of cards, each opening its detail', async () => {
    const restore = atPhoneWidth();
    try {
      serveLog([[SHARED, entry()]]);
      renderLog();
      const list = await screen.findByRole('list', { name: 'Audit log of Acme' });
      expect(screen.queryByRole('grid')).not.toBeInTheDocument();
      const cards = within(list).getAllByRole('listitem');
      expect(cards).toHaveLength(2);
      expect(cards[0]).toHaveTextContent('App shared with the whole organization');
      expect(cards[0]).toHaveTextContent('ada@example.com');
      expect(cards[0]).toHaveTextContent('App: Weather');
      expect(cards[1]).toHaveTextContent('Member: bob@example.com');

      const [, roleChange] = cards;
      if (!roleChange) throw new Error('no second card');
      fireEvent.click(within(roleChange).getByRole('button'));
      expect(await screen.findByRole('dialog', { name: 'Member role changed' })).toBeVisible();
    } finally {
      restore();
    }
  });

  it('says when there are no entries, and loads older pages with Older', async () => {
    const restore = atPhoneWidth();
    try {
      const requests = serveLog([[entry()], [KEY_REGENERATED]]);
      renderLog();
      await screen.findByRole('list', { name: 'Audit log of Acme' });
      expect(screen.getByRole('button', { name: 'Newer' })).toBeDisabled();
      fireEvent.click(screen.getByRole('button', { name: 'Older' }));
      expect(await screen.findByText('API key regenerated')).toBeInTheDocument();
      expect(queryOf(requests.at(-1))).toEqual({ limit: '50', cursor: 'c1' });
      expect(screen.getByText('Page 2')).toBeInTheDocument();
      expect(screen.getByRole('button', { name: 'Older' })).toBeDisabled();
    } finally {
      restore();
    }
  });

  it('says when the log is empty', async () => {
    const restore = atPhoneWidth();
    try {
      serveLog([[]]);
      renderLog();
      expect(await screen.findByText('No audit entries yet')).toBeInTheDocument();
    } finally {
      restore();
    }
  });
});
