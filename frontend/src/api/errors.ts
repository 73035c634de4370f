import type { FetchBaseQueryError } from '@reduxjs/toolkit/query';

/** JSON error body of the product API (PRODUCT.md §6). */
export interface ApiErrorBody {
  error: string;
  code?: string;
  fields?: Record<string, string>;
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null;

export function isFetchBaseQueryError(error: unknown): error is FetchBaseQueryError {
  return isRecord(error) && 'status' in error;
}

export function isApiErrorBody(body: unknown): body is ApiErrorBody {
  return isRecord(body) && typeof body.error === 'string';
}

/** A message fit to show a person, whatever RTK Query handed back. */
export function errorMessage(
  error: unknown,
  fallback = 'Something went wrong. Please try again.',
): string {
  if (isFetchBaseQueryError(error)) {
    if (isApiErrorBody(error.data)) return error.data.error;
    if (error.status === 'FETCH_ERROR') return 'The server could not be reached.';
    return fallback;
  }
  if (isRecord(error) && typeof error.message === 'string') return error.message;
  return fallback;
}

/** The machine code of a product API refusal (`MFA_REQUIRED`, …), or `undefined`. */
export function apiErrorCode(error: unknown): string | undefined {
  if (!isFetchBaseQueryError(error) || !isRecord(error.data)) return undefined;
  const { code } = error.data;
  return typeof code === 'string' ? code : undefined;
}

/**
 * Whether a call was refused because this session has not passed a second factor (`MFA_REQUIRED`). On the
 * staff API (`/api/admin`, `/api/app-uptime`) this is also the answer to platform staff without one yet.
 */
export function isMfaRefusal(error: unknown): boolean {
  return (
    isFetchBaseQueryError(error) && error.status === 403 && apiErrorCode(error) === 'MFA_REQUIRED'
  );
}
