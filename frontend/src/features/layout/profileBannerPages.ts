import { matchPath } from 'react-router';

import { routePatterns } from '../../config/paths';

/**
 * The pages where publishing happens: My Apps, an app's page and Organization Settings (where the contact
 * e-mail is added). The "Organization profile incomplete" banner shows there only, not on the dashboard,
 * the account's pages, the Members and Audit Log pages or the staff pages (issue 48, item 9).
 */
const PUBLISHING_PAGES = [routePatterns.apps, routePatterns.appEdit, routePatterns.orgSettings];

/** Whether the page at `pathname` shows the banner of an incomplete organization profile. */
export function showsProfileBanner(pathname: string): boolean {
  return PUBLISHING_PAGES.some((pattern) => matchPath(pattern, pathname) !== null);
}
