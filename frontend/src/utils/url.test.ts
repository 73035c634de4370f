import { describe, expect, it } from 'vitest';

import { checkPublicUrl, normaliseUrl, trimBlank } from './url';

interface Vector {
  input: string;
  expected: string;
  result: 'valid' | 'invalid' | 'empty';
}

// The vectors the Rust domain runs too (tests/vectors at the repository root).
const files = import.meta.glob<{ cases: Vector[] }>(
  '../../../tests/vectors/url_normalisation.json',
  {
    eager: true,
    import: 'default',
  },
);
const vectors = Object.values(files)[0]?.cases ?? [];

describe('normaliseUrl', () => {
  it('has the shared vectors to run', () => {
    expect(vectors.length).toBeGreaterThanOrEqual(50);
  });

  it.each(vectors)('normalises $input', ({ input, expected }) => {
    expect(normaliseUrl(input)).toBe(expected);
  });

  it.each(vectors)('is idempotent on $input', ({ input }) => {
    const once = normaliseUrl(input);
    expect(normaliseUrl(once)).toBe(once);
  });
});

describe('checkPublicUrl', () => {
  it.each(vectors)('finds $input $result', ({ input, expected, result }) => {
    const check = checkPublicUrl(input);
    if (result === 'valid') {
      expect(check).toEqual({ ok: true, value: expected });
    } else {
      expect(check).toEqual({ ok: false, problem: result });
    }
  });

  it('refuses a URL over 2048 characters', () => {
    const host = 'https://example.com/';
    expect(checkPublicUrl(host + 'a'.repeat(2048 - host.length)).ok).toBe(true);
    expect(checkPublicUrl(host + 'a'.repeat(2049 - host.length))).toEqual({
      ok: false,
      problem: 'invalid',
    });
  });
});

describe('trimBlank', () => {
  it('trims the byte-order mark and U+0085 like the server', () => {
    expect(trimBlank('\uFEFF\u0085 a b \u00A0\uFEFF')).toBe('a b');
  });
});
