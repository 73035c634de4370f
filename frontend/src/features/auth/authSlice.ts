import { createSlice, type PayloadAction } from '@reduxjs/toolkit';

/** Who is signed in, as the product API knows them. */
export interface AuthUser {
  id: string;
  email: string;
}

export type AuthStatus = 'loading' | 'signedOut' | 'signedIn';

export interface AuthState {
  /** `loading` until the identity client has told whether a session exists. */
  status: AuthStatus;
  user: AuthUser | null;
  /** The identity service's access token (the product API's fallback credential). */
  accessToken: string | null;
  /** The product API's own token, from `POST /api/auth/exchange-token`. */
  coreToken: string | null;
  /** A password-recovery link was followed: the user must choose a new password. */
  recovery: boolean;
  /** A message for the next page the user sees (e.g. after a password change or a refused session). */
  notice: { severity: 'success' | 'info' | 'error'; text: string } | null;
}

const initialState: AuthState = {
  status: 'loading',
  user: null,
  accessToken: null,
  coreToken: null,
  recovery: false,
  notice: null,
};

export const authSlice = createSlice({
  name: 'auth',
  initialState,
  reducers: {
    signedIn(
      state,
      action: PayloadAction<{ user: AuthUser; accessToken: string; coreToken: string | null }>,
    ) {
      state.status = 'signedIn';
      state.user = action.payload.user;
      state.accessToken = action.payload.accessToken;
      state.coreToken = action.payload.coreToken;
    },
    signedOut(state, action: PayloadAction<AuthState['notice'] | undefined>) {
      state.status = 'signedOut';
      state.user = null;
      state.accessToken = null;
      state.coreToken = null;
      state.recovery = false;
      state.notice = action.payload ?? null;
    },
    recoveryStarted(state) {
      state.recovery = true;
    },
    recoveryEnded(state) {
      state.recovery = false;
    },
    noticeShown(state, action: PayloadAction<AuthState['notice']>) {
      state.notice = action.payload;
    },
  },
  selectors: {
    selectAuth: (state) => state,
    selectAuthStatus: (state) => state.status,
    selectAuthUser: (state) => state.user,
    /** The bearer the product API accepts: the core token, else the identity access token. */
    selectBearer: (state) => state.coreToken ?? state.accessToken,
    selectCoreToken: (state) => state.coreToken,
  },
});

export const { signedIn, signedOut, recoveryStarted, recoveryEnded, noticeShown } =
  authSlice.actions;
export const { selectAuth, selectAuthStatus, selectAuthUser, selectBearer, selectCoreToken } =
  authSlice.selectors;
