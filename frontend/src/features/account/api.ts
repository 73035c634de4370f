import { baseApi } from '../../api/baseApi';
import type { AccountSession, SessionList } from '../../api/types';

export type { AccountSession };

/** The signed-in user's sessions (`/api/dev/auth/sessions`). */
export const accountApi = baseApi.injectEndpoints({
  endpoints: (build) => ({
    listSessions: build.query<AccountSession[], void>({
      query: () => '/api/dev/auth/sessions',
      transformResponse: (list: SessionList) => list.sessions,
      providesTags: ['Session'],
    }),
    /** Signs one session out at once. */
    signOutSession: build.mutation<void, string>({
      query: (id) => ({
        url: `/api/dev/auth/sessions/${encodeURIComponent(id)}`,
        method: 'DELETE',
      }),
      invalidatesTags: ['Session'],
    }),
  }),
});

export const { useListSessionsQuery, useSignOutSessionMutation } = accountApi;
