import { useGetOrgQuery } from './api';
import { useCurrentOrg } from './useCurrentOrg';

/**
 * Whether the banner, when the page shows one (`shown`: a page where publishing happens), can show what it
 * will keep showing: at once for an admin (a link) or when there is no banner; for a member, once the
 * organization's member list has answered (or failed), since the sentence that names the admin to ask is
 * longer than the one it replaces and would push the page down as it arrives. The layout keeps the page's
 * outline until then, so that the page appears with the banner's final height already in place. The list
 * is asked for on every page (a member who opens My Apps later finds the admin's name already there), but
 * only a page with the banner waits for it.
 */
export function useProfileBannerReady(shown: boolean): boolean {
  const { current, isAdmin } = useCurrentOrg();
  const asksAnAdmin = Boolean(current && !current.profile.contactEmail && !isAdmin);
  const details = useGetOrgQuery(current?.id ?? '', { skip: !asksAnAdmin });
  return !shown || !asksAnAdmin || details.isSuccess || details.isError;
}
