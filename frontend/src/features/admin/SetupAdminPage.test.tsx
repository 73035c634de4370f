import { render, screen } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { createMemoryRouter, RouterProvider } from 'react-router';
import { describe, expect, it } from 'vitest';

import { AppProviders } from '../../app/AppProviders';
import { makeStore } from '../../app/store';
import { server } from '../../testing/server';
import { SetupAdminPage } from './SetupAdminPage';

function signedInStore() {
  return makeStore({
    auth: {
      status: 'signedIn',
      user: { id: 'u-ada', email: 'ada@example.com' },
      accessToken: 'access-1',
      coreToken: 'core-1',
      recovery: false,
      notice: null,
    },
  });
}

function renderAt(route: string) {
  const store = signedInStore();
  const router = createMemoryRouter([{ path: '/setup-admin', element: <SetupAdminPage /> }], {
    initialEntries: [route],
  });
  render(
    <AppProviders store={store}>
      <RouterProvider router={router} />
    </AppProviders>,
  );
}

describe('SetupAdminPage', () => {
  it('sends the token once, shows progress, then success with a link to the Admin Panel', async () => {
    const sent: unknown[] = [];
    server.use(
      http.post('*/api/admin/setup', async ({ request }) => {
        sent.push(await request.json());
        return HttpResponse.json({ isAdmin: true, role: 'admin', roleAwaitsProof: false });
      }),
      // The new role is read again once the setup answered.
      http.get('*/api/admin/check', () => HttpResponse.json({ isAdmin: true, role: 'admin' })),
    );
    renderAt('/setup-admin?token=abc123');
    expect(screen.getByRole('status')).toHaveTextContent(/Making you the first platform admin/);
    expect(await screen.findByText(/You are now a platform admin/)).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Open the Admin Panel' })).toHaveAttribute(
      'href',
      '/admin',
    );
    expect(sent).toEqual([{ token: 'abc123' }]);
    expect(document.title).toBe('Platform setup · Developer Portal');
  });

  it('shows why a used or expired link did nothing', async () => {
    server.use(
      http.post('*/api/admin/setup', () =>
        HttpResponse.json(
          {
            error:
              'This setup link is not valid: it was used already, has expired, or was replaced.',
          },
          { status: 400 },
        ),
      ),
    );
    renderAt('/setup-admin?token=used');
    expect(await screen.findByText(/This setup link is not valid/)).toBeInTheDocument();
    expect(screen.getByText(/app-server admin grant EMAIL/)).toBeInTheDocument();
  });

  it('says so when the link has no token', () => {
    renderAt('/setup-admin');
    expect(screen.getByText(/This link has no setup token/)).toBeInTheDocument();
  });
});
