import { describe, expect, it } from 'vitest';

import { passwordFormErrors } from './passwordForm';

describe('the change-password form', () => {
  it('asks for every field', () => {
    expect(passwordFormErrors({ current: '', next: '', confirm: '' })).toEqual({
      current: 'Enter your current password.',
      next: 'Enter a new password.',
    });
  });

  it('refuses a new password equal to the current one, and a confirmation that differs', () => {
    expect(
      passwordFormErrors({ current: 'same thing', next: 'same thing', confirm: 'same thing' }),
    ).toEqual({
      next: 'Choose a password that differs from the current one.',
    });
    expect(
      passwordFormErrors({ current: 'old one', next: 'a new one', confirm: 'a new on' }),
    ).toEqual({
      confirm: 'The two new passwords differ.',
    });
  });

  it('passes a complete form', () => {
    expect(
      passwordFormErrors({ current: 'old one', next: 'a new one', confirm: 'a new one' }),
    ).toEqual({});
  });
});
