import { describe, expect, it } from 'vitest';

import { checkPublicUrl, checkServerUrl, normaliseServerUrl, normaliseUrl, trimBlank } from './url';

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

interface LocalVector {
  input: string;
  local: string;
  standard: string;
  result: 'valid' | 'invalid' | 'empty';
}

const localFiles = import.meta.glob<{ cases: LocalVector[] }>(
  '../../../tests/vectors/server_url_local.json',
  { eager: true, import: 'default' },
);
const localVectors = Object.values(localFiles)[0]?.cases ?? [];

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

describe('normaliseServerUrl and checkServerUrl (local development)', () => {
  it('has the shared vectors to run', () => {
    expect(localVectors.length).toBeGreaterThanOrEqual(20);
  });

  it.each(localVectors)('keeps or upgrades $input', ({ input, local, standard, result }) => {
    expect(normaliseServerUrl(input, true)).toBe(local);
    expect(normaliseServerUrl(local, true)).toBe(local);
    expect(normaliseServerUrl(input, false)).toBe(standard);
    expect(normaliseServerUrl(input)).toBe(standard);
    const check = checkServerUrl(input, true);
    if (result === 'valid') {
      expect(check).toEqual({ ok: true, value: local });
    } else {
      expect(check).toEqual({ ok: false, problem: result });
    }
  });

  it('never keeps http:// without the local rule', () => {
    expect(checkServerUrl('http://localhost:3000')).toEqual({
      ok: true,
      value: 'https://localhost:3000',
    });
    expect(checkPublicUrl('http://localhost:3000')).toEqual({
      ok: true,
      value: 'https://localhost:3000',
    });
  });
});

describe('trimBlank', () => {
  it('trims the byte-order mark and U+0085 like the server', () => {
    expect(trimBlank('\uFEFF\u0085 a b \u00A0\uFEFF')).toBe('a b');
  });
});
