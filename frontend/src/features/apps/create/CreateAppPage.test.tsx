import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
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
import { publicConfigWith } from '../../../testing/handlers';
import { publicConfigApi } from '../../publicConfig';
import type { UserEvent } from '@testing-library/user-event';
import { CreateAppPage } from './CreateAppPage';

const LOGO = 'http://localhost:3000/api/images/11111111-2222-4333-8444-555555555555';
const KEY = 'dp_live_abcdefghijklmnopqrstuvwxyz0123456789';

function serveUpload() {
  server.use(
    http.post('*/api/dev/images/upload', ({ request }) => {
      if (request.headers.get('x-org-id') !== 'org-1') {
        return HttpResponse.json({ error: 'Forbidden', code: 'FORBIDDEN' }, { status: 403 });
      }
      return HttpResponse.json({ url: LOGO });
    }),
  );
}

function serveRegister(answer: () => Response) {
  const sent: SentRequest[] = [];
  server.use(
    http.post('*/api/dev/apps/register', async ({ request }) => {
      await recordRequest(request, sent);
      return answer();
    }),
    http.get('*/api/dev/apps', () => HttpResponse.json([])),
  );
  return sent;
}

/** A FileList of one file, as a browser hands it over. */
function fileList(file: File): FileList {
  const list = { 0: file, length: 1, item: (index: number) => (index === 0 ? file : null) };
  return list as unknown as FileList;
}

async function paste(user: UserEvent, name: RegExp, text: string) {
  await user.click(screen.getByRole('textbox', { name }));
  await user.paste(text);
}

async function fillValidForm(user: UserEvent) {
  await paste(user, /Package Name/, 'com.acme.weather');
  await paste(user, /Display Name/, 'Weather');
  await paste(user, /^Description/, 'Forecasts');
  await paste(user, /Server URL/, 'http://weather.acme.test/');
  await user.tab();
  const file = new File([new Uint8Array([0x89, 0x50, 0x4e, 0x47])], 'logo.png', {
    type: 'image/png',
  });
  await user.upload(screen.getByTestId('image-upload-input'), file);
  await screen.findByRole('img', { name: 'App logo preview' });
}

const renderCreate = () =>
  renderWithProviders(<CreateAppPage />, { route: '/apps/create', store: signedInStore() });

describe('create app', { timeout: 30000 }, () => {
  it('shows every required-field message and the package name rule', async () => {
    serveOrgs();
    serveRegister(() => HttpResponse.json({}));
    const { user } = renderCreate();
    await screen.findByText('The app will belong to Acme.');
    expect(screen.getByRole('link', { name: 'Back to Apps' })).toHaveAttribute('href', '/apps');

    await user.click(screen.getByRole('button', { name: 'Create App' }));
    expect(screen.getByText('Package name is required')).toBeInTheDocument();
    expect(screen.getByText('Display name is required')).toBeInTheDocument();
    expect(screen.getByText('Description is required')).toBeInTheDocument();
    expect(screen.getByText('Server URL is required')).toBeInTheDocument();
    expect(screen.getByText('Logo is required')).toBeInTheDocument();

    await user.type(screen.getByRole('textbox', { name: /Package Name/ }), 'Com.Acme');
    await user.click(screen.getByRole('button', { name: 'Create App' }));
    expect(
      screen.getByText('Package name must use lowercase letters, numbers, dots, and hyphens only'),
    ).toBeInTheDocument();
  });

  it('asks for an organization when the user has none', async () => {
    serveOrgs([]);
    renderCreate();
    expect(
      await screen.findByText('Please select an organization to create this app'),
    ).toBeInTheDocument();
  });

  it('normalises the server URL on blur', async () => {
    serveOrgs();
    const { user } = renderCreate();
    const field = await screen.findByRole('textbox', { name: /Server URL/ });
    await user.click(field);
    await user.paste('  http://weather.acme.test//  ');
    await user.tab();
    expect(field).toHaveValue('https://weather.acme.test');
  });

  it('keeps a loopback http:// server URL when the portal runs for local development', async () => {
    server.use(publicConfigWith({ keepLoopbackHttp: true }));
    serveOrgs();
    const { user, store } = renderCreate();
    const field = await screen.findByRole('textbox', { name: /Server URL/ });
    await waitFor(() => {
      expect(
        publicConfigApi.endpoints.getPublicConfig.select()(store.getState()).data,
      ).toMatchObject({ keepLoopbackHttp: true });
    });
    await user.click(field);
    await user.paste('http://localhost:3000/');
    await user.tab();
    await waitFor(() => {
      expect(field).toHaveValue('http://localhost:3000');
    });
    await user.clear(field);
    await user.paste('http://weather.acme.test/');
    await user.tab();
    expect(field).toHaveValue('https://weather.acme.test');
  });

  it('registers the app in the current organization and shows the key once', async () => {
    serveOrgs();
    serveUpload();
    const sent = serveRegister(() =>
      HttpResponse.json(
        { apiKey: KEY, app: testApp({ logoURL: LOGO, publicUrl: 'https://weather.acme.test' }) },
        { status: 201 },
      ),
    );
    const { user, router } = renderCreate();
    await screen.findByText('The app will belong to Acme.');
    await fillValidForm(user);
    await user.click(screen.getByRole('radio', { name: /Foreground App/ }));
    await user.click(screen.getByRole('button', { name: 'Create App' }));

    const dialog = await screen.findByRole('dialog', { name: 'API Key for Weather' });
    expect(within(dialog).getByTestId('api-key')).toHaveValue(KEY);
    expect(sent[0]).toMatchObject({
      orgId: 'org-1',
      body: {
        packageName: 'com.acme.weather',
        name: 'Weather',
        description: 'Forecasts',
        onboardingInstructions: '',
        publicUrl: 'https://weather.acme.test',
        logoURL: LOGO,
        webviewURL: null,
        appType: 'standard',
        permissions: [],
        hardwareRequirements: [],
      },
    });

    await user.click(within(dialog).getByRole('button', { name: 'Close' }));
    await waitFor(() => {
      expect(router.state.location.pathname).toBe('/apps/com.acme.weather/edit');
    });
  });

  it('goes to My Apps from the key dialog', async () => {
    serveOrgs();
    serveUpload();
    serveRegister(() => HttpResponse.json({ apiKey: KEY, app: testApp() }, { status: 201 }));
    const { user, router } = renderCreate();
    await screen.findByText('The app will belong to Acme.');
    await fillValidForm(user);
    await user.click(screen.getByRole('button', { name: 'Create App' }));
    const dialog = await screen.findByRole('dialog');
    await user.click(within(dialog).getByRole('button', { name: 'Go to My Apps' }));
    await waitFor(() => {
      expect(router.state.location.pathname).toBe('/apps');
    });
  });

  it('marks a taken package name', async () => {
    serveOrgs();
    serveUpload();
    serveRegister(() =>
      HttpResponse.json(
        {
          error: 'Package name is already in use',
          code: 'PACKAGE_NAME_TAKEN',
          fields: { packageName: 'Package name is already in use' },
        },
        { status: 409 },
      ),
    );
    const { user } = renderCreate();
    await screen.findByText('The app will belong to Acme.');
    await fillValidForm(user);
    await user.click(screen.getByRole('button', { name: 'Create App' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('Package name is already in use');
    expect(
      screen.getByText('This package name is already in use. Please choose another.'),
    ).toBeInTheDocument();
  });

  it('shows the server field errors on their fields', async () => {
    serveOrgs();
    serveUpload();
    serveRegister(() =>
      HttpResponse.json(
        {
          error: 'Please correct the app',
          code: 'VALIDATION',
          fields: {
            publicUrl: 'The server URL must not be a private address',
            'permissions[0].type': 'Duplicate permission',
          },
        },
        { status: 422 },
      ),
    );
    const { user } = renderCreate();
    await screen.findByText('The app will belong to Acme.');
    await fillValidForm(user);
    await user.click(screen.getByRole('button', { name: 'Create App' }));
    const banner = await screen.findByText('Please correct the app');
    expect(banner.closest('[role="alert"]')).not.toBeNull();
    expect(screen.getByRole('textbox', { name: /Server URL/ })).toHaveAccessibleDescription(
      'The server URL must not be a private address',
    );
    expect(await screen.findByText('Duplicate permission')).toBeInTheDocument();
  });

  it('says when the server cannot be reached', async () => {
    serveOrgs();
    serveUpload();
    serveRegister(() => HttpResponse.error());
    const { user } = renderCreate();
    await screen.findByText('The app will belong to Acme.');
    await fillValidForm(user);
    await user.click(screen.getByRole('button', { name: 'Create App' }));
    expect(await screen.findByRole('alert')).toHaveTextContent(
      'Network error. Please check your connection and try again.',
    );
  });

  it('refuses a file that is not an image, and one over 10 MB', async () => {
    serveOrgs();
    renderCreate();
    await screen.findByText('The app will belong to Acme.');
    const input = screen.getByTestId('image-upload-input');
    // The picker offers images only; a file dropped in by other means is still checked.
    fireEvent.change(input, {
      target: { files: fileList(new File(['hello'], 'notes.txt', { type: 'text/plain' })) },
    });
    expect(
      screen.getByText('Please select a valid image file (PNG, JPEG, GIF, or WebP)'),
    ).toBeInTheDocument();
    const big = new File([new Uint8Array(10 * 1024 * 1024 + 1)], 'big.png', { type: 'image/png' });
    fireEvent.change(input, { target: { files: fileList(big) } });
    expect(screen.getByText('Image size must be less than 10MB')).toBeInTheDocument();
  });

  it('says when the upload fails', async () => {
    serveOrgs();
    server.use(
      http.post('*/api/dev/images/upload', () =>
        HttpResponse.json({ error: 'x', code: 'INTERNAL' }, { status: 500 }),
      ),
    );
    const { user } = renderCreate();
    await screen.findByText('The app will belong to Acme.');
    await user.upload(
      screen.getByTestId('image-upload-input'),
      new File([new Uint8Array([1, 2, 3])], 'logo.png', { type: 'image/png' }),
    );
    expect(
      await screen.findByText('Failed to upload image. Please try again.'),
    ).toBeInTheDocument();
  });
});
