/** A tester address must look like one: text, at-sign, text, dot, text (spec §5). */
const TESTER_EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export const INVALID_TESTER_EMAIL = 'Please enter a valid email address';

export function isTesterEmail(value: string): boolean {
  return TESTER_EMAIL.test(value.trim());
}

/** The list with `email` added, unless it is already there (compared case-insensitively). */
export function addTester(list: string[], email: string): string[] {
  const trimmed = email.trim();
  if (list.some((existing) => existing.toLowerCase() === trimmed.toLowerCase())) return list;
  return [...list, trimmed];
}
