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
