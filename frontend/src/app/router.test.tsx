import { screen, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';

import { renderRoute } from '../testing/render';

describe('router', () => {
  it('shows the landing page at /', async () => {
    renderRoute('/');

    expect(
      await screen.findByRole('heading', {
        level: 1,
        name: 'The best way to build apps for smart glasses',
      }),
    ).toBeInTheDocument();
  });

  it.each(['/nope', '/apps/com.example.app/settings', '/dashboard/extra'])(
    'sends the unknown path %s to the 404 page',
    async (path) => {
      const { router } = renderRoute(path);

      expect(
        await screen.findByRole('heading', { level: 1, name: 'Page not found' }),
      ).toBeInTheDocument();
      expect(screen.getByRole('link', { name: 'Back to Dashboard' })).toHaveAttribute(
        'href',
        '/dashboard',
      );
      expect(router.state.location.pathname).toBe(path);
    },
  );

  it('moves from the landing page to the sign-in route', async () => {
    const { router, user } = renderRoute('/');

    await user.click(await screen.findByRole('link', { name: 'Sign In' }));

    await waitFor(() => {
      expect(router.state.location.pathname).toBe('/signin');
    });
  });
});
