import { combineSlices, configureStore } from '@reduxjs/toolkit';
import { useDispatch, useSelector } from 'react-redux';

import { baseApi } from '../api/baseApi';
import { authSlice } from '../session/authSlice';
import { sessionListeners } from '../session/listeners';
import { orgSlice } from '../session/orgSlice';

const rootReducer = combineSlices(baseApi, authSlice, orgSlice);

export type RootState = ReturnType<typeof rootReducer>;

/** Builds a store; tests build a fresh one each, optionally with a preloaded state. */
export function makeStore(preloadedState?: Partial<RootState>) {
  return configureStore({
    reducer: rootReducer,
    middleware: (getDefaultMiddleware) =>
      getDefaultMiddleware().prepend(sessionListeners()).concat(baseApi.middleware),
    preloadedState,
  });
}

export type AppStore = ReturnType<typeof makeStore>;
export type AppDispatch = AppStore['dispatch'];

export const useAppDispatch = useDispatch.withTypes<AppDispatch>();
export const useAppSelector = useSelector.withTypes<RootState>();
