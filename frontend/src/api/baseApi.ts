import {
  createApi,
  fetchBaseQuery,
  type BaseQueryFn,
  type FetchArgs,
  type FetchBaseQueryError,
} from '@reduxjs/toolkit/query/react';

import {
  mfaRequired,
  orgMfaRequired,
  staffMfaRequired,
  storedTokenRefused,
  type AuthState,
} from '../session/authSlice';
import { forgetStoredCoreToken } from '../session/storage';

const authOf = (state: unknown) => (state as { auth?: AuthState }).auth;

/**
 * The staff API (the Admin Panel's calls): with `PORTAL_STAFF_MFA=required` it refuses platform staff whose
 * session has not passed a second factor (`MFA_REQUIRED`), even when the account has none yet, while the
 * rest of the product stays open to them.
 */
const STAFF_API = ['/api/admin/', '/api/app-uptime/'];

/** Whether a call goes to the staff API. */
export function isStaffCall(args: string | FetchArgs): boolean {
  const url = typeof args === 'string' ? args : args.url;
  const path = url.split('?')[0] ?? '';
  return STAFF_API.some((prefix) => path.startsWith(prefix));
}

const fetchQuery = fetchBaseQuery({
  baseUrl: '',
  credentials: 'include',
  // Every product call carries the core token, or the identity access token as the fallback (spec §7).
  prepareHeaders: (headers, { getState }) => {
    const auth = authOf(getState());
    const bearer = auth?.coreToken ?? auth?.accessToken;
    if (bearer && !headers.has('Authorization')) headers.set('Authorization', `Bearer ${bearer}`);
    return headers;
  },
});

/**
 * `fetchQuery`, and what a 401 means while the page runs on the core token stored by an earlier visit
 * (`auth.provisional`, see `storedCoreSession`): that token is dropped and the page waits for the identity
 * client, which signs the user in again (a fresh exchange) or sends them to sign-in, exactly as a page that
 * started without a stored token does. When the identity client has already confirmed the session with
 * another token while the call was under way, the call is made once more with that token.
 */
const baseQuery: BaseQueryFn<string | FetchArgs, unknown, FetchBaseQueryError> = async (
  args,
  api,
  extraOptions,
) => {
  const sent = authOf(api.getState());
  const result = await fetchQuery(args, api, extraOptions);
  const refusal =
    result.error?.status === 403
      ? (result.error.data as { code?: unknown } | undefined)?.code
      : undefined;
  // Platform staff on the staff API: only the staff screens wait for a second factor (and lead to adding
  // one when the account has none); the rest of the product stays open.
  if (refusal === 'MFA_REQUIRED' && isStaffCall(args)) {
    api.dispatch(staffMfaRequired());
    return result;
  }
  // The account has a second factor the session has not passed: the guard sends the user to the
  // challenge step, which comes back here.
  if (refusal === 'MFA_REQUIRED') {
    api.dispatch(mfaRequired());
    return result;
  }
  // The organization requires a second factor the session has not passed: the layout shows the notice
  // (with the way to Account Security) in place of the organization's screens.
  if (refusal === 'ORG_MFA_REQUIRED') {
    api.dispatch(orgMfaRequired());
    return result;
  }
  if (result.error?.status !== 401 || !sent?.provisional || !sent.coreToken) return result;
  const now = authOf(api.getState());
  if (now?.provisional && now.coreToken === sent.coreToken) {
    forgetStoredCoreToken(sent.coreToken);
    api.dispatch(storedTokenRefused(sent.coreToken));
    return result;
  }
  if (now?.status === 'signedIn' && !now.provisional) return fetchQuery(args, api, extraOptions);
  return result;
};

/**
 * The one RTK Query API of the portal. Features add their endpoints with
 * `baseApi.injectEndpoints` in `src/features/<feature>/api.ts`; the tag types
 * of the whole product live here so that invalidation works across features.
 */
export const baseApi = createApi({
  reducerPath: 'api',
  baseQuery,
  tagTypes: [
    'App',
    'Org',
    'Member',
    'Invite',
    'Admin',
    'Uptime',
    'Me',
    'PublicConfig',
    'Session',
    'AccessToken',
    'Factor',
    'Passkey',
    'RecoveryCodes',
    'Webhook',
    'WebhookDelivery',
  ],
  endpoints: () => ({}),
});

/** Id of the tag that stands for a whole list (`{ type: 'App', id: LIST }`). */
export const LIST = 'LIST';
