import { screen, waitFor, within } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';

import { serveOrgs, signedInStore } from '../../testing/apps';
import { server } from '../../testing/server';
import { openAccountMenu } from '../../testing/accountMenu';
import { renderRoute } from '../../testing/render';
import { publicConfigWith, testPublicConfig } from '../../testing/handlers';
import { makeStore } from '../../app/store';
import { authSlice } from '../../session/authSlice';
import { identitySession } from '../../testing/identity';
import { IDENTITY_SESSION_KEY } from '../../session/storage';

const AUTH = testPublicConfig.identity.authUrl;

/** The identity service and the product API as a signed-in browser meets them. */
function serveSignIn({ isAdmin = false } = {}) {
  const bearers: string[] = [];
  server.use(
    http.post(`${AUTH}/token`, () => HttpResponse.json(identitySession('ada@example.com'))),
    http.post('*/api/auth/exchange-token', async ({ request }) => {
      const body = (await request.json()) as { supabaseToken: string };
      return body.supabaseToken === 'access-1'
        ? HttpResponse.json({ coreToken: 'core-1' })
        : HttpResponse.json({ error: 'no', code: 'UNAUTHORIZED' }, { status: 401 });
    }),
    http.get('*/api/admin/check', ({ request }) => {
      bearers.push(request.headers.get('Authorization') ?? '');
      return HttpResponse.json({ isAdmin, role: isAdmin ? 'admin' : null });
    }),
    http.post(`${AUTH}/logout`, () => new HttpResponse(null, { status: 204 })),
  );
  // The signed-in layout waits for the organizations before it shows a page.
  serveOrgs();
  return { bearers };
}

async function signInThroughTheDialog(user: ReturnType<typeof renderRoute>['user']) {
  await user.click(await screen.findByRole('button', { name: 'Continue with Email' }));
  const dialog = await screen.findByRole('dialog');
  // The widget loads when the dialog opens.
  await user.type(await within(dialog).findByLabelText(/Email address/), 'ada@example.com');
  await user.type(within(dialog).getByLabelText(/^Password/), 'a long enough passphrase');
  await user.click(within(dialog).getByRole('button', { name: 'Sign in' }));
}

describe('sign-in', () => {
  it('sends a signed-out visitor of an authenticated page to the sign-in screen', async () => {
    const { router } = renderRoute('/dashboard');

    expect(await screen.findByRole('heading', { level: 1, name: 'Welcome' })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/signin');
    // Each provider's button carries its mark, hidden from assistive technology (the name says it).
    const google = screen.getByRole('button', { name: 'Google' });
    const apple = screen.getByRole('button', { name: 'Apple' });
    expect(google.querySelector('[data-testid="GoogleIcon"]')).toHaveAttribute(
      'aria-hidden',
      'true',
    );
    expect(apple.querySelector('[data-testid="AppleIcon"]')).toHaveAttribute('aria-hidden', 'true');
    expect(screen.getByText('Or continue with')).toBeInTheDocument();
  });

  it('signs in with e-mail, exchanges the core token and lands on the dashboard', async () => {
    const { bearers } = serveSignIn({ isAdmin: true });
    const { user, router } = renderRoute('/signin');

    await signInThroughTheDialog(user);

    expect(
      await screen.findByRole('heading', { level: 1, name: 'Developer Dashboard' }),
    ).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/dashboard');
    expect(localStorage.getItem('coreToken')).toBe('core-1');
    expect(localStorage.getItem('userEmail')).toBe('ada@example.com');
    // The admin check runs with the core token, and reveals the Admin Panel.
    expect(await screen.findAllByRole('link', { name: 'Admin Panel' })).not.toHaveLength(0);
    expect(bearers).toContain('Bearer core-1');
    expect(screen.getByRole('link', { name: 'Create App' })).toHaveAttribute(
      'href',
      '/apps/create',
    );
  });

  it('hides the Admin Panel from a user who is not a platform admin', async () => {
    const { bearers } = serveSignIn({ isAdmin: false });
    const { user } = renderRoute('/signin');

    await signInThroughTheDialog(user);

    await screen.findByRole('heading', { level: 1, name: 'Developer Dashboard' });
    await waitFor(() => {
      expect(bearers).toContain('Bearer core-1');
    });
    expect(screen.queryByRole('link', { name: 'Admin Panel' })).not.toBeInTheDocument();
  });

  it('shows the identity service error as it returned it', async () => {
    server.use(
      http.post(`${AUTH}/token`, () =>
        HttpResponse.json(
          {
            code: 'invalid_credentials',
            error_code: 'invalid_credentials',
            msg: 'Invalid login credentials',
          },
          { status: 400, headers: { 'x-supabase-api-version': '2024-01-01' } },
        ),
      ),
    );
    const { user } = renderRoute('/signin');

    await signInThroughTheDialog(user);

    expect(await screen.findByRole('alert')).toHaveTextContent('Invalid login credentials');
  });

  it('refuses an empty form, and toggling to create-account clears the message', async () => {
    const { user } = renderRoute('/signin');
    await user.click(await screen.findByRole('button', { name: 'Continue with Email' }));
    const dialog = await screen.findByRole('dialog');

    await user.click(await within(dialog).findByRole('button', { name: 'Sign in' }));
    expect(within(dialog).getByRole('alert')).toHaveTextContent(
      'Please enter your email address and password.',
    );

    await user.click(
      within(dialog).getByRole('button', { name: "Don't have an account? Create one" }),
    );
    expect(within(dialog).getByRole('heading', { name: 'Create an account' })).toBeInTheDocument();
    expect(within(dialog).queryByRole('alert')).not.toBeInTheDocument();
  });

  it('says when an account waits for its e-mail confirmation', async () => {
    server.use(
      http.post(`${AUTH}/signup`, () =>
        HttpResponse.json({
          ...identitySession('new@example.com').user,
          confirmation_sent_at: new Date().toISOString(),
        }),
      ),
    );
    const { user } = renderRoute('/signup');
    await user.click(await screen.findByRole('button', { name: 'Continue with Email' }));
    const dialog = await screen.findByRole('dialog');
    await user.type(await within(dialog).findByLabelText(/Email address/), 'new@example.com');
    await user.type(within(dialog).getByLabelText(/^Password/), 'a long enough passphrase');
    await user.click(within(dialog).getByRole('button', { name: 'Create account' }));

    expect(await within(dialog).findByRole('status')).toHaveTextContent(
      'Account created! Check your email for confirmation.',
    );
  });

  it('asks for the e-mail before sending a magic link', async () => {
    const { user } = renderRoute('/signin');
    await user.click(await screen.findByRole('button', { name: 'Continue with Email' }));
    const dialog = await screen.findByRole('dialog');
    await user.click(await within(dialog).findByRole('button', { name: 'Email me a magic link' }));
    await user.click(within(dialog).getByRole('button', { name: 'Send magic link' }));

    expect(within(dialog).getByRole('alert')).toHaveTextContent('Please enter your email address.');
  });

  it('shows only the providers the server has configured', async () => {
    server.use(publicConfigWith({ providers: ['apple'] }));
    renderRoute('/signin');

    expect(await screen.findByRole('button', { name: 'Apple' })).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Google' })).not.toBeInTheDocument();
    expect(screen.getByText('Or continue with')).toBeInTheDocument();
  });

  it('shows no provider, nor the divider, on a server without any', async () => {
    let asked = false;
    server.use(
      http.get('*/api/public-config', () => {
        asked = true;
        return HttpResponse.json({ ...testPublicConfig, providers: [] });
      }),
    );
    renderRoute('/signin');

    expect(await screen.findByRole('button', { name: 'Continue with Email' })).toBeInTheDocument();
    await waitFor(() => {
      expect(asked).toBe(true);
    });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(screen.queryByRole('button', { name: 'Google' })).not.toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Apple' })).not.toBeInTheDocument();
    expect(screen.queryByText('Or continue with')).not.toBeInTheDocument();
  });

  it('offers the providers only once the configuration has arrived', async () => {
    let answer: () => void = () => undefined;
    const held = new Promise<void>((resolve) => {
      answer = resolve;
    });
    server.use(
      http.get('*/api/public-config', async () => {
        await held;
        return HttpResponse.json(testPublicConfig);
      }),
    );
    // A visitor with no stored session starts signed out, before the identity client exists (main.tsx).
    const store = makeStore({ auth: { ...authSlice.getInitialState(), status: 'signedOut' } });
    renderRoute('/signin', { store });

    expect(await screen.findByRole('button', { name: 'Continue with Email' })).toBeInTheDocument();
    // Until the configuration is here, the page does not guess (the defaults name no provider).
    expect(screen.queryByRole('button', { name: 'Google' })).not.toBeInTheDocument();
    answer();

    expect(await screen.findByRole('button', { name: 'Google' })).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Apple' })).toBeInTheDocument();
  });

  it('has the colour scheme toggle, as every other page', async () => {
    const { user } = renderRoute('/signin');

    await user.click(await screen.findByRole('button', { name: /^Color scheme:/ }));
    await user.click(await screen.findByRole('menuitemradio', { name: 'Dark' }));
    expect(await screen.findByRole('button', { name: 'Color scheme: dark' })).toBeInTheDocument();
  });

  it('asks for a new password when a typed code took the account back from a squatter', async () => {
    serveSignIn();
    server.use(
      http.post(`${AUTH}/otp`, () => HttpResponse.json({})),
      http.post(`${AUTH}/verify`, () =>
        HttpResponse.json({ ...identitySession('ada@example.com'), choose_password: true }),
      ),
    );
    const { user, router } = renderRoute('/signin');
    await user.click(await screen.findByRole('button', { name: 'Continue with Email' }));
    const dialog = await screen.findByRole('dialog');
    await user.click(await within(dialog).findByRole('button', { name: 'Sign in with a code' }));
    await user.type(within(dialog).getByLabelText(/Email address/), 'ada@example.com');
    await user.click(within(dialog).getByRole('button', { name: 'Send code' }));
    await user.type(await within(dialog).findByLabelText(/Six-digit code/), '123456');
    await user.click(within(dialog).getByRole('button', { name: 'Verify code' }));

    expect(
      await within(dialog).findByRole('heading', { name: 'Choose a new password' }),
    ).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/signin');
    // The dialog says why a password is asked for, and what closing it leaves (issue 48 item 3).
    expect(within(dialog).getByText(/removed the password the account had/)).toBeInTheDocument();
    expect(within(dialog).getByText(/until you do, the account has none/)).toBeInTheDocument();
  });

  it.each([
    ['Email me a magic link', 'Send magic link', 'the magic link'],
    ['Forgot your password?', 'Send reset link', 'the password reset link'],
  ])('says where the link is on a portal without SMTP (%s)', async (open, send, what) => {
    server.use(
      publicConfigWith({ mailSent: false }),
      http.post(`${AUTH}/otp`, () => HttpResponse.json({})),
      http.post(`${AUTH}/recover`, () => HttpResponse.json({})),
    );
    const { user } = renderRoute('/signin');
    await user.click(await screen.findByRole('button', { name: 'Continue with Email' }));
    const dialog = await screen.findByRole('dialog');
    await user.click(await within(dialog).findByRole('button', { name: open }));
    await user.type(within(dialog).getByLabelText(/Email address/), 'ada@example.com');
    await user.click(within(dialog).getByRole('button', { name: send }));

    const said = await within(dialog).findByRole('status');
    expect(said).toHaveTextContent(
      `This portal sends no e-mail (no SMTP server is set up): ${what}`,
    );
    expect(said).toHaveTextContent("written to the server's log");
    expect(said).not.toHaveTextContent('Check your email');
  });

  it('sends a session that must choose a password from any page to the sign-in screen to choose it', async () => {
    serveSignIn();
    // The identity client holds the session the link started; the first proof asked for a password.
    localStorage.setItem(IDENTITY_SESSION_KEY, JSON.stringify(identitySession('ada@example.com')));
    const store = signedInStore();
    store.dispatch(authSlice.actions.recoveryStarted());
    renderRoute('/dashboard', { store });

    expect(
      await screen.findByRole('heading', { name: 'Choose a new password' }),
    ).toBeInTheDocument();
  });

  it('signs out: storage is cleared and the sign-in screen shows', async () => {
    serveSignIn();
    const { user, router } = renderRoute('/signin');
    await signInThroughTheDialog(user);
    await screen.findByRole('heading', { level: 1, name: 'Developer Dashboard' });

    // Sign Out is in the top bar's account menu.
    const menu = await openAccountMenu(user);
    await user.click(within(menu).getByRole('menuitem', { name: 'Sign Out' }));

    expect(await screen.findByRole('heading', { level: 1, name: 'Welcome' })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/signin');
    expect(localStorage.getItem('coreToken')).toBeNull();
    expect(localStorage.getItem('userEmail')).toBeNull();
  });

  it('signs out a session the product API refuses to exchange', async () => {
    server.use(
      http.post(`${AUTH}/token`, () =>
        HttpResponse.json(identitySession('ada@example.com', 'revoked')),
      ),
      http.post('*/api/auth/exchange-token', () =>
        HttpResponse.json({ error: 'Session ended', code: 'UNAUTHORIZED' }, { status: 401 }),
      ),
      http.post(`${AUTH}/logout`, () => new HttpResponse(null, { status: 204 })),
    );
    const { user } = renderRoute('/signin');

    await signInThroughTheDialog(user);

    expect(
      await screen.findByText('Your session has ended. Please sign in again.'),
    ).toBeInTheDocument();
    expect(localStorage.getItem('coreToken')).toBeNull();
  });
});

describe('after a password reset', () => {
  const DAY = 24 * 60 * 60 * 1000;
  const listed = (overrides: Record<string, unknown>) => ({
    id: 'tok-1',
    name: 'GitHub Actions deploy',
    orgId: 'org-1',
    scopes: ['apps:read'],
    status: 'active',
    createdAt: '2026-10-01T09:00:00Z',
    expiresAt: new Date(Date.now() + 30 * DAY).toISOString(),
    revokedAt: null,
    lastUsedAt: null,
    lastUsedIp: null,
    ...overrides,
  });

  /** A recovery link was followed (its session is stored and exchanged); the server holds `tokens`. */
  function recovering(tokens: unknown[]) {
    serveSignIn();
    const sent: { method: string; path: string; auth: string | null }[] = [];
    server.use(
      http.put(`${AUTH}/user`, () => HttpResponse.json(identitySession('ada@example.com').user)),
      http.get('*/api/dev/tokens', ({ request }) => {
        sent.push({
          method: 'GET',
          path: '/api/dev/tokens',
          auth: request.headers.get('Authorization'),
        });
        return HttpResponse.json({ tokens });
      }),
      http.post('*/api/dev/tokens/revoke-all', ({ request }) => {
        sent.push({
          method: 'POST',
          path: '/api/dev/tokens/revoke-all',
          auth: request.headers.get('Authorization'),
        });
        return HttpResponse.json({ revoked: 2 });
      }),
    );
    localStorage.setItem(IDENTITY_SESSION_KEY, JSON.stringify(identitySession('ada@example.com')));
    const store = signedInStore();
    store.dispatch(authSlice.actions.recoveryStarted());
    return { store, sent };
  }

  async function chooseNewPassword(user: ReturnType<typeof renderRoute>['user']) {
    const dialog = await screen.findByRole('dialog', { name: 'Choose a new password' });
    expect(
      within(dialog).getByText(
        'Choosing a new password signs out every other session of your account and revokes the access tokens they made.',
      ),
    ).toBeVisible();
    await user.type(within(dialog).getByLabelText(/New password/), 'a long enough passphrase 42');
    await user.click(within(dialog).getByRole('button', { name: 'Update password' }));
  }

  const stillWorking = [
    listed({ lastUsedAt: '2026-11-20T10:00:00Z', lastUsedIp: '203.0.113.9' }),
    listed({ id: 'tok-2', name: 'Laptop', orgId: null }),
    listed({ id: 'tok-3', name: 'Old CI', status: 'revoked', revokedAt: '2026-11-01T00:00:00Z' }),
  ];

  it('lists the access tokens that still work before going on, and revokes them all', async () => {
    const { store, sent } = recovering(stillWorking);
    const { user } = renderRoute('/signin', { store });
    await chooseNewPassword(user);

    const dialog = await screen.findByRole('dialog', { name: 'Access tokens that still work' });
    expect(dialog).toHaveTextContent(
      'these 2 active access tokens were made before and still work',
    );
    const list = within(dialog).getByRole('list', { name: 'Access tokens that still work' });
    const items = within(list).getAllByRole('listitem');
    expect(items).toHaveLength(2);
    const [ci, laptop] = items as [HTMLElement, HTMLElement];
    expect(ci).toHaveTextContent('GitHub Actions deploy');
    expect(ci).toHaveTextContent('Acme');
    expect(ci).toHaveTextContent('Created Oct 1, 2026');
    expect(ci).toHaveTextContent(/Last used .*from 203\.0\.113\.9/);
    expect(laptop).toHaveTextContent('Every organization');
    expect(laptop).toHaveTextContent('Never used');
    expect(within(dialog).queryByText('Old CI')).not.toBeInTheDocument();
    // The list is read with the exchanged session.
    expect(sent[0]).toEqual({ method: 'GET', path: '/api/dev/tokens', auth: 'Bearer core-1' });

    await user.click(within(dialog).getByRole('button', { name: 'Revoke all' }));
    expect(
      await screen.findByText('2 access tokens were revoked: they no longer work.'),
    ).toBeInTheDocument();
    await waitFor(() => {
      expect(
        screen.queryByRole('dialog', { name: 'Access tokens that still work' }),
      ).not.toBeInTheDocument();
    });
    expect(sent.filter((r) => r.method === 'POST')).toEqual([
      { method: 'POST', path: '/api/dev/tokens/revoke-all', auth: 'Bearer core-1' },
    ]);
    expect(store.getState().auth.tokensReview).toBe(false);
  });

  it('keeps them on “Keep them” and goes on to the dashboard', async () => {
    const { store, sent } = recovering(stillWorking);
    const { user, router } = renderRoute('/signin', { store });
    await chooseNewPassword(user);

    const dialog = await screen.findByRole('dialog', { name: 'Access tokens that still work' });
    await user.click(within(dialog).getByRole('button', { name: 'Keep them' }));
    await waitFor(() => {
      expect(
        screen.queryByRole('dialog', { name: 'Access tokens that still work' }),
      ).not.toBeInTheDocument();
    });
    expect(router.state.location.pathname).toBe('/dashboard');
    expect(sent.filter((r) => r.method === 'POST')).toEqual([]);
  });

  it('goes on as before when no access token is active', async () => {
    const { store, sent } = recovering([stillWorking[2]]);
    const { user, router } = renderRoute('/signin', { store });
    await chooseNewPassword(user);

    await waitFor(() => {
      expect(store.getState().auth.tokensReview).toBe(false);
    });
    expect(sent.map((r) => r.method)).toEqual(['GET']);
    await screen.findByRole('heading', { level: 1, name: 'Developer Dashboard' });
    expect(router.state.location.pathname).toBe('/dashboard');
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
  });
});
