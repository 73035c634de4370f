import { act, screen } from '@testing-library/react';
import { StrictMode } from 'react';
import { hydrateRoot, type Root } from 'react-dom/client';
import { createMemoryRouter, RouterProvider } from 'react-router';
import { http, HttpResponse } from 'msw';
import { describe, expect, it, vi } from 'vitest';

import { AppProviders } from '../../app/AppProviders';
import { routes } from '../../app/router';
import { makeStore } from '../../app/store';
import { renderPage } from '../../prerender';
import { authSlice } from '../../session/authSlice';
import { server } from '../../testing/server';

vi.setConfig({ testTimeout: 20_000 });

describe('taking over the prerendered sign-in page', () => {
  it('an invitation link (/signin?token=…) hydrates without a mismatch, then shows the invitation', async () => {
    server.use(
      http.get('*/api/invites/:token', () =>
        HttpResponse.json({
          success: true,
          data: {
            organizationName: 'Acme',
            inviter: 'ada@example.com',
            emailHint: 'b\u2022\u2022\u2022@example.com',
            status: 'open',
            expiresAt: '2026-12-05T10:00:00Z',
          },
        }),
      ),
    );
    const { body } = await renderPage('/signin');
    const container = document.createElement('div');
    container.innerHTML = body;
    document.body.appendChild(container);

    const router = createMemoryRouter(routes, { initialEntries: ['/signin?token=invite-1'] });
    await vi.waitFor(() => {
      expect(router.state.initialized).toBe(true);
    });
    const store = makeStore({ auth: { ...authSlice.getInitialState(), status: 'signedOut' } });
    const recoverable = vi.fn();
    let root: Root | undefined;
    await act(async () => {
      root = hydrateRoot(
        container,
        <StrictMode>
          <AppProviders store={store}>
            <RouterProvider router={router} />
          </AppProviders>
        </StrictMode>,
        { onRecoverableError: recoverable },
      );
      await Promise.resolve();
    });
    expect(await screen.findByText('You have been invited to Acme')).toBeInTheDocument();
    expect(recoverable).not.toHaveBeenCalled();
    // Unmounted here, so that no React work is left scheduled when the test environment goes away.
    act(() => {
      root?.unmount();
    });
    container.remove();
  });
});
