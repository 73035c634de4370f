import { screen, waitFor } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';

import { serveOrgs, signedInStore, testApp, testOrg } from '../testing/apps';
import { AppLayout } from '../features/layout/AppLayout';
import { renderRoute, renderWithProviders } from '../testing/render';
import { server } from '../testing/server';

/** What a signed-in page asks for besides the organizations: not a platform admin; the organization. */
function serveSignedIn() {
  serveOrgs();
  server.use(
    http.get('*/api/admin/check', () => HttpResponse.json({ isAdmin: false, role: null })),
    http.get('*/api/orgs/:orgId', () => HttpResponse.json({ success: true, data: testOrg() })),
  );
}

describe('document titles and the skip link', () => {
  it.each([
    ['/dashboard', 'Dashboard · Developer Portal'],
    ['/apps', 'My Apps · Developer Portal'],
    ['/apps/create', 'Create App · Developer Portal'],
    ['/org-settings', 'Organization Settings · Developer Portal'],
    ['/members', 'Members · Developer Portal'],
    ['/nope', 'Page not found · Developer Portal'],
  ])('%s is titled %s', async (path, title) => {
    serveSignedIn();
    renderRoute(path, { store: signedInStore() });

    await waitFor(() => {
      expect(document.title).toBe(title);
    });
  });

  it('names the app on Edit App once it has loaded', async () => {
    serveSignedIn();
    server.use(
      http.get('*/api/dev/apps/:pkg', () => HttpResponse.json(testApp({ name: 'Weather' }))),
      http.get('*/api/dev/apps/:pkg/history', () => HttpResponse.json([])),
    );
    renderRoute('/apps/com.acme.weather/edit', { store: signedInStore() });

    await waitFor(() => {
      expect(document.title).toBe('Weather · Edit App · Developer Portal');
    });
  });

  it('the landing page is titled with the product name alone', async () => {
    renderRoute('/');

    await waitFor(() => {
      expect(document.title).toBe('Developer Portal');
    });
  });

  it('a signed-in page starts with a link that skips to its main content', async () => {
    serveSignedIn();
    const { user } = renderWithProviders(<AppLayout />, { store: signedInStore() });

    const skip = await screen.findByRole('link', { name: 'Skip to main content' });
    expect(skip).toHaveAttribute('href', '#main');
    await user.tab();
    expect(skip).toHaveFocus();
    expect(document.getElementById('main')).toHaveAttribute('tabindex', '-1');
  });
});
