import type { AccessToken, TokenScope } from '../../api/types';

/** The scopes a token may have, in the server's order, each with what it allows. */
export const SCOPES: readonly { scope: TokenScope; explanation: string }[] = [
  { scope: 'apps:read', explanation: 'See apps, their settings, permissions, history and health.' },
  { scope: 'apps:write', explanation: 'Register, change and delete apps and their permissions.' },
  { scope: 'apps:publish', explanation: 'Submit apps for review and publishing.' },
  { scope: 'apps:keys', explanation: 'Make a new API key for an app (the old key stops working).' },
];

/** The expiries offered, in days (a token that never expires is not offered). */
export const EXPIRY_DAYS = [7, 30, 60, 90, 180, 365] as const;
export const DEFAULT_EXPIRY_DAYS = 90;
/** The longest name the server takes. */
export const MAX_NAME_LENGTH = 100;

const DAY_MS = 24 * 60 * 60 * 1000;
const dateTime = new Intl.DateTimeFormat('en-US', { dateStyle: 'medium', timeStyle: 'short' });
const date = new Intl.DateTimeFormat('en-US', { dateStyle: 'medium' });

export const formatDateTime = (iso: string) => dateTime.format(new Date(iso));
export const formatDate = (iso: string) => date.format(new Date(iso));

/** "expires in 12 days", "expires today", "expired" (or "revoked" for a revoked token). */
export function expiryText(token: Pick<AccessToken, 'expiresAt' | 'status'>, now = Date.now()) {
  if (token.status === 'revoked') return 'revoked';
  const left = new Date(token.expiresAt).getTime() - now;
  if (token.status === 'expired' || left <= 0) return 'expired';
  const days = Math.floor(left / DAY_MS);
  if (days === 0) return 'expires today';
  return days === 1 ? 'expires in 1 day' : `expires in ${String(days)} days`;
}

/** When and from where the token was last used, or "Never used". */
export function lastUsedText(token: Pick<AccessToken, 'lastUsedAt' | 'lastUsedIp'>): string {
  if (!token.lastUsedAt) return 'Never used';
  const at = formatDateTime(token.lastUsedAt);
  return token.lastUsedIp ? `${at} from ${token.lastUsedIp}` : at;
}

/** What the status chip says. */
export const STATUS_LABELS: Record<AccessToken['status'], string> = {
  active: 'Active',
  expired: 'Expired',
  revoked: 'Revoked',
};

/** "1 active access token", "3 active access tokens". */
export const activeTokensText = (count: number) =>
  `${String(count)} active access token${count === 1 ? '' : 's'}`;

/** What "Revoke all" did: how many tokens it revoked. */
export function revokedAllText(revoked: number): string {
  if (revoked === 0) return 'No access token was active: nothing was revoked.';
  return revoked === 1
    ? '1 access token was revoked: it no longer works.'
    : `${String(revoked)} access tokens were revoked: they no longer work.`;
}
