import { screen } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';

import { makeStore } from '../../app/store';
import { renderRoute } from '../../testing/render';
import { publicConfigWith } from '../../testing/handlers';
import { server } from '../../testing/server';

function testerView() {
  return {
    packageName: 'com.acme.weather',
    name: 'Weather',
    description: 'Forecasts on your glasses',
    onboardingInstructions: '',
    logoURL: '',
    webviewURL: null,
    appType: 'standard',
    permissions: [],
    hardwareRequirements: [],
  };
}

describe('tester page', { timeout: 20000 }, () => {
  it('shows the shared app to someone signed out', async () => {
    server.use(
      http.get('*/api/install/:token', ({ params }) =>
        params.token === 'tok-1'
          ? HttpResponse.json({
              packageName: 'com.acme.weather',
              name: 'Weather',
              description: 'Forecasts on your glasses',
              onboardingInstructions: 'Say "weather".',
              logoURL: '',
              webviewURL: null,
              appType: 'standard',
              permissions: [{ type: 'LOCATION', description: 'For the local forecast' }],
              hardwareRequirements: [{ type: 'DISPLAY', level: 'REQUIRED' }],
            })
          : HttpResponse.json({ error: 'Not found', code: 'NOT_FOUND' }, { status: 404 }),
      ),
    );
    renderRoute('/install/tok-1', { store: makeStore() });
    expect(await screen.findByRole('heading', { name: 'Weather' })).toBeInTheDocument();
    expect(screen.getByText('Foreground App')).toBeInTheDocument();
    expect(screen.getByText('Say "weather".')).toBeInTheDocument();
    expect(screen.getByText('For the local forecast')).toBeInTheDocument();
    expect(screen.getByText('Display (required)')).toBeInTheDocument();
    // The QR code carries the page's own install link, for the phone that runs the companion app.
    const url = new URL('/install/tok-1', window.location.origin).href;
    const code = screen.getByRole('img', { name: `QR code of ${url}` });
    expect(code.tagName.toLowerCase()).toBe('svg');
    expect(code.querySelectorAll('path').length).toBeGreaterThan(0);
    expect(screen.getByText('Scan to open this page on your phone')).toBeInTheDocument();
  });

  it('offers the companion app install action only when the server names its format', async () => {
    const template = 'mentra://install?package={packageName}&link={installUrl}';
    server.use(
      http.get('*/api/install/:token', () => HttpResponse.json(testerView())),
      publicConfigWith({ companionInstallUrl: template }),
    );
    renderRoute('/install/tok-1', { store: makeStore() });
    const open = await screen.findByRole('link', { name: 'Open in the companion app' });
    const url = new URL('/install/tok-1', window.location.origin).href;
    expect(open).toHaveAttribute(
      'href',
      `mentra://install?package=com.acme.weather&link=${encodeURIComponent(url)}`,
    );
  });

  it('shows no companion app action when none is configured', async () => {
    server.use(http.get('*/api/install/:token', () => HttpResponse.json(testerView())));
    renderRoute('/install/tok-1', { store: makeStore() });
    expect(await screen.findByRole('heading', { name: 'Weather' })).toBeInTheDocument();
    expect(
      screen.queryByRole('link', { name: 'Open in the companion app' }),
    ).not.toBeInTheDocument();
  });

  it('says when the link is unknown or was reset', async () => {
    server.use(
      http.get('*/api/install/:token', () =>
        HttpResponse.json({ error: 'Not found', code: 'NOT_FOUND' }, { status: 404 }),
      ),
    );
    renderRoute('/install/old', { store: makeStore() });
    expect(await screen.findByRole('heading', { name: 'Test link not found' })).toBeInTheDocument();
  });
});
