import type { AppStoreStatus } from '../types';

export interface StatusLook {
  label: string;
  color: 'default' | 'warning' | 'success' | 'error';
}

const LOOKS: Record<AppStoreStatus, StatusLook> = {
  DEVELOPMENT: { label: 'Development', color: 'default' },
  SUBMITTED: { label: 'Submitted', color: 'warning' },
  PUBLISHED: { label: 'Published', color: 'success' },
  REJECTED: { label: 'Rejected', color: 'error' },
};

/** Label and colour of a store status (spec §2); an unknown status shows as Development (spec §4). */
export function statusLook(status: string | null | undefined): StatusLook {
  if (!status) return LOOKS.DEVELOPMENT;
  return (LOOKS as Record<string, StatusLook | undefined>)[status] ?? LOOKS.DEVELOPMENT;
}

/** Which store action an app offers: publish in DEVELOPMENT, resubmit in REJECTED, none otherwise. */
export function storeAction(status: string | null | undefined): 'publish' | 'resubmit' | null {
  if (status === 'REJECTED') return 'resubmit';
  if (status === 'SUBMITTED' || status === 'PUBLISHED') return null;
  return 'publish';
}

/** Apps whose display name or package name contains the search, case-insensitively. */
export function filterApps<T extends { name: string; packageName: string }>(
  apps: readonly T[],
  search: string,
): T[] {
  const needle = search.trim().toLowerCase();
  if (!needle) return [...apps];
  return apps.filter(
    (app) =>
      app.name.toLowerCase().includes(needle) || app.packageName.toLowerCase().includes(needle),
  );
}
