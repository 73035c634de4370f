import { baseApi } from '../../../api/baseApi';
import type {
  AppUptimeDetail,
  DayProblems,
  MonthResponse,
  MonthPageArgs,
  PingResponse,
  UptimeMonth,
} from './types';

const UPTIME = { type: 'Uptime', id: 'MONTH' } as const;
const appTag = (packageName: string) => ({ type: 'Uptime' as const, id: `app:${packageName}` });
const appPath = (packageName: string) => `/api/app-uptime/apps/${encodeURIComponent(packageName)}`;
const monthParams = ({ year, month }: UptimeMonth) => ({
  year: String(year),
  month: String(month),
});

/** The uptime calls of spec §7 (platform admins and reviewers). Days are UTC days. */
export const uptimeApi = baseApi.injectEndpoints({
  endpoints: (build) => ({
    /**
     * One page of the month's apps (uptime, badge and one bar per UTC day), searched and filtered by the
     * server, so that only the page's days travel however many apps there are.
     */
    getUptimeMonth: build.query<MonthResponse, MonthPageArgs>({
      query: ({ page, search, status, ...month }) => ({
        url: '/api/app-uptime/get-app-uptime-days',
        params: {
          ...monthParams(month),
          page: String(page),
          ...(search.trim() ? { search: search.trim() } : {}),
          ...(status === 'ALL' ? {} : { status }),
        },
      }),
      providesTags: [UPTIME],
    }),
    /** One app's month chart and current state. */
    getAppUptime: build.query<AppUptimeDetail, { packageName: string } & UptimeMonth>({
      query: ({ packageName, ...month }) => ({
        url: appPath(packageName),
        params: monthParams(month),
      }),
      providesTags: (_r, _e, { packageName }) => [appTag(packageName)],
    }),
    /** One UTC day's counts and problems (the list is kept 48 hours). */
    getDayProblems: build.query<DayProblems, { packageName: string; day: string }>({
      query: ({ packageName, day }) => `${appPath(packageName)}/days/${encodeURIComponent(day)}`,
      providesTags: (_r, _e, { packageName }) => [appTag(packageName)],
    }),
    /** Checks a registered app's health URL now; nothing is recorded, so nothing is cached either. */
    pingHealth: build.mutation<PingResponse, string>({
      query: (url) => ({ url: '/api/app-uptime/ping', params: { url } }),
    }),
  }),
});

export const {
  useGetUptimeMonthQuery,
  useGetAppUptimeQuery,
  useGetDayProblemsQuery,
  usePingHealthMutation,
} = uptimeApi;
