import { combineSlices, configureStore, createListenerMiddleware } from '@reduxjs/toolkit';
import { useDispatch, useSelector } from 'react-redux';

import { baseApi } from '../api/baseApi';
import { authSlice, signedIn } from '../session/authSlice';
import { sessionListeners } from '../session/listeners';
import { orgSlice } from '../session/orgSlice';

const rootReducer = combineSlices(baseApi, authSlice, orgSlice);

export type RootState = ReturnType<typeof rootReducer>;

/**
 * A staff call refused for want of a second factor is asked again with the next token (the session may have
 * passed one since: an authenticator app confirmed, a challenge passed), so that the staff screens open
 * without a reload.
 */
function staffListeners() {
  const listeners = createListenerMiddleware();
  listeners.startListening({
    actionCreator: signedIn,
    effect: (_action, api) => {
      const before = api.getOriginalState() as RootState;
      if (before.auth.staffMfaRequired)
        api.dispatch(baseApi.util.invalidateTags(['Admin', 'Uptime']));
    },
  });
  return listeners.middleware;
}

/** Builds a store; tests build a fresh one each, optionally with a preloaded state. */
export function makeStore(preloadedState?: Partial<RootState>) {
  return configureStore({
    reducer: rootReducer,
    middleware: (getDefaultMiddleware) =>
      getDefaultMiddleware()
        .prepend(sessionListeners())
        .concat(baseApi.middleware, staffListeners()),
    preloadedState,
  });
}

export type AppStore = ReturnType<typeof makeStore>;
export type AppDispatch = AppStore['dispatch'];

export const useAppDispatch = useDispatch.withTypes<AppDispatch>();
export const useAppSelector = useSelector.withTypes<RootState>();
