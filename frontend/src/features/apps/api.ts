import type { FetchArgs, FetchBaseQueryError, FetchBaseQueryMeta } from '@reduxjs/toolkit/query';

import { baseApi, LIST } from '../../api/baseApi';
import type { HealthCheck } from '../../api/types';
import type {
  App,
  AppConfigFile,
  AppHistoryEntry,
  Permission,
  RegisterAppRequest,
  RegisteredApp,
  TesterView,
  UpdateAppRequest,
} from './types';

/** Every app call names the organization it works in (the `x-org-id` header, checked by the server). */
export interface OrgScoped {
  orgId: string;
}

export interface AppRef extends OrgScoped {
  packageName: string;
}

/** The app-list retry of spec §9 / PRODUCT.md §7: up to 3 attempts, only on 401 or 403. */
export const LIST_RETRY = { attempts: 3, firstDelayMs: 300, maxDelayMs: 2000 } as const;

/** Delay before the retry that follows attempt `attempt` (1-based): 300 ms, doubling, at most 2 s. */
export function listRetryDelay(attempt: number): number {
  return Math.min(LIST_RETRY.firstDelayMs * 2 ** (attempt - 1), LIST_RETRY.maxDelayMs);
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

const appPath = (packageName: string) => `/api/dev/apps/${encodeURIComponent(packageName)}`;
const orgHeaders = (orgId: string) => ({ 'x-org-id': orgId });

/** A request in an organization. */
const scoped = (
  orgId: string,
  url: string,
  init: Omit<FetchArgs, 'url' | 'headers'> = {},
): FetchArgs => ({ url, headers: orgHeaders(orgId), ...init });

/** Tags of one app: its own and the list it appears in. */
const appTags = (packageName: string) => [
  { type: 'App' as const, id: packageName },
  { type: 'App' as const, id: LIST },
];

/** The `{pkg}_config.json` file name from a `Content-Disposition` header, or the default. */
export function configFileName(
  disposition: string | null | undefined,
  packageName: string,
): string {
  const match = disposition ? /filename="?([^";]+)"?/i.exec(disposition) : null;
  return match?.[1] ?? `${packageName}_config.json`;
}

export interface ExportedConfig {
  fileName: string;
  config: AppConfigFile;
}

/** The app calls of spec §7 and the apps API contract. */
export const appsApi = baseApi.injectEndpoints({
  endpoints: (build) => ({
    /** The apps of an organization; retried on 401/403 while the session settles. */
    listApps: build.query<App[], OrgScoped>({
      async queryFn({ orgId }, _api, _extra, baseQuery) {
        let result = await baseQuery(scoped(orgId, '/api/dev/apps'));
        for (let attempt = 1; attempt < LIST_RETRY.attempts; attempt += 1) {
          const status = result.error?.status;
          if (status !== 401 && status !== 403) break;
          await sleep(listRetryDelay(attempt));
          result = await baseQuery(scoped(orgId, '/api/dev/apps'));
        }
        if (result.error) return { error: result.error };
        return { data: result.data as App[] };
      },
      providesTags: (apps) => [
        { type: 'App', id: LIST },
        ...(apps ?? []).map((app) => ({ type: 'App' as const, id: app.packageName })),
      ],
    }),
    getApp: build.query<App, AppRef>({
      query: ({ orgId, packageName }) => scoped(orgId, appPath(packageName)),
      providesTags: (_app, _error, { packageName }) => [{ type: 'App', id: packageName }],
    }),
    registerApp: build.mutation<RegisteredApp, OrgScoped & { app: RegisterAppRequest }>({
      query: ({ orgId, app }) =>
        scoped(orgId, '/api/dev/apps/register', { method: 'POST', body: app }),
      invalidatesTags: [{ type: 'App', id: LIST }],
    }),
    updateApp: build.mutation<App, AppRef & { change: UpdateAppRequest }>({
      query: ({ orgId, packageName, change }) =>
        scoped(orgId, appPath(packageName), { method: 'PUT', body: change }),
      invalidatesTags: (_app, _error, { packageName }) => appTags(packageName),
    }),
    deleteApp: build.mutation<void, AppRef>({
      query: ({ orgId, packageName }) => scoped(orgId, appPath(packageName), { method: 'DELETE' }),
      invalidatesTags: [{ type: 'App', id: LIST }],
    }),
    publishApp: build.mutation<App, AppRef>({
      query: ({ orgId, packageName }) =>
        scoped(orgId, `${appPath(packageName)}/publish`, { method: 'POST' }),
      invalidatesTags: (_app, _error, { packageName }) => appTags(packageName),
    }),
    moveApp: build.mutation<App, AppRef & { targetOrgId: string }>({
      query: ({ orgId, packageName, targetOrgId }) =>
        scoped(orgId, `${appPath(packageName)}/move-org`, {
          method: 'POST',
          body: { targetOrgId },
        }),
      invalidatesTags: (_app, _error, { packageName }) => appTags(packageName),
    }),
    /** A new API key; the old one stops working at once. The key is never readable again. */
    regenerateApiKey: build.mutation<{ apiKey: string }, AppRef>({
      query: ({ orgId, packageName }) =>
        scoped(orgId, `${appPath(packageName)}/api-key`, { method: 'POST' }),
    }),
    /** Adding a permission to a PUBLISHED app sends it back to SUBMITTED. */
    updatePermissions: build.mutation<App, AppRef & { permissions: Permission[] }>({
      query: ({ orgId, packageName, permissions }) =>
        scoped(orgId, `/api/permissions/${encodeURIComponent(packageName)}`, {
          method: 'PATCH',
          body: { permissions },
        }),
      invalidatesTags: (_app, _error, { packageName }) => appTags(packageName),
    }),
    /** The tester install link (`{PORTAL_STORE_URL}/install/{token}`). */
    getShareLink: build.query<{ installUrl: string }, AppRef>({
      query: ({ orgId, packageName }) => scoped(orgId, `${appPath(packageName)}/share`),
      providesTags: (_r, _e, { packageName }) => [{ type: 'App', id: packageName }],
    }),
    shareWithTesters: build.mutation<
      { installUrl: string; sharedWithEmails: string[] },
      AppRef & { emails: string[] }
    >({
      query: ({ orgId, packageName, emails }) =>
        scoped(orgId, `${appPath(packageName)}/share`, { method: 'POST', body: { emails } }),
      invalidatesTags: (_r, _e, { packageName }) => [{ type: 'App', id: packageName }],
    }),
    /** A new share token; the old link stops working at once. */
    resetShareLink: build.mutation<{ installUrl: string }, AppRef>({
      query: ({ orgId, packageName }) =>
        scoped(orgId, `${appPath(packageName)}/share/reset`, { method: 'POST' }),
      invalidatesTags: (_r, _e, { packageName }) => [{ type: 'App', id: packageName }],
    }),
    /** The SDK-compatible configuration file, with the name the server gives it. */
    exportAppConfig: build.mutation<ExportedConfig, AppRef>({
      query: ({ orgId, packageName }) => scoped(orgId, `${appPath(packageName)}/config`),
      transformResponse: (
        config: AppConfigFile,
        meta: FetchBaseQueryMeta | undefined,
        { packageName },
      ) => ({
        fileName: configFileName(meta?.response?.headers.get('Content-Disposition'), packageName),
        config,
      }),
    }),
    getAppHistory: build.query<AppHistoryEntry[], AppRef>({
      query: ({ orgId, packageName }) => scoped(orgId, `${appPath(packageName)}/history`),
      providesTags: (_r, _e, { packageName }) => [{ type: 'App', id: packageName }],
    }),
    /** The app's server checked now (`publicUrl` + `/health`), for the publish checklist; not recorded. */
    checkAppHealth: build.query<HealthCheck, AppRef>({
      query: ({ orgId, packageName }) => scoped(orgId, `${appPath(packageName)}/health-check`),
      keepUnusedDataFor: 0,
    }),
    /** The public tester page's data; no sign-in needed. 404 for an unknown or reset token. */
    getTesterView: build.query<TesterView, string>({
      query: (token) => `/api/install/${encodeURIComponent(token)}`,
    }),
  }),
});

export const {
  useListAppsQuery,
  useGetAppQuery,
  useRegisterAppMutation,
  useUpdateAppMutation,
  useDeleteAppMutation,
  usePublishAppMutation,
  useMoveAppMutation,
  useRegenerateApiKeyMutation,
  useUpdatePermissionsMutation,
  useGetShareLinkQuery,
  useShareWithTestersMutation,
  useResetShareLinkMutation,
  useExportAppConfigMutation,
  useGetAppHistoryQuery,
  useGetTesterViewQuery,
  useCheckAppHealthQuery,
} = appsApi;

/** HTTP status of an RTK Query error, when the server answered. */
export function errorStatus(error: unknown): number | undefined {
  const status = (error as FetchBaseQueryError | undefined)?.status;
  return typeof status === 'number' ? status : undefined;
}
