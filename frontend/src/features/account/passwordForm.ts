/** The change-password form of Account Security. */
export interface PasswordFields {
  current: string;
  next: string;
  confirm: string;
}

/** What the form itself can tell before asking the identity service. */
export function passwordFormErrors({
  current,
  next,
  confirm,
}: PasswordFields): Partial<Record<keyof PasswordFields, string>> {
  const errors: Partial<Record<keyof PasswordFields, string>> = {};
  if (!current) errors.current = 'Enter your current password.';
  if (!next) errors.next = 'Enter a new password.';
  else if (next === current) errors.next = 'Choose a password that differs from the current one.';
  if (next && confirm !== next) errors.confirm = 'The two new passwords differ.';
  return errors;
}
