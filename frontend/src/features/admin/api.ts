import { baseApi, LIST } from '../../api/baseApi';
import type {
  AddAdminUserRequest,
  AdminApp,
  AdminStats,
  AdminUser,
  DecisionRequest,
  SubmittedApp,
} from './types';

/**
 * Tags of the admin panel's data. They carry ids so that a decision reloads the lists without
 * re-running the admin check, which provides the bare `Admin` tag.
 */
const STATS = { type: 'Admin', id: 'STATS' } as const;
const SUBMITTED = { type: 'Admin', id: 'SUBMITTED' } as const;
const USERS = { type: 'Admin', id: 'USERS' } as const;
const appTag = (packageName: string) => ({ type: 'Admin' as const, id: `app:${packageName}` });

const appPath = (packageName: string) => `/api/admin/apps/${encodeURIComponent(packageName)}`;

/** The platform-admin calls of spec §7. */
export const adminApi = baseApi.injectEndpoints({
  endpoints: (build) => ({
    getAdminStats: build.query<AdminStats, void>({
      query: () => '/api/admin/apps/stats',
      providesTags: [STATS],
    }),
    getSubmittedApps: build.query<SubmittedApp[], void>({
      query: () => '/api/admin/apps/submitted',
      providesTags: [SUBMITTED],
    }),
    getAdminApp: build.query<AdminApp, string>({
      query: appPath,
      providesTags: (_app, _error, packageName) => [appTag(packageName)],
    }),
    approveApp: build.mutation<unknown, DecisionRequest>({
      query: ({ packageName, notes, expectedUpdatedAt }) => ({
        url: `${appPath(packageName)}/approve`,
        method: 'POST',
        body: { notes, expectedUpdatedAt },
      }),
      invalidatesTags: (_r, _e, { packageName }) => [
        STATS,
        SUBMITTED,
        appTag(packageName),
        { type: 'App', id: packageName },
        { type: 'App', id: LIST },
      ],
    }),
    rejectApp: build.mutation<unknown, DecisionRequest>({
      query: ({ packageName, notes, expectedUpdatedAt }) => ({
        url: `${appPath(packageName)}/reject`,
        method: 'POST',
        body: { notes, expectedUpdatedAt },
      }),
      invalidatesTags: (_r, _e, { packageName }) => [
        STATS,
        SUBMITTED,
        appTag(packageName),
        { type: 'App', id: packageName },
        { type: 'App', id: LIST },
      ],
    }),
    listAdminUsers: build.query<AdminUser[], void>({
      query: () => '/api/admin/users',
      providesTags: [USERS],
    }),
    // A role change may be the caller's own, and the stats count the roles: everything of the panel
    // reloads, the admin check too.
    addAdminUser: build.mutation<AdminUser, AddAdminUserRequest>({
      query: (body) => ({ url: '/api/admin/users', method: 'POST', body }),
      invalidatesTags: ['Admin'],
    }),
    removeAdminUser: build.mutation<void, string>({
      query: (email) => ({
        url: `/api/admin/users/${encodeURIComponent(email)}`,
        method: 'DELETE',
      }),
      invalidatesTags: ['Admin'],
    }),
  }),
});

export const {
  useGetAdminStatsQuery,
  useGetSubmittedAppsQuery,
  useGetAdminAppQuery,
  useApproveAppMutation,
  useRejectAppMutation,
  useListAdminUsersQuery,
  useAddAdminUserMutation,
  useRemoveAdminUserMutation,
} = adminApi;
