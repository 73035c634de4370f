import type { TokenScope } from '../../api/types';

/**
 * What the create dialog held when the server asked the session to confirm it first (a second factor, or a
 * recent sign-in): kept in this tab while the user goes to the challenge step or signs in again, so that
 * the dialog opens again with it when they come back. Names and scopes only: never a token.
 */
export interface TokenDraft {
  name: string;
  /** An organization id, or `''` for every organization of the user. */
  orgId: string;
  scopes: TokenScope[];
  expiresInDays: number;
}

const KEY = 'devportal.tokenDraft';

export function saveDraft(draft: TokenDraft): void {
  try {
    window.sessionStorage.setItem(KEY, JSON.stringify(draft));
  } catch {
    // No storage (a private window's quota): the user types it again.
  }
}

/** The draft kept in this tab, if any (`clearDraft` forgets it). */
export function readDraft(): TokenDraft | null {
  try {
    const text = window.sessionStorage.getItem(KEY);
    if (!text) return null;
    const value = JSON.parse(text) as Partial<TokenDraft>;
    if (typeof value.name !== 'string' || typeof value.orgId !== 'string') return null;
    return {
      name: value.name,
      orgId: value.orgId,
      scopes: Array.isArray(value.scopes) ? value.scopes : [],
      expiresInDays: typeof value.expiresInDays === 'number' ? value.expiresInDays : 90,
    };
  } catch {
    return null;
  }
}

export function clearDraft(): void {
  try {
    window.sessionStorage.removeItem(KEY);
  } catch {
    // Nothing to clear.
  }
}
