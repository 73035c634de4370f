import type { GoTrueClient } from '@supabase/auth-js';
import { useCallback, useEffect, useState } from 'react';

import { authErrorMessage } from './messages';

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
  const [state, setState] = useState<SecondFactorState>({ status: 'loading' });
  const [attempt, setAttempt] = useState(0);

  useEffect(() => {
    if (!client) return;
    let live = true;
    const load = async (): Promise<SecondFactorState> => {
      const { data, error } = await client.mfa.listFactors();
      if (error) return { status: 'error', message: authErrorMessage(error) };
      if (data.all.some((factor) => factor.status === 'verified')) {
        return { status: 'loaded', hasFactor: true };
      }
      // A passkey counts as a second factor too. A server that serves none (or a refused list) leaves
      // only the factors above.
      const passkeys = await client.passkey.list().catch(() => ({ data: null }));
      return { status: 'loaded', hasFactor: (passkeys.data?.length ?? 0) > 0 };
    };
    load().then(
      (next) => {
        if (live) setState(next);
      },
      () => {
        if (live) setState({ status: 'error', message: 'Could not read your second factors.' });
      },
    );
    return () => {
      live = false;
    };
  }, [client, attempt]);

  const retry = useCallback(() => {
    setState({ status: 'loading' });
    setAttempt((n) => n + 1);
  }, []);
  return { state, retry };
}
