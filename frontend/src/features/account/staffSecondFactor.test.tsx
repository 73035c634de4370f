import { screen, waitFor, within } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { describe, expect, it, vi } from 'vitest';

import { makeStore } from '../../app/store';
import { signedInStore, testOrg } from '../../testing/apps';
import { identityJwt, identitySession } from '../../testing/identity';
import { renderRoute } from '../../testing/render';
import { server } from '../../testing/server';
import { signedIn } from '../../session/authSlice';
import { IDENTITY_SESSION_KEY } from '../../session/storage';

vi.setConfig({ testTimeout: 30_000 });

const STAFF_REFUSAL = {
  error:
    "Platform staff confirm it's them with a second factor: add one on Account Security, then sign in with it.",
  code: 'MFA_REQUIRED',
};

const VERIFIED_TOTP = {
  id: 'f-1',
  friendly_name: 'Phone',
  factor_type: 'totp',
  status: 'verified',
  created_at: '2026-11-20T10:00:00Z',
  updated_at: '2026-11-20T10:00:00Z',
};

/**
 * Ada is signed in (the identity client finds her session) and is platform staff on a portal with
 * `PORTAL_STAFF_MFA=required`: the staff API refuses her aal1 session, the rest of the product answers.
 */
function staffWithoutSecondFactor({
  factors = [] as unknown[],
  productRefuses = false,
}: { factors?: unknown[]; productRefuses?: boolean } = {}) {
  localStorage.setItem(IDENTITY_SESSION_KEY, JSON.stringify(identitySession('ada@example.com')));
  const org = testOrg();
  if (productRefuses) {
    // An aal1 session of an account with a factor: the product API refuses it too.
    const refusal = { error: 'Confirm it’s you with your second factor.', code: 'MFA_REQUIRED' };
    server.use(
      http.get('*/api/orgs', () => HttpResponse.json(refusal, { status: 403 })),
      http.get('*/api/dev/auth/sessions', () => HttpResponse.json(refusal, { status: 403 })),
    );
  }
  server.use(
    http.post('*/api/auth/exchange-token', () => HttpResponse.json({ coreToken: 'core-aal1' })),
    http.get('*/api/admin/check', () => HttpResponse.json(STAFF_REFUSAL, { status: 403 })),
    ...(productRefuses
      ? []
      : [
          http.get('*/api/orgs', () =>
            HttpResponse.json({ success: true, data: [org], personalOrgCreated: false }),
          ),
        ]),
    http.get('*/api/orgs/:orgId', () => HttpResponse.json({ success: true, data: org })),
    ...(productRefuses
      ? []
      : [http.get('*/api/dev/auth/sessions', () => HttpResponse.json({ sessions: [] }))]),
    http.get('*/auth/v1/user', () =>
      HttpResponse.json({ ...identitySession('ada@example.com').user, factors }),
    ),
    http.get('*/auth/v1/passkeys', () => HttpResponse.json([])),
    http.get('*/auth/v1/factors/recovery-codes', () =>
      HttpResponse.json(
        { code: 404, error_code: 'mfa_factor_not_found', msg: 'none' },
        { status: 404 },
      ),
    ),
  );
}

describe('platform staff without a second factor (PORTAL_STAFF_MFA=required)', () => {
  it('keep the product and are led from the dashboard to Account Security to add one', async () => {
    staffWithoutSecondFactor();
    const { store, user, router } = renderRoute('/dashboard', { store: signedInStore() });

    const notice = await screen.findByText(
      'Add a second factor to open the Admin Panel',
      {},
      { timeout: 15_000 },
    );
    // Not the challenge step: the dashboard stays, with the Admin Panel in the sidebar.
    expect(
      screen.getByRole('heading', { level: 1, name: 'Developer Dashboard' }),
    ).toBeInTheDocument();
    expect(store.getState().auth.mfaRequired).toBeFalsy();
    expect(store.getState().auth.staffMfaRequired).toBe(true);
    const nav = screen.getByRole('navigation', { name: 'Main' });
    expect(within(nav).getByRole('link', { name: 'Admin Panel' })).toHaveAttribute(
      'href',
      '/admin',
    );

    expect(notice).toBeVisible();
    await user.click(screen.getByRole('link', { name: 'Add a second factor' }));
    await waitFor(() => {
      expect(`${router.state.location.pathname}${router.state.location.search}`).toBe(
        '/account/security?next=%2Fadmin',
      );
    });
    expect(
      await screen.findByText(/Add a second factor below .* then continue to the Admin Panel/),
    ).toBeInTheDocument();
    expect(await screen.findByRole('button', { name: 'Add authenticator app' })).toBeEnabled();
  });

  it('see on the Admin Panel how to add one, or to confirm with the one they have', async () => {
    staffWithoutSecondFactor();
    renderRoute('/admin', { store: signedInStore() });
    const add = await screen.findByRole(
      'link',
      { name: 'Add a second factor' },
      { timeout: 15_000 },
    );
    expect(add).toHaveAttribute('href', '/account/security?next=%2Fadmin');
    expect(screen.getByRole('heading', { level: 1, name: 'Admin Panel' })).toBeInTheDocument();
  });

  it('with a factor already, are sent to the challenge step from the Admin Panel', async () => {
    staffWithoutSecondFactor({ factors: [VERIFIED_TOTP] });
    renderRoute('/admin', { store: signedInStore() });
    const confirm = await screen.findByRole(
      'link',
      { name: 'Confirm it’s you' },
      { timeout: 15_000 },
    );
    expect(confirm).toHaveAttribute('href', '/signin/mfa?next=%2Fadmin');
    expect(screen.getByText('Confirm it’s you to open the Admin Panel')).toBeInTheDocument();
  });

  it('open the Admin Panel with the next token once the session passed a factor, without a reload', async () => {
    staffWithoutSecondFactor({ factors: [VERIFIED_TOTP] });
    let raised = false;
    server.use(
      http.get('*/api/admin/check', () =>
        raised
          ? HttpResponse.json({ isAdmin: true, role: 'admin', roleAwaitsProof: false })
          : HttpResponse.json(STAFF_REFUSAL, { status: 403 }),
      ),
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
    const { store } = renderRoute('/admin', { store: signedInStore() });
    await screen.findByText('Confirm it’s you to open the Admin Panel', {}, { timeout: 15_000 });
    // The challenge step passed elsewhere (another tab): the session's next token is exchanged.
    raised = true;
    const { user } = store.getState().auth;
    if (!user) throw new Error('signed in');
    store.dispatch(signedIn({ user, accessToken: 'access-aal2', coreToken: 'core-aal2' }));
    expect(await screen.findByRole('tab', { name: 'Platform Users' })).toBeInTheDocument();
    expect(store.getState().auth.staffMfaRequired).toBe(false);
  });

  it('say so on the setup page once the setup link made them admin', async () => {
    staffWithoutSecondFactor();
    server.use(
      http.post('*/api/admin/setup', () =>
        HttpResponse.json({ isAdmin: true, role: 'admin', roleAwaitsProof: false }),
      ),
    );
    renderRoute('/setup-admin?token=t0k3n', { store: signedInStore() });
    expect(
      await screen.findByText(/You are now a platform admin/, {}, { timeout: 15_000 }),
    ).toBeInTheDocument();
    // The admin check, then the factors and passkeys: on a loaded machine this takes more than a second.
    expect(
      await screen.findByRole('link', { name: 'Add a second factor' }, { timeout: 15_000 }),
    ).toHaveAttribute('href', '/account/security?next=%2Fadmin');
    expect(screen.queryByRole('link', { name: 'Open the Admin Panel' })).not.toBeInTheDocument();
  });
});

describe('a session the product API sends to the challenge step', () => {
  function refusedStore() {
    const store = signedInStore();
    return makeStore({
      ...store.getState(),
      auth: { ...store.getState().auth, mfaRequired: true },
    });
  }

  it('still opens Account Security, which says how to go on', async () => {
    staffWithoutSecondFactor({ factors: [VERIFIED_TOTP], productRefuses: true });
    const { router } = renderRoute('/account/security', { store: refusedStore() });
    expect(
      await screen.findByRole(
        'heading',
        { level: 1, name: 'Account Security' },
        { timeout: 15_000 },
      ),
    ).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/account/security');
    expect(await screen.findByRole('link', { name: 'Confirm it’s you' })).toHaveAttribute(
      'href',
      '/signin/mfa?next=%2Faccount%2Fsecurity',
    );
  });

  it('goes to the challenge step from any other page', async () => {
    staffWithoutSecondFactor({ factors: [VERIFIED_TOTP], productRefuses: true });
    const { router } = renderRoute('/apps', { store: refusedStore() });
    await waitFor(() => {
      expect(router.state.location.pathname).toBe('/signin/mfa');
    });
  });
});

describe('adding a first factor long after signing in', () => {
  it('asks for the password, signs in again with it and adds the authenticator app', async () => {
    staffWithoutSecondFactor();
    const enrolls: unknown[] = [];
    const signIns: unknown[] = [];
    server.use(
      http.post('*/auth/v1/factors', async ({ request }) => {
        enrolls.push(await request.json());
        if (enrolls.length === 1) {
          return HttpResponse.json(
            {
              code: 400,
              error_code: 'reauthentication_needed',
              msg: 'Sign in again to add a second factor.',
            },
            { status: 400 },
          );
        }
        return HttpResponse.json({
          id: 'f-new',
          type: 'totp',
          friendly_name: 'Authenticator app',
          totp: {
            qr_code: '',
            secret: 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP',
            uri: 'otpauth://totp/Portal:ada@example.com?secret=JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP',
          },
        });
      }),
      http.post('*/auth/v1/token', async ({ request }) => {
        signIns.push(await request.json());
        const body = signIns.at(-1) as { password?: string };
        if (body.password !== 'the right one') {
          return HttpResponse.json(
            { code: 400, error_code: 'invalid_credentials', msg: 'Invalid login credentials' },
            { status: 400 },
          );
        }
        return HttpResponse.json(
          identitySession('ada@example.com', identityJwt({ aal: 'aal1', amr: [] })),
        );
      }),
    );
    const { user } = renderRoute('/account/security', { store: signedInStore() });
    await user.click(
      await screen.findByRole('button', { name: 'Add authenticator app' }, { timeout: 15_000 }),
    );
    // The Authenticator apps section asks (the Password section has a field of that name too).
    const section = screen.getByRole('region', { name: 'Authenticator apps' });
    const password = await within(section).findByLabelText('Current password');
    expect(
      within(section).getByText(/confirm your password to add an authenticator app/),
    ).toBeInTheDocument();
    await user.type(password, 'a wrong one');
    await user.click(within(section).getByRole('button', { name: 'Confirm password' }));
    expect(await screen.findByText('That is not your current password.')).toBeInTheDocument();
    expect(enrolls).toHaveLength(1);

    await user.clear(password);
    await user.type(password, 'the right one');
    await user.click(within(section).getByRole('button', { name: 'Confirm password' }));
    expect(await screen.findByTestId('totp-secret')).toHaveTextContent(
      'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP',
    );
    expect(signIns.at(-1)).toMatchObject({ email: 'ada@example.com', password: 'the right one' });
    expect(enrolls).toHaveLength(2);
    expect(within(section).queryByLabelText('Current password')).toBeNull();
  });
});
