import { screen, waitFor, within } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { describe, expect, it, vi } from 'vitest';

import { signedInStore, testOrg } from '../../testing/apps';
import { accountSecurityHandlers, identitySession } from '../../testing/identity';
import { renderRoute, renderWithProviders } from '../../testing/render';
import { server } from '../../testing/server';
import { IDENTITY_SESSION_KEY } from '../../session/storage';
import { MembersPage } from './MembersPage';
import { OrgSettingsPage } from './OrgSettingsPage';
import type { Organization } from './types';

const OWN_FACTOR_FIRST =
  'Protect your own account first: add an authenticator app on Account Security and sign in with it, then require two-factor authentication of your organization.';
const ORG_REQUIRES =
  'This organization requires two-factor authentication. Add an authenticator app on Account Security (and sign in with it) to work in this organization.';

/** A JWT-shaped token claiming `aal` (the page reads it without checking a signature; the server checks). */
function tokenAt(aal: 'aal1' | 'aal2') {
  const encode = (value: object) =>
    btoa(JSON.stringify(value)).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
  return `${encode({ alg: 'HS256' })}.${encode({ sub: 'u-ada', email: 'ada@example.com', exp: 4102444800, aal })}.sig`;
}

/** `GET /api/orgs` and `GET /api/orgs/:orgId` answer `org`; the switch's calls are recorded. */
function serveOrg(org: Organization, answer?: (required: boolean) => Response) {
  const sent: unknown[] = [];
  let current = org;
  server.use(
    http.get('*/api/orgs', () =>
      HttpResponse.json({ success: true, data: [current], personalOrgCreated: false }),
    ),
    http.get('*/api/orgs/:orgId', () => HttpResponse.json({ success: true, data: current })),
    http.put('*/api/orgs/:orgId/two-factor', async ({ request }) => {
      const body = (await request.json()) as { requireTwoFactor: boolean };
      sent.push(body);
      if (answer) return answer(body.requireTwoFactor);
      current = { ...current, requireTwoFactor: body.requireTwoFactor };
      return HttpResponse.json({ success: true, data: current });
    }),
  );
  return sent;
}

/** The nearest element around `element` matching `selector` (fails the test when there is none). */
function enclosing(element: HTMLElement, selector: string): HTMLElement {
  const found = element.closest<HTMLElement>(selector);
  if (!found) throw new Error(`nothing matching ${selector} around the element`);
  return found;
}

describe('the organization’s two-factor requirement', () => {
  it('lets an admin turn it on with the switch', async () => {
    const sent = serveOrg(testOrg());
    const { user } = renderWithProviders(<OrgSettingsPage />, { store: signedInStore() });
    const toggle = await screen.findByRole('switch', { name: 'Require two-factor authentication' });
    expect(toggle).not.toBeChecked();

    await user.click(toggle);
    expect(
      await screen.findByText('Two-factor authentication is now required of every member.'),
    ).toBeInTheDocument();
    expect(sent).toEqual([{ requireTwoFactor: true }]);
    await waitFor(() => {
      expect(
        screen.getByRole('switch', { name: 'Require two-factor authentication' }),
      ).toBeChecked();
    });
  });

  it('says where to add a factor when the admin’s own session has none, and stays off', async () => {
    serveOrg(testOrg(), () =>
      HttpResponse.json({ error: OWN_FACTOR_FIRST, code: 'OWN_MFA_REQUIRED' }, { status: 403 }),
    );
    const { user } = renderWithProviders(<OrgSettingsPage />, { store: signedInStore() });
    await user.click(
      await screen.findByRole('switch', { name: 'Require two-factor authentication' }),
    );
    const refusal = await screen.findByRole('alert');
    expect(refusal).toHaveTextContent(OWN_FACTOR_FIRST);
    expect(within(refusal).getByRole('link', { name: 'Go to Account Security' })).toHaveAttribute(
      'href',
      '/account/security',
    );
    expect(
      screen.getByRole('switch', { name: 'Require two-factor authentication' }),
    ).not.toBeChecked();
  });

  it('is not offered to a member', async () => {
    serveOrg(testOrg({ role: 'member' }));
    renderWithProviders(<OrgSettingsPage />, { store: signedInStore() });
    expect(
      await screen.findByRole('heading', { name: 'Organization profile' }),
    ).toBeInTheDocument();
    expect(screen.queryByRole('switch')).not.toBeInTheDocument();
  });

  it('shows admins who has a second factor on the Members page', async () => {
    const members = [
      {
        user: { id: 'u-ada', email: 'ada@example.com' },
        role: 'admin' as const,
        joinedAt: '2026-11-01T10:00:00Z',
        hasTwoFactor: true,
      },
      {
        user: { id: 'u-bob', email: 'bob@example.com' },
        role: 'member' as const,
        joinedAt: '2026-11-02T10:00:00Z',
        hasTwoFactor: false,
      },
    ];
    serveOrg(testOrg({ members, pendingInvites: [] }));
    renderWithProviders(<MembersPage />, { store: signedInStore() });
    const table = await screen.findByRole('table', { name: 'Members' });
    expect(within(table).getByRole('columnheader', { name: 'Two-factor' })).toBeInTheDocument();
    expect(
      within(table).getByLabelText('Two-factor authentication on for ada@example.com'),
    ).toBeInTheDocument();
    expect(
      within(table).getByLabelText('Two-factor authentication off for bob@example.com'),
    ).toBeInTheDocument();
  });

  it('names the second factor in each card on a phone, which has no Two-factor column', async () => {
    const members = [
      {
        user: { id: 'u-ada', email: 'ada@example.com' },
        role: 'admin' as const,
        joinedAt: '2026-11-01T10:00:00Z',
        hasTwoFactor: true,
      },
      {
        user: { id: 'u-bob', email: 'bob@example.com' },
        role: 'member' as const,
        joinedAt: '2026-11-02T10:00:00Z',
        hasTwoFactor: false,
      },
    ];
    serveOrg(testOrg({ members, pendingInvites: [] }));
    // A 390 px screen: MUI's down('sm') query matches.
    const phone = vi
      .spyOn(window, 'matchMedia')
      .mockImplementation((query: string): MediaQueryList => ({
        matches: query.includes('max-width'),
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
    try {
      renderWithProviders(<MembersPage />, { store: signedInStore() });
      const list = await screen.findByRole('list', { name: 'Members' });
      const ada = within(list).getByLabelText('Two-factor authentication on for ada@example.com');
      expect(ada).toHaveTextContent('Two-factor on');
      expect(enclosing(ada, 'li')).toHaveTextContent('ada@example.com (you)');
      // Ada is the only admin: why Leave is disabled stands under the button, in her card.
      const leave = within(list).getByRole('button', { name: 'Leave' });
      expect(leave).toBeDisabled();
      expect(leave).toHaveAccessibleDescription(/You cannot leave as you are the only admin/);
      expect(enclosing(leave, 'li')).toHaveTextContent(
        /You cannot leave as you are the only admin/,
      );
      const bob = within(list).getByLabelText('Two-factor authentication off for bob@example.com');
      expect(bob).toHaveTextContent('Two-factor off');
      expect(enclosing(bob, 'li')).toHaveTextContent('bob@example.com');
    } finally {
      phone.mockRestore();
    }
  });

  it('hides the column from members', async () => {
    serveOrg(testOrg({ role: 'member', pendingInvites: [] }));
    renderWithProviders(<MembersPage />, { store: signedInStore() });
    const table = await screen.findByRole('table', { name: 'Members' });
    expect(
      within(table).queryByRole('columnheader', { name: 'Two-factor' }),
    ).not.toBeInTheDocument();
  });
});

describe('a member of an organization that requires two-factor authentication', () => {
  /** The identity client finds Ada's session; the exchange answers `coreToken`. */
  function signedInWith(coreToken: string) {
    localStorage.setItem(IDENTITY_SESSION_KEY, JSON.stringify(identitySession('ada@example.com')));
    server.use(
      http.post('*/api/auth/exchange-token', () => HttpResponse.json({ coreToken })),
      http.get('*/api/admin/check', () => HttpResponse.json({ isAdmin: false, role: null })),
      // Account Security lists the account's factors (none yet), sessions and passkeys.
      ...accountSecurityHandlers('ada@example.com'),
    );
  }

  it('sees the notice with the way to Account Security instead of the organization’s screens', async () => {
    signedInWith(tokenAt('aal1'));
    serveOrg(testOrg({ role: 'member', requireTwoFactor: true }));
    const { user, router } = renderRoute('/dashboard', { store: signedInStore() });

    expect(
      await screen.findByText('Acme requires two-factor authentication', {}, { timeout: 15_000 }),
    ).toBeInTheDocument();
    expect(
      screen.queryByRole('heading', { level: 1, name: 'Developer Dashboard' }),
    ).not.toBeInTheDocument();
    await user.click(screen.getByRole('link', { name: 'Set up two-factor authentication' }));
    await waitFor(() => {
      expect(router.state.location.pathname).toBe('/account/security');
    });
    // Account Security itself stays open below the notice.
    expect(await screen.findByText(/Add an authenticator app below/)).toBeInTheDocument();
  }, 30_000);

  it('is shown the notice when the API refuses with ORG_MFA_REQUIRED (handled in one place)', async () => {
    // A token the page cannot read a level from: the API's answer decides.
    signedInWith('opaque-core-token');
    serveOrg(testOrg({ role: 'member', requireTwoFactor: true }));
    server.use(
      http.get('*/api/dev/apps', () =>
        HttpResponse.json({ error: ORG_REQUIRES, code: 'ORG_MFA_REQUIRED' }, { status: 403 }),
      ),
    );
    const { store } = renderRoute('/dashboard', { store: signedInStore() });
    expect(
      await screen.findByText('Acme requires two-factor authentication', {}, { timeout: 15_000 }),
    ).toBeInTheDocument();
    expect(store.getState().auth.orgMfaRequired).toBe(true);
    // No raw error of the refused call is left on screen.
    expect(screen.queryByText(ORG_REQUIRES)).not.toBeInTheDocument();
  }, 30_000);

  it('works as usual once the session passed a second factor', async () => {
    signedInWith(tokenAt('aal2'));
    serveOrg(testOrg({ role: 'member', requireTwoFactor: true }));
    renderRoute('/dashboard', { store: signedInStore() });
    expect(
      await screen.findByRole(
        'heading',
        { level: 1, name: 'Developer Dashboard' },
        { timeout: 15_000 },
      ),
    ).toBeInTheDocument();
    expect(screen.queryByText('Acme requires two-factor authentication')).not.toBeInTheDocument();
  }, 30_000);
});

describe('the two-factor notice offers what a held-back member can really do', () => {
  function signedInAt(aal: 'aal1' | 'aal2') {
    localStorage.setItem(IDENTITY_SESSION_KEY, JSON.stringify(identitySession('ada@example.com')));
    server.use(
      http.post('*/api/auth/exchange-token', () => HttpResponse.json({ coreToken: tokenAt(aal) })),
      http.get('*/api/admin/check', () => HttpResponse.json({ isAdmin: false, role: null })),
    );
  }

  /** `GET /api/orgs` answers `orgs`; leaving removes the organization from the list. */
  function serveOrgs(orgs: Organization[], leave?: () => Response) {
    let list = orgs;
    const left: string[] = [];
    server.use(
      http.get('*/api/orgs', () =>
        HttpResponse.json({ success: true, data: list, personalOrgCreated: false }),
      ),
      http.get('*/api/orgs/:orgId', ({ params }) =>
        HttpResponse.json({ success: true, data: list.find((org) => org.id === params.orgId) }),
      ),
      http.delete('*/api/orgs/:orgId/members/:memberId', ({ params }) => {
        if (leave) return leave();
        left.push(`${String(params.orgId)}/${String(params.memberId)}`);
        list = list.filter((org) => org.id !== params.orgId);
        return HttpResponse.json({ success: true });
      }),
      http.get('*/api/dev/apps', () => HttpResponse.json({ success: true, data: [] })),
    );
    return left;
  }

  it('offers leaving (not switching) to a member of one organization, and leaves after confirming', async () => {
    signedInAt('aal1');
    const left = serveOrgs([
      testOrg({ role: 'member', requireTwoFactor: true }),
      // The personal organization the list makes once the last one is left is not there yet.
    ]);
    const { user, router } = renderRoute('/members', { store: signedInStore() });
    const notice = enclosing(
      await screen.findByText('Acme requires two-factor authentication', {}, { timeout: 15_000 }),
      '[role="alert"]',
    );
    expect(notice).toHaveTextContent('If you would rather not, you can leave this organization.');
    expect(notice).not.toHaveTextContent(/switch/i);
    expect(
      within(notice).getByRole('link', { name: 'Set up two-factor authentication' }),
    ).toHaveAttribute('href', '/account/security');

    await user.click(within(notice).getByRole('button', { name: 'Leave Acme' }));
    const dialog = await screen.findByRole('dialog', { name: 'Leave organization?' });
    expect(dialog).toHaveTextContent('To come back, an admin will have to invite you again.');
    // Keeping closes the dialog and leaves nothing.
    await user.click(within(dialog).getByRole('button', { name: 'Keep' }));
    await waitFor(() => {
      expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
    });
    expect(left).toEqual([]);

    await user.click(within(notice).getByRole('button', { name: 'Leave Acme' }));
    await user.click(
      within(await screen.findByRole('dialog')).getByRole('button', { name: 'Leave' }),
    );
    await waitFor(() => {
      expect(left).toEqual([`org-1/${identitySession('ada@example.com').user.id}`]);
    });
    expect(await screen.findByText('You have left Acme.')).toBeInTheDocument();
    await waitFor(() => {
      expect(router.state.location.pathname).toBe('/dashboard');
    });
  }, 30_000);

  it('says a member may switch only when there is another organization', async () => {
    signedInAt('aal1');
    serveOrgs([
      testOrg({ role: 'member', requireTwoFactor: true }),
      testOrg({ id: 'org-2', name: 'Beta', role: 'admin' }),
    ]);
    renderRoute('/dashboard', { store: signedInStore() });
    const notice = enclosing(
      await screen.findByText('Acme requires two-factor authentication', {}, { timeout: 15_000 }),
      '[role="alert"]',
    );
    expect(notice).toHaveTextContent(
      'You can also switch to another of your organizations in the menu, or leave this one.',
    );
    // The switcher it names is there.
    expect(await screen.findByRole('combobox', { name: /organization/i })).toBeInTheDocument();
  }, 30_000);

  it('says why leaving failed (the only admin cannot leave)', async () => {
    signedInAt('aal1');
    const onlyAdmin =
      'You cannot leave the organization as you are the only admin. Please promote another member to admin first.';
    serveOrgs([testOrg({ role: 'admin', requireTwoFactor: true })], () =>
      HttpResponse.json({ error: onlyAdmin, code: 'CONFLICT' }, { status: 409 }),
    );
    const { user } = renderRoute('/dashboard', { store: signedInStore() });
    await user.click(
      await screen.findByRole('button', { name: 'Leave Acme' }, { timeout: 15_000 }),
    );
    const dialog = await screen.findByRole('dialog', { name: 'Leave organization?' });
    expect(dialog).toHaveTextContent('You will lose your admin access');
    await user.click(within(dialog).getByRole('button', { name: 'Leave' }));
    expect(await screen.findByText(onlyAdmin)).toBeInTheDocument();
    // Still held back: the notice stays.
    expect(screen.getByText('Acme requires two-factor authentication')).toBeInTheDocument();
  }, 30_000);

  it('keeps the welcome of a just-accepted invitation above the notice', async () => {
    signedInAt('aal1');
    serveOrgs([testOrg({ role: 'member', requireTwoFactor: true })]);
    renderRoute('/org-settings?welcome=true&orgName=Acme&orgId=org-1', {
      store: signedInStore(),
    });
    expect(
      await screen.findByText('Acme requires two-factor authentication', {}, { timeout: 15_000 }),
    ).toBeInTheDocument();
    expect(
      screen.getByText(/Welcome to Acme! You have joined the organization./),
    ).toBeInTheDocument();
    expect(
      screen.queryByRole('heading', { level: 1, name: 'Organization Settings' }),
    ).not.toBeInTheDocument();
  }, 30_000);
});
