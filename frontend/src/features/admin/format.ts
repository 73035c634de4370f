import type { ReviewEventKind } from '../../api/types';
import { usDate } from '../orgs';

export { usDate };

/** A date and time in US format with the month abbreviated (spec §2, §8). */
export const usDateTime = (iso: string) =>
  new Date(iso).toLocaleString('en-US', {
    month: 'short',
    day: 'numeric',
    year: 'numeric',
    hour: 'numeric',
    minute: '2-digit',
  });

/** Who develops an app (spec §2): the organization's name, else the developer id, else Unknown. */
export function developerOf(app: {
  organization?: { name: string | null } | null;
  developerId?: string;
}): string {
  const name = app.organization?.name?.trim();
  if (name) return name;
  if (app.developerId) return app.developerId;
  return 'Unknown';
}

const KINDS: Record<ReviewEventKind, string> = {
  submitted: 'Submitted',
  approved: 'Approved',
  rejected: 'Rejected',
  edited: 'Edited while waiting for review',
  edited_after_approval: 'Edited after approval',
  resubmitted: 'Sent back to review (permission added)',
  moved: 'Moved',
};

/** The label of a review-history event kind. */
export const historyKind = (kind: ReviewEventKind) => KINDS[kind];
