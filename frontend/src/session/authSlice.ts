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
  /**
   * The page started from the core token stored by an earlier visit (see `storedCoreSession`): signed in
   * until the identity client confirms the session with a fresh exchange or ends it, or the API refuses it.
   * Absent means false.
   */
  provisional?: boolean;
  /** A password-recovery link was followed: the user must choose a new password. */
  recovery: boolean;
  /**
   * The product API answered `MFA_REQUIRED`: the session must pass the account's second factor (the
   * challenge step) before anything else. Absent means false.
   */
  mfaRequired?: boolean;
  /**
   * The staff API answered `MFA_REQUIRED` (`PORTAL_STAFF_MFA=required`): this account is platform staff and
   * the session has not passed a second factor. Only the staff screens wait (they lead to Account Security
   * or to the challenge step). Cleared by the next token. Absent means false.
   */
  staffMfaRequired?: boolean;
  /**
   * The product API answered `ORG_MFA_REQUIRED`: the current organization requires a second factor this
   * session has not passed (the layout shows the notice instead of the organization's screens). Cleared
   * by the next token. Absent means false.
   */
  orgMfaRequired?: boolean;
  /**
   * A new password was just saved at the end of a recovery: the access tokens that still work (those made
   * by sessions that had ended before; the server revoked the others) are shown before the user goes on.
   * Absent means false.
   */
  tokensReview?: boolean;
  /** A message for the next page the user sees (e.g. after a password change or a refused session). */
  notice: { severity: 'success' | 'info' | 'error'; text: string } | null;
  /**
   * Counts the notices shown: each one is a new snackbar with its own time on screen, even when it
   * follows another without a gap. Absent means 0.
   */
  noticeSeq?: number;
  /** Notices waiting for the one on screen to close (see `noticeQueued`). Absent means none. */
  queuedNotices?: NonNullable<AuthState['notice']>[];
}

const initialState: AuthState = {
  status: 'loading',
  user: null,
  accessToken: null,
  coreToken: null,
  provisional: false,
  recovery: false,
  notice: null,
};

/** The state a page starts in from a stored core token, before the identity client has loaded. */
export function restoredAuthState(stored: { user: AuthUser; coreToken: string }): AuthState {
  return {
    ...initialState,
    status: 'signedIn',
    user: stored.user,
    coreToken: stored.coreToken,
    provisional: true,
  };
}

function show(state: AuthState, notice: AuthState['notice']) {
  state.notice = notice;
  if (notice) state.noticeSeq = (state.noticeSeq ?? 0) + 1;
}

export const authSlice = createSlice({
  name: 'auth',
  initialState,
  reducers: {
    signedIn(
      state,
      action: PayloadAction<{ user: AuthUser; accessToken: string; coreToken: string | null }>,
    ) {
      state.status = 'signedIn';
      // The same user confirmed (a fresh exchange, a refresh): the object is kept, so that what shows the
      // user does not render again.
      if (
        state.user?.id !== action.payload.user.id ||
        state.user.email !== action.payload.user.email
      ) {
        state.user = action.payload.user;
      }
      state.accessToken = action.payload.accessToken;
      state.coreToken = action.payload.coreToken;
      state.provisional = false;
      // A new token (after a challenge, a refresh): the API is asked again before another challenge.
      state.mfaRequired = false;
      state.orgMfaRequired = false;
      state.staffMfaRequired = false;
    },
    /** The product API refused the session with `MFA_REQUIRED`. */
    mfaRequired(state) {
      state.mfaRequired = true;
    },
    /** The staff API refused the session with `MFA_REQUIRED`. */
    staffMfaRequired(state) {
      state.staffMfaRequired = true;
    },
    /** The product API refused an organization's call with `ORG_MFA_REQUIRED`. */
    orgMfaRequired(state) {
      state.orgMfaRequired = true;
    },
    /**
     * The API answered 401 to the stored core token the page started from (payload: that token): it is not
     * used again, and the page waits for the identity client's verdict, as a page without one does.
     */
    storedTokenRefused(state, action: PayloadAction<string>) {
      if (!state.provisional || state.coreToken !== action.payload) return;
      state.status = 'loading';
      state.user = null;
      state.coreToken = null;
      state.provisional = false;
    },
    signedOut(state, action: PayloadAction<AuthState['notice'] | undefined>) {
      state.status = 'signedOut';
      state.user = null;
      state.accessToken = null;
      state.coreToken = null;
      state.provisional = false;
      state.recovery = false;
      state.tokensReview = false;
      state.mfaRequired = false;
      state.orgMfaRequired = false;
      state.staffMfaRequired = false;
      state.queuedNotices = [];
      show(state, action.payload ?? null);
    },
    recoveryStarted(state) {
      state.recovery = true;
    },
    /** The identity service updated the user: during a recovery, that is the new password. */
    recoveryEnded(state) {
      if (state.recovery) state.tokensReview = true;
      state.recovery = false;
    },
    /** The access tokens that still work were shown (or there were none). */
    tokensReviewed(state) {
      state.tokensReview = false;
    },
    /**
     * Shows a notice at once, in place of the one on screen (what the user just did is what they expect
     * to read about); `null` closes the one on screen, and the next queued one, if any, shows.
     */
    noticeShown(state, action: PayloadAction<AuthState['notice']>) {
      if (action.payload) {
        show(state, action.payload);
        return;
      }
      const [next, ...rest] = state.queuedNotices ?? [];
      state.queuedNotices = rest;
      show(state, next ?? null);
    },
    /**
     * Shows a notice the user did not ask for (e.g. that a personal organization was made) once the one on
     * screen has closed: it must not take the place of a message the user is reading.
     */
    noticeQueued(state, action: PayloadAction<NonNullable<AuthState['notice']>>) {
      if (state.notice) state.queuedNotices = [...(state.queuedNotices ?? []), action.payload];
      else show(state, action.payload);
    },
  },
  selectors: {
    selectAuth: (state) => state,
    selectAuthStatus: (state) => state.status,
    selectAuthUser: (state) => state.user,
    /** The bearer the product API accepts: the core token, else the identity access token. */
    selectBearer: (state) => state.coreToken ?? state.accessToken,
    selectCoreToken: (state) => state.coreToken,
    selectProvisional: (state) => state.provisional ?? false,
  },
});

export const {
  signedIn,
  signedOut,
  mfaRequired,
  orgMfaRequired,
  staffMfaRequired,
  storedTokenRefused,
  recoveryStarted,
  recoveryEnded,
  tokensReviewed,
  noticeShown,
  noticeQueued,
} = authSlice.actions;
export const {
  selectAuth,
  selectAuthStatus,
  selectAuthUser,
  selectBearer,
  selectCoreToken,
  selectProvisional,
} = authSlice.selectors;
