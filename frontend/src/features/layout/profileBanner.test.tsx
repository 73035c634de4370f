import { screen, waitFor, within } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { describe, expect, it, vi } from 'vitest';

import { signedInStore, testOrg } from '../../testing/apps';
import { identitySession } from '../../testing/identity';
import { renderRoute } from '../../testing/render';
import { server } from '../../testing/server';
import { IDENTITY_SESSION_KEY } from '../../session/storage';
import { showsProfileBanner } from './profileBannerPages';

vi.setConfig({ testTimeout: 30_000 });

const BANNER = 'Organization profile incomplete';

describe('the pages that show the incomplete-profile banner', () => {
  it('are those where publishing happens: My Apps, an app’s page, Organization Settings', () => {
    expect(showsProfileBanner('/apps')).toBe(true);
    expect(showsProfileBanner('/apps/com.acme.weather/edit')).toBe(true);
    expect(showsProfileBanner('/org-settings')).toBe(true);
  });

  it('are not the dashboard, the account’s pages, the organization’s other pages or the staff pages', () => {
    for (const path of [
      '/dashboard',
      '/apps/create',
      '/members',
      '/audit-log',
      '/org-settings/webhooks',
      '/account/security',
      '/account/tokens',
      '/admin',
      '/setup-admin',
    ]) {
      expect(showsProfileBanner(path), path).toBe(false);
    }
  });
});

/** A JWT-shaped core token at `aal2` (the page reads it without checking a signature; the server checks). */
function coreToken() {
  const encode = (value: object) =>
    btoa(JSON.stringify(value)).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
  return `${encode({ alg: 'HS256' })}.${encode({ sub: 'u-ada', email: 'ada@example.com', exp: 4102444800, aal: 'aal2' })}.sig`;
}

/**
 * Ada is signed in, platform admin (a reviewer of apps) and admin of Acme, whose profile has no contact
 * e-mail; every page she visits below answers.
 */
function platformAdminOfIncompleteOrg() {
  localStorage.setItem(IDENTITY_SESSION_KEY, JSON.stringify(identitySession('ada@example.com')));
  const org = testOrg({
    profile: { contactEmail: null, website: null, description: null, logo: null },
    members: [
      {
        user: { id: 'u-ada', email: 'ada@example.com' },
        role: 'admin',
        joinedAt: '2026-11-01T10:00:00Z',
        hasTwoFactor: true,
      },
    ],
    pendingInvites: [],
  });
  server.use(
    http.post('*/api/auth/exchange-token', () => HttpResponse.json({ coreToken: coreToken() })),
    http.get('*/api/admin/check', () => HttpResponse.json({ isAdmin: true, role: 'admin' })),
    http.get('*/api/orgs', () =>
      HttpResponse.json({ success: true, data: [org], personalOrgCreated: false }),
    ),
    http.get('*/api/orgs/:orgId', () => HttpResponse.json({ success: true, data: org })),
    http.get('*/api/orgs/:orgId/tokens', () => HttpResponse.json({ tokens: [] })),
    http.get('*/api/dev/apps', () => HttpResponse.json([])),
    http.get('*/api/admin/apps/stats', () =>
      HttpResponse.json({
        counts: {
          development: 0,
          submitted: 0,
          published: 0,
          rejected: 0,
          admins: 1,
          reviewers: 0,
        },
        recentSubmissions: [],
      }),
    ),
    http.get('*/api/admin/apps/submitted', () => HttpResponse.json([])),
  );
}

/** Follows the sidebar's link `name` and waits for the page's heading. */
async function visit(
  user: ReturnType<typeof renderRoute>['user'],
  name: string,
  heading: string | RegExp,
) {
  const nav = screen.getByRole('navigation', { name: 'Main' });
  await user.click(within(nav).getByRole('link', { name }));
  return screen.findByRole('heading', { level: 1, name: heading }, { timeout: 15_000 });
}

describe('a platform admin whose organization has no contact e-mail', () => {
  it('sees the banner on My Apps and Organization Settings only, not on the dashboard, Members or the Admin Panel', async () => {
    platformAdminOfIncompleteOrg();
    const { user } = renderRoute('/dashboard', { store: signedInStore() });
    await screen.findByRole(
      'heading',
      { level: 1, name: 'Developer Dashboard' },
      { timeout: 15_000 },
    );
    // The sidebar has learnt that she is staff by now.
    await screen.findByRole('link', { name: 'Admin Panel' }, { timeout: 15_000 });
    expect(screen.queryByText(BANNER)).not.toBeInTheDocument();

    await visit(user, 'My Apps', 'My Apps');
    const banner = await screen.findByText(BANNER);
    expect(banner.closest('[role="alert"]')).toHaveTextContent(
      'A contact email is needed before apps can be published.',
    );
    expect(screen.getByRole('link', { name: 'Complete the organization profile' })).toHaveAttribute(
      'href',
      '/org-settings',
    );

    await visit(user, 'Admin Panel', 'Admin Panel');
    await screen.findByRole('tab', { name: 'Dashboard' }, { timeout: 15_000 });
    expect(screen.queryByText(BANNER)).not.toBeInTheDocument();

    await visit(user, 'Members', 'Organization Members');
    expect(screen.queryByText(BANNER)).not.toBeInTheDocument();

    await visit(user, 'Organization Settings', 'Organization Settings');
    expect(await screen.findByText(BANNER)).toBeInTheDocument();

    await visit(user, 'Dashboard', 'Developer Dashboard');
    await waitFor(() => {
      expect(screen.queryByText(BANNER)).not.toBeInTheDocument();
    });
  });
});
