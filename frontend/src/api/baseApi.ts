import { createApi, fetchBaseQuery } from '@reduxjs/toolkit/query/react';

/**
 * The one RTK Query API of the portal. Features add their endpoints with
 * `baseApi.injectEndpoints` in `src/features/<feature>/api.ts`; the tag types
 * of the whole product live here so that invalidation works across features.
 */
export const baseApi = createApi({
  reducerPath: 'api',
  baseQuery: fetchBaseQuery({ baseUrl: '' }),
  tagTypes: ['App', 'Org', 'Member', 'Invite', 'Admin', 'Uptime', 'Me', 'PublicConfig'],
  endpoints: () => ({}),
});

/** Id of the tag that stands for a whole list (`{ type: 'App', id: LIST }`). */
export const LIST = 'LIST';
