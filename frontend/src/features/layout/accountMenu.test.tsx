import { screen, waitFor, within } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { describe, expect, it, vi } from 'vitest';

import { signedInStore, testOrg } from '../../testing/apps';
import { openAccountMenu } from '../../testing/accountMenu';
import { testPublicConfig } from '../../testing/handlers';
import { accountSecurityHandlers, identitySession } from '../../testing/identity';
import { renderRoute } from '../../testing/render';
import { server } from '../../testing/server';
import { CORE_TOKEN_KEY, IDENTITY_SESSION_KEY } from '../../session/storage';

vi.setConfig({ testTimeout: 30_000 });

const AUTH = testPublicConfig.identity.authUrl;

/**
 * Ada is signed in (the identity client finds her session) and has one organization; the dashboard,
 * Account Security and Access Tokens answer; sign-outs are recorded with their scope.
 */
function adaSignedIn() {
  localStorage.setItem(IDENTITY_SESSION_KEY, JSON.stringify(identitySession('ada@example.com')));
  const signOuts: (string | null)[] = [];
  server.use(
    http.post('*/api/auth/exchange-token', () => HttpResponse.json({ coreToken: 'core-2' })),
    http.get('*/api/admin/check', () => HttpResponse.json({ isAdmin: false, role: null })),
    http.get('*/api/orgs', () =>
      HttpResponse.json({ success: true, data: [testOrg()], personalOrgCreated: false }),
    ),
    http.get('*/api/orgs/:orgId', () => HttpResponse.json({ success: true, data: testOrg() })),
    http.get('*/api/dev/apps', () => HttpResponse.json([])),
    http.get('*/api/dev/tokens', () => HttpResponse.json({ tokens: [] })),
    http.post(`${AUTH}/logout`, ({ request }) => {
      signOuts.push(new URL(request.url).searchParams.get('scope'));
      return new HttpResponse(null, { status: 204 });
    }),
    ...accountSecurityHandlers('ada@example.com'),
  );
  return { signOuts };
}

async function dashboardShown() {
  await screen.findByRole(
    'heading',
    { level: 1, name: 'Developer Dashboard' },
    { timeout: 15_000 },
  );
}

describe('the account menu of the top bar', () => {
  it('is an avatar button; the top bar itself no longer holds the account links or Sign Out', async () => {
    adaSignedIn();
    renderRoute('/dashboard', { store: signedInStore() });
    await dashboardShown();
    const bar = screen.getByRole('banner');
    const button = within(bar).getByRole('button', { name: 'Account menu' });
    expect(button).toHaveAttribute('aria-haspopup', 'menu');
    expect(button).not.toHaveAttribute('aria-expanded');
    // The avatar shows the address's first letter; the title says who is signed in.
    expect(button).toHaveTextContent('A');
    expect(button).toHaveAttribute('title', 'Signed in as ada@example.com');
    expect(within(bar).queryByRole('link', { name: 'Access Tokens' })).not.toBeInTheDocument();
    expect(within(bar).queryByRole('link', { name: 'Account Security' })).not.toBeInTheDocument();
    expect(within(bar).queryByRole('button', { name: 'Sign Out' })).not.toBeInTheDocument();
  });

  it('shows the signed-in e-mail, then Account Security, Access Tokens and Sign Out', async () => {
    adaSignedIn();
    const { user } = renderRoute('/dashboard', { store: signedInStore() });
    await dashboardShown();
    const menu = await openAccountMenu(user);

    // The rest of the page is hidden from assistive technology while the menu is open.
    const button = screen.getByRole('button', { name: 'Account menu', hidden: true });
    expect(button).toHaveAttribute('aria-expanded', 'true');
    expect(button).toHaveAttribute('aria-controls', menu.id);
    // The address describes the menu; it is not one of its items.
    expect(menu).toHaveAccessibleDescription('Signed in as ada@example.com');
    const items = within(menu).getAllByRole('menuitem');
    expect(items.map((item) => item.textContent)).toEqual([
      'Account Security',
      'Access Tokens',
      'Sign Out',
    ]);
    expect(within(menu).getByRole('menuitem', { name: 'Account Security' })).toHaveAttribute(
      'href',
      '/account/security',
    );
    expect(within(menu).getByRole('menuitem', { name: 'Access Tokens' })).toHaveAttribute(
      'href',
      '/account/tokens',
    );
    // The first item has the focus, as in any menu.
    await waitFor(() => {
      expect(within(menu).getByRole('menuitem', { name: 'Account Security' })).toHaveFocus();
    });
  });

  it('works from the keyboard: arrows move between the items, Enter follows one, Escape closes', async () => {
    adaSignedIn();
    const { user, router } = renderRoute('/dashboard', { store: signedInStore() });
    await dashboardShown();
    const button = await screen.findByRole('button', { name: 'Account menu' });

    button.focus();
    await user.keyboard('{Enter}');
    let menu = await screen.findByRole('menu', { name: 'Account menu' }, { timeout: 15_000 });
    await waitFor(() => {
      expect(within(menu).getByRole('menuitem', { name: 'Account Security' })).toHaveFocus();
    });
    await user.keyboard('{Escape}');
    await waitFor(() => {
      expect(screen.queryByRole('menu', { name: 'Account menu' })).not.toBeInTheDocument();
    });
    expect(button).toHaveFocus();

    await user.keyboard('{Enter}');
    menu = await screen.findByRole('menu', { name: 'Account menu' });
    await waitFor(() => {
      expect(within(menu).getByRole('menuitem', { name: 'Account Security' })).toHaveFocus();
    });
    await user.keyboard('{ArrowDown}');
    expect(within(menu).getByRole('menuitem', { name: 'Access Tokens' })).toHaveFocus();
    await user.keyboard('{Enter}');
    await waitFor(() => {
      expect(router.state.location.pathname).toBe('/account/tokens');
    });
    expect(
      await screen.findByRole('heading', { level: 1, name: 'Access Tokens' }, { timeout: 15_000 }),
    ).toBeInTheDocument();
    expect(screen.queryByRole('menu', { name: 'Account menu' })).not.toBeInTheDocument();
  });

  it('leads to Account Security', async () => {
    adaSignedIn();
    const { user, router } = renderRoute('/dashboard', { store: signedInStore() });
    await dashboardShown();
    const menu = await openAccountMenu(user);
    await user.click(within(menu).getByRole('menuitem', { name: 'Account Security' }));
    await waitFor(() => {
      expect(router.state.location.pathname).toBe('/account/security');
    });
    expect(
      await screen.findByRole(
        'heading',
        { level: 1, name: 'Account Security' },
        { timeout: 15_000 },
      ),
    ).toBeInTheDocument();
  });

  it('signs this session out only (scope local) and goes to the sign-in page', async () => {
    const { signOuts } = adaSignedIn();
    const { user, router } = renderRoute('/dashboard', { store: signedInStore() });
    await dashboardShown();
    const menu = await openAccountMenu(user);
    await user.click(within(menu).getByRole('menuitem', { name: 'Sign Out' }));

    expect(
      await screen.findByRole('heading', { level: 1, name: 'Welcome' }, { timeout: 15_000 }),
    ).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/signin');
    expect(signOuts).toEqual(['local']);
    expect(localStorage.getItem(CORE_TOKEN_KEY)).toBeNull();
    expect(localStorage.getItem(IDENTITY_SESSION_KEY)).toBeNull();
  });
});
