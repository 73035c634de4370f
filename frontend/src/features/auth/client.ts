import { AuthClient, type GoTrueClient } from '@supabase/auth-js';

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
    storageKey: 'portal-auth',
    autoRefreshToken: true,
    persistSession: true,
    // E-mail links come back with the session in the URL fragment.
    detectSessionInUrl: true,
    flowType: 'implicit',
  });
  current = { key, client };
  return client;
}

/**
 * One client per page: it owns the stored session and the refresh timer, so a second one would compete
 * with it. Kept while the server's configuration is fetched again (after a sign-out clears the cache).
 */
let current: { key: string; client: GoTrueClient } | null = null;

/** The client made last, if any. */
export function currentAuthClient(): GoTrueClient | null {
  return current?.client ?? null;
}

/** Where e-mail links and provider sign-in come back to. */
export function authRedirectUrl(inviteToken?: string | null): string {
  const url = new URL('/signin', window.location.origin);
  if (inviteToken) url.searchParams.set('token', inviteToken);
  return url.toString();
}
