import { baseApi } from '../../api/baseApi';
import type { AdminCheck } from '../../api/types';

export type { AdminCheck };

export const authApi = baseApi.injectEndpoints({
  endpoints: (build) => ({
    getAdminCheck: build.query<AdminCheck, void>({
      query: () => '/api/admin/check',
      providesTags: ['Admin'],
    }),
    /** Uses the first-admin setup link from the server log (`POST /api/admin/setup`). */
    claimFirstAdmin: build.mutation<AdminCheck, string>({
      query: (token) => ({ url: '/api/admin/setup', method: 'POST', body: { token } }),
      invalidatesTags: ['Admin'],
    }),
  }),
});

export const { useGetAdminCheckQuery, useClaimFirstAdminMutation } = authApi;
