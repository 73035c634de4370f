import { screen, waitFor, within } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';

import { makeStore } from '../../app/store';
import { testOrg } from '../../testing/apps';
import { testPublicConfig } from '../../testing/handlers';
import { identitySession, TEST_USER_ID } from '../../testing/identity';
import { openAccountMenu } from '../../testing/accountMenu';
import { renderRoute } from '../../testing/render';
import { server } from '../../testing/server';
import { restoredAuthState } from '../../session/authSlice';
import { CORE_TOKEN_KEY, IDENTITY_SESSION_KEY, storedCoreSession } from '../../session/storage';

const AUTH = testPublicConfig.identity.authUrl;

/** A core token as the server writes it (the page reads its claims, never its signature). */
function coreToken(claims: Record<string, unknown>) {
  const part = (value: unknown) =>
    btoa(JSON.stringify(value)).replace(/=+$/, '').replace(/\+/g, '-').replace(/\//g, '_');
  return `${part({ alg: 'HS256', typ: 'JWT' })}.${part(claims)}.signature`;
}

const STORED = coreToken({
  sub: TEST_USER_ID,
  email: 'ada@example.com',
  exp: Math.floor(Date.now() / 1000) + 1800,
});

/** What an earlier visit left: the identity client's session and the core token of its exchange. */
function storeEarlierVisit(accessToken = 'access-1') {
  localStorage.setItem(
    IDENTITY_SESSION_KEY,
    JSON.stringify(identitySession('ada@example.com', accessToken)),
  );
  localStorage.setItem(CORE_TOKEN_KEY, STORED);
}

/** The store main.tsx makes for a page that starts from the stored core token. */
function restoredStore() {
  const stored = storedCoreSession();
  if (!stored) throw new Error('the earlier visit left no usable core token');
  return makeStore({ auth: restoredAuthState(stored) });
}

/**
 * The product API: the organizations for the tokens it accepts (401 otherwise), and the exchange, which
 * answers `exchange` (a core token, or 401 for a session that has ended) once `release` is called.
 */
function serveApi({ accepted, exchange }: { accepted: string[]; exchange: string | 401 }) {
  const orgBearers: string[] = [];
  let release = () => undefined as void;
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  server.use(
    http.get('*/api/orgs', ({ request }) => {
      const bearer = request.headers.get('Authorization') ?? '';
      orgBearers.push(bearer);
      return accepted.some((token) => bearer === `Bearer ${token}`)
        ? HttpResponse.json({ success: true, data: [testOrg()], personalOrgCreated: false })
        : HttpResponse.json({ error: 'Unauthorized', code: 'UNAUTHORIZED' }, { status: 401 });
    }),
    http.get('*/api/admin/check', () => HttpResponse.json({ isAdmin: false, role: null })),
    http.get('*/api/dev/apps', () => HttpResponse.json([])),
    http.post('*/api/auth/exchange-token', async () => {
      await released;
      return exchange === 401
        ? HttpResponse.json({ error: 'Session ended', code: 'UNAUTHORIZED' }, { status: 401 })
        : HttpResponse.json({ coreToken: exchange });
    }),
    http.post(`${AUTH}/logout`, () => new HttpResponse(null, { status: 204 })),
  );
  return { orgBearers, release };
}

describe('a returning visitor with a stored core token', () => {
  it('sees the dashboard before the session is confirmed, which then goes on with a fresh token', async () => {
    storeEarlierVisit();
    const { orgBearers, release } = serveApi({ accepted: [STORED, 'core-2'], exchange: 'core-2' });
    const store = restoredStore();
    renderRoute('/dashboard', { store });

    expect(
      await screen.findByRole('heading', { level: 1, name: 'Developer Dashboard' }),
    ).toBeInTheDocument();
    expect(screen.getByText('Signed in as ada@example.com')).toBeInTheDocument();
    // The heading is the dashboard's outline, shown while the organizations load: they are asked for with
    // the stored token.
    await waitFor(() => {
      expect(orgBearers).toEqual([`Bearer ${STORED}`]);
    });
    expect(store.getState().auth.provisional).toBe(true);

    release();
    await waitFor(() => {
      expect(store.getState().auth.coreToken).toBe('core-2');
    });
    expect(store.getState().auth.provisional).toBe(false);
    expect(localStorage.getItem(CORE_TOKEN_KEY)).toBe('core-2');
  });

  it('goes back to sign-in when the API refuses the stored token and the session has ended', async () => {
    storeEarlierVisit('revoked');
    const { release } = serveApi({ accepted: [], exchange: 401 });
    const store = restoredStore();
    const { router } = renderRoute('/dashboard', { store });

    // The 401 ends the stored token's use at once: the page waits for the identity client's verdict.
    await waitFor(() => {
      expect(store.getState().auth.status).toBe('loading');
    });
    expect(localStorage.getItem(CORE_TOKEN_KEY)).toBeNull();
    expect(screen.getByRole('progressbar', { name: 'Checking your session' })).toBeInTheDocument();

    release();
    expect(await screen.findByRole('heading', { level: 1, name: 'Welcome' })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/signin');
    expect(screen.getByText('Your session has ended. Please sign in again.')).toBeInTheDocument();
    expect(localStorage.getItem(CORE_TOKEN_KEY)).toBeNull();
  });

  it('shows the dashboard once a fresh exchange replaces a stored token the API refused', async () => {
    storeEarlierVisit();
    const { orgBearers, release } = serveApi({ accepted: ['core-2'], exchange: 'core-2' });
    const store = restoredStore();
    renderRoute('/dashboard', { store });

    await waitFor(() => {
      expect(store.getState().auth.status).toBe('loading');
    });
    release();

    expect(
      await screen.findByRole('heading', { level: 1, name: 'Developer Dashboard' }),
    ).toBeInTheDocument();
    await waitFor(() => {
      expect(orgBearers).toEqual([`Bearer ${STORED}`, 'Bearer core-2']);
    });
  });

  it('signs out for real even when asked before the identity client has loaded', async () => {
    storeEarlierVisit();
    let loggedOut: string | null = null;
    serveApi({ accepted: [STORED, 'core-2'], exchange: 'core-2' });
    server.use(
      http.post(`${AUTH}/logout`, ({ request }) => {
        loggedOut = new URL(request.url).searchParams.get('scope');
        return new HttpResponse(null, { status: 204 });
      }),
    );
    const store = restoredStore();
    const { user, router } = renderRoute('/dashboard', { store });

    await screen.findByRole('heading', { level: 1, name: 'Developer Dashboard' });
    // Sign Out is in the top bar's account menu.
    const menu = await openAccountMenu(user);
    await user.click(within(menu).getByRole('menuitem', { name: 'Sign Out' }));

    expect(await screen.findByRole('heading', { level: 1, name: 'Welcome' })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/signin');
    // This session only: every session (and the access tokens they made) is Account Security's to end.
    expect(loggedOut).toBe('local');
    expect(localStorage.getItem(CORE_TOKEN_KEY)).toBeNull();
    expect(localStorage.getItem(IDENTITY_SESSION_KEY)).toBeNull();
  });
});
