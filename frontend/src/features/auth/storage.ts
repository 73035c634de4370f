/**
 * What the specification keeps in local storage (§3): the core token and the
 * user's e-mail. The identity client keeps its own session under its own key.
 */
export const CORE_TOKEN_KEY = 'coreToken';
export const USER_EMAIL_KEY = 'userEmail';

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
