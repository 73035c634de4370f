/** The organizations feature as other features use it (its public file: import nothing else of it). */
export { AcceptInvitation } from './AcceptInvitation';
export { InvitationPreview } from './InvitationPreview';
export { useCreateOrgMutation, useGetOrgQuery } from './api';
export { usDate } from './format';
export { OrgSwitcher } from './OrgSwitcher';
export { OrgTwoFactorGate } from './OrgTwoFactorNotice';
export { useOrgTwoFactorBlock } from './useOrgTwoFactorBlock';
export { PersonalOrgNotice } from './PersonalOrgNotice';
export { ProfileIncompleteBanner } from './ProfileIncompleteBanner';
export { useProfileBannerReady } from './useProfileBannerReady';
export type { Organization, OrgRole } from './types';
export { useCurrentOrg, type CurrentOrg } from './useCurrentOrg';
export { SIMPLE_EMAIL } from './validation';
