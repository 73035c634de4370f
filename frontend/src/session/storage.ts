/**
 * What the specification keeps in local storage (§3): the core token and the
 * user's e-mail. The identity client keeps its own session under its own key.
 */
export const CORE_TOKEN_KEY = 'coreToken';
export const USER_EMAIL_KEY = 'userEmail';
/** Where the identity client keeps its session. */
export const IDENTITY_SESSION_KEY = 'portal-auth';

/**
 * True when this page can have no session: the identity client has none stored and the address carries
 * nothing that starts one (an e-mail link's fragment, a provider's `?code=` or its error). The first
 * render can then show the signed-out pages at once instead of waiting for the identity client.
 */
export function surelySignedOut(location: Pick<Location, 'hash' | 'search'>): boolean {
  let stored: string | null;
  try {
    stored = localStorage.getItem(IDENTITY_SESSION_KEY);
  } catch {
    return false;
  }
  if (stored) return false;
  return !addressStartsSession(location);
}

/** True when the address carries something that starts or ends a session (e-mail link, provider return). */
export function addressStartsSession(location: Pick<Location, 'hash' | 'search'>): boolean {
  const fragment = new URLSearchParams(location.hash.replace(/^#/, ''));
  const query = new URLSearchParams(location.search);
  const starts = ['access_token', 'refresh_token', 'error', 'error_description', 'code', 'type'];
  return starts.some((name) => fragment.has(name) || query.has(name));
}

/** A core token kept from an earlier visit, and whom it names. */
export interface StoredCoreSession {
  user: { id: string; email: string };
  coreToken: string;
  /** When the token expires, in milliseconds since the epoch. */
  expiresAt: number;
}

/**
 * A stored core token with less time than this left is not used to start a page: it would expire while the
 * page loads. The identity client (which refreshes the session and exchanges it again) decides instead.
 */
export const STORED_TOKEN_MARGIN_MS = 60_000;

/** A JWT's claims, read without checking the signature (the server checks it). */
function decodedClaims(token: string): Record<string, unknown> | null {
  const payload = token.split('.')[1];
  if (!payload) return null;
  const base64 = payload.replace(/-/g, '+').replace(/_/g, '/');
  const bytes = Uint8Array.from(atob(base64.padEnd(Math.ceil(base64.length / 4) * 4, '=')), (c) =>
    c.charCodeAt(0),
  );
  return JSON.parse(new TextDecoder().decode(bytes)) as Record<string, unknown>;
}

/**
 * The assurance level a token claims (`aal1`, `aal2`), or `null` when it claims none or is not a JWT: what
 * the page shows before the API is asked (the API decides).
 */
export function tokenAal(token: string | null): string | null {
  if (!token) return null;
  try {
    const aal = decodedClaims(token)?.aal;
    return typeof aal === 'string' ? aal : null;
  } catch {
    return null;
  }
}

/** The claims of a JWT this page needs, read without checking the signature (the server checks it). */
function tokenClaims(token: string): { sub: string; email: string; exp: number } | null {
  const claims = decodedClaims(token);
  if (!claims) return null;
  const { sub, email, exp } = claims;
  if (typeof sub !== 'string' || typeof email !== 'string' || typeof exp !== 'number') return null;
  return { sub, email, exp };
}

/**
 * The core token stored by the last exchange, when a signed-in page can start from it before the identity
 * client has loaded: the identity client still has a session of the same user, and the token is valid for
 * at least {@link STORED_TOKEN_MARGIN_MS} more. The page then treats the session as provisional until the
 * identity client confirms it (a fresh exchange) or ends it; the API refusing the token also ends its use.
 */
export function storedCoreSession(now: number = Date.now()): StoredCoreSession | null {
  try {
    const coreToken = localStorage.getItem(CORE_TOKEN_KEY);
    const identity = localStorage.getItem(IDENTITY_SESSION_KEY);
    if (!coreToken || !identity) return null;
    const claims = tokenClaims(coreToken);
    const identityUser = (JSON.parse(identity) as { user?: { id?: unknown } } | null)?.user;
    if (!claims || identityUser?.id !== claims.sub) return null;
    const expiresAt = claims.exp * 1000;
    if (expiresAt - now < STORED_TOKEN_MARGIN_MS) return null;
    return { user: { id: claims.sub, email: claims.email }, coreToken, expiresAt };
  } catch {
    // Storage unavailable, or something in it that is not what this page wrote: start without it.
    return null;
  }
}

export function rememberSession(coreToken: string | null, email: string) {
  try {
    if (coreToken) localStorage.setItem(CORE_TOKEN_KEY, coreToken);
    else localStorage.removeItem(CORE_TOKEN_KEY);
    localStorage.setItem(USER_EMAIL_KEY, email);
  } catch {
    // Storage can be unavailable (private mode, quota); the session still works in memory.
  }
}

export function forgetSession() {
  try {
    localStorage.removeItem(CORE_TOKEN_KEY);
    localStorage.removeItem(USER_EMAIL_KEY);
  } catch {
    // See above.
  }
}

/** Removes the stored core token if it is still `coreToken` (the API refused it). */
export function forgetStoredCoreToken(coreToken: string) {
  try {
    if (localStorage.getItem(CORE_TOKEN_KEY) === coreToken) localStorage.removeItem(CORE_TOKEN_KEY);
  } catch {
    // Storage unavailable: nothing to forget.
  }
}
