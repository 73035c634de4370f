import { AuthClient, type GoTrueClient } from '@supabase/auth-js';

import { IDENTITY_SESSION_KEY } from '../../session/storage';

// For the code that loads this module when it needs the client (the sign-in page's providers).
export { isAuthError } from '@supabase/auth-js';

/**
 * The real Supabase auth client (the one `@supabase/supabase-js` embeds), pointed at the identity service
 * the server names: its own `/auth/v1`, or a hosted Supabase.
 */
export function createAuthClient(authUrl: string, anonKey: string): GoTrueClient {
  const key = `${authUrl}\n${anonKey}`;
  if (current?.key === key) return current.client;
  const client = new AuthClient({
    url: authUrl,
    headers: { apikey: anonKey, Authorization: `Bearer ${anonKey}` },
    storageKey: IDENTITY_SESSION_KEY,
    autoRefreshToken: true,
    persistSession: true,
    // E-mail links come back with the session in the URL fragment.
    detectSessionInUrl: true,
    flowType: 'implicit',
    // `mfa.recoveryCodes` (Account Security and the sign-in's second step).
    experimental: { recoveryCodes: true },
  });
  current = { key, client };
  return client;
}

/**
 * One client per page: it owns the stored session and the refresh timer, so a second one would compete
 * with it. Kept while the server's configuration is fetched again (after a sign-out clears the cache).
 */
let current: { key: string; client: GoTrueClient } | null = null;

/** Where e-mail links and provider sign-in come back to. */
export function authRedirectUrl(inviteToken?: string | null): string {
  const url = new URL('/signin', window.location.origin);
  if (inviteToken) url.searchParams.set('token', inviteToken);
  return url.toString();
}

/** Storage key of the provider sign-in client (apart from the session's). */
export const OAUTH_STORAGE_KEY = 'portal-auth-oauth';

let currentOAuth: { key: string; client: GoTrueClient } | null = null;

/**
 * A second client for provider sign-in only: the identity service answers provider sign-in with the PKCE
 * code flow, while e-mail links come back in the URL fragment (the implicit flow) to the main client. This
 * one keeps only the PKCE verifier across the redirect, and never keeps or refreshes a session: the
 * session it obtains is handed to the main client.
 */
export function createOAuthClient(authUrl: string, anonKey: string): GoTrueClient {
  const key = `${authUrl}\n${anonKey}`;
  if (currentOAuth?.key === key) return currentOAuth.client;
  const client = new AuthClient({
    url: authUrl,
    headers: { apikey: anonKey, Authorization: `Bearer ${anonKey}` },
    storageKey: OAUTH_STORAGE_KEY,
    autoRefreshToken: false,
    persistSession: true,
    detectSessionInUrl: false,
    flowType: 'pkce',
  });
  currentOAuth = { key, client };
  return client;
}

/**
 * Finishes a provider sign-in that came back to this page with `?code=`: exchanges the code (with the
 * verifier kept before the redirect) and hands the session to the main client. Answers an error message,
 * or null.
 */
export async function completeProviderSignIn(
  main: GoTrueClient,
  oauth: GoTrueClient,
  code: string,
): Promise<string | null> {
  const { data, error } = await oauth.exchangeCodeForSession(code);
  // The provider client keeps nothing: the main client owns the session and its refreshes.
  try {
    localStorage.removeItem(OAUTH_STORAGE_KEY);
    localStorage.removeItem(`${OAUTH_STORAGE_KEY}-code-verifier`);
  } catch {
    // Storage unavailable: nothing was kept either.
  }
  if (error) return error.message || 'Sign-in with the provider failed. Please try again.';
  const { error: handOver } = await main.setSession({
    access_token: data.session.access_token,
    refresh_token: data.session.refresh_token,
  });
  return handOver ? handOver.message : null;
}
