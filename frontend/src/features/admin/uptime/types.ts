/**
 * The uptime calls' JSON (spec §7 "Uptime", PRODUCT.md §5), named from the generated OpenAPI types so that a
 * change on the server (`adapters/http/src/uptime.rs`) shows up here as a type error.
 */
import type { components } from '../../../api/schema.gen';

type Schemas = components['schemas'];

export type UptimeMonth = Schemas['MonthDto'];
export type DayBar = Schemas['DayDto'];
export type AppMonthRow = Schemas['AppMonthDto'];
export type MonthResponse = Schemas['MonthResponse'];
export type AppUptimeDetail = Schemas['AppDetailResponse'];
export type DayProblems = Schemas['DayProblemsResponse'];
export type PingResponse = Schemas['PingResponse'];

/** The App Status tab's status filter. */
export type StatusFilter = 'ALL' | 'SUBMITTED' | 'PUBLISHED';

/** What one page of the App Status tab asks for. */
export interface MonthPageArgs extends UptimeMonth {
  /** 1-based. */
  page: number;
  search: string;
  status: StatusFilter;
}

/** A day's colour as the server names it. */
export type DayColour = 'green' | 'yellow' | 'red' | 'grey';
