import { screen, waitFor, within } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';

import { signedInStore, testOrg } from '../../testing/apps';
import { accountSecurityHandlers, identitySession } from '../../testing/identity';
import { renderRoute } from '../../testing/render';
import { server } from '../../testing/server';
import { IDENTITY_SESSION_KEY } from '../../session/storage';

describe('the navigation drawer of small screens', () => {
  it('links to Account Security too (the top bar has it in its account menu)', async () => {
    localStorage.setItem(IDENTITY_SESSION_KEY, JSON.stringify(identitySession('ada@example.com')));
    server.use(
      http.post('*/api/auth/exchange-token', () => HttpResponse.json({ coreToken: 'core-2' })),
      http.get('*/api/admin/check', () => HttpResponse.json({ isAdmin: false, role: null })),
      http.get('*/api/orgs', () =>
        HttpResponse.json({ success: true, data: [testOrg()], personalOrgCreated: false }),
      ),
      http.get('*/api/orgs/:orgId', () => HttpResponse.json({ success: true, data: testOrg() })),
      ...accountSecurityHandlers('ada@example.com'),
    );
    const { user, router } = renderRoute('/dashboard', { store: signedInStore() });
    await user.click(
      await screen.findByRole('button', { name: 'Open navigation' }, { timeout: 15_000 }),
    );
    const drawer = await screen.findByRole('dialog', { name: 'Navigation' });
    await user.click(within(drawer).getByRole('link', { name: 'Account Security' }));
    await waitFor(() => {
      expect(router.state.location.pathname).toBe('/account/security');
    });
    // The drawer closes on the way (its closing transition may still be running: wait for it to go), and the
    // permanent sidebar (wide screens) leaves the link to the top bar's account menu.
    await waitFor(() => {
      expect(screen.queryByRole('dialog', { name: 'Navigation' })).toBeNull();
    });
    // The page itself opens (and has read what it lists), whatever the machine's speed.
    expect(
      await screen.findByRole(
        'heading',
        { level: 1, name: 'Account Security' },
        { timeout: 15_000 },
      ),
    ).toBeInTheDocument();
    const sidebar = await screen.findByRole('navigation', { name: 'Main' });
    expect(within(sidebar).queryByRole('link', { name: 'Account Security' })).toBeNull();
  }, 30_000);
});
