import type { DayBar, DayColour, UptimeMonth } from './types';

/** The current calendar month in UTC (days are UTC days, PRODUCT.md §5). */
export function currentUtcMonth(now: Date = new Date()): UptimeMonth {
  return { year: now.getUTCFullYear(), month: now.getUTCMonth() + 1 };
}

const ordinal = ({ year, month }: UptimeMonth) => year * 12 + month;

/** Whether `month` lies after the current UTC month: there is nothing to show there yet. */
export const isFutureMonth = (month: UptimeMonth, now: Date = new Date()) =>
  ordinal(month) > ordinal(currentUtcMonth(now));

/** Today's UTC date, `YYYY-MM-DD`: later days have no checks yet and cannot be picked. */
export const todayUtc = (now: Date = new Date()) => now.toISOString().slice(0, 10);

/** "November 2026". */
export const monthLabel = ({ year, month }: UptimeMonth) =>
  new Date(Date.UTC(year, month - 1, 1)).toLocaleString('en-US', {
    month: 'long',
    year: 'numeric',
    timeZone: 'UTC',
  });

/** "Nov 3, 2026" for a `YYYY-MM-DD` UTC date. */
export const dayLabel = (date: string) =>
  new Date(`${date}T00:00:00Z`).toLocaleDateString('en-US', {
    month: 'short',
    day: 'numeric',
    year: 'numeric',
    timeZone: 'UTC',
  });

/** The day of the month of a `YYYY-MM-DD` date. */
export const dayOfMonth = (date: string) => Number(date.slice(8, 10));

/** An uptime percent with one decimal (spec §9). */
export const percent = (value: number) => `${value.toFixed(1)}%`;

/** What each bar colour means (the legend of spec §2). */
export const COLOUR_LABELS: Record<DayColour, string> = {
  green: 'All Healthy',
  yellow: 'Mixed Status',
  red: 'All Unhealthy',
  grey: 'No Data',
};

export const COLOURS: DayColour[] = ['green', 'yellow', 'red', 'grey'];

export const colourOf = (day: DayBar): DayColour =>
  (COLOURS as string[]).includes(day.colour) ? (day.colour as DayColour) : 'grey';

/** A day's figures, as the tooltips and screen readers say them. */
export const dayCounts = (day: DayBar) =>
  `Healthy: ${day.healthy}, Unhealthy: ${day.unhealthy}, Total: ${day.total}`;

/** A clock time in US format: "7:05:12 AM". */
export const clockTime = (timestamp: number | string) =>
  new Date(timestamp).toLocaleTimeString('en-US', {
    hour: 'numeric',
    minute: '2-digit',
    second: '2-digit',
  });

/** A timestamp in US format with the UTC zone named: "Nov 3, 2026, 7:05:12 AM UTC". */
export const utcDateTime = (iso: string) =>
  `${new Date(iso).toLocaleString('en-US', {
    month: 'short',
    day: 'numeric',
    year: 'numeric',
    hour: 'numeric',
    minute: '2-digit',
    second: '2-digit',
    timeZone: 'UTC',
  })} UTC`;

/** The health URL the monitor checks: the server URL plus `/health`. */
export const healthUrl = (publicUrl: string) => `${publicUrl.replace(/\/+$/, '')}/health`;
