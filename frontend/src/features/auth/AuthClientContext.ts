import type { GoTrueClient } from '@supabase/auth-js';
import { createContext, useContext } from 'react';

/** The identity client; `null` until the server's configuration has named the identity service. */
export const AuthClientContext = createContext<GoTrueClient | null>(null);

export function useAuthClient(): GoTrueClient | null {
  return useContext(AuthClientContext);
}
