import { screen, waitFor, within } from '@testing-library/react';
import { delay, http, HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';

import {
  recordRequest,
  serveOrgs,
  signedInStore,
  testApp,
  type SentRequest,
} from '../../../testing/apps';
import { renderWithProviders } from '../../../testing/render';
import { server } from '../../../testing/server';
import { listRetryDelay } from '../api';
import type { App } from '../types';
import { AppsTable } from './AppsTable';
import { filterApps, statusLook, storeAction } from './status';

function serveApps(apps: App[] | (() => Response | Promise<Response>)) {
  const sent: SentRequest[] = [];
  server.use(
    http.get('*/api/dev/apps', async ({ request }) => {
      await recordRequest(request, sent);
      return typeof apps === 'function' ? apps() : HttpResponse.json(apps);
    }),
  );
  return sent;
}

const WEATHER = testApp();
const NOTES = testApp({
  packageName: 'org.acme.notes',
  name: 'Notes',
  appStoreStatus: 'REJECTED',
  reviewNotes: 'The logo is blurry.',
});
const TIMER = testApp({
  packageName: 'com.acme.timer',
  name: 'Timer',
  appStoreStatus: 'PUBLISHED',
});
const QUIZ = testApp({ packageName: 'com.acme.quiz', name: 'Quiz', appStoreStatus: 'SUBMITTED' });

describe('apps table', { timeout: 20000 }, () => {
  it('shows Loading Apps... and then the apps of the current organization with their status', async () => {
    serveOrgs();
    const sent = serveApps(async () => {
      await delay(50);
      return HttpResponse.json([WEATHER, NOTES, TIMER, QUIZ]);
    });
    renderWithProviders(<AppsTable />, { store: signedInStore() });

    expect(await screen.findByText('Loading Apps...')).toBeInTheDocument();
    const table = await screen.findByRole('table');
    const rows = within(table).getAllByRole('row');
    expect(rows).toHaveLength(5);
    const row = (index: number) => {
      const found = rows[index];
      if (!found) throw new Error(`no row ${index}`);
      return within(found);
    };
    expect(row(1).getByText('Weather')).toBeInTheDocument();
    expect(row(1).getByText('com.acme.weather')).toBeInTheDocument();
    expect(row(1).getByText('Development')).toBeInTheDocument();
    expect(row(2).getByText('Rejected')).toBeInTheDocument();
    expect(row(3).getByText('Published')).toBeInTheDocument();
    expect(row(4).getByText('Submitted')).toBeInTheDocument();
    expect(sent[0]).toMatchObject({ path: '/api/dev/apps', orgId: 'org-1', auth: 'Bearer core-1' });
  });

  it('filters by name or package name, case-insensitively, and says when nothing matches', async () => {
    serveOrgs();
    serveApps([WEATHER, NOTES, TIMER]);
    const { user } = renderWithProviders(<AppsTable />, { store: signedInStore() });
    await screen.findByText('Weather');

    const search = screen.getByRole('textbox', { name: 'Search your apps' });
    await user.type(search, 'NOTES');
    expect(screen.getByText('Notes')).toBeInTheDocument();
    expect(screen.queryByText('Weather')).not.toBeInTheDocument();

    await user.clear(search);
    await user.type(search, 'com.acme');
    expect(screen.getByText('Weather')).toBeInTheDocument();
    expect(screen.getByText('Timer')).toBeInTheDocument();
    expect(screen.queryByText('Notes')).not.toBeInTheDocument();

    await user.clear(search);
    await user.type(search, 'zzz');
    expect(screen.getByText('No apps match your search criteria')).toBeInTheDocument();
  });

  it('shows at most three rows and View All on the dashboard', async () => {
    serveOrgs();
    serveApps([WEATHER, NOTES, TIMER, QUIZ]);
    renderWithProviders(<AppsTable limit={3} viewAll />, { store: signedInStore() });
    await screen.findByText('Weather');
    expect(screen.getAllByRole('row')).toHaveLength(4);
    expect(screen.queryByText('Quiz')).not.toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'View All' })).toHaveAttribute('href', '/apps');
  });

  it('prompts for a first app when there is none', async () => {
    serveOrgs();
    serveApps([]);
    renderWithProviders(<AppsTable />, { store: signedInStore() });
    expect(await screen.findByText('No apps to display')).toBeInTheDocument();
    expect(screen.getByText('Get started by creating your first app')).toBeInTheDocument();
    // One empty state, not an empty table above the prompt.
    expect(screen.queryByRole('table')).not.toBeInTheDocument();
    expect(screen.getAllByText('No apps to display')).toHaveLength(1);
    expect(screen.getByRole('link', { name: 'Create App' })).toHaveAttribute(
      'href',
      '/apps/create',
    );
  });

  it('shows the load error with Try Again, which loads again', async () => {
    serveOrgs();
    let calls = 0;
    serveApps(() => {
      calls += 1;
      return calls === 1
        ? HttpResponse.json({ error: 'boom', code: 'INTERNAL' }, { status: 500 })
        : HttpResponse.json([WEATHER]);
    });
    const { user } = renderWithProviders(<AppsTable />, { store: signedInStore() });
    expect(await screen.findByText('Failed to load Apps. Please try again.')).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Try Again' }));
    expect(await screen.findByText('Weather')).toBeInTheDocument();
  });

  it('retries the list on 403 while the session settles', async () => {
    serveOrgs();
    let calls = 0;
    serveApps(() => {
      calls += 1;
      return calls < 3
        ? HttpResponse.json({ error: 'Forbidden', code: 'FORBIDDEN' }, { status: 403 })
        : HttpResponse.json([WEATHER]);
    });
    renderWithProviders(<AppsTable />, { store: signedInStore() });
    expect(await screen.findByText('Weather', {}, { timeout: 3000 })).toBeInTheDocument();
    expect(calls).toBe(3);
  });

  it('gives up after three attempts on 401, and does not retry other failures', async () => {
    serveOrgs();
    let calls = 0;
    serveApps(() => {
      calls += 1;
      return HttpResponse.json({ error: 'Unauthorized', code: 'UNAUTHORIZED' }, { status: 401 });
    });
    renderWithProviders(<AppsTable />, { store: signedInStore() });
    expect(
      await screen.findByText('Failed to load Apps. Please try again.', {}, { timeout: 5000 }),
    ).toBeInTheDocument();
    expect(calls).toBe(3);
  });

  it('loads once when the server fails otherwise', async () => {
    serveOrgs();
    let calls = 0;
    serveApps(() => {
      calls += 1;
      return HttpResponse.json({ error: 'boom', code: 'INTERNAL' }, { status: 500 });
    });
    renderWithProviders(<AppsTable />, { store: signedInStore() });
    expect(await screen.findByText('Failed to load Apps. Please try again.')).toBeInTheDocument();
    expect(calls).toBe(1);
  });

  it('offers publish in development, resubmit when rejected, and neither once submitted', async () => {
    serveOrgs();
    serveApps([WEATHER, NOTES, QUIZ]);
    const { user } = renderWithProviders(<AppsTable />, { store: signedInStore() });
    await screen.findByText('Weather');

    await user.click(screen.getByRole('button', { name: 'Actions for Weather' }));
    // The menu's code loads when it first opens.
    let menu = await screen.findByRole('menu');
    expect(
      within(menu)
        .getAllByRole('menuitem')
        .map((item) => item.textContent),
    ).toEqual([
      'Edit App',
      'Manage API Key',
      'Share with Testers',
      'Publish to App Store',
      'Delete App',
    ]);
    await user.keyboard('{Escape}');

    await user.click(screen.getByRole('button', { name: 'Actions for Notes' }));
    menu = await screen.findByRole('menu');
    expect(within(menu).getByText('Resubmit to App Store')).toBeInTheDocument();
    await user.keyboard('{Escape}');

    await user.click(screen.getByRole('button', { name: 'Actions for Quiz' }));
    menu = await screen.findByRole('menu');
    expect(within(menu).queryByText(/App Store/)).not.toBeInTheDocument();
  });

  it('links a rejected app to its edit page with the review notes as a tooltip', async () => {
    serveOrgs();
    serveApps([NOTES]);
    const { user } = renderWithProviders(<AppsTable />, { store: signedInStore() });
    const link = await screen.findByRole('link', { name: 'View Rejection Reason' });
    expect(link).toHaveAttribute('href', '/apps/org.acme.notes/edit');
    await user.hover(link);
    expect(await screen.findByRole('tooltip')).toHaveTextContent('The logo is blurry.');
  });

  it('deletes an app from its row and reads the list again', async () => {
    serveOrgs();
    let apps = [WEATHER, TIMER];
    serveApps(() => HttpResponse.json(apps));
    server.use(
      http.delete('*/api/dev/apps/:pkg', ({ params }) => {
        apps = apps.filter((app) => app.packageName !== params.pkg);
        return new HttpResponse(null, { status: 204 });
      }),
    );
    const store = signedInStore();
    const { user } = renderWithProviders(<AppsTable />, { store });
    await screen.findByText('Timer');
    await user.click(screen.getByRole('button', { name: 'Actions for Timer' }));
    await user.click(screen.getByRole('menuitem', { name: 'Delete App' }));
    // The dialog's code loads when it opens.
    const dialog = await screen.findByRole('dialog', { name: 'Delete Timer?' });
    // Timer is published: its name is typed before it goes.
    await user.type(within(dialog).getByLabelText('Type Timer to confirm'), 'Timer');
    await user.click(within(dialog).getByRole('button', { name: 'Delete App' }));
    await waitFor(() => {
      expect(screen.queryByText('Timer')).not.toBeInTheDocument();
    });
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
    expect(screen.getByText('Weather')).toBeInTheDocument();
    // The layout's snackbar shows it, as it shows the other actions' messages.
    expect(store.getState().auth.notice).toEqual({
      severity: 'success',
      text: 'App deleted successfully',
    });
  });
});

describe('status rules', () => {
  it('shows an unknown status as Development', () => {
    expect(statusLook('ARCHIVED')).toEqual({ label: 'Development', color: 'default' });
    expect(statusLook(undefined).label).toBe('Development');
    expect(statusLook('SUBMITTED')).toEqual({ label: 'Submitted', color: 'warning' });
    expect(statusLook('PUBLISHED').color).toBe('success');
    expect(statusLook('REJECTED').color).toBe('error');
  });

  it('offers the store action only in development and rejected', () => {
    expect(storeAction('DEVELOPMENT')).toBe('publish');
    expect(storeAction('REJECTED')).toBe('resubmit');
    expect(storeAction('SUBMITTED')).toBeNull();
    expect(storeAction('PUBLISHED')).toBeNull();
  });

  it('filters on trimmed, case-insensitive text', () => {
    expect(filterApps([WEATHER, NOTES], '  WEA ').map((app) => app.name)).toEqual(['Weather']);
    expect(filterApps([WEATHER, NOTES], '')).toHaveLength(2);
  });

  it('waits 300 ms, then 600 ms between list attempts, never more than 2 s', () => {
    expect(listRetryDelay(1)).toBe(300);
    expect(listRetryDelay(2)).toBe(600);
    expect(listRetryDelay(5)).toBe(2000);
  });
});
