import { http, HttpResponse } from 'msw';

/** The test user's id in the identity service. */
export const TEST_USER_ID = '7d1f1e4e-1111-4c3a-9d55-2f1b1d6c0a01';

/** A session as the identity service answers it (and as its client stores it), for `email`. */
export function identitySession(email: string, accessToken = 'access-1') {
  return {
    access_token: accessToken,
    token_type: 'bearer',
    expires_in: 3600,
    expires_at: Math.floor(Date.now() / 1000) + 3600,
    refresh_token: 'refresh-1',
    user: {
      id: TEST_USER_ID,
      aud: 'authenticated',
      role: 'authenticated',
      email,
      app_metadata: { provider: 'email', providers: ['email'] },
      user_metadata: {},
      created_at: new Date().toISOString(),
    },
  };
}

/**
 * What Account Security reads when it opens for `email`: the account (with `factors`), its other sessions
 * (none) and its passkeys (none). A test that ends on that page serves these, or the requests it makes
 * while the page loads fail the test.
 */
export function accountSecurityHandlers(email: string, factors: unknown[] = []) {
  return [
    http.get('*/auth/v1/user', () =>
      HttpResponse.json({ ...identitySession(email).user, factors }),
    ),
    http.get('*/api/dev/auth/sessions', () => HttpResponse.json({ sessions: [] })),
    http.get('*/auth/v1/passkeys', () => HttpResponse.json([])),
  ];
}

/** An identity access token shaped as the service signs it (a JWT with `claims`; its signature is not checked). */
export function identityJwt(claims: Record<string, unknown>): string {
  const part = (value: unknown) =>
    btoa(JSON.stringify(value)).replace(/=+$/, '').replace(/\+/g, '-').replace(/\//g, '_');
  return `${part({ alg: 'HS256', typ: 'JWT' })}.${part({ sub: TEST_USER_ID, ...claims })}.c2lnbmF0dXJl`;
}

/**
 * What a fake identity client answers when `ConfirmPassword` asks, after the password, whether the new
 * session must still pass a second factor: `nextLevel` `aal2` when the account has one.
 */
export function assuranceOf(nextLevel: 'aal1' | 'aal2', session: unknown = null) {
  return {
    mfa: {
      getAuthenticatorAssuranceLevel: () =>
        Promise.resolve({
          data: { currentLevel: 'aal1', nextLevel, currentAuthenticationMethods: [] },
          error: null,
        }),
    },
    getSession: () => Promise.resolve({ data: { session }, error: null }),
  };
}
