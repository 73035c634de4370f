import { useSyncExternalStore } from 'react';

const subscribe = () => () => undefined;

/**
 * False while React takes over markup built ahead of time (scripts/prerender.mjs), true afterwards and in
 * every render that is not a hydration. A prerendered page was built for its path alone: what depends on
 * the query string (`/signin?token=…`) must wait for this, or the first render differs from the markup and
 * React throws it away (error #418).
 */
export function useHydrated(): boolean {
  return useSyncExternalStore(
    subscribe,
    () => true,
    () => false,
  );
}
