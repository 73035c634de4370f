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
  const fragment = new URLSearchParams(location.hash.replace(/^#/, ''));
  const query = new URLSearchParams(location.search);
  const starts = ['access_token', 'refresh_token', 'error', 'error_description', 'code', 'type'];
  return !starts.some((name) => fragment.has(name) || query.has(name));
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
