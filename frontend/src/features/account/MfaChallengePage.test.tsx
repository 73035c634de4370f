import { screen } from '@testing-library/react';
import { AuthApiError, type GoTrueClient } from '@supabase/auth-js';
import { describe, expect, it, vi } from 'vitest';

import { publicConfigWith } from '../../testing/handlers';
import { renderWithProviders } from '../../testing/render';
import { server } from '../../testing/server';
import { MfaChallengePage } from './MfaChallengePage';

const current = vi.hoisted((): { client: unknown } => ({ client: null }));
vi.mock('../auth', async (importOriginal) => ({
  ...(await importOriginal<typeof import('../auth')>()),
  useAuthClient: () => current.client,
}));

function fakeClient({
  totp,
  recovery,
  keys = 0,
  passkeys = Promise.resolve({ data: [], error: null }),
}: {
  totp: number;
  recovery: boolean;
  keys?: number;
  passkeys?: Promise<unknown>;
}) {
  const verify = vi
    .fn()
    .mockResolvedValueOnce({
      data: null,
      error: new AuthApiError('Invalid recovery code entered', 422, 'mfa_verification_failed'),
    })
    .mockResolvedValue({ data: { access_token: 'raised' }, error: null });
  const authenticate = vi
    .fn()
    .mockResolvedValueOnce({
      data: null,
      error: new AuthApiError(
        'Credential verification failed',
        400,
        'webauthn_verification_failed',
      ),
    })
    .mockResolvedValue({ data: { access_token: 'raised' }, error: null });
  const client = {
    mfa: {
      listFactors: vi.fn().mockResolvedValue({
        data: {
          all: [],
          totp: Array.from({ length: totp }, (_, i) => ({ id: `t${i}`, factor_type: 'totp' })),
          webauthn: Array.from({ length: keys }, (_, i) => ({
            id: `w${i}`,
            factor_type: 'webauthn',
          })),
          recovery_code: recovery ? [{ id: 'set', factor_type: 'recovery_code' }] : [],
        },
        error: null,
      }),
      challengeAndVerify: vi.fn(),
      recoveryCodes: { verify },
      webauthn: { authenticate },
    },
    passkey: { list: vi.fn().mockReturnValue(passkeys) },
    getSession: vi.fn().mockResolvedValue({
      data: { session: { access_token: 'mine', refresh_token: 'mine-r', user: { id: 'me' } } },
      error: null,
    }),
    signInWithPasskey: vi.fn().mockResolvedValue({
      data: { session: { access_token: 'theirs' }, user: { id: 'someone-else' } },
      error: null,
    }),
    setSession: vi.fn().mockResolvedValue({ data: {}, error: null }),
    signOut: vi.fn().mockResolvedValue({ error: null }),
  };
  return {
    client: client as unknown as GoTrueClient,
    verify,
    authenticate,
    setSession: client.setSession,
    signOut: client.signOut,
  };
}

function renderWith(client: GoTrueClient) {
  current.client = client;
  return renderWithProviders(<MfaChallengePage />, { route: '/signin/mfa' });
}

describe('MfaChallengePage', () => {
  it('at an address where browsers refuse passkeys, sends the passkey to where it works', async () => {
    server.use(publicConfigWith({ passkeyOrigin: 'http://passkeys.portal.test:8080' }));
    const { client } = fakeClient({
      totp: 0,
      recovery: false,
      passkeys: Promise.resolve({ data: [{ id: 'p1' }], error: null }),
    });
    renderWith(client);
    const link = await screen.findByRole('link', {
      name: 'Use a passkey at passkeys.portal.test:8080',
    });
    expect(link).toHaveAttribute('href', 'http://passkeys.portal.test:8080/signin');
    expect(screen.queryByRole('button', { name: 'Use a passkey' })).toBeNull();
  });

  it('offers a recovery code next to the authenticator app and says when one is refused', async () => {
    const { client, verify } = fakeClient({ totp: 1, recovery: true });
    const { user } = renderWith(client);
    await user.click(await screen.findByRole('button', { name: 'Use a recovery code' }));
    const field = screen.getByLabelText('Recovery code');
    await user.type(field, 'abc');
    await user.click(screen.getByRole('button', { name: 'Continue' }));
    expect(await screen.findByRole('alert')).toHaveTextContent(/16 letters and digits/);
    expect(verify).not.toHaveBeenCalled();

    await user.clear(field);
    await user.type(field, 'K4M9-X7QP-2AB8-HT3Z');
    await user.click(screen.getByRole('button', { name: 'Continue' }));
    expect(await screen.findByRole('alert')).toHaveTextContent(
      'That recovery code is not right, or was already used.',
    );
    expect(verify).toHaveBeenCalledWith({ code: 'K4M9-X7QP-2AB8-HT3Z' });
    await user.click(screen.getByRole('button', { name: 'Use your authenticator app' }));
    expect(screen.getByLabelText('Code')).toHaveValue('');
  });

  it('goes straight to the recovery code when the account has no authenticator app left', async () => {
    const { client } = fakeClient({ totp: 0, recovery: true });
    renderWith(client);
    expect(await screen.findByLabelText('Recovery code')).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Use your authenticator app' })).toBeNull();
  });

  it('does not offer recovery codes to an account without them', async () => {
    const { client } = fakeClient({ totp: 1, recovery: false });
    renderWith(client);
    expect(await screen.findByLabelText('Code')).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Use a recovery code' })).toBeNull();
  });

  it('still offers the codes when the passkey list cannot be read', async () => {
    const { client } = fakeClient({
      totp: 1,
      recovery: true,
      passkeys: Promise.reject(new TypeError('Failed to fetch')),
    });
    renderWith(client);
    expect(await screen.findByLabelText('Code')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Use a recovery code' })).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Use a passkey' })).not.toBeInTheDocument();
  });

  it('confirms with a security key through auth-js and says when the key is refused', async () => {
    const { client, authenticate } = fakeClient({ totp: 0, recovery: false, keys: 1 });
    const { user } = renderWith(client);
    const button = await screen.findByRole('button', { name: 'Use your security key' });
    expect(screen.queryByText(/no authenticator app to confirm with/)).toBeNull();
    await user.click(button);
    expect(await screen.findByRole('alert')).toHaveTextContent(
      'That security key is not the one added to this account, or could not be checked.',
    );
    await user.click(button);
    expect(authenticate).toHaveBeenLastCalledWith({ factorId: 'w0' });
    expect(authenticate).toHaveBeenCalledTimes(2);
    expect(await screen.findByRole('button', { name: 'Use your security key' })).toBeDisabled();
  });

  it('stays on the step and says so when the passkey chosen belongs to another account', async () => {
    const { client, signOut, setSession } = fakeClient({
      totp: 1,
      recovery: false,
      passkeys: Promise.resolve({ data: [{ id: 'p1' }], error: null }),
    });
    const { user } = renderWith(client);
    await user.click(await screen.findByRole('button', { name: 'Use a passkey' }));
    expect(await screen.findByRole('alert')).toHaveTextContent(
      'That passkey belongs to another account.',
    );
    // The other account's session is dropped here and this account's aal1 session is put back.
    expect(signOut).toHaveBeenCalledWith({ scope: 'local' });
    expect(setSession).toHaveBeenCalledWith({
      access_token: 'mine',
      refresh_token: 'mine-r',
    });
    expect(screen.getByLabelText('Code')).toBeInTheDocument();
  });

  it('offers the security key next to the authenticator app', async () => {
    const { client } = fakeClient({ totp: 1, recovery: false, keys: 1 });
    renderWith(client);
    expect(await screen.findByLabelText('Code')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Use your security key' })).toBeInTheDocument();
  });

  it('leads an account without any second factor to add one, never to a dead end', async () => {
    const { client } = fakeClient({ totp: 0, recovery: false });
    current.client = client;
    renderWithProviders(<MfaChallengePage />, { route: '/signin/mfa?next=%2Fadmin' });
    expect(await screen.findByText(/This account has no second factor yet/)).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Add a second factor' })).toHaveAttribute(
      'href',
      '/account/security?next=%2Fadmin',
    );
    expect(screen.queryByText(/Ask an administrator/)).not.toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Sign out instead' })).toBeInTheDocument();
  });
});
