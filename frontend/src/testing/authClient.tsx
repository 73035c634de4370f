import type { GoTrueClient } from '@supabase/auth-js';
import type { ReactNode } from 'react';

import { AuthClientContext } from '../features/auth/AuthClientContext';

/** Hands `client` (a test's fake identity client) to what `children` render. */
export function WithAuthClient({
  client,
  children,
}: {
  client: GoTrueClient;
  children: ReactNode;
}) {
  return <AuthClientContext.Provider value={client}>{children}</AuthClientContext.Provider>;
}
