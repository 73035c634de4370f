import { configure, screen, waitFor, within } from '@testing-library/react';
import { setupListeners } from '@reduxjs/toolkit/query';
import { http, HttpResponse } from 'msw';
import { describe, expect, it, vi } from 'vitest';

import { makeStore } from '../../../app/store';
import { renderWithProviders } from '../../../testing/render';
import { server } from '../../../testing/server';
import { AdminPanel } from '../AdminPanel';
import type { AdminApp } from '../types';
import { currentUtcMonth, dayLabel, monthLabel } from './month';
import type {
  AppMonthRow,
  AppUptimeDetail,
  DayBar,
  DayProblems,
  MonthResponse,
  PingResponse,
  UptimeMonth,
} from './types';

// The detail tab and MUI menus load lazily; a loaded machine needs room.
configure({ asyncUtilTimeout: 5000 });
vi.setConfig({ testTimeout: 20_000 });

// The fixtures' days 1–3 must lie in the past whatever day the suite runs: only the clock is fixed (timers run).
vi.useFakeTimers({ toFake: ['Date'] });
vi.setSystemTime(new Date('2026-11-20T12:00:00Z'));

function signedInStore() {
  return makeStore({
    auth: {
      status: 'signedIn',
      user: { id: 'u-ada', email: 'ada@example.com' },
      accessToken: 'access-1',
      coreToken: 'core-1',
      recovery: false,
      notice: null,
    },
  });
}

const NOW = currentUtcMonth();
const PAGE_SIZE = 25;
const daysIn = ({ year, month }: UptimeMonth) => new Date(Date.UTC(year, month, 0)).getUTCDate();
const prev = ({ year, month }: UptimeMonth): UptimeMonth =>
  month === 1 ? { year: year - 1, month: 12 } : { year, month: month - 1 };
const next = ({ year, month }: UptimeMonth): UptimeMonth =>
  month === 12 ? { year: year + 1, month: 1 } : { year, month: month + 1 };
const nthOption = (options: HTMLElement[], index: number): HTMLElement => {
  const option = options[index];
  if (!option) throw new Error(`no option ${String(index)} of ${String(options.length)}`);
  return option;
};

const iso = ({ year, month }: UptimeMonth, day: number) =>
  `${year}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`;

/** A month of bars: day 1 all healthy, day 2 mixed, day 3 all unhealthy, the rest without data. */
function monthDays(month: UptimeMonth): DayBar[] {
  return Array.from({ length: daysIn(month) }, (_, i) => {
    const day = i + 1;
    const base = { date: iso(month, day), averageLatencyMs: null };
    if (day === 1) return { ...base, colour: 'green', healthy: 10, unhealthy: 0, total: 10 };
    if (day === 2) return { ...base, colour: 'yellow', healthy: 7, unhealthy: 3, total: 10 };
    if (day === 3) return { ...base, colour: 'red', healthy: 0, unhealthy: 4, total: 4 };
    return { ...base, colour: 'grey', healthy: 0, unhealthy: 0, total: 0 };
  });
}

function row(overrides: Partial<AppMonthRow>, month: UptimeMonth): AppMonthRow {
  return {
    packageName: 'com.acme.notes',
    name: 'Acme Notes',
    appStoreStatus: 'SUBMITTED',
    healthStatus: 'healthy',
    online: true,
    checkedAt: '2026-11-20T12:00:00Z',
    uptimePercent: 70.8,
    days: monthDays(month),
    ...overrides,
  };
}

const rowsOf = (month: UptimeMonth) => [
  row({}, month),
  row(
    {
      packageName: 'com.beta.maps',
      name: 'Beta Maps',
      appStoreStatus: 'PUBLISHED',
      healthStatus: 'unreachable',
      online: false,
      uptimePercent: 99.25,
    },
    month,
  ),
];

function adminApp(overrides: Partial<AdminApp> = {}): AdminApp {
  return {
    packageName: 'com.acme.notes',
    orgId: 'org-acme',
    developerId: 'u-dev',
    name: 'Acme Notes',
    description: 'Notes on your glasses',
    onboardingInstructions: '',
    publicUrl: 'https://notes.acme.test/',
    logoURL: '',
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
    ],
    selfReview: false,
    testerUrl: null,
    sinceLastDecision: { state: 'first_review', changedFields: [], changes: [] },
    ...overrides,
  };
}

interface Serve {
  rows?: (month: UptimeMonth) => AppMonthRow[];
  monthStatus?: number;
  detail?: Partial<AppUptimeDetail>;
  problems?: (day: string) => Partial<DayProblems>;
  app?: AdminApp | null;
  ping?: PingResponse;
}

/** The uptime calls, answering for the month asked; records what was asked. */
function serve({ rows = rowsOf, monthStatus = 200, detail = {}, problems, app, ping }: Serve = {}) {
  const asked: { months: string[]; apps: string[]; days: string[]; pings: string[] } = {
    months: [],
    apps: [],
    days: [],
    pings: [],
  };
  const monthOf = (url: URL): UptimeMonth => ({
    year: Number(url.searchParams.get('year')),
    month: Number(url.searchParams.get('month')),
  });
  server.use(
    http.get('*/api/app-uptime/get-app-uptime-days', ({ request }) => {
      const url = new URL(request.url);
      asked.months.push(url.search);
      if (monthStatus !== 200) {
        return HttpResponse.json({ error: 'Internal error', code: 'INTERNAL' }, { status: 500 });
      }
      const month = monthOf(url);
      // Searched, filtered and paged as the server does it.
      const all = rows(month);
      const needle = (url.searchParams.get('search') ?? '').toLowerCase();
      const status = url.searchParams.get('status');
      const matching = all.filter(
        (r) =>
          (!status || r.appStoreStatus === status) &&
          (r.packageName.toLowerCase().includes(needle) ||
            (r.name ?? '').toLowerCase().includes(needle)),
      );
      const page = Number(url.searchParams.get('page') ?? '1');
      const body: MonthResponse = {
        success: true,
        month,
        previous: prev(month),
        next: next(month),
        daysInMonth: daysIn(month),
        data: matching.slice((page - 1) * PAGE_SIZE, page * PAGE_SIZE),
        matching: matching.length,
        total: all.length,
        page,
        pageSize: PAGE_SIZE,
      };
      return HttpResponse.json(body);
    }),
    http.get('*/api/admin/apps/:pkg', () =>
      app === null
        ? HttpResponse.json({ error: 'App not found', code: 'NOT_FOUND' }, { status: 404 })
        : HttpResponse.json(app ?? adminApp()),
    ),
    http.get('*/api/app-uptime/apps/:pkg', ({ request, params }) => {
      const url = new URL(request.url);
      asked.apps.push(url.search);
      const month = monthOf(url);
      const body: AppUptimeDetail = {
        packageName: String(params.pkg),
        month,
        online: true,
        healthStatus: 'healthy',
        lastCheckedAt: '2026-11-20T12:00:00Z',
        statusChangedAt: '2026-11-19T08:00:00Z',
        consecutiveOffline: 0,
        uptimePercent: 70.8,
        days: monthDays(month),
        ...detail,
      };
      return HttpResponse.json(body);
    }),
    http.get('*/api/app-uptime/apps/:pkg/days/:day', ({ params }) => {
      const day = String(params.day);
      asked.days.push(day);
      const noData = { colour: 'grey', healthy: 0, unhealthy: 0, total: 0, averageLatencyMs: null };
      const bar = monthDays(NOW).find((d) => d.date === day) ?? { ...noData, date: day };
      const body: DayProblems = {
        packageName: String(params.pkg),
        problems: [],
        detailsKept: true,
        ...bar,
        date: day,
        ...problems?.(day),
      };
      return HttpResponse.json(body);
    }),
    http.get('*/api/app-uptime/ping', ({ request }) => {
      asked.pings.push(new URL(request.url).searchParams.get('url') ?? '');
      return ping
        ? HttpResponse.json(ping)
        : HttpResponse.json(
            { error: 'No registered app has this health URL', code: 'NOT_FOUND' },
            { status: 404 },
          );
    }),
  );
  return asked;
}

function renderPanel(route = '/admin?tab=status') {
  return renderWithProviders(<AdminPanel role="admin" />, { route, store: signedInStore() });
}

const appList = () => screen.findByRole('list', { name: 'App status' });
const item = async (name: string) => within(await appList()).findByRole('listitem', { name });

describe('App Status tab', () => {
  it('shows each app with its month uptime, badge and one coloured bar per UTC day', async () => {
    serve();
    const { user } = renderPanel();

    const notes = await item('Acme Notes');
    expect(within(notes).getByText('com.acme.notes')).toBeInTheDocument();
    expect(within(notes).getByText('70.8%')).toBeInTheDocument();
    expect(within(notes).getByText('Online')).toBeInTheDocument();
    const maps = await item('Beta Maps');
    expect(within(maps).getByText('99.3%')).toBeInTheDocument();
    expect(within(maps).getByText('Offline')).toBeInTheDocument();
    expect(screen.getByText(/Days are UTC days/)).toBeInTheDocument();
    expect(screen.getByTestId('uptime-month')).toHaveTextContent(monthLabel(NOW));

    const bars = within(
      within(notes).getByRole('list', { name: 'Daily health of Acme Notes' }),
    ).getAllByRole('listitem');
    // The real length of the month.
    expect(bars).toHaveLength(daysIn(NOW));
    expect(bars.slice(0, 4).map((bar) => bar.getAttribute('data-colour'))).toEqual([
      'green',
      'yellow',
      'red',
      'grey',
    ]);
    expect(bars[1]).toHaveAccessibleName(/Mixed Status\. Healthy: 7, Unhealthy: 3, Total: 10/);

    // The tooltip of a day.
    const red = bars[2];
    if (!red) throw new Error('no third day');
    await user.hover(red);
    const tip = await screen.findByRole('tooltip');
    expect(tip).toHaveTextContent('Healthy: 0');
    expect(tip).toHaveTextContent('Unhealthy: 4');
    expect(tip).toHaveTextContent('Total: 4');
    expect(tip).toHaveTextContent('(UTC)');
  });

  it('filters by status and searches by name or package, case-insensitively', async () => {
    const asked = serve();
    const { user } = renderPanel();
    await item('Acme Notes');

    await user.click(screen.getByRole('combobox', { name: 'Status' }));
    await user.click(await screen.findByRole('option', { name: 'Published' }));
    await waitFor(() => {
      expect(screen.queryByRole('listitem', { name: 'Acme Notes' })).not.toBeInTheDocument();
    });
    expect(await item('Beta Maps')).toBeInTheDocument();

    await user.click(screen.getByRole('combobox', { name: 'Status' }));
    await user.click(await screen.findByRole('option', { name: 'Submitted' }));
    await waitFor(() => {
      expect(screen.queryByRole('listitem', { name: 'Beta Maps' })).not.toBeInTheDocument();
    });
    expect(await item('Acme Notes')).toBeInTheDocument();

    await user.click(screen.getByRole('combobox', { name: 'Status' }));
    await user.click(await screen.findByRole('option', { name: 'All' }));
    await user.type(screen.getByRole('textbox', { name: 'Search app' }), 'COM.BETA');
    await waitFor(() => {
      expect(screen.queryByRole('listitem', { name: 'Acme Notes' })).not.toBeInTheDocument();
    });
    expect(await item('Beta Maps')).toBeInTheDocument();

    await user.clear(screen.getByRole('textbox', { name: 'Search app' }));
    await user.type(screen.getByRole('textbox', { name: 'Search app' }), 'notes');
    expect(await item('Acme Notes')).toBeInTheDocument();

    await user.type(screen.getByRole('textbox', { name: 'Search app' }), ' x');
    expect(await screen.findByText('No apps match your search')).toBeInTheDocument();
    // The server searches and filters: the typed text is sent once typing pauses, not key by key.
    expect(asked.months).toContain(`?year=${NOW.year}&month=${NOW.month}&page=1&status=PUBLISHED`);
    expect(asked.months).toContain(`?year=${NOW.year}&month=${NOW.month}&page=1&search=notes+x`);
    expect(asked.months.filter((q) => q.includes('search=no')).length).toBeLessThanOrEqual(2);
  }, 60_000);

  it('shows the apps a page at a time, with where the page is among them', async () => {
    const fleet = (month: UptimeMonth) =>
      Array.from({ length: 30 }, (_, i) =>
        row(
          {
            packageName: `com.fleet.app${String(i).padStart(2, '0')}`,
            name: `Fleet ${String(i).padStart(2, '0')}`,
          },
          month,
        ),
      );
    const asked = serve({ rows: fleet });
    const { user } = renderPanel();
    await item('Fleet 00');
    expect(within(await appList()).getAllByRole('listitem', { name: /^Fleet/ })).toHaveLength(25);
    expect(screen.getAllByText('1–25 of 30 apps')[0]).toBeInTheDocument();
    expect(screen.getAllByRole('button', { name: 'Previous page' })[0]).toBeDisabled();

    const [nextPage] = screen.getAllByRole('button', { name: 'Next page' });
    if (!nextPage) throw new Error('no next page button');
    await user.click(nextPage);
    expect(await item('Fleet 29')).toBeInTheDocument();
    expect(screen.queryByRole('listitem', { name: 'Fleet 00' })).not.toBeInTheDocument();
    expect(screen.getByRole('list', { name: 'App status' })).toHaveAttribute('aria-busy', 'false');
    expect(screen.getByText('26–30 of 30 apps')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Next page' })).toBeDisabled();
    expect(asked.months).toContain(`?year=${NOW.year}&month=${NOW.month}&page=2`);

    // A new search starts again from the first page.
    await user.type(screen.getByRole('textbox', { name: 'Search app' }), 'fleet 1');
    expect(await item('Fleet 10')).toBeInTheDocument();
    expect(screen.getByText('1–10 of 10 apps')).toBeInTheDocument();
  }, 60_000);

  it('moves between months, never past the current UTC month, and updates on demand', async () => {
    const asked = serve();
    const { user } = renderPanel();
    await item('Acme Notes');
    expect(asked.months).toEqual([`?year=${NOW.year}&month=${NOW.month}&page=1`]);
    expect(screen.getByRole('button', { name: 'Next month' })).toBeDisabled();
    expect(screen.getByText(/^Last updated: /)).not.toHaveTextContent('Never');

    await user.click(screen.getByRole('button', { name: 'Previous month' }));
    const before = prev(NOW);
    await waitFor(() => {
      expect(screen.getByTestId('uptime-month')).toHaveTextContent(monthLabel(before));
    });
    const notes = await item('Acme Notes');
    expect(
      within(within(notes).getByRole('list', { name: /Daily health/ })).getAllByRole('listitem'),
    ).toHaveLength(daysIn(before));
    expect(asked.months).toContain(`?year=${before.year}&month=${before.month}&page=1`);
    expect(screen.getByRole('button', { name: 'Next month' })).toBeEnabled();

    await user.click(screen.getByRole('button', { name: 'Next month' }));
    await waitFor(() => {
      expect(screen.getByTestId('uptime-month')).toHaveTextContent(monthLabel(NOW));
    });

    const count = asked.months.length;
    await user.click(screen.getByRole('button', { name: 'Update' }));
    await waitFor(() => {
      expect(asked.months.length).toBe(count + 1);
    });
  });

  it('does not call an app the monitor has not checked yet Offline', async () => {
    serve({
      rows: (month) => [
        row({ online: false, healthStatus: 'unknown', checkedAt: null, uptimePercent: 0 }, month),
      ],
    });
    renderPanel();
    const notes = await item('Acme Notes');
    expect(within(notes).getByText('Not checked')).toBeInTheDocument();
    expect(within(notes).queryByText('Offline')).not.toBeInTheDocument();
  });

  it('shows an app the monitor no longer checks by name with a neutral Not monitored badge', async () => {
    serve({
      rows: (month) => [
        row({ appStoreStatus: null, online: false, healthStatus: 'unreachable' }, month),
      ],
    });
    renderPanel();
    const notes = await item('Acme Notes');
    expect(within(notes).getByText('Not monitored')).toBeInTheDocument();
    expect(within(notes).queryByText('Offline')).not.toBeInTheDocument();
  });

  it('asks again when the window regains focus', async () => {
    const asked = serve();
    const store = signedInStore();
    // What main.tsx does for the app's store: focus and reconnect events reach the queries.
    const unsubscribe = setupListeners(store.dispatch);
    renderWithProviders(<AdminPanel role="admin" />, { route: '/admin?tab=status', store });
    await item('Acme Notes');
    const count = asked.months.length;
    window.dispatchEvent(new Event('focus'));
    await waitFor(() => {
      expect(asked.months.length).toBeGreaterThan(count);
    });
    unsubscribe();
  });

  it('says when no app is monitored', async () => {
    serve({ rows: () => [] });
    renderPanel();
    expect(await screen.findByText('No pending submissions')).toBeInTheDocument();
  });

  it('shows a failed load with Try again instead of a blank tab', async () => {
    serve({ monthStatus: 500 });
    const { user } = renderPanel();
    expect(await screen.findByText('The app status could not be loaded.')).toBeInTheDocument();
    expect(screen.getByText('Last updated: Never')).toBeInTheDocument();

    serve();
    await user.click(screen.getByRole('button', { name: 'Try again' }));
    expect(await item('Acme Notes')).toBeInTheDocument();
  });

  it('opens a closable detail tab named after the app', async () => {
    serve();
    const { user, router } = renderPanel();
    await user.click(within(await item('Acme Notes')).getByRole('button', { name: 'Acme Notes' }));
    expect(await screen.findByRole('tab', { name: 'Acme Notes' })).toHaveAttribute(
      'aria-selected',
      'true',
    );
    expect(router.state.location.search).toBe('?tab=app&app=com.acme.notes');
    await user.click(screen.getByRole('button', { name: 'Close the Acme Notes tab' }));
    expect(await screen.findByRole('tab', { name: 'App Status' })).toHaveAttribute(
      'aria-selected',
      'true',
    );
  });
});

const DETAIL = '/admin?tab=app&app=com.acme.notes';

describe('App detail tab', () => {
  it('shows the app, its state and the month chart with its legend', async () => {
    serve();
    renderPanel(DETAIL);
    // The first detail tab of the run loads the chart library.
    expect(
      await screen.findByRole('heading', { name: 'Acme Notes' }, { timeout: 15_000 }),
    ).toBeInTheDocument();
    expect(await screen.findByText('All systems operational')).toBeInTheDocument();
    expect(screen.getByText(/com\.acme\.notes · Submitted Nov 10, 2026/)).toBeInTheDocument();
    expect(screen.getByText('Uptime 70.8%')).toBeInTheDocument();
    const legend = screen.getByRole('list', { name: 'Legend' });
    expect(
      within(legend)
        .getAllByRole('listitem')
        .map((li) => li.textContent),
    ).toEqual(['All Healthy', 'Mixed Status', 'All Unhealthy', 'No Data']);
    expect(screen.getByTestId('uptime-chart').querySelector('svg')).not.toBeNull();
    expect(screen.getByText(/days are UTC days/)).toBeInTheDocument();
  });

  it('says what is wrong when the app is offline', async () => {
    serve({
      detail: { online: false, healthStatus: 'unreachable', consecutiveOffline: 3 },
    });
    renderPanel(DETAIL);
    expect(await screen.findByText('System experiencing issues')).toBeInTheDocument();
    expect(screen.getByText('unreachable')).toBeInTheDocument();
    expect(screen.getByText(/3 failed checks in a row/)).toBeInTheDocument();
  });

  it('says Not monitored, not Offline, for an app the monitor no longer checks', async () => {
    serve({
      app: adminApp({ appStoreStatus: 'REJECTED' }),
      detail: { online: false, healthStatus: 'unreachable' },
    });
    renderPanel(DETAIL);
    expect(await screen.findByText('Not monitored', { selector: 'p' })).toBeInTheDocument();
    expect(screen.getByText(/this app is rejected/)).toBeInTheDocument();
    expect(screen.queryByText('System experiencing issues')).not.toBeInTheDocument();
  });

  it('Update on the detail asks for the App Status list again too', async () => {
    const asked = serve();
    const { user } = renderPanel();
    await user.click(within(await item('Acme Notes')).getByRole('button', { name: 'Acme Notes' }));
    await screen.findByText('All systems operational', undefined, { timeout: 15_000 });
    const [months, apps] = [asked.months.length, asked.apps.length];
    await user.click(screen.getByRole('button', { name: 'Update' }));
    await waitFor(() => {
      expect(asked.apps.length).toBeGreaterThan(apps);
    });
    // Back on the list, its page is asked for again instead of showing what it showed before.
    await user.click(screen.getByRole('tab', { name: 'App Status' }));
    await item('Acme Notes');
    await waitFor(() => {
      expect(asked.months.length).toBeGreaterThan(months);
    });
  });

  it('says so before the first check', async () => {
    serve({
      detail: {
        online: false,
        healthStatus: 'unknown',
        lastCheckedAt: null,
        statusChangedAt: null,
      },
    });
    renderPanel(DETAIL);
    expect(await screen.findByText('Not checked yet')).toBeInTheDocument();
    expect(screen.queryByText('System experiencing issues')).not.toBeInTheDocument();
  });

  it("lists a day's problems, or says the day was fine, or that its details are gone", async () => {
    const asked = serve({
      problems: (day) =>
        day.endsWith('-03')
          ? {
              problems: [
                {
                  packageName: 'com.acme.notes',
                  timestamp: `${day}T10:15:00Z`,
                  health: 'unreachable',
                  onlineStatus: false,
                  httpStatus: null,
                  latencyMs: null,
                },
              ],
            }
          : day.endsWith('-02')
            ? { detailsKept: false }
            : {},
    });
    const { user } = renderPanel(DETAIL);
    const picker = await screen.findByRole('combobox', { name: 'Day (UTC)' });

    await user.click(picker);
    await user.click(await screen.findByRole('option', { name: /All Unhealthy/ }));
    const table = await screen.findByRole('table', { name: /Problems on/ });
    const cells = within(table)
      .getAllByRole('cell')
      .map((c) => c.textContent);
    expect(cells[0]).toBe('com.acme.notes');
    expect(cells[1]).toMatch(/10:15:00 AM UTC/);
    expect(cells[2]).toBe('unreachable');
    expect(cells[3]).toBe('Offline');
    expect(asked.days).toEqual([iso(NOW, 3)]);

    await user.click(picker);
    await user.click(await screen.findByRole('option', { name: /All Healthy/ }));
    expect(await screen.findByText('No issues found for this day')).toBeInTheDocument();
    expect(screen.getByText('All systems were operational')).toBeInTheDocument();

    await user.click(picker);
    await user.click(await screen.findByRole('option', { name: /Mixed Status/ }));
    expect(await screen.findByText(/kept for 48 hours/)).toBeInTheDocument();
    expect(screen.getByText('Healthy: 7, Unhealthy: 3, Total: 10')).toBeInTheDocument();
  });

  it('offers the days of the month up to today in the day selector, never a future one', async () => {
    serve();
    const { user } = renderPanel(DETAIL);
    await user.click(await screen.findByRole('combobox', { name: 'Day (UTC)' }));
    const options = await screen.findAllByRole('option');
    const today = new Date().getUTCDate();
    expect(options).toHaveLength(today);
    expect(nthOption(options, today - 1)).toHaveTextContent(dayLabel(iso(NOW, today)));
    if (today < daysIn(NOW)) {
      expect(
        screen.queryByRole('option', { name: new RegExp(dayLabel(iso(NOW, today + 1))) }),
      ).not.toBeInTheDocument();
    }
  });

  it('moves the chart between months', async () => {
    const asked = serve();
    const { user } = renderPanel(DETAIL);
    await screen.findByText('Uptime 70.8%');
    expect(screen.getByRole('button', { name: 'Next month' })).toBeDisabled();
    await user.click(screen.getByRole('button', { name: 'Previous month' }));
    const before = prev(NOW);
    await waitFor(() => {
      expect(asked.apps).toContain(`?year=${before.year}&month=${before.month}`);
    });
    expect(await screen.findByTestId('uptime-month')).toHaveTextContent(monthLabel(before));
  });

  it('checks the health URL live with Check now', async () => {
    const asked = serve({
      ping: {
        success: true,
        status: 200,
        data: { status: 'healthy' },
        packageName: 'com.acme.notes',
        health: 'healthy',
        online: true,
        latencyMs: 12,
      },
    });
    const { user } = renderPanel(DETAIL);
    await user.click(await screen.findByRole('button', { name: 'Check now' }));
    expect(await screen.findByText('Online: healthy (HTTP 200, 12 ms)')).toBeInTheDocument();
    expect(asked.pings).toEqual(['https://notes.acme.test/health']);
  });

  it('shows the server message when the check is refused', async () => {
    serve();
    const { user } = renderPanel(DETAIL);
    await user.click(await screen.findByRole('button', { name: 'Check now' }));
    expect(await screen.findByText('No registered app has this health URL')).toBeInTheDocument();
  });

  it('says App not found for an unknown app', async () => {
    serve({ app: null });
    renderPanel('/admin?tab=app&app=com.nobody.here');
    expect(await screen.findByText('App not found')).toBeInTheDocument();
  });
});
