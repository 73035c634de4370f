import { render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { http, HttpResponse } from 'msw';
import { createMemoryRouter, RouterProvider } from 'react-router';
import { afterEach, describe, expect, it, vi } from 'vitest';

import { AppProviders } from '../../../app/AppProviders';
import {
  recordRequest,
  serveOrgs,
  signedInStore,
  testApp,
  testOrg,
  type SentRequest,
} from '../../../testing/apps';
import { server } from '../../../testing/server';
import type { App } from '../types';
import EditAppPage from './EditAppPage';

const PKG = 'com.acme.weather';

function serveApp(app: App | null, status = 200) {
  server.use(
    http.get('*/api/dev/apps/:pkg', () =>
      app
        ? HttpResponse.json(app, { status })
        : HttpResponse.json({ error: 'App not found', code: 'NOT_FOUND' }, { status }),
    ),
    http.get('*/api/dev/apps/:pkg/history', () =>
      HttpResponse.json([
        {
          id: 'e1',
          kind: 'rejected',
          at: '2026-11-12T09:30:00Z',
          actor: 'App Review',
          notes: 'The logo is blurry',
          selfReview: false,
          detail: null,
        },
        {
          id: 'e2',
          kind: 'resubmitted',
          at: '2026-11-13T09:30:00Z',
          actor: 'ada@example.com',
          notes: null,
          selfReview: false,
          detail: { addedPermissions: ['CAMERA'] },
        },
        {
          id: 'e3',
          kind: 'approved',
          at: '2026-11-14T09:30:00Z',
          actor: 'grace@acme.test',
          notes: null,
          selfReview: true,
          detail: null,
        },
      ]),
    ),
  );
}

function renderPage(store = signedInStore()) {
  const router = createMemoryRouter(
    [
      { path: '/apps/:packageName/edit', element: <EditAppPage /> },
      { path: '/apps', element: <h1>My Apps list</h1> },
    ],
    { initialEntries: [`/apps/${PKG}/edit`] },
  );
  // The file picker accepts .json; the page must still refuse another file a browser lets through.
  const user = userEvent.setup({ applyAccept: false });
  render(
    <AppProviders store={store}>
      <RouterProvider router={router} />
    </AppProviders>,
  );
  return { router, user, store };
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('Edit App page', { timeout: 20_000 }, () => {
  it('shows every section in the specification order with the package name read-only', async () => {
    serveOrgs();
    serveApp(testApp());
    renderPage();
    expect(await screen.findByDisplayValue('Weather')).toBeInTheDocument();
    expect(screen.getByRole('textbox', { name: 'Package Name' })).toHaveAttribute('readonly');
    const headings = screen.getAllByRole('heading', { level: 2 }).map((h) => h.textContent);
    expect(headings).toEqual([
      'Permissions',
      'Hardware Requirements',
      'App Settings',
      'AI Tools',
      'Share with Testers',
      'API Key',
      'App Status',
      'Configuration',
      'Review History',
    ]);
    expect(screen.getByText(/plus \/webhook\. HTTPS is required/)).toBeInTheDocument();
    expect(await screen.findByText('Notes: The logo is blurry')).toBeInTheDocument();
    expect(screen.getByText('Sent back to review (permission added)')).toBeInTheDocument();
    expect(screen.getByText('Permissions added: CAMERA')).toBeInTheDocument();
    expect(screen.getByText('Self-review')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Publish to App Store' })).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Back to Apps' })).toHaveAttribute('href', '/apps');
  });

  it('offers one way back to the list, the Back to Apps link, and Save alone at the bottom (issue 48 item 11)', async () => {
    serveOrgs();
    serveApp(testApp());
    renderPage();
    const save = await screen.findByRole('button', { name: 'Save Changes' });
    // Every control that leads back to /apps, whatever its role or words.
    const toList = Array.from(document.querySelectorAll('a[href="/apps"]'));
    expect(toList).toHaveLength(1);
    expect(toList[0]).toBe(screen.getByRole('link', { name: 'Back to Apps' }));
    expect(screen.queryByRole('button', { name: /^Back/ })).toBeNull();
    expect(screen.queryByRole('link', { name: /^Back$/ })).toBeNull();
    // The save bar holds Save Changes and nothing else to press.
    const bar = save.parentElement?.parentElement;
    if (!bar) throw new Error('Save Changes is not in its bar');
    expect(within(bar).getAllByRole('button')).toEqual([save]);
    expect(within(bar).queryAllByRole('link')).toEqual([]);
  });

  it('says "Publication status updated" once the page shows the status after publishing', async () => {
    serveOrgs();
    serveApp(testApp());
    let published = false;
    server.use(
      http.get('*/api/dev/apps/:pkg', () =>
        HttpResponse.json(testApp({ appStoreStatus: published ? 'SUBMITTED' : 'DEVELOPMENT' })),
      ),
      http.post('*/api/dev/apps/:pkg/publish', () => {
        published = true;
        return HttpResponse.json(testApp({ appStoreStatus: 'SUBMITTED' }));
      }),
    );
    const { user, store } = renderPage();
    await user.click(await screen.findByRole('button', { name: 'Publish to App Store' }));
    const dialog = await screen.findByRole('dialog', { name: 'Publish to App Store' });
    const submit = within(dialog).getByRole('button', { name: 'Submit for Review' });
    await waitFor(() => {
      expect(submit).toBeEnabled();
    });
    await user.click(submit);

    await waitFor(() => {
      expect(store.getState().auth.notice?.text).toBe('App submitted for publication!');
    });
    // The re-read app is on the page; its notice waits for the one on screen.
    await waitFor(() => {
      expect(store.getState().auth.queuedNotices).toEqual([
        { severity: 'success', text: 'Publication status updated' },
      ]);
    });
    expect(screen.queryByRole('button', { name: 'Publish to App Store' })).not.toBeInTheDocument();
  });

  it('normalises the server URL on blur and saves the listed fields', async () => {
    serveOrgs();
    serveApp(testApp());
    const sent: SentRequest[] = [];
    server.use(
      http.put('*/api/dev/apps/:pkg', async ({ request }) => {
        await recordRequest(request, sent);
        return HttpResponse.json(testApp({ name: 'Weather Pro' }));
      }),
    );
    const { user } = renderPage();
    const name = await screen.findByRole('textbox', { name: /Display Name/ });
    await user.clear(name);
    await user.paste('Weather Pro');
    const url = screen.getByRole('textbox', { name: /Server URL/ });
    await user.clear(url);
    await user.paste('http://weather.acme.test/');
    await user.tab();
    expect(url).toHaveValue('https://weather.acme.test');
    await user.click(screen.getByRole('button', { name: 'Save Changes' }));
    expect(await screen.findByText('App updated successfully')).toBeInTheDocument();
    expect(sent[0]).toMatchObject({
      method: 'PUT',
      path: `/api/dev/apps/${PKG}`,
      orgId: 'org-1',
      body: {
        name: 'Weather Pro',
        publicUrl: 'https://weather.acme.test',
        webviewURL: '',
        appType: 'background',
        settings: [],
        tools: [],
        hardwareRequirements: [],
      },
    });
    expect(sent[0]?.body).not.toHaveProperty('appStoreStatus');
    await waitFor(
      () => {
        expect(screen.queryByText('App updated successfully')).not.toBeInTheDocument();
      },
      { timeout: 4000 },
    );
  });

  it('asks before leaving with unsaved changes, and not once they are saved', async () => {
    serveOrgs();
    serveApp(testApp());
    server.use(
      http.put('*/api/dev/apps/:pkg', () => HttpResponse.json(testApp({ name: 'Weather Pro' }))),
    );
    const { user } = renderPage();
    const name = await screen.findByRole('textbox', { name: /Display Name/ });
    await user.clear(name);
    await user.paste('Weather Pro');

    await user.click(screen.getByRole('link', { name: 'Back to Apps' }));
    const prompt = await screen.findByRole('dialog', { name: 'Leave without saving?' });
    await user.click(within(prompt).getByRole('button', { name: 'Stay on Page' }));
    await waitFor(() => {
      expect(screen.queryByRole('dialog', { name: 'Leave without saving?' })).toBeNull();
    });
    expect(name).toHaveValue('Weather Pro');

    await user.click(screen.getByRole('button', { name: 'Save Changes' }));
    expect(await screen.findByText('App updated successfully')).toBeInTheDocument();
    await user.click(screen.getByRole('link', { name: 'Back to Apps' }));
    expect(await screen.findByRole('heading', { name: 'My Apps list' })).toBeInTheDocument();
  });

  it('leaves without saving when the person says so', async () => {
    serveOrgs();
    serveApp(testApp());
    const { user } = renderPage();
    const name = await screen.findByRole('textbox', { name: /Display Name/ });
    await user.type(name, ' 2');
    await user.click(screen.getByRole('link', { name: 'Back to Apps' }));
    const prompt = await screen.findByRole('dialog', { name: 'Leave without saving?' });
    await user.click(within(prompt).getByRole('button', { name: 'Leave without Saving' }));
    expect(await screen.findByRole('heading', { name: 'My Apps list' })).toBeInTheDocument();
  });

  it('shows the server field errors on their fields', async () => {
    serveOrgs();
    serveApp(testApp({ settings: [{ type: 'toggle', key: 'a', label: 'A', defaultValue: true }] }));
    server.use(
      http.put('*/api/dev/apps/:pkg', () =>
        HttpResponse.json(
          {
            error: 'Please enter a valid URL',
            code: 'VALIDATION',
            fields: {
              publicUrl: 'Please enter a valid URL',
              'settings[0].key': 'Setting key "a" is reserved',
            },
          },
          { status: 400 },
        ),
      ),
    );
    const { user } = renderPage();
    await screen.findByDisplayValue('Weather');
    await user.click(screen.getByRole('button', { name: 'Save Changes' }));
    expect(await screen.findByText('Setting key "a" is reserved')).toBeInTheDocument();
    expect(screen.getByRole('textbox', { name: /Server URL/ })).toHaveAttribute(
      'aria-invalid',
      'true',
    );
    expect(screen.getByRole('alert')).toHaveTextContent('Please enter a valid URL');
  });

  it('checks the settings rules before sending anything', async () => {
    serveOrgs();
    serveApp(
      testApp({
        settings: [
          { type: 'toggle', key: 'a', label: 'A', defaultValue: true },
          { type: 'toggle', key: 'a', label: 'B', defaultValue: true },
        ],
      }),
    );
    const put = vi.fn();
    server.use(
      http.put('*/api/dev/apps/:pkg', () => {
        put();
        return HttpResponse.json(testApp());
      }),
    );
    const { user } = renderPage();
    await screen.findByDisplayValue('Weather');
    await user.click(screen.getByRole('button', { name: 'Save Changes' }));
    expect(await screen.findByText('Setting key "a" is used more than once')).toBeInTheDocument();
    expect(put).not.toHaveBeenCalled();
  });

  it('warns before adding a permission to a published app, then saves it through PATCH', async () => {
    serveOrgs();
    serveApp(testApp({ appStoreStatus: 'PUBLISHED', permissions: [{ type: 'MICROPHONE' }] }));
    const sent: SentRequest[] = [];
    server.use(
      http.put('*/api/dev/apps/:pkg', () => HttpResponse.json(testApp())),
      http.patch('*/api/permissions/:pkg', async ({ request }) => {
        await recordRequest(request, sent);
        return HttpResponse.json(testApp({ appStoreStatus: 'SUBMITTED' }));
      }),
    );
    const { user } = renderPage();
    await screen.findByDisplayValue('Weather');
    await user.click(screen.getByRole('button', { name: 'Add Permission' }));
    await user.click(screen.getByRole('button', { name: 'Save Changes' }));
    const dialog = await screen.findByRole('dialog', { name: 'Send the app back to review?' });
    expect(dialog).toHaveTextContent('Adding Location sends it back to review');
    expect(sent).toHaveLength(0);
    await user.click(within(dialog).getByRole('button', { name: 'Save and Resubmit' }));
    expect(await screen.findByText('App updated successfully')).toBeInTheDocument();
    expect(sent[0]).toMatchObject({
      method: 'PATCH',
      path: `/api/permissions/${PKG}`,
      body: { permissions: [{ type: 'MICROPHONE' }, { type: 'LOCATION', description: '' }] },
    });
  });

  it('says so when the app cannot be loaded', async () => {
    serveOrgs();
    server.use(
      http.get('*/api/dev/apps/:pkg', () =>
        HttpResponse.json({ error: 'boom', code: 'INTERNAL' }, { status: 500 }),
      ),
    );
    renderPage();
    expect(
      await screen.findByText('Failed to load App data. Please try again.'),
    ).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Try Again' })).toBeInTheDocument();
  });

  it('goes back to the list when the app is not in this organization', async () => {
    serveOrgs();
    serveApp(null, 404);
    const { router, store } = renderPage();
    expect(
      await screen.findByText(`App "${PKG}" not found. Redirecting to app list...`),
    ).toBeInTheDocument();
    await waitFor(
      () => {
        expect(router.state.location.pathname).toBe('/apps');
      },
      { timeout: 3000 },
    );
    expect(store.getState().auth.notice?.text).toBe(
      `App "${PKG}" not found. Redirecting to app list...`,
    );
  });

  it('imports a configuration file after confirmation and refuses a bad one', async () => {
    serveOrgs();
    serveApp(testApp());
    const { user } = renderPage();
    await screen.findByDisplayValue('Weather');
    const input = screen.getByTestId('config-file-input');

    await user.upload(input, new File(['{"name": 3}'], 'bad.json', { type: 'application/json' }));
    expect(
      await screen.findByText('Optional field "name" must be a non-empty string if provided.'),
    ).toBeInTheDocument();
    await user.upload(input, new File(['{}'], 'notes.txt', { type: 'text/plain' }));
    expect(await screen.findByText('Please select a JSON file.')).toBeInTheDocument();

    const config = {
      name: 'Weather Plus',
      publicUrl: 'http://plus.acme.test/',
      settings: [
        { type: 'group', title: 'General' },
        { type: 'toggle', key: 'metric', label: 'Metric units', defaultValue: true },
      ],
      tools: [{ id: 'forecast', description: 'Forecast', activationPhrases: ['weather'] }],
    };
    await user.upload(
      input,
      new File([JSON.stringify(config)], 'weather_config.json', { type: 'application/json' }),
    );
    const dialog = await screen.findByRole('dialog', { name: 'Import Configuration' });
    const summary = within(dialog).getByRole('table', { name: 'Import summary' });
    expect(within(summary).getByRole('row', { name: /Settings/ })).toHaveTextContent('1 (groups');
    expect(within(summary).getByRole('row', { name: /AI tools/ })).toHaveTextContent('1');
    await user.click(within(dialog).getByRole('button', { name: 'Import' }));
    expect(
      await screen.findByText('Configuration imported successfully! Remember to save changes.'),
    ).toBeInTheDocument();
    await waitFor(() => {
      expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
    });
    expect(screen.getByRole('textbox', { name: /Display Name/ })).toHaveValue('Weather Plus');
    expect(screen.getByRole('textbox', { name: /Server URL/ })).toHaveValue(
      'https://plus.acme.test',
    );
    expect(screen.getByDisplayValue('Metric units')).toBeInTheDocument();
    expect(screen.getByDisplayValue('forecast')).toBeInTheDocument();
  });

  it('lists the defaults an import fitted to their settings before confirming', async () => {
    serveOrgs();
    serveApp(testApp());
    const { user } = renderPage();
    await screen.findByDisplayValue('Weather');
    const config = {
      settings: [
        {
          type: 'select',
          key: 'units',
          label: 'Units',
          options: [{ label: 'Celsius', value: 'c' }],
          defaultValue: 'kelvin',
        },
        { type: 'slider', key: 'volume', label: 'Volume', min: 10, max: 20, defaultValue: 25 },
      ],
    };
    await user.upload(
      screen.getByTestId('config-file-input'),
      new File([JSON.stringify(config)], 'fit.json', { type: 'application/json' }),
    );
    const dialog = await screen.findByRole('dialog', { name: 'Import Configuration' });
    expect(
      within(dialog).getByText(
        'Setting at index 0 ("units"): default "kelvin" is not one of the options and was cleared.',
      ),
    ).toBeInTheDocument();
    expect(
      within(dialog).getByText(
        'Setting at index 1 ("volume"): default 25 is outside 10 to 20 and was set to the minimum, 10.',
      ),
    ).toBeInTheDocument();
    await user.click(within(dialog).getByRole('button', { name: 'Import' }));
    await waitFor(() => {
      expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
    });
    expect(screen.getByRole('spinbutton', { name: 'Default value' })).toHaveValue(10);
  });

  it('exports the configuration as a file', async () => {
    serveOrgs();
    serveApp(testApp());
    server.use(
      http.get('*/api/dev/apps/:pkg/config', () =>
        HttpResponse.json(
          { name: 'Weather', version: '1.0.0' },
          { headers: { 'Content-Disposition': `attachment; filename="${PKG}_config.json"` } },
        ),
      ),
    );
    const createObjectURL = vi.fn(() => 'blob:config');
    Object.assign(URL, { createObjectURL, revokeObjectURL: vi.fn() });
    const click = vi
      .spyOn(HTMLAnchorElement.prototype, 'click')
      .mockImplementation(() => undefined);
    const { user } = renderPage();
    await screen.findByDisplayValue('Weather');
    await user.click(screen.getByRole('button', { name: 'Export Configuration' }));
    expect(await screen.findByText('Configuration exported successfully!')).toBeInTheDocument();
    expect(createObjectURL).toHaveBeenCalled();
    const link = click.mock.contexts[0] as HTMLAnchorElement;
    expect(link.download).toBe(`${PKG}_config.json`);
  });

  it('moves the app after a target is chosen, then goes to the list', async () => {
    serveOrgs([testOrg(), testOrg({ id: 'org-2', name: 'Beta Labs', role: 'member' })]);
    serveApp(testApp());
    const sent: SentRequest[] = [];
    server.use(
      http.post('*/api/dev/apps/:pkg/move-org', async ({ request }) => {
        await recordRequest(request, sent);
        // From now on the app is not in org-1 any more.
        serveApp(null, 404);
        return HttpResponse.json(testApp({ orgId: 'org-2' }));
      }),
    );
    const { user, router } = renderPage();
    await screen.findByDisplayValue('Weather');
    await user.click(screen.getByRole('button', { name: 'Move to Another Organization' }));
    const dialog = await screen.findByRole('dialog');
    expect(dialog).toHaveTextContent('This action cannot be automatically reversed.');
    expect(dialog).toHaveTextContent('Members of the target organization will gain access');
    await user.click(within(dialog).getByRole('button', { name: 'Move App' }));
    expect(within(dialog).getByText('Please select a target organization')).toBeInTheDocument();
    await user.click(within(dialog).getByRole('combobox', { name: 'Target organization' }));
    await user.click(screen.getByRole('option', { name: 'Beta Labs (member)' }));
    await user.click(within(dialog).getByRole('button', { name: 'Move App' }));
    // The page stops reading the app from its old organization (no "not found") and says it moved.
    expect(
      await screen.findByText('App moved to new organization successfully'),
    ).toBeInTheDocument();
    expect(screen.queryByText(/not found/)).not.toBeInTheDocument();
    expect(sent[0]).toMatchObject({ body: { targetOrgId: 'org-2' }, orgId: 'org-1' });
    await waitFor(
      () => {
        expect(router.state.location.pathname).toBe('/apps');
      },
      { timeout: 3000 },
    );
  });

  it('says so when the move fails', async () => {
    serveOrgs([testOrg(), testOrg({ id: 'org-2', name: 'Beta Labs' })]);
    serveApp(testApp());
    server.use(
      http.post('*/api/dev/apps/:pkg/move-org', () =>
        HttpResponse.json({ error: 'Forbidden', code: 'FORBIDDEN' }, { status: 403 }),
      ),
    );
    const { user } = renderPage();
    await screen.findByDisplayValue('Weather');
    await user.click(screen.getByRole('button', { name: 'Move to Another Organization' }));
    const dialog = await screen.findByRole('dialog');
    await user.click(within(dialog).getByRole('combobox', { name: 'Target organization' }));
    await user.click(screen.getByRole('option', { name: 'Beta Labs (admin)' }));
    await user.click(within(dialog).getByRole('button', { name: 'Move App' }));
    expect(
      await within(dialog).findByText(
        'Failed to move app to the new organization. Please try again.',
      ),
    ).toBeInTheDocument();
  });
});
