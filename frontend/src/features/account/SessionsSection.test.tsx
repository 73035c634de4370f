import { screen, within } from '@testing-library/react';
import type { AuthChangeEvent, GoTrueClient } from '@supabase/auth-js';
import { http, HttpResponse } from 'msw';
import { describe, expect, it, vi } from 'vitest';

import { server } from '../../testing/server';
import { renderWithProviders } from '../../testing/render';
import { accountApi, identityKey } from './api';
import { SessionsSection } from './SessionsSection';

const CHROME_LINUX =
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';
const SAFARI_IPHONE =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1';

function session(id: string, current: boolean, userAgent: string | null, ipAddress: string | null) {
  return {
    id,
    current,
    aal: 'aal1',
    method: 'password',
    startedAt: '2026-11-27T10:00:00Z',
    lastUsedAt: '2026-11-27T12:00:00Z',
    userAgent,
    ipAddress,
  };
}

type Listener = (event: AuthChangeEvent) => void;
type SignOut = (options: { scope: string }) => Promise<{ error: null }>;

/** An auth client with `signOut`; `emit` plays an auth event to the section's listener. */
function fakeClient(signOut: SignOut = vi.fn(() => Promise.resolve({ error: null }))) {
  const listeners = new Set<Listener>();
  const onAuthStateChange = vi.fn((listener: Listener) => {
    listeners.add(listener);
    return {
      data: {
        subscription: {
          unsubscribe: () => {
            listeners.delete(listener);
          },
        },
      },
    };
  });
  return {
    client: { signOut, onAuthStateChange } as unknown as GoTrueClient,
    emit: (event: AuthChangeEvent) => {
      listeners.forEach((listener) => {
        listener(event);
      });
    },
  };
}

const client = (signOut?: SignOut) => fakeClient(signOut).client;

const CURRENT = '11111111-1111-4111-8111-111111111111';
const OTHER = '33333333-3333-4333-8333-333333333333';

/** The fake server's sessions: this one and another, until `end()` ends the other. */
function serveTwoSessions() {
  let sessions = [session(CURRENT, true, CHROME_LINUX, null), session(OTHER, false, null, null)];
  let reads = 0;
  server.use(
    http.get('*/api/dev/auth/sessions', () => {
      reads += 1;
      return HttpResponse.json({ sessions });
    }),
  );
  return {
    end: () => {
      sessions = sessions.filter((s) => s.current);
    },
    reads: () => reads,
  };
}

describe('SessionsSection', () => {
  it('lists the sessions with their device and address, this one marked, and signs another out after asking', async () => {
    let sessions = [
      session('11111111-1111-4111-8111-111111111111', true, CHROME_LINUX, '203.0.113.9'),
      session('22222222-2222-4222-8222-222222222222', false, SAFARI_IPHONE, '198.51.100.4'),
    ];
    const deleted: string[] = [];
    server.use(
      http.get('*/api/dev/auth/sessions', () => HttpResponse.json({ sessions })),
      http.delete('*/api/dev/auth/sessions/:id', ({ params }) => {
        deleted.push(String(params.id));
        sessions = sessions.filter((s) => s.id !== params.id);
        return new HttpResponse(null, { status: 204 });
      }),
    );
    const { user } = renderWithProviders(<SessionsSection client={client()} />);
    const list = await screen.findByRole('list', { name: 'Your sessions' });
    expect(within(list).getByText('Chrome on Linux')).toBeInTheDocument();
    expect(within(list).getByText('This device')).toBeInTheDocument();
    expect(within(list).getByText(/198\.51\.100\.4/)).toBeInTheDocument();

    await user.click(screen.getByRole('button', { name: /^Sign out Safari on iPhone/ }));
    const dialog = await screen.findByRole('dialog', { name: 'Sign out this session?' });
    expect(deleted).toEqual([]);
    await user.click(within(dialog).getByRole('button', { name: 'Sign out' }));
    expect(await screen.findByText('Safari on iPhone was signed out.')).toBeInTheDocument();
    expect(deleted).toEqual(['22222222-2222-4222-8222-222222222222']);
    expect(await screen.findByText('You are signed in on this device only.')).toBeInTheDocument();
    expect(
      await screen.findByRole('button', { name: 'Sign out all other sessions' }),
    ).toBeDisabled();
  });

  it('signs every other session out through the auth client after asking, and lists this one only', async () => {
    const sessions = serveTwoSessions();
    const signOut = vi.fn(() => {
      sessions.end();
      return Promise.resolve({ error: null });
    });
    const { user } = renderWithProviders(<SessionsSection client={client(signOut)} />);
    expect(await screen.findByText('Unknown device')).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Sign out all other sessions' }));
    const dialog = await screen.findByRole('dialog', { name: 'Sign out all other sessions?' });
    await user.click(within(dialog).getByRole('button', { name: 'Sign out' }));
    expect(await screen.findByText('Every other session was signed out.')).toBeInTheDocument();
    expect(signOut).toHaveBeenCalledWith({ scope: 'others' });
    // The list says so too, at once: the signed-out session is gone from it.
    expect(await screen.findByText('You are signed in on this device only.')).toBeInTheDocument();
    expect(screen.queryByText('Unknown device')).not.toBeInTheDocument();
    expect(screen.getByText('This device')).toBeInTheDocument();
  });

  it('reads the list again once a first second factor is confirmed (which ends the other aal1 sessions)', async () => {
    const sessions = serveTwoSessions();
    const challengeAndVerify = vi.fn(() => Promise.resolve({ data: {}, error: null }));
    const auth = Object.assign(fakeClient().client, { mfa: { challengeAndVerify } });
    const { store } = renderWithProviders(<SessionsSection client={auth} />);
    expect(await screen.findByText('Unknown device')).toBeInTheDocument();
    const readsBefore = sessions.reads();

    sessions.end();
    await store.dispatch(
      accountApi.endpoints.verifyTotp.initiate({
        key: identityKey(auth),
        factorId: 'f1',
        code: '123456',
      }),
    );

    expect(await screen.findByText('You are signed in on this device only.')).toBeInTheDocument();
    expect(screen.queryByText('Unknown device')).not.toBeInTheDocument();
    expect(sessions.reads()).toBe(readsBefore + 1);
    expect(challengeAndVerify).toHaveBeenCalledWith({ factorId: 'f1', code: '123456' });
  });

  it('does not read the list again for auth events that end no session', async () => {
    const sessions = serveTwoSessions();
    const { client: auth, emit } = fakeClient();
    renderWithProviders(<SessionsSection client={auth} />);
    expect(await screen.findByText('Unknown device')).toBeInTheDocument();
    const readsBefore = sessions.reads();
    emit('TOKEN_REFRESHED');
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(sessions.reads()).toBe(readsBefore);
  });

  it('shows an error with a retry when the list cannot be loaded', async () => {
    server.use(
      http.get('*/api/dev/auth/sessions', () =>
        HttpResponse.json(
          { error: 'The database is unavailable.', code: 'UNAVAILABLE' },
          { status: 503 },
        ),
      ),
    );
    renderWithProviders(<SessionsSection client={client()} />);
    expect(await screen.findByText('The database is unavailable.')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Retry' })).toBeInTheDocument();
  });
});
