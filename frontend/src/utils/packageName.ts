/**
 * Package name rules (specification §5), checked in the Create App form before the server checks the same
 * rules. Both run the vectors in `tests/vectors/package_name.json`.
 *
 * Surrounding white space (and a byte-order mark) is trimmed as the server trims; then, in order, the
 * first problem wins: empty; a character other than `a-z`, `0-9`, `.` and `-`; an empty dot-separated
 * part (`.`, `..`, a leading or trailing dot, two dots in a row), which would be an unreachable path
 * segment (`/apps/../edit`); more than 128 characters.
 */

import { trimBlank } from './url';

export const MAX_PACKAGE_NAME_LENGTH = 128;

export const PACKAGE_NAME_REQUIRED = 'Package name is required';
export const PACKAGE_NAME_INVALID =
  'Package name must use lowercase letters, numbers, dots, and hyphens only';
export const PACKAGE_NAME_EMPTY_PART =
  'Package name cannot start or end with a dot or have two dots in a row';
export const PACKAGE_NAME_TOO_LONG = `Package name must be ${MAX_PACKAGE_NAME_LENGTH} characters or fewer`;

export type PackageNameCheck = { ok: true; value: string } | { ok: false; error: string };

/** Checks a package name as typed; a valid one comes back trimmed, as the server stores it. */
export function checkPackageName(input: string): PackageNameCheck {
  const value = trimBlank(input);
  if (value === '') return { ok: false, error: PACKAGE_NAME_REQUIRED };
  if (!/^[a-z0-9.-]+$/u.test(value)) return { ok: false, error: PACKAGE_NAME_INVALID };
  if (value.split('.').some((part) => part === '')) {
    return { ok: false, error: PACKAGE_NAME_EMPTY_PART };
  }
  // Only ASCII is left, so the string length counts characters.
  if (value.length > MAX_PACKAGE_NAME_LENGTH) return { ok: false, error: PACKAGE_NAME_TOO_LONG };
  return { ok: true, value };
}

/** The message for an invalid package name, or `null` when it is valid. */
export function packageNameError(input: string): string | null {
  const result = checkPackageName(input);
  return result.ok ? null : result.error;
}
