import type { ExchangeRequest, ExchangeResponse } from '../../api/types';

/** Why a core token could not be had. */
export type ExchangeFailure =
  /** The identity session is not (or no longer) valid: sign out. */
  | 'refused'
  /** The server could not be reached or failed: keep the identity token as the fallback credential. */
  | 'unavailable';

export type ExchangeResult =
  { ok: true; coreToken: string } | { ok: false; reason: ExchangeFailure };

/**
 * `POST /api/auth/exchange-token {supabaseToken}` → `{coreToken}` (PRODUCT.md §1): the product API's own
 * token for an identity access token.
 */
export async function exchangeToken(
  accessToken: string,
  fetchImpl: typeof fetch = fetch,
): Promise<ExchangeResult> {
  try {
    const response = await fetchImpl(new URL('/api/auth/exchange-token', window.location.origin), {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      credentials: 'include',
      body: JSON.stringify({ supabaseToken: accessToken } satisfies ExchangeRequest),
    });
    if (response.status === 401) return { ok: false, reason: 'refused' };
    if (!response.ok) return { ok: false, reason: 'unavailable' };
    const body = (await response.json()) as Partial<ExchangeResponse>;
    return typeof body.coreToken === 'string'
      ? { ok: true, coreToken: body.coreToken }
      : { ok: false, reason: 'unavailable' };
  } catch {
    return { ok: false, reason: 'unavailable' };
  }
}
