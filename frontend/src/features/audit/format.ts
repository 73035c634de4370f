import type { AuditEntry, AuditFilters, AuditPerson } from './types';
import type { AuditAction } from './types';

/** What the filter bar holds: days as the date fields give them (`2026-11-27`, local), empty for none. */
export interface Criteria {
  actor: AuditPerson | null;
  action: AuditAction | '';
  app: string;
  fromDay: string;
  toDay: string;
}

export const NO_CRITERIA: Criteria = { actor: null, action: '', app: '', fromDay: '', toDay: '' };

/** A local day (`2026-11-27`) as the instant it starts, or with `next` the instant the day after starts. */
export function localDayStart(day: string, next = false): string | undefined {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(day);
  if (!match) return undefined;
  const [, year, month, date] = match.map(Number) as [number, number, number, number];
  return new Date(year, month - 1, date + (next ? 1 : 0)).toISOString();
}

/**
 * The query parameters of the criteria. Days are the person's local days: `from` is the instant the first
 * starts, `to` the instant after the last ends (the server reads entries before `to`).
 */
export function toFilters(criteria: Criteria): AuditFilters {
  const filters: AuditFilters = {};
  if (criteria.actor) filters.actor = criteria.actor.id;
  if (criteria.action) filters.action = criteria.action;
  const app = criteria.app.trim();
  if (app) filters.app = app;
  const from = localDayStart(criteria.fromDay);
  if (from) filters.from = from;
  const to = localDayStart(criteria.toDay, true);
  if (to) filters.to = to;
  return filters;
}

export const hasCriteria = (criteria: Criteria): boolean =>
  Object.keys(toFilters(criteria)).length > 0;

const DATE_TIME = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'medium' });

/** An entry's time in the reader's time zone. */
export const localTime = (at: string): string => DATE_TIME.format(new Date(at));

/** A changed field's value as text: `(none)` for no value, strings as they are, the rest as JSON. */
export function valueText(value: unknown): string {
  if (value === null || value === undefined) return '(none)';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value);
}

/**
 * What an entry is about, for people: the target's name (the server fills it: an app's or organization's
 * current name, a member's e-mail), else its id; `(deleted)` after a target that no longer exists.
 */
export function targetText(entry: AuditEntry): string {
  const { target } = entry;
  if (!target) return '';
  const name = target.label ?? target.id;
  return target.deleted ? `${name} (deleted)` : name;
}

/**
 * The second line under a target's name: its kind, and an app's package name (what people know an app by
 * besides its name); other ids (random UUIDs) are only in the entry's detail.
 */
export function targetDetail(entry: AuditEntry, kindLabel: string): string {
  const { target } = entry;
  if (!target) return '';
  const showsId = target.kind === 'app' && target.label && target.label !== target.id;
  return showsId ? `${kindLabel} · ${target.id}` : kindLabel;
}

/** `people`, then each actor of `entries` not among them, then `selected` when missing: once each. */
export function personOptions(
  people: AuditPerson[],
  entries: AuditEntry[],
  selected: AuditPerson | null,
): AuditPerson[] {
  const byId = new Map<string, AuditPerson>();
  for (const person of people) byId.set(person.id, person);
  // The operator (`app-server`, configuration) has no account, so no id to filter by.
  for (const { actor } of entries) {
    if (actor.id && !byId.has(actor.id)) byId.set(actor.id, { id: actor.id, email: actor.email });
  }
  if (selected && !byId.has(selected.id)) byId.set(selected.id, selected);
  return [...byId.values()].sort((a, b) => a.email.localeCompare(b.email));
}

/** Saves `text` as a file named `fileName` through a temporary link. */
export function saveFile(fileName: string, text: string, type: string) {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const link = document.createElement('a');
  link.href = url;
  link.download = fileName;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => {
    URL.revokeObjectURL(url);
  }, 0);
}
