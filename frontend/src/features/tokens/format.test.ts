import { describe, expect, it } from 'vitest';

import { expiryText, lastUsedText } from './format';

const NOW = Date.parse('2026-12-01T12:00:00Z');

describe('token dates', () => {
  it('says how long a token has left, or that it has expired or was revoked', () => {
    const status = 'active' as const;
    expect(expiryText({ status, expiresAt: '2026-12-31T12:00:01Z' }, NOW)).toBe(
      'expires in 30 days',
    );
    expect(expiryText({ status, expiresAt: '2026-12-02T13:00:00Z' }, NOW)).toBe('expires in 1 day');
    expect(expiryText({ status, expiresAt: '2026-12-01T18:00:00Z' }, NOW)).toBe('expires today');
    expect(expiryText({ status, expiresAt: '2026-12-01T11:00:00Z' }, NOW)).toBe('expired');
    expect(expiryText({ status: 'expired', expiresAt: '2026-12-31T12:00:00Z' }, NOW)).toBe(
      'expired',
    );
    expect(expiryText({ status: 'revoked', expiresAt: '2026-12-31T12:00:00Z' }, NOW)).toBe(
      'revoked',
    );
  });

  it('says when and from where a token was last used, or that it never was', () => {
    expect(lastUsedText({ lastUsedAt: null, lastUsedIp: null })).toBe('Never used');
    expect(lastUsedText({ lastUsedAt: '2026-11-27T12:00:00Z', lastUsedIp: '203.0.113.9' })).toMatch(
      /^Nov 27, 2026, .+ from 203\.0\.113\.9$/,
    );
  });
});
