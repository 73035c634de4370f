import { screen, waitFor, within } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';

import { signedInStore, testOrg } from '../../testing/apps';
import { renderRoute } from '../../testing/render';
import { server } from '../../testing/server';
import { identitySession } from '../../testing/identity';
import { IDENTITY_SESSION_KEY } from '../../session/storage';

const EXPIRED = 'This invitation has expired. Please request a new invitation.';
const PERSONAL = 'A personal organization, Acme, has been created for you.';

/**
 * A new user opens an expired invitation: the acceptance fails (a notice, then the dashboard), and the
 * dashboard's first organization list makes the user's personal organization (a second notice).
 */
function serveExpiredInvitationOfNewUser() {
  let orgListsAnswered = 0;
  server.use(
    http.post('*/api/orgs/accept/:token', () =>
      HttpResponse.json(
        { error: 'This invitation has expired', code: 'VALIDATION' },
        { status: 400 },
      ),
    ),
    http.get('*/api/orgs', () => {
      orgListsAnswered += 1;
      return HttpResponse.json({
        success: true,
        data: [testOrg()],
        personalOrgCreated: orgListsAnswered === 1,
      });
    }),
    http.get('*/api/admin/check', () => HttpResponse.json({ isAdmin: false, role: null })),
    http.get('*/api/dev/apps', () => HttpResponse.json([])),
    http.post('*/api/auth/exchange-token', () => HttpResponse.json({ coreToken: 'core-2' })),
  );
  return { orgListsAnswered: () => orgListsAnswered };
}

describe('notices of the signed-in layout', () => {
  it('keeps the expired-invitation notice open when the personal organization is announced meanwhile', async () => {
    const api = serveExpiredInvitationOfNewUser();
    // The identity client finds the user's session, as after following the confirmation link.
    localStorage.setItem(IDENTITY_SESSION_KEY, JSON.stringify(identitySession('ada@example.com')));
    const { router, user, store } = renderRoute('/signin?token=t-expired', {
      store: signedInStore(),
    });

    const notice = await screen.findByText(EXPIRED, {}, { timeout: 15_000 });
    expect(router.state.location.pathname).toBe('/dashboard');
    // The list that made the personal organization has answered and its announcement was handed over…
    await waitFor(() => {
      expect(api.orgListsAnswered()).toBeGreaterThan(0);
    });
    await screen.findByRole(
      'heading',
      { level: 1, name: 'Developer Dashboard' },
      { timeout: 15_000 },
    );
    // …but it waits: the notice the user is reading stays.
    expect(notice).toBeInTheDocument();
    expect(screen.queryByText(PERSONAL)).not.toBeInTheDocument();

    // Closed by the user, it gives way to the next one.
    const shown = screen.getByText(EXPIRED).closest('[role="alert"]');
    if (!(shown instanceof HTMLElement)) throw new Error('the notice is not an alert');
    await user.click(within(shown).getByRole('button', { name: 'Close' }));
    expect(await screen.findByText(PERSONAL)).toBeInTheDocument();
    await waitFor(() => {
      expect(screen.queryByText(EXPIRED)).not.toBeInTheDocument();
    });
    expect(store.getState().auth.notice?.text).toBe(PERSONAL);
  }, 30_000);

  it('keeps a notice open when the user clicks elsewhere on the page (it closes by its button, Escape or its time)', async () => {
    serveExpiredInvitationOfNewUser();
    localStorage.setItem(IDENTITY_SESSION_KEY, JSON.stringify(identitySession('ada@example.com')));
    const { user } = renderRoute('/signin?token=t-expired', { store: signedInStore() });

    await screen.findByText(EXPIRED, {}, { timeout: 15_000 });
    const heading = await screen.findByRole(
      'heading',
      { level: 1, name: 'Developer Dashboard' },
      { timeout: 15_000 },
    );
    // A click that lands after the notice opened (the page's own, or one still under way when the
    // redirect happened) used to count as a click away and closed the notice at once.
    await user.click(heading);
    await user.click(document.body);
    expect(screen.getByText(EXPIRED)).toBeInTheDocument();

    await user.keyboard('{Escape}');
    await waitFor(() => {
      expect(screen.queryByText(EXPIRED)).not.toBeInTheDocument();
    });
  }, 30_000);
});
