import type { PublicConfig } from '../publicConfig';

/**
 * Where the page's identity client calls. The built-in identity service is this very server, so it is
 * called on the origin the page was loaded from (the path the server names, on this page's scheme, host
 * and port): a portal reached at both `127.0.0.1` and `localhost` (passkeys need the name) then works at
 * either, whatever `PORTAL_PUBLIC_URL` says, and the page's Content-Security-Policy (`connect-src 'self'`)
 * allows the calls. A hosted Supabase is called where the server says. Empty while unknown.
 */
export function identityAuthUrl(
  identity: PublicConfig['identity'],
  here: string | undefined = typeof window === 'undefined' ? undefined : window.location.origin,
): string {
  if (identity.kind !== 'builtin' || !identity.authUrl || !here) return identity.authUrl;
  try {
    const named = new URL(identity.authUrl);
    return `${here}${named.pathname.replace(/\/+$/, '')}`;
  } catch {
    return identity.authUrl;
  }
}
