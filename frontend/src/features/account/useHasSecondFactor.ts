import type { GoTrueClient } from '@supabase/auth-js';
import { skipToken } from '@reduxjs/toolkit/query';

import { accountErrorMessage, identityKey, useHasPasskeyQuery, useListFactorsQuery } from './api';

/** Whether the account has a second factor to confirm with, as the identity service lists them. */
export type SecondFactorState =
  | { status: 'loading' }
  | { status: 'error'; message: string }
  | { status: 'loaded'; hasFactor: boolean };

/**
 * Whether the signed-in account has a verified second factor (an authenticator app, a security key,
 * recovery codes) or a passkey: with one the session confirms with it (the challenge step), without one
 * it must be added first (Account Security). `retry` asks again.
 */
export function useHasSecondFactor(client: GoTrueClient | null): {
  state: SecondFactorState;
  retry: () => void;
} {
  const key = client ? identityKey(client) : skipToken;
  const factors = useListFactorsQuery(key, { refetchOnMountOrArgChange: true });
  // A passkey counts as a second factor too; a server that serves none (or a refused list) counts as none.
  const passkey = useHasPasskeyQuery(key, { refetchOnMountOrArgChange: true });
  const retry = () => {
    if (key === skipToken) return;
    void factors.refetch();
    void passkey.refetch();
  };
  if (factors.isError) {
    return {
      state: {
        status: 'error',
        message: accountErrorMessage(factors.error, 'Could not read your second factors.'),
      },
      retry,
    };
  }
  if (!factors.data) return { state: { status: 'loading' }, retry };
  if (factors.data.all.some((factor) => factor.status === 'verified')) {
    return { state: { status: 'loaded', hasFactor: true }, retry };
  }
  if (passkey.data === undefined) return { state: { status: 'loading' }, retry };
  return { state: { status: 'loaded', hasFactor: passkey.data }, retry };
}
