import { render, screen, waitFor } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { createMemoryRouter, RouterProvider } from 'react-router';
import { describe, expect, it } from 'vitest';

import { AppProviders } from '../../app/AppProviders';
import { makeStore } from '../../app/store';
import { server } from '../../testing/server';
import { DashboardPage } from './DashboardPage';

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

describe('the dashboard notice of a waiting admin role', () => {
  it('tells an address listed as admin but not yet proven how it gets the role', async () => {
    server.use(
      http.get('*/api/admin/check', () =>
        HttpResponse.json({ isAdmin: false, role: null, roleAwaitsProof: true }),
      ),
    );
    const store = signedInStore();
    const router = createMemoryRouter([{ path: '/dashboard', element: <DashboardPage /> }], {
      initialEntries: ['/dashboard'],
    });
    render(
      <AppProviders store={store}>
        <RouterProvider router={router} />
      </AppProviders>,
    );
    expect(
      await screen.findByText('A platform admin role waits for your address'),
    ).toBeInTheDocument();
    expect(
      screen.getByText(/one-time setup link the server writes to its log/),
    ).toBeInTheDocument();
  });

  it('shows nothing when no role waits', async () => {
    let checked = false;
    server.use(
      http.get('*/api/admin/check', () => {
        checked = true;
        return HttpResponse.json({ isAdmin: false, role: null, roleAwaitsProof: false });
      }),
    );
    const router = createMemoryRouter([{ path: '/dashboard', element: <DashboardPage /> }], {
      initialEntries: ['/dashboard'],
    });
    render(
      <AppProviders store={signedInStore()}>
        <RouterProvider router={router} />
      </AppProviders>,
    );
    await screen.findByText('Developer Dashboard');
    await waitFor(() => {
      expect(checked).toBe(true);
    });
    expect(screen.queryByText('A platform admin role waits for your address')).toBeNull();
  });
});
