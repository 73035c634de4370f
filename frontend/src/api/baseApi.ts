import { createApi, fetchBaseQuery } from '@reduxjs/toolkit/query/react';

import type { AuthState } from '../features/auth/authSlice';

/**
 * The one RTK Query API of the portal. Features add their endpoints with
 * `baseApi.injectEndpoints` in `src/features/<feature>/api.ts`; the tag types
 * of the whole product live here so that invalidation works across features.
 */
export const baseApi = createApi({
  reducerPath: 'api',
  baseQuery: fetchBaseQuery({
    baseUrl: '',
    credentials: 'include',
    // Every product call carries the core token, or the identity access token as the fallback (spec §7).
    prepareHeaders: (headers, { getState }) => {
      const auth = (getState() as { auth?: AuthState }).auth;
      const bearer = auth?.coreToken ?? auth?.accessToken;
      if (bearer && !headers.has('Authorization')) headers.set('Authorization', `Bearer ${bearer}`);
      return headers;
    },
  }),
  tagTypes: ['App', 'Org', 'Member', 'Invite', 'Admin', 'Uptime', 'Me', 'PublicConfig'],
  endpoints: () => ({}),
});

/** Id of the tag that stands for a whole list (`{ type: 'App', id: LIST }`). */
export const LIST = 'LIST';
