import { screen, waitFor, within } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { describe, expect, it, vi } from 'vitest';

import { makeStore } from '../../app/store';
import { renderWithProviders } from '../../testing/render';
import { server } from '../../testing/server';
import { OrgSwitcher } from './OrgSwitcher';
import { PersonalOrgNotice } from './PersonalOrgNotice';
import { MembersPage } from './MembersPage';
import { OrgSettingsPage } from './OrgSettingsPage';
import { ProfileIncompleteBanner } from './ProfileIncompleteBanner';
import { acceptanceFailure } from './acceptance';
import type { Organization } from './types';

const ME = { id: 'u-ada', email: 'ada@example.com' };
const BOB = { id: 'u-bob', email: 'bob@example.com' };

function signedInStore() {
  return makeStore({
    auth: {
      status: 'signedIn',
      user: ME,
      accessToken: 'access-1',
      coreToken: 'core-1',
      recovery: false,
      notice: null,
    },
  });
}

function org(overrides: Partial<Organization> = {}): Organization {
  return {
    id: 'org-1',
    name: "ada's Organization",
    profile: { contactEmail: 'team@acme.test', website: null, description: null, logo: null },
    members: [
      { user: ME, role: 'admin', joinedAt: '2026-11-01T10:00:00Z', hasTwoFactor: false },
      { user: BOB, role: 'member', joinedAt: '2026-11-02T10:00:00Z', hasTwoFactor: false },
    ],
    role: 'admin',
    requireTwoFactor: false,
    createdAt: '2026-11-01T10:00:00Z',
    updatedAt: '2026-11-01T10:00:00Z',
    pendingInvites: [
      {
        email: 'cy@example.com',
        role: 'member',
        invitedAt: '2026-11-20T10:00:00Z',
        expiresAt: '2999-01-01T00:00:00Z',
        emailSentCount: 3,
        expired: false,
      },
      {
        email: 'old@example.com',
        role: 'admin',
        invitedAt: '2026-01-01T10:00:00Z',
        expiresAt: '2026-01-08T10:00:00Z',
        emailSentCount: 2,
        expired: true,
      },
    ],
    ...overrides,
  };
}

/** The organization calls, answering `orgs`; records what was sent. */
function serveOrgs(orgs: Organization[]) {
  const sent: { method: string; path: string; body: unknown; auth: string | null }[] = [];
  const record = async (request: Request) => {
    const body: unknown = request.method === 'GET' ? null : await request.json().catch(() => null);
    sent.push({
      method: request.method,
      path: new URL(request.url).pathname,
      body,
      auth: request.headers.get('Authorization'),
    });
  };
  server.use(
    http.get('*/api/orgs', async ({ request }) => {
      await record(request);
      return HttpResponse.json({ success: true, data: orgs, personalOrgCreated: false });
    }),
    http.get('*/api/orgs/:orgId', async ({ request, params }) => {
      await record(request);
      const found = orgs.find((o) => o.id === params.orgId);
      return found
        ? HttpResponse.json({ success: true, data: found })
        : HttpResponse.json(
            { error: 'Organization not found', code: 'NOT_FOUND' },
            { status: 404 },
          );
    }),
    http.put('*/api/orgs/:orgId', async ({ request }) => {
      // Answers as the server does: the organization as stored, with the change applied.
      const change = (await request.clone().json()) as Pick<Organization, 'name' | 'profile'>;
      await record(request);
      const [current] = orgs;
      const stored = current && {
        ...current,
        name: change.name,
        profile: { ...current.profile, ...change.profile },
      };
      return HttpResponse.json({ success: true, data: stored });
    }),
    http.post('*/api/orgs', async ({ request }) => {
      await record(request);
      const created = org({ id: 'org-2', name: 'Second' });
      orgs.push(created);
      return HttpResponse.json({ success: true, data: created }, { status: 201 });
    }),
    http.post('*/api/orgs/:orgId/members', async ({ request }) => {
      await record(request);
      return HttpResponse.json({ success: true, data: null }, { status: 201 });
    }),
    http.post('*/api/orgs/:orgId/invites/resend', async ({ request }) => {
      await record(request);
      return HttpResponse.json({ success: true, data: null });
    }),
  );
  return sent;
}

describe('members', () => {
  it('shows an admin the members, the pending invitations and their actions', async () => {
    serveOrgs([org()]);
    renderWithProviders(<MembersPage />, { store: signedInStore() });

    const table = await screen.findByRole('table', { name: 'Members' });
    expect(screen.getByText('Manage members of the organization')).toBeInTheDocument();
    expect(within(table).getByRole('columnheader', { name: 'Actions' })).toBeInTheDocument();
    // Bob's role can change and he can be removed; the only admin cannot leave.
    expect(within(table).getByLabelText('Role of bob@example.com')).toBeInTheDocument();
    expect(within(table).getByRole('button', { name: 'Remove' })).toBeEnabled();
    expect(within(table).getByRole('button', { name: 'Leave' })).toBeDisabled();
    expect(
      screen.getByText(
        'You cannot leave as you are the only admin. Promote another member to admin first.',
      ),
    ).toBeInTheDocument();
    // Pending invitations: resent count, expiry, Resend only while valid.
    expect(within(table).getByText('cy@example.com (pending)')).toBeInTheDocument();
    expect(within(table).getByText('Resent 2 times')).toBeInTheDocument();
    expect(within(table).getByText('Resent once')).toBeInTheDocument();
    expect(within(table).getByText('Expired')).toBeInTheDocument();
    expect(within(table).getAllByRole('button', { name: 'Resend' })).toHaveLength(1);
    expect(within(table).getAllByRole('button', { name: 'Cancel' })).toHaveLength(2);
    expect(screen.getByRole('heading', { name: 'Invite New Member' })).toBeInTheDocument();
  });

  it('invites by e-mail with the chosen role, refusing an address without an at-sign', async () => {
    const sent = serveOrgs([org()]);
    const { user } = renderWithProviders(<MembersPage />, { store: signedInStore() });
    const address = await screen.findByLabelText(/Email Address/);

    await user.type(address, 'not-an-address');
    await user.click(screen.getByRole('button', { name: 'Send Invitation' }));
    expect(screen.getByText('Please enter a valid email address')).toBeInTheDocument();
    expect(sent.some((s) => s.path.endsWith('/members'))).toBe(false);

    await user.clear(address);
    await user.type(address, 'dee@example.com');
    await user.click(screen.getByRole('button', { name: 'Send Invitation' }));
    expect(await screen.findByText('Invitation sent successfully!')).toBeInTheDocument();
    const invite = sent.find((s) => s.method === 'POST' && s.path === '/api/orgs/org-1/members');
    expect(invite?.body).toEqual({ email: 'dee@example.com', role: 'member' });
    expect(invite?.auth).toBe('Bearer core-1');
  });

  it("shows the server's reason when a limit refuses an invitation or a resend (429)", async () => {
    const tooMany = (error: string) =>
      HttpResponse.json(
        { error, code: 'RATE_LIMITED' },
        { status: 429, headers: { 'Retry-After': '420' } },
      );
    const openLimit =
      'This organization already has 50 open invitations. Cancel some, or wait until they are accepted or expire, before inviting more people.';
    const tooSoon =
      'This invitation was sent less than 10 minutes ago. Please wait before resending it.';
    serveOrgs([org()]);
    server.use(
      http.post('*/api/orgs/:orgId/members', () => tooMany(openLimit)),
      http.post('*/api/orgs/:orgId/invites/resend', () => tooMany(tooSoon)),
    );
    const store = signedInStore();
    const { user } = renderWithProviders(<MembersPage />, { store });

    await user.type(await screen.findByLabelText(/Email Address/), 'dee@example.com');
    await user.click(screen.getByRole('button', { name: 'Send Invitation' }));
    expect(await screen.findByText(openLimit)).toBeInTheDocument();
    expect(screen.queryByText('Invitation sent successfully!')).not.toBeInTheDocument();

    const table = screen.getByRole('table', { name: 'Members' });
    await user.click(within(table).getByRole('button', { name: 'Resend' }));
    await waitFor(() => {
      expect(store.getState().auth.notice).toEqual({ severity: 'error', text: tooSoon });
    });
  });

  it('gives a member the read-only view with a Leave button of their own', async () => {
    serveOrgs([
      org({
        role: 'member',
        members: [
          { user: BOB, role: 'admin', joinedAt: '2026-11-01T10:00:00Z', hasTwoFactor: false },
          { user: ME, role: 'member', joinedAt: '2026-11-02T10:00:00Z', hasTwoFactor: false },
        ],
      }),
    ]);
    renderWithProviders(<MembersPage />, { store: signedInStore() });

    expect(
      await screen.findByText('Manage members of the organization (read-only view)'),
    ).toBeInTheDocument();
    expect(screen.queryByRole('columnheader', { name: 'Actions' })).not.toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Remove' })).not.toBeInTheDocument();
    expect(screen.queryByRole('heading', { name: 'Invite New Member' })).not.toBeInTheDocument();
    expect(await screen.findByRole('button', { name: 'Leave' })).toBeEnabled();
  });

  it('says so when the user has no organization, and when loading fails', async () => {
    serveOrgs([]);
    renderWithProviders(<MembersPage />, { store: signedInStore() });
    expect(
      await screen.findByText(
        "You don't have an active organization. Please create or join an organization first.",
      ),
    ).toBeInTheDocument();
  });

  it('shows the load failure', async () => {
    server.use(
      http.get('*/api/orgs', () =>
        HttpResponse.json({ error: 'boom', code: 'INTERNAL' }, { status: 500 }),
      ),
    );
    renderWithProviders(<MembersPage />, { store: signedInStore() });
    expect(await screen.findByText('Failed to load members')).toBeInTheDocument();
  });
});

/** Makes MUI's `down(…)` queries match (a 390 px screen) until the returned function is called. */
function atPhoneWidth() {
  const spy = vi
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
  return () => {
    spy.mockRestore();
  };
}

/** The card (list item) of the list that holds `text`. */
function cardWith(list: HTMLElement, text: string | RegExp): HTMLElement {
  const card = within(list)
    .getAllByRole('listitem')
    .find((item) =>
      typeof text === 'string' ? item.textContent.includes(text) : text.test(item.textContent),
    );
  if (!card) throw new Error(`no card with ${String(text)}`);
  return card;
}

describe('members at phone width (below 600 px)', () => {
  it('are a list of cards with every action named in full, and no table', async () => {
    const restore = atPhoneWidth();
    try {
      serveOrgs([org()]);
      renderWithProviders(<MembersPage />, { store: signedInStore() });
      const list = await screen.findByRole('list', { name: 'Members' });
      expect(screen.queryByRole('table')).not.toBeInTheDocument();
      // Two members and two pending invitations: a card each.
      expect(within(list).getAllByRole('listitem')).toHaveLength(4);

      const ada = cardWith(list, 'ada@example.com (you)');
      expect(ada).toHaveTextContent('Role: Admin');
      expect(ada).toHaveTextContent('Two-factor off');
      expect(ada).toHaveTextContent('Joined Nov 1, 2026');
      const leave = within(ada).getByRole('button', { name: 'Leave' });
      expect(leave).toBeDisabled();
      expect(leave).toHaveAccessibleDescription(
        'You cannot leave as you are the only admin. Promote another member to admin first.',
      );

      const bob = cardWith(list, 'bob@example.com');
      expect(within(bob).getByLabelText('Role of bob@example.com')).toBeInTheDocument();
      expect(within(bob).getByRole('button', { name: 'Remove' })).toBeEnabled();
      expect(bob).toHaveTextContent('Joined Nov 2, 2026');

      const cy = cardWith(list, 'cy@example.com (pending)');
      expect(cy).toHaveTextContent('Role: Member');
      expect(cy).toHaveTextContent('Resent 2 times');
      expect(within(cy).getByRole('button', { name: 'Resend' })).toBeEnabled();
      expect(within(cy).getByRole('button', { name: 'Cancel' })).toBeEnabled();
      const old = cardWith(list, 'old@example.com (pending)');
      expect(old).toHaveTextContent('Expired');
      expect(within(old).queryByRole('button', { name: 'Resend' })).not.toBeInTheDocument();
      expect(within(old).getByRole('button', { name: 'Cancel' })).toBeEnabled();

      // An address may wrap after its @ or a dot, not in the middle of a word.
      const breaks = [...bob.querySelectorAll('wbr')];
      expect(breaks.map((wbr) => wbr.previousSibling?.textContent)).toEqual(['bob@', 'example.']);
      expect(breaks.at(-1)?.nextSibling?.textContent).toBe('com');
      // The invitation form stays below the list.
      expect(screen.getByRole('heading', { name: 'Invite New Member' })).toBeInTheDocument();
    } finally {
      restore();
    }
  });

  it("removes a member from the member's card, after confirming", async () => {
    const restore = atPhoneWidth();
    try {
      const sent = serveOrgs([org()]);
      server.use(
        http.delete('*/api/orgs/:orgId/members/:memberId', ({ request }) => {
          sent.push({
            method: request.method,
            path: new URL(request.url).pathname,
            body: null,
            auth: request.headers.get('Authorization'),
          });
          return HttpResponse.json({ success: true, data: null });
        }),
      );
      const store = signedInStore();
      const { user } = renderWithProviders(<MembersPage />, { store });
      const list = await screen.findByRole('list', { name: 'Members' });
      await user.click(
        within(cardWith(list, 'bob@example.com')).getByRole('button', { name: 'Remove' }),
      );
      const dialog = await screen.findByRole('dialog', { name: 'Remove member?' });
      expect(dialog).toHaveTextContent('bob@example.com will lose access to this organization.');
      await user.click(within(dialog).getByRole('button', { name: 'Remove' }));
      await waitFor(() => {
        expect(store.getState().auth.notice?.text).toBe('Member removed from organization');
      });
      expect(
        sent.some((s) => s.method === 'DELETE' && s.path === '/api/orgs/org-1/members/u-bob'),
      ).toBe(true);
    } finally {
      restore();
    }
  });

  it("gives a member read-only cards, with Leave on the member's own card only", async () => {
    const restore = atPhoneWidth();
    try {
      serveOrgs([
        org({
          role: 'member',
          members: [
            { user: BOB, role: 'admin', joinedAt: '2026-11-01T10:00:00Z', hasTwoFactor: true },
            { user: ME, role: 'member', joinedAt: '2026-11-02T10:00:00Z', hasTwoFactor: false },
          ],
          pendingInvites: [],
        }),
      ]);
      renderWithProviders(<MembersPage />, { store: signedInStore() });
      const list = await screen.findByRole('list', { name: 'Members' });
      const bob = cardWith(list, 'bob@example.com');
      expect(bob).toHaveTextContent('Role: Admin');
      expect(within(bob).queryByRole('button')).not.toBeInTheDocument();
      // Members do not see who has a second factor.
      expect(bob).not.toHaveTextContent(/Two-factor/);
      const mine = cardWith(list, 'ada@example.com (you)');
      expect(mine).toHaveTextContent('Role: Member');
      expect(within(mine).getByRole('button', { name: 'Leave' })).toBeEnabled();
      expect(screen.queryByRole('combobox')).not.toBeInTheDocument();
    } finally {
      restore();
    }
  });

  it('says so when there are no members to list', async () => {
    const restore = atPhoneWidth();
    try {
      serveOrgs([org({ members: [], pendingInvites: [] })]);
      renderWithProviders(<MembersPage />, { store: signedInStore() });
      expect(await screen.findByText('No members found')).toBeInTheDocument();
      expect(screen.queryByRole('list', { name: 'Members' })).not.toBeInTheDocument();
    } finally {
      restore();
    }
  });
});

describe('organization settings', () => {
  it('lets an admin save the profile after checking the required fields', async () => {
    const sent = serveOrgs([org()]);
    const { user } = renderWithProviders(<OrgSettingsPage />, { store: signedInStore() });
    const name = await screen.findByLabelText(/Organization name/);
    const contact = screen.getByLabelText(/Contact email/);

    await user.clear(name);
    await user.clear(contact);
    await user.type(contact, 'nope');
    await user.click(screen.getByRole('button', { name: 'Save Changes' }));
    expect(screen.getByText('Organization name is required')).toBeInTheDocument();
    expect(screen.getByText('Please enter a valid email address')).toBeInTheDocument();

    await user.type(name, 'Acme');
    await user.clear(contact);
    await user.type(contact, 'hello@acme.test');
    await user.type(screen.getByLabelText(/Website/), 'https://acme.test');
    await user.click(screen.getByRole('button', { name: 'Save Changes' }));
    await waitFor(() => {
      expect(sent.some((s) => s.method === 'PUT')).toBe(true);
    });
    expect(sent.find((s) => s.method === 'PUT')?.body).toEqual({
      name: 'Acme',
      profile: {
        website: 'https://acme.test',
        contactEmail: 'hello@acme.test',
        description: null,
        logo: null,
      },
    });
    expect(await screen.findAllByText('Organization updated successfully')).not.toHaveLength(0);
  });

  it('saves example.com as https://example.com, and on a refused save sums up and focuses the first invalid field', async () => {
    const sent = serveOrgs([org()]);
    const { user } = renderWithProviders(<OrgSettingsPage />, { store: signedInStore() });
    const contact = await screen.findByLabelText(/Contact email/);
    await user.type(screen.getByLabelText(/Website/), 'example.com');
    await user.clear(contact);
    await user.click(screen.getByRole('button', { name: 'Save Changes' }));
    const summary = await screen.findByText(/Nothing was saved/);
    expect(summary).toHaveTextContent('Contact email (Contact email is required)');
    expect(summary).not.toHaveTextContent('Website');
    expect(contact).toHaveFocus();
    expect(sent.some((s) => s.method === 'PUT')).toBe(false);

    await user.type(contact, 'hello@acme.test');
    await user.click(screen.getByRole('button', { name: 'Save Changes' }));
    await waitFor(() => {
      expect(sent.some((s) => s.method === 'PUT')).toBe(true);
    });
    expect(sent.find((s) => s.method === 'PUT')?.body).toMatchObject({
      profile: { website: 'https://example.com', contactEmail: 'hello@acme.test' },
    });
    // The form then shows what was stored.
    await waitFor(() => {
      expect(screen.getByLabelText(/Website/)).toHaveValue('https://example.com');
    });
  });

  it('deletes the organization only once its name is typed', async () => {
    const sent = serveOrgs([org(), org({ id: 'org-2', name: 'Second' })]);
    server.use(
      http.delete('*/api/orgs/:orgId', ({ request }) => {
        sent.push({
          method: request.method,
          path: new URL(request.url).pathname,
          body: null,
          auth: null,
        });
        return HttpResponse.json({ success: true, data: null });
      }),
    );
    const { user } = renderWithProviders(<OrgSettingsPage />, { store: signedInStore() });
    await user.click(await screen.findByRole('button', { name: 'Delete Organization' }));
    const dialog = await screen.findByRole('dialog', { name: "Delete ada's Organization?" });
    const remove = within(dialog).getByRole('button', { name: 'Delete' });
    expect(remove).toBeDisabled();
    await user.type(within(dialog).getByLabelText("Type ada's Organization to confirm"), 'ada');
    expect(remove).toBeDisabled();
    await user.type(within(dialog).getByLabelText(/to confirm/), "'s Organization");
    expect(remove).toBeEnabled();
    await user.click(remove);
    await waitFor(() => {
      expect(sent.some((s) => s.method === 'DELETE' && s.path === '/api/orgs/org-1')).toBe(true);
    });
  });

  it('asks before leaving with unsaved changes', async () => {
    serveOrgs([org()]);
    const { user, router } = renderWithProviders(<OrgSettingsPage />, {
      store: signedInStore(),
      route: '/org-settings',
    });
    await user.type(await screen.findByLabelText(/Website/), 'https://acme.test');
    void router.navigate('/dashboard');
    const prompt = await screen.findByRole('dialog', { name: 'Leave without saving?' });
    await user.click(within(prompt).getByRole('button', { name: 'Leave without Saving' }));
    await waitFor(() => {
      expect(router.state.location.pathname).toBe('/dashboard');
    });
  });

  it('leaves without asking when nothing changed', async () => {
    serveOrgs([org()]);
    const { router } = renderWithProviders(<OrgSettingsPage />, {
      store: signedInStore(),
      route: '/org-settings',
    });
    await screen.findByLabelText(/Website/);
    await router.navigate('/dashboard');
    expect(router.state.location.pathname).toBe('/dashboard');
    expect(screen.queryByRole('dialog', { name: 'Leave without saving?' })).toBeNull();
  });

  it('shows a member a read-only form', async () => {
    serveOrgs([
      org({
        role: 'member',
        members: [
          { user: BOB, role: 'admin', joinedAt: '2026-11-01T10:00:00Z', hasTwoFactor: false },
          { user: ME, role: 'member', joinedAt: '2026-11-02T10:00:00Z', hasTwoFactor: false },
        ],
      }),
    ]);
    renderWithProviders(<OrgSettingsPage />, { store: signedInStore() });
    expect(
      await screen.findByText('Contact an administrator to make changes.'),
    ).toBeInTheDocument();
    expect(screen.getByLabelText(/Organization name/)).toBeDisabled();
    expect(screen.queryByRole('button', { name: 'Save Changes' })).not.toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Delete Organization' })).not.toBeInTheDocument();
  });

  it('creates an organization from the New Organization dialog', async () => {
    const sent = serveOrgs([org()]);
    const { user, store } = renderWithProviders(<OrgSettingsPage />, { store: signedInStore() });
    // The select's code is loaded on demand (a lazy module, transformed on first use under the test
    // runner): on a busy machine that can take longer than the default wait.
    await user.click(
      await screen.findByRole('combobox', { name: 'Organization' }, { timeout: 15_000 }),
    );
    await user.click(await screen.findByRole('option', { name: /New Organization/ }));
    const dialog = await screen.findByRole('dialog');
    await user.click(within(dialog).getByRole('button', { name: 'Create' }));
    expect(within(dialog).getByText('Organization name is required')).toBeInTheDocument();
    expect(within(dialog).getByText('Contact email is required')).toBeInTheDocument();

    await user.type(within(dialog).getByLabelText(/Organization name/), 'Second');
    await user.type(within(dialog).getByLabelText(/Contact email/), 'second@acme.test');
    await user.click(within(dialog).getByRole('button', { name: 'Create' }));
    await waitFor(() => {
      expect(store.getState().org.currentOrgId).toBe('org-2');
    });
    expect(sent.find((s) => s.method === 'POST' && s.path === '/api/orgs')?.body).toEqual({
      name: 'Second',
      contactEmail: 'second@acme.test',
    });
  });

  it('shows the welcome banner of an accepted invitation', async () => {
    serveOrgs([org()]);
    renderWithProviders(<OrgSettingsPage />, {
      store: signedInStore(),
      route: '/?welcome=true&orgName=Acme&orgId=org-1',
    });
    expect(await screen.findByText(/Welcome to Acme!/)).toBeInTheDocument();
  });

  it('says when the organization cannot be loaded', async () => {
    server.use(
      http.get('*/api/orgs', () =>
        HttpResponse.json({ error: 'boom', code: 'INTERNAL' }, { status: 500 }),
      ),
    );
    renderWithProviders(<OrgSettingsPage />, { store: signedInStore() });
    expect(
      await screen.findByText('Failed to load organization data. Please try again.'),
    ).toBeInTheDocument();
  });
});

describe('layout pieces', () => {
  it('warns while the organization has no contact e-mail, linking an admin to the form', async () => {
    serveOrgs([org({ profile: { contactEmail: null } })]);
    renderWithProviders(<ProfileIncompleteBanner />, { store: signedInStore() });
    expect(await screen.findByText('Organization profile incomplete')).toBeInTheDocument();
    expect(screen.getByRole('link', { name: /Complete the organization profile/ })).toHaveAttribute(
      'href',
      '/org-settings',
    );
  });

  it('tells a member which admin to ask instead of linking to a form they cannot edit', async () => {
    serveOrgs([org({ role: 'member', profile: { contactEmail: null } })]);
    renderWithProviders(<ProfileIncompleteBanner />, { store: signedInStore() });
    expect(await screen.findByText('Organization profile incomplete')).toBeInTheDocument();
    expect(await screen.findByText('ada@example.com')).toBeInTheDocument();
    expect(screen.getByRole('alert')).toHaveTextContent(
      'Only an admin can add it: ask ada@example.com.',
    );
    expect(screen.queryByRole('link')).not.toBeInTheDocument();
  });

  it('still tells a member to ask an admin when the member list cannot be read', async () => {
    serveOrgs([org({ role: 'member', profile: { contactEmail: null } })]);
    server.use(
      http.get('*/api/orgs/:orgId', () =>
        HttpResponse.json({ error: 'boom', code: 'INTERNAL' }, { status: 500 }),
      ),
    );
    renderWithProviders(<ProfileIncompleteBanner />, { store: signedInStore() });
    expect(
      await screen.findByText(/Only an admin can add it: ask an admin of ada's Organization/),
    ).toBeInTheDocument();
    expect(screen.queryByRole('link')).not.toBeInTheDocument();
  });

  it('shows the switcher only with more than one organization', async () => {
    serveOrgs([org(), org({ id: 'org-2', name: 'Second' })]);
    const { user, store } = renderWithProviders(<OrgSwitcher />, { store: signedInStore() });
    // The select's code is loaded on demand (a lazy module, transformed on first use under the test
    // runner): on a busy machine that can take longer than the default wait.
    await user.click(
      await screen.findByRole('combobox', { name: 'Organization' }, { timeout: 15_000 }),
    );
    await user.click(await screen.findByRole('option', { name: 'Second' }));
    expect(store.getState().org.currentOrgId).toBe('org-2');
    expect(store.getState().auth.notice?.text).toBe('Switched to Second');
  });
});

describe('the personal organization', () => {
  it('is announced once, when the first list made it', async () => {
    server.use(
      http.get('*/api/orgs', () =>
        HttpResponse.json({ success: true, data: [org()], personalOrgCreated: true }),
      ),
    );
    const { store } = renderWithProviders(<PersonalOrgNotice />, { store: signedInStore() });
    await waitFor(() => {
      expect(store.getState().auth.notice?.text).toBe(
        "A personal organization, ada's Organization, has been created for you.",
      );
    });
  });
});

describe('accepting an invitation', () => {
  const failure = (status: number, error?: string) =>
    acceptanceFailure({ status, data: error ? { error, code: 'X' } : undefined });

  it('answers each failure of spec §8 with its message and destination', () => {
    expect(failure(400, 'You are already a member of this organization:org-9')).toEqual({
      to: '/org-settings?orgId=org-9&existing=true',
      notice: { severity: 'info', text: 'You are already a member of this organization' },
    });
    expect(failure(400, 'This invitation has already been accepted')).toEqual({
      to: '/dashboard',
      notice: { severity: 'info', text: 'This invitation has already been used' },
    });
    expect(failure(400, 'This invitation has expired')).toEqual({
      to: '/dashboard',
      notice: {
        severity: 'error',
        text: 'This invitation has expired. Please request a new invitation.',
      },
    });
    expect(failure(403, 'This invitation was sent to another address').notice.text).toBe(
      'Invitation error: This invitation was sent to another address',
    );
    expect(failure(500).notice.text).toBe(
      'Failed to accept the invitation. It may be invalid or expired.',
    );
  });
});
