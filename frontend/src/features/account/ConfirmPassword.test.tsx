import { act, screen } from '@testing-library/react';
import { AuthApiError, type GoTrueClient } from '@supabase/auth-js';
import { describe, expect, it, vi } from 'vitest';

import { signedIn } from '../../session/authSlice';
import { signedInStore, TEST_USER } from '../../testing/apps';
import { assuranceOf } from '../../testing/identity';
import { renderWithProviders } from '../../testing/render';
import { ConfirmPassword } from './ConfirmPassword';

/**
 * A fake identity client: the password `right` signs in again (an `aal1` session); the account has
 * `totp` authenticator apps, recovery codes when `recovery`, security keys when `keys`.
 */
function fakeClient({
  nextLevel,
  totp = 0,
  recovery = false,
  keys = 0,
  session = null,
}: {
  nextLevel: 'aal1' | 'aal2';
  totp?: number;
  recovery?: boolean;
  keys?: number;
  session?: unknown;
}) {
  const signInWithPassword = vi.fn(({ password }: { password: string }) =>
    Promise.resolve(
      password === 'right'
        ? { data: {}, error: null }
        : {
            data: {},
            error: new AuthApiError('Invalid login credentials', 400, 'invalid_credentials'),
          },
    ),
  );
  const challengeAndVerify = vi
    .fn()
    .mockResolvedValueOnce({
      data: null,
      error: new AuthApiError('Invalid TOTP code entered', 422, 'mfa_verification_failed'),
    })
    .mockResolvedValue({ data: { access_token: 'raised' }, error: null });
  const verify = vi.fn().mockResolvedValue({ data: { access_token: 'raised' }, error: null });
  const assurance = assuranceOf(nextLevel, session);
  const client = {
    ...assurance,
    signInWithPassword,
    signOut: vi.fn(),
    mfa: {
      ...assurance.mfa,
      listFactors: vi.fn().mockResolvedValue({
        data: {
          all: [],
          totp: Array.from({ length: totp }, (_, i) => ({ id: `t${String(i)}` })),
          phone: [],
          webauthn: Array.from({ length: keys }, (_, i) => ({ id: `w${String(i)}` })),
          recovery_code: recovery ? [{ id: 'set' }] : [],
        },
        error: null,
      }),
      challengeAndVerify,
      recoveryCodes: { verify },
    },
  };
  return {
    client: client as unknown as GoTrueClient,
    signInWithPassword,
    challengeAndVerify,
    verify,
  };
}

function renderConfirm(client: GoTrueClient, store = signedInStore()) {
  const onConfirmed = vi.fn();
  const rendered = renderWithProviders(
    <ConfirmPassword
      client={client}
      what="add a passkey"
      onConfirmed={onConfirmed}
      onCancel={vi.fn()}
    />,
    { store },
  );
  return { ...rendered, onConfirmed };
}

describe('ConfirmPassword (sudo mode)', () => {
  it('for an account with an authenticator app, asks for its code after the password and only then goes on', async () => {
    const { client, signInWithPassword, challengeAndVerify } = fakeClient({
      nextLevel: 'aal2',
      totp: 1,
      recovery: true,
    });
    const { user, onConfirmed } = renderConfirm(client);
    await user.type(screen.getByLabelText('Current password'), 'right');
    await user.click(screen.getByRole('button', { name: 'Confirm password' }));
    expect(signInWithPassword).toHaveBeenCalledWith({ email: TEST_USER.email, password: 'right' });

    expect(
      await screen.findByText(
        'Enter the six-digit code that your authenticator app shows for this account.',
      ),
    ).toBeInTheDocument();
    expect(screen.getByText(/This account has a second factor: confirm it too/)).toBeVisible();
    // The password alone gives an aal1 session, which may add nothing: nothing was retried yet.
    expect(onConfirmed).not.toHaveBeenCalled();
    expect(screen.getByRole('button', { name: 'Use a recovery code' })).toBeInTheDocument();

    await user.type(screen.getByLabelText('Code'), '000000');
    await user.click(screen.getByRole('button', { name: 'Continue' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('That code is not right');
    expect(onConfirmed).not.toHaveBeenCalled();

    await user.clear(screen.getByLabelText('Code'));
    await user.type(screen.getByLabelText('Code'), '123456');
    await user.click(screen.getByRole('button', { name: 'Continue' }));
    await vi.waitFor(() => {
      expect(onConfirmed).toHaveBeenCalledOnce();
    });
    expect(challengeAndVerify).toHaveBeenLastCalledWith({ factorId: 't0', code: '123456' });
  });

  it('with only recovery codes left, takes one of them as the second step', async () => {
    const { client, verify, challengeAndVerify } = fakeClient({
      nextLevel: 'aal2',
      recovery: true,
    });
    const { user, onConfirmed } = renderConfirm(client);
    await user.type(screen.getByLabelText('Current password'), 'right');
    await user.click(screen.getByRole('button', { name: 'Confirm password' }));
    await user.type(await screen.findByLabelText('Recovery code'), 'abcd-efgh-ijkl-mnop');
    await user.click(screen.getByRole('button', { name: 'Continue' }));
    await vi.waitFor(() => {
      expect(onConfirmed).toHaveBeenCalledOnce();
    });
    expect(verify).toHaveBeenCalledWith({ code: 'abcd-efgh-ijkl-mnop' });
    expect(challengeAndVerify).not.toHaveBeenCalled();
  });

  it('for an account without a second factor, goes on after the password alone', async () => {
    const { client } = fakeClient({ nextLevel: 'aal1' });
    const { user, onConfirmed } = renderConfirm(client);
    await user.type(screen.getByLabelText('Current password'), 'wrong');
    await user.click(screen.getByRole('button', { name: 'Confirm password' }));
    expect(await screen.findByRole('alert')).toHaveTextContent(
      'That is not your current password.',
    );
    await user.clear(screen.getByLabelText('Current password'));
    await user.type(screen.getByLabelText('Current password'), 'right');
    await user.click(screen.getByRole('button', { name: 'Confirm password' }));
    await vi.waitFor(() => {
      expect(onConfirmed).toHaveBeenCalledOnce();
    });
    expect(screen.queryByLabelText('Code')).not.toBeInTheDocument();
  });

  it('when the second factor is only a security key, says to sign in again with it', async () => {
    const { client } = fakeClient({ nextLevel: 'aal2', keys: 1 });
    const { user, onConfirmed } = renderConfirm(client);
    await user.type(screen.getByLabelText('Current password'), 'right');
    await user.click(screen.getByRole('button', { name: 'Confirm password' }));
    expect(await screen.findByRole('alert')).toHaveTextContent(
      'sign out, sign in again with it, then come back here within ten minutes',
    );
    expect(onConfirmed).not.toHaveBeenCalled();
    expect(screen.getByRole('button', { name: 'Sign out and sign in again' })).toBeVisible();
  });

  it('goes on once the new session has been exchanged (what is retried uses its core token)', async () => {
    const store = signedInStore();
    const { client } = fakeClient({
      nextLevel: 'aal1',
      session: { access_token: 'access-fresh' },
    });
    const { user, onConfirmed } = renderConfirm(client, store);
    await user.type(screen.getByLabelText('Current password'), 'right');
    await user.click(screen.getByRole('button', { name: 'Confirm password' }));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(onConfirmed).not.toHaveBeenCalled();
    act(() => {
      store.dispatch(
        signedIn({ user: TEST_USER, accessToken: 'access-fresh', coreToken: 'core-fresh' }),
      );
    });
    await vi.waitFor(() => {
      expect(onConfirmed).toHaveBeenCalledOnce();
    });
  });
});
