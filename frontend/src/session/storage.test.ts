import { afterEach, describe, expect, it } from 'vitest';

import {
  CORE_TOKEN_KEY,
  IDENTITY_SESSION_KEY,
  STORED_TOKEN_MARGIN_MS,
  storedCoreSession,
  surelySignedOut,
} from './storage';

const at = (hash = '', search = '') => ({ hash, search });

describe('surelySignedOut', () => {
  afterEach(() => {
    localStorage.clear();
  });

  it('is true without a stored session and without a sign-in in the address', () => {
    expect(surelySignedOut(at())).toBe(true);
    expect(surelySignedOut(at('', '?token=invite-1'))).toBe(true);
    expect(surelySignedOut(at('#main'))).toBe(true);
  });

  it('is false when the identity client has a session stored', () => {
    localStorage.setItem(IDENTITY_SESSION_KEY, '{"access_token":"a"}');
    expect(surelySignedOut(at())).toBe(false);
  });

  it('is false when an e-mail link or a provider brings a sign-in', () => {
    expect(surelySignedOut(at('#access_token=a&refresh_token=r&type=signup'))).toBe(false);
    expect(surelySignedOut(at('#error=access_denied&error_description=expired'))).toBe(false);
    expect(surelySignedOut(at('', '?code=abc'))).toBe(false);
    expect(surelySignedOut(at('', '?error_description=denied'))).toBe(false);
  });
});

describe('storedCoreSession', () => {
  afterEach(() => {
    localStorage.clear();
  });

  const NOW = Date.UTC(2026, 10, 24, 12, 0, 0);
  // Base64url of the UTF-8 JSON, as a JWT has it.
  const part = (value: unknown) =>
    btoa(String.fromCharCode(...new TextEncoder().encode(JSON.stringify(value))))
      .replace(/=+$/, '')
      .replace(/\+/g, '-')
      .replace(/\//g, '_');
  const token = (claims: Record<string, unknown>) =>
    `${part({ alg: 'HS256', typ: 'JWT' })}.${part(claims)}.sig`;
  const store = (coreToken: string, identityUserId = 'u-1') => {
    localStorage.setItem(CORE_TOKEN_KEY, coreToken);
    localStorage.setItem(IDENTITY_SESSION_KEY, JSON.stringify({ user: { id: identityUserId } }));
  };
  const inSeconds = (seconds: number) => Math.floor(NOW / 1000) + seconds;

  it('answers the user and the token while it has time left', () => {
    const core = token({ sub: 'u-1', email: 'ådå@example.com', exp: inSeconds(600) });
    store(core);
    expect(storedCoreSession(NOW)).toEqual({
      user: { id: 'u-1', email: 'ådå@example.com' },
      coreToken: core,
      expiresAt: inSeconds(600) * 1000,
    });
  });

  it('is null for a token that has expired or is about to', () => {
    store(token({ sub: 'u-1', email: 'a@example.com', exp: inSeconds(-1) }));
    expect(storedCoreSession(NOW)).toBeNull();
    store(
      token({ sub: 'u-1', email: 'a@example.com', exp: inSeconds(STORED_TOKEN_MARGIN_MS / 2000) }),
    );
    expect(storedCoreSession(NOW)).toBeNull();
  });

  it("is null without the identity session, or when it is another user's", () => {
    const core = token({ sub: 'u-1', email: 'a@example.com', exp: inSeconds(600) });
    localStorage.setItem(CORE_TOKEN_KEY, core);
    expect(storedCoreSession(NOW)).toBeNull();
    store(core, 'u-2');
    expect(storedCoreSession(NOW)).toBeNull();
  });

  it('is null for anything that is not a core token', () => {
    store('not a token');
    expect(storedCoreSession(NOW)).toBeNull();
    store('a.%%%.c');
    expect(storedCoreSession(NOW)).toBeNull();
    store(token({ sub: 'u-1', exp: inSeconds(600) }));
    expect(storedCoreSession(NOW)).toBeNull();
    store(token({ sub: 'u-1', email: 'a@example.com', exp: inSeconds(600) }));
    localStorage.setItem(IDENTITY_SESSION_KEY, 'null');
    expect(storedCoreSession(NOW)).toBeNull();
  });
});
