import { screen, within } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';

import { renderRoute } from '../../testing/render';

// The dictionaries' loader, watched: it never answers here, so the meter stays at "Checking strength…".
const load = vi.hoisted(() => vi.fn(() => new Promise<never>(() => undefined)));
vi.mock('./strengthLoader', () => ({ loadPasswordStrength: load }));

describe('the password-strength dictionaries', () => {
  it('start loading when a new-password field gets focus, not for signing in', async () => {
    const { user } = renderRoute('/signin');
    await user.click(await screen.findByRole('button', { name: 'Continue with Email' }));
    const dialog = await screen.findByRole('dialog');

    await user.click(await within(dialog).findByLabelText(/^Password/));
    expect(load).not.toHaveBeenCalled();

    await user.click(
      within(dialog).getByRole('button', { name: "Don't have an account? Create one" }),
    );
    await user.click(within(dialog).getByLabelText(/^Password/));
    expect(load).toHaveBeenCalled();
  });
});
