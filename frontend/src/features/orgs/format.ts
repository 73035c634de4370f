/** The hint of a disabled Leave button (spec §2). */
export const ONLY_ADMIN_HINT =
  'You cannot leave as you are the only admin. Promote another member to admin first.';

/** Dates in US format with the month abbreviated (spec §8). */
export const usDate = (iso: string) =>
  new Date(iso).toLocaleDateString('en-US', { month: 'short', day: 'numeric', year: 'numeric' });
