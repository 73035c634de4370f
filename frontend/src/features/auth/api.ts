import { baseApi } from '../../api/baseApi';
import type { AdminCheck } from '../../api/types';

export type { AdminCheck };

export const authApi = baseApi.injectEndpoints({
  endpoints: (build) => ({
    getAdminCheck: build.query<AdminCheck, void>({
      query: () => '/api/admin/check',
      providesTags: ['Admin'],
    }),
  }),
});

export const { useGetAdminCheckQuery } = authApi;
