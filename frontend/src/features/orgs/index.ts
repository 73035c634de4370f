/** What other features use of the organizations feature. */
export { useCurrentOrg, type CurrentOrg } from './useCurrentOrg';
export type { Organization, OrgRole } from './types';
