import { createListenerMiddleware } from '@reduxjs/toolkit';

import { CURRENT_ORG_KEY, orgSelected } from './orgSlice';

/** Writes the chosen organization to local storage, where the next visit starts from (spec §3). */
function persistOrgChoice(orgId: string | null) {
  try {
    if (orgId) localStorage.setItem(CURRENT_ORG_KEY, orgId);
    else localStorage.removeItem(CURRENT_ORG_KEY);
  } catch {
    // Storage unavailable: the choice lasts for this page.
  }
}

/**
 * The session's side effects, kept out of its reducers: a store gets a middleware of its own (tests build
 * many stores), with every listener of the session started on it.
 */
export function sessionListeners() {
  const listeners = createListenerMiddleware();
  listeners.startListening({
    actionCreator: orgSelected,
    effect: (action) => {
      persistOrgChoice(action.payload);
    },
  });
  return listeners.middleware;
}
