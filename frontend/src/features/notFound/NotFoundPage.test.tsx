import { screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';

import { renderWithProviders } from '../../testing/render';
import { NotFoundPage } from './NotFoundPage';

describe('NotFoundPage', () => {
  it('is titled Page not found and links back to /dashboard', async () => {
    const { router, user } = renderWithProviders(<NotFoundPage />, { route: '/nope' });

    expect(screen.getByRole('heading', { level: 1, name: 'Page not found' })).toBeInTheDocument();
    const back = screen.getByRole('link', { name: 'Back to Dashboard' });
    expect(back).toHaveAttribute('href', '/dashboard');

    await user.click(back);
    expect(router.state.location.pathname).toBe('/dashboard');
  });
});
