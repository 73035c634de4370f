import { screen, waitFor } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';

import { makeStore } from '../../app/store';
import { authSlice } from '../../session/authSlice';
import { publicConfigWith } from '../../testing/handlers';
import { renderWithProviders } from '../../testing/render';
import { server } from '../../testing/server';
import { SignInPage } from './SignInPage';

const current = vi.hoisted((): { client: unknown } => ({ client: null }));
vi.mock('./AuthClientContext', async (importOriginal) => ({
  ...(await importOriginal<typeof import('./AuthClientContext')>()),
  useAuthClient: () => current.client,
}));

function fakeClient() {
  const signInWithPasskey = vi.fn().mockResolvedValue({ data: {}, error: null });
  current.client = { signInWithPasskey };
  return signInWithPasskey;
}

function signedOut() {
  const store = makeStore();
  store.dispatch(authSlice.actions.signedOut());
  return store;
}

// Issue 48 item 4: at the loopback IP address a passkey works only at `localhost`; the page says so before
// the press, and the press carries over, so that the ceremony starts there at once.
describe('Sign in with a passkey at an address where browsers refuse passkeys', () => {
  it('says before the press where passkeys work and that the button goes there', async () => {
    fakeClient();
    server.use(publicConfigWith({ passkeyOrigin: 'http://passkeys.portal.test:8080' }));
    renderWithProviders(<SignInPage />, { route: '/signin', store: signedOut() });
    const button = await screen.findByRole('button', { name: 'Sign in with a passkey' });
    const hint = await screen.findByText(/Passkeys work at passkeys\.portal\.test:8080/);
    expect(hint).toHaveTextContent('opens this page there and asks for your passkey at once');
    expect(button).toHaveAttribute('aria-describedby', hint.id);
  });

  it('starts the ceremony at once where the press was carried to, and only once', async () => {
    const signInWithPasskey = fakeClient();
    server.use(publicConfigWith({ passkeyOrigin: window.location.origin }));
    const { router } = renderWithProviders(<SignInPage />, {
      route: '/signin?passkey=now',
      store: signedOut(),
    });
    await waitFor(() => {
      expect(signInWithPasskey).toHaveBeenCalledTimes(1);
    });
    await waitFor(() => {
      expect(router.state.location.search).toBe('');
    });
    expect(screen.queryByText(/Passkeys work at/)).toBeNull();
    expect(signInWithPasskey).toHaveBeenCalledTimes(1);
  });

  it('waits for a press when nothing was carried', async () => {
    const signInWithPasskey = fakeClient();
    server.use(publicConfigWith({ passkeyOrigin: window.location.origin }));
    renderWithProviders(<SignInPage />, { route: '/signin', store: signedOut() });
    expect(await screen.findByRole('button', { name: 'Sign in with a passkey' })).toBeEnabled();
    expect(signInWithPasskey).not.toHaveBeenCalled();
  });
});
