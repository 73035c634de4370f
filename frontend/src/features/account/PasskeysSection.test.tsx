import { screen, within } from '@testing-library/react';
import { AuthApiError, type GoTrueClient, type PasskeyListItem } from '@supabase/auth-js';
import { describe, expect, it, vi } from 'vitest';

import { signedInStore, TEST_USER } from '../../testing/apps';
import { publicConfigWith } from '../../testing/handlers';
import { assuranceOf } from '../../testing/identity';
import { renderWithProviders } from '../../testing/render';
import { server } from '../../testing/server';
import { PasskeysSection } from './PasskeysSection';

const laptop: PasskeyListItem = {
  id: 'p1',
  friendly_name: 'Work laptop',
  created_at: '2026-11-20T10:00:00Z',
};

/** An identity client whose passkey calls answer as given. */
function clientWith(passkey: Partial<GoTrueClient['passkey']>, registerPasskey = vi.fn()) {
  return { passkey, registerPasskey } as unknown as GoTrueClient;
}

describe('the Passkeys section', () => {
  it('lists the passkeys with when they were added and last used', async () => {
    const list = vi.fn().mockResolvedValue({
      data: [
        laptop,
        { ...laptop, id: 'p2', friendly_name: undefined, last_used_at: '2026-11-21T10:00:00Z' },
      ],
      error: null,
    });
    renderWithProviders(<PasskeysSection client={clientWith({ list })} />);
    const items = within(await screen.findByRole('list', { name: 'Your passkeys' })).getAllByRole(
      'listitem',
    );
    expect(items).toHaveLength(2);
    expect(items[0]).toHaveTextContent('Work laptop');
    expect(items[0]).toHaveTextContent('never used');
    expect(items[1]).toHaveTextContent('Passkey');
    expect(items[1]).toHaveTextContent('last used');
  });

  it('says when there is none, and shows a refused list with a retry', async () => {
    const list = vi
      .fn()
      .mockResolvedValueOnce({
        data: null,
        error: { code: 'unexpected_failure', message: 'Passkeys could not be read' },
      })
      .mockResolvedValueOnce({ data: [], error: null });
    const { user } = renderWithProviders(<PasskeysSection client={clientWith({ list })} />);
    expect(await screen.findByText('Passkeys could not be read')).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Retry' }));
    expect(await screen.findByText('No passkey yet.')).toBeInTheDocument();
  });

  it('says that a server without passkeys has none, and offers no way to add one', async () => {
    const list = vi.fn().mockResolvedValue({
      data: null,
      error: { code: 'passkey_disabled', message: 'Passkeys are disabled' },
    });
    renderWithProviders(<PasskeysSection client={clientWith({ list })} />);
    expect(
      await screen.findByText('Passkeys are not available on this server.'),
    ).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Add a passkey' })).not.toBeInTheDocument();
  });

  it('at an address where browsers refuse passkeys, lists them and links to where they can be added', async () => {
    server.use(publicConfigWith({ passkeyOrigin: 'http://passkeys.portal.test:8080' }));
    const list = vi.fn().mockResolvedValue({ data: [laptop], error: null });
    renderWithProviders(<PasskeysSection client={clientWith({ list })} />);
    const link = await screen.findByRole('link', { name: 'http://passkeys.portal.test:8080' });
    expect(link).toHaveAttribute(
      'href',
      `http://passkeys.portal.test:8080${window.location.pathname}${window.location.search}`,
    );
    expect(screen.getByRole('list', { name: 'Your passkeys' })).toHaveTextContent('Work laptop');
    expect(screen.queryByRole('button', { name: 'Add a passkey' })).not.toBeInTheDocument();
  });

  it('adds a passkey and gives it the name typed', async () => {
    const list = vi
      .fn()
      .mockResolvedValueOnce({ data: [], error: null })
      .mockResolvedValue({ data: [laptop], error: null });
    const update = vi.fn().mockResolvedValue({ data: laptop, error: null });
    const registerPasskey = vi.fn().mockResolvedValue({
      data: { id: 'p1', friendly_name: 'Passkey', created_at: laptop.created_at },
      error: null,
    });
    const { user } = renderWithProviders(
      <PasskeysSection client={clientWith({ list, update }, registerPasskey)} />,
    );
    await screen.findByText('No passkey yet.');
    await user.type(screen.getByLabelText('Passkey name'), 'Work laptop');
    await user.click(screen.getByRole('button', { name: 'Add a passkey' }));
    expect(await screen.findByText(/Your passkey is set up/)).toBeInTheDocument();
    expect(update).toHaveBeenCalledWith({ passkeyId: 'p1', friendlyName: 'Work laptop' });
    expect(await screen.findByText('Work laptop')).toBeInTheDocument();
  });

  it('names a passkey added without a name after the browser that made it', async () => {
    vi.spyOn(navigator, 'userAgent', 'get').mockReturnValue(
      'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Safari/537.36',
    );
    const list = vi.fn().mockResolvedValue({ data: [], error: null });
    const update = vi.fn().mockResolvedValue({ data: laptop, error: null });
    const registerPasskey = vi.fn().mockResolvedValue({
      data: { id: 'p1', friendly_name: 'Passkey', created_at: laptop.created_at },
      error: null,
    });
    const { user } = renderWithProviders(
      <PasskeysSection client={clientWith({ list, update }, registerPasskey)} />,
    );
    await screen.findByText('No passkey yet.');
    await user.click(screen.getByRole('button', { name: 'Add a passkey' }));
    expect(await screen.findByText(/Your passkey is set up/)).toBeInTheDocument();
    expect(update).toHaveBeenCalledWith({ passkeyId: 'p1', friendlyName: 'Chrome on Linux' });
    vi.restoreAllMocks();
  });

  it('says so when the browser made no passkey', async () => {
    const list = vi.fn().mockResolvedValue({ data: [], error: null });
    const registerPasskey = vi.fn().mockResolvedValue({
      data: null,
      error: { code: 'ERROR_CEREMONY_ABORTED', name: 'WebAuthnError', message: 'aborted' },
    });
    const { user } = renderWithProviders(
      <PasskeysSection client={clientWith({ list }, registerPasskey)} />,
    );
    await screen.findByText('No passkey yet.');
    await user.click(screen.getByRole('button', { name: 'Add a passkey' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('The passkey was not created');
  });
});

describe('adding a first passkey long after signing in', () => {
  it('asks for the password, signs in again with it and adds the passkey', async () => {
    const list = vi.fn().mockResolvedValue({ data: [], error: null });
    const registerPasskey = vi
      .fn()
      .mockResolvedValueOnce({
        data: null,
        error: new AuthApiError('Sign in again first.', 400, 'reauthentication_needed'),
      })
      .mockResolvedValue({ data: { ...laptop, friendly_name: 'Work laptop' }, error: null });
    const signInWithPassword = vi.fn().mockResolvedValue({ data: {}, error: null });
    const client = {
      ...assuranceOf('aal1'),
      passkey: { list, update: vi.fn() },
      registerPasskey,
      signInWithPassword,
    } as unknown as GoTrueClient;
    const added = vi.fn();
    const { user } = renderWithProviders(<PasskeysSection client={client} onAdded={added} />, {
      store: signedInStore(),
    });
    await screen.findByText('No passkey yet.');
    await user.type(screen.getByLabelText('Passkey name'), 'Work laptop');
    await user.click(screen.getByRole('button', { name: 'Add a passkey' }));
    await user.type(await screen.findByLabelText('Current password'), 'my password');
    await user.click(screen.getByRole('button', { name: 'Confirm password' }));
    expect(
      await screen.findByText('Your passkey is set up. Use it to sign in without a password.'),
    ).toBeInTheDocument();
    expect(signInWithPassword).toHaveBeenCalledWith({
      email: TEST_USER.email,
      password: 'my password',
    });
    expect(registerPasskey).toHaveBeenCalledTimes(2);
    expect(added).toHaveBeenCalledOnce();
    expect(screen.queryByLabelText('Current password')).not.toBeInTheDocument();
  });
});
