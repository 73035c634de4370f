import { baseApi } from '../../api/baseApi';

/** `GET /api/admin/check` (spec §7). */
export interface AdminCheck {
  isAdmin: boolean;
  role: 'admin' | 'reviewer' | null;
}

export const authApi = baseApi.injectEndpoints({
  endpoints: (build) => ({
    getAdminCheck: build.query<AdminCheck, void>({
      query: () => '/api/admin/check',
      providesTags: ['Admin'],
    }),
  }),
});

export const { useGetAdminCheckQuery } = authApi;
