import { screen } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';

import { signedInStore, testOrg } from '../../testing/apps';
import { identitySession } from '../../testing/identity';
import { renderRoute } from '../../testing/render';
import { server } from '../../testing/server';
import { IDENTITY_SESSION_KEY } from '../../session/storage';

/** A JWT-shaped core token (the page reads it without checking a signature; the server checks). */
function coreToken() {
  const encode = (value: object) =>
    btoa(JSON.stringify(value)).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
  return `${encode({ alg: 'HS256' })}.${encode({ sub: 'u-ada', email: 'ada@example.com', exp: 4102444800, aal: 'aal1' })}.sig`;
}

/** Ada is signed in, a member of Acme, which has no contact e-mail; its member list waits for `answer()`. */
function memberOfIncompleteOrg() {
  localStorage.setItem(IDENTITY_SESSION_KEY, JSON.stringify(identitySession('ada@example.com')));
  const member = testOrg({
    role: 'member',
    profile: { contactEmail: null, website: null, description: null, logo: null },
  });
  let answerDetails: () => void = () => undefined;
  const detailsHeld = new Promise<void>((resolve) => {
    answerDetails = resolve;
  });
  server.use(
    http.post('*/api/auth/exchange-token', () => HttpResponse.json({ coreToken: coreToken() })),
    http.get('*/api/admin/check', () => HttpResponse.json({ isAdmin: false, role: null })),
    http.get('*/api/dev/apps', () => HttpResponse.json([])),
    http.get('*/api/orgs', () =>
      HttpResponse.json({ success: true, data: [member], personalOrgCreated: false }),
    ),
    http.get('*/api/orgs/:orgId', async () => {
      await detailsHeld;
      return HttpResponse.json({
        success: true,
        data: {
          ...member,
          members: [
            {
              user: { id: 'u-boss', email: 'boss@acme.test' },
              role: 'admin',
              joinedAt: '2026-11-01T10:00:00Z',
              hasTwoFactor: false,
            },
          ],
          pendingInvites: [],
        },
      });
    }),
  );
  return {
    answer: () => {
      answerDetails();
    },
  };
}

describe("My Apps of a member whose organization's profile is incomplete", () => {
  it('appears with the banner already naming the admin to ask, so that nothing moves when the member list comes', async () => {
    const details = memberOfIncompleteOrg();
    renderRoute('/apps', { store: signedInStore() });

    // While the member list is on its way the page's outline stays, without the banner.
    expect(
      await screen.findByRole(
        'status',
        { name: 'Loading your organizations' },
        { timeout: 15_000 },
      ),
    ).toBeInTheDocument();
    await new Promise((settle) => setTimeout(settle, 200));
    expect(screen.queryByText('Organization profile incomplete')).not.toBeInTheDocument();
    expect(screen.queryByRole('heading', { level: 1, name: 'My Apps' })).not.toBeInTheDocument();

    details.answer();
    const title = await screen.findByText(
      'Organization profile incomplete',
      {},
      { timeout: 15_000 },
    );
    // The banner's first render is its final one: the admin is named in it.
    expect(title.closest('[role="alert"]')).toHaveTextContent(
      'Only an admin can add it: ask boss@acme.test.',
    );
    expect(
      await screen.findByRole('heading', { level: 1, name: 'My Apps' }, { timeout: 15_000 }),
    ).toBeInTheDocument();
  }, 30_000);
});

describe("the dashboard of a member whose organization's profile is incomplete", () => {
  it('has no banner, and does not wait for the member list that only the banner needs', async () => {
    memberOfIncompleteOrg();
    renderRoute('/dashboard', { store: signedInStore() });

    // The member list never answers here: the dashboard shows all the same.
    expect(
      await screen.findByRole(
        'heading',
        { level: 1, name: 'Developer Dashboard' },
        { timeout: 15_000 },
      ),
    ).toBeInTheDocument();
    // The page itself, not its outline: its apps have been read.
    expect(
      await screen.findByText('No apps to display', {}, { timeout: 15_000 }),
    ).toBeInTheDocument();
    expect(screen.queryByText('Organization profile incomplete')).not.toBeInTheDocument();
  }, 30_000);
});
