import { screen } from '@testing-library/react';
import type { UserEvent } from '@testing-library/user-event';

/** Opens the top bar's account menu (the avatar button) and answers the menu once it shows. */
export async function openAccountMenu(user: UserEvent): Promise<HTMLElement> {
  await user.click(
    await screen.findByRole('button', { name: 'Account menu' }, { timeout: 15_000 }),
  );
  return screen.findByRole('menu', { name: 'Account menu' }, { timeout: 15_000 });
}
