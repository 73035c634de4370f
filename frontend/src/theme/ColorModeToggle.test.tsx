import { screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';

import { renderWithProviders } from '../testing/render';
import { ColorModeToggle } from './ColorModeToggle';

describe('ColorModeToggle', () => {
  it('follows the system by default and switches to the chosen scheme', async () => {
    const { user } = renderWithProviders(<ColorModeToggle />);

    const button = screen.getByRole('button', { name: 'Color scheme: system' });
    await user.click(button);
    expect(await screen.findByRole('menuitemradio', { name: 'System' })).toHaveAttribute(
      'aria-checked',
      'true',
    );

    await user.click(screen.getByRole('menuitemradio', { name: 'Dark' }));

    expect(screen.getByRole('button', { name: 'Color scheme: dark' })).toBeInTheDocument();
    expect(window.localStorage.getItem('portal-color-mode')).toBe('dark');
    expect(document.documentElement).toHaveAttribute('data-dark');
  });
});
