import { describe, expect, it } from 'vitest';

import { checkPackageName, packageNameError } from './packageName';

type Vector =
  { input: string; valid: true; expected: string } | { input: string; valid: false; error: string };

// The vectors the Rust domain runs too (tests/vectors at the repository root).
const files = import.meta.glob<{ cases: Vector[] }>('../../../tests/vectors/package_name.json', {
  eager: true,
  import: 'default',
});
const vectors = Object.values(files)[0]?.cases ?? [];
const accepted = vectors.filter((v): v is Extract<Vector, { valid: true }> => v.valid);
const refused = vectors.filter((v): v is Extract<Vector, { valid: false }> => !v.valid);

describe('checkPackageName', () => {
  it('has the shared vectors to run', () => {
    expect(accepted.length).toBeGreaterThanOrEqual(5);
    expect(refused.length).toBeGreaterThanOrEqual(15);
  });

  it.each(accepted)('accepts $input', ({ input, expected }) => {
    expect(checkPackageName(input)).toEqual({ ok: true, value: expected });
    expect(packageNameError(input)).toBeNull();
  });

  it.each(refused)('refuses $input with "$error"', ({ input, error }) => {
    expect(checkPackageName(input)).toEqual({ ok: false, error });
    expect(packageNameError(input)).toBe(error);
  });
});
