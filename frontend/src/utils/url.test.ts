import { describe, expect, it } from 'vitest';

import { normaliseUrl } from './url';

interface Vector {
  input: string;
  expected: string;
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
    expect(vectors.length).toBeGreaterThanOrEqual(20);
  });

  it.each(vectors)('normalises $input', ({ input, expected }) => {
    expect(normaliseUrl(input)).toBe(expected);
  });

  it.each(vectors)('is idempotent on $input', ({ input }) => {
    const once = normaliseUrl(input);
    expect(normaliseUrl(once)).toBe(once);
  });
});
