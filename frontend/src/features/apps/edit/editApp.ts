/** What Edit App says, how long it says it, and how it compares permissions before saving. */
import type { Permission } from '../types';

export const SAVED_MESSAGE = 'App updated successfully';
export const SAVE_FAILED = 'Failed to update app. Please try again.';
export const LOAD_FAILED = 'Failed to load App data. Please try again.';
export const CORRECT_FIELDS = 'Please correct the highlighted fields.';
export const notFoundMessage = (name: string) =>
  `App "${name}" not found. Redirecting to app list...`;
/** How long the save confirmation stays (spec §4). */
export const SAVED_BANNER_MS = 3000;
export const MOVED = 'App moved to new organization successfully';
/** How long the success of a move shows before going to /apps (spec §4). */
export const MOVE_REDIRECT_MS = 1500;

/** The dialogs Edit App opens. */
export type DialogKind = 'resubmit' | 'apiKey' | 'share' | 'publish' | 'move';

/** Permission types on `next` that `previous` did not have. */
export function addedPermissions(previous: readonly Permission[], next: readonly Permission[]) {
  return next.filter((p) => !previous.some((q) => q.type === p.type)).map((p) => p.type);
}

/** Whether two permission lists differ (types, order or descriptions). */
export function permissionsChanged(previous: readonly Permission[], next: readonly Permission[]) {
  const shape = (list: readonly Permission[]) =>
    JSON.stringify(list.map((p) => [p.type, (p.description ?? '').trim()]));
  return shape(previous) !== shape(next);
}
