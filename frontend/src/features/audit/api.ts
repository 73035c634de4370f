import { baseApi } from '../../api/baseApi';
import type { AuditFilters, AuditPage, AuditPageResponse, AuditScope } from './types';

/** What one read of a log takes: which log, the filters and the page size. */
export interface AuditLogArgs {
  scope: AuditScope;
  filters: AuditFilters;
  /** Entries per page (the server allows 1–200). */
  limit: number;
}

/** A downloaded CSV and the file name the server gave it. */
export interface AuditCsv {
  csv: string;
  fileName: string;
}

const logUrl = (scope: AuditScope) =>
  scope.kind === 'org'
    ? `/api/orgs/${encodeURIComponent(scope.orgId)}/audit-log`
    : '/api/admin/audit-log';

/** The filters as query parameters: an empty one is left out. */
export function filterParams(filters: AuditFilters): Record<string, string> {
  const params: Record<string, string> = {};
  for (const [name, value] of Object.entries(filters) as [string, string | undefined][]) {
    const text = value?.trim();
    if (text) params[name] = text;
  }
  return params;
}

/** `attachment; filename="audit-log-….csv"` as its file name; `fallback` without one. */
function fileNameOf(meta: { response?: Response } | undefined, fallback: string): string {
  const disposition = meta?.response?.headers.get('Content-Disposition') ?? '';
  return /filename="?([^";]+)"?/i.exec(disposition)?.[1] ?? fallback;
}

/**
 * The audit log calls (PRODUCT.md §9): one organization's log for its admins, the platform's for platform
 * admins; newest first, a page per cursor; and the CSV of every entry that matches the filters.
 */
export const auditApi = baseApi.injectEndpoints({
  endpoints: (build) => ({
    /** A log, page by page: each page's `nextCursor` reads the next (`null` after the last). */
    auditLog: build.infiniteQuery<AuditPage, AuditLogArgs, string | null>({
      infiniteQueryOptions: {
        initialPageParam: null,
        getNextPageParam: (lastPage) => lastPage.nextCursor ?? undefined,
      },
      query: ({ queryArg: { scope, filters, limit }, pageParam }) => ({
        url: logUrl(scope),
        params: {
          ...filterParams(filters),
          limit: String(limit),
          ...(pageParam ? { cursor: pageParam } : {}),
        },
      }),
      transformResponse: (response: AuditPageResponse) => response.data,
    }),
    /**
     * The CSV of every entry of `scope` that matches `filters`, fetched with the bearer token like every
     * other call (a plain link could not carry it).
     */
    downloadAuditCsv: build.mutation<AuditCsv, { scope: AuditScope; filters: AuditFilters }>({
      query: ({ scope, filters }) => ({
        url: logUrl(scope),
        params: { ...filterParams(filters), format: 'csv' },
        headers: { Accept: 'text/csv' },
        // The CSV as text; a refusal's JSON as JSON (its message, and `MFA_REQUIRED` for the session guard).
        responseHandler: 'content-type',
      }),
      transformResponse: (csv: string, meta, { scope }) => ({
        csv,
        fileName: fileNameOf(
          meta,
          scope.kind === 'org' ? `audit-log-${scope.orgId}.csv` : 'audit-log-platform.csv',
        ),
      }),
    }),
  }),
});

export const { useAuditLogInfiniteQuery, useDownloadAuditCsvMutation } = auditApi;
