import { afterEach, describe, expect, it } from 'vitest';

import { IDENTITY_SESSION_KEY, surelySignedOut } from './storage';

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
