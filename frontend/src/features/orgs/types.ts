import type {
  OrgMember,
  OrgProfile,
  OrgRole,
  OrgSummary,
  PendingInvite,
  UpdateOrgRequest,
} from '../../api/types';

export type { OrgMember, OrgProfile, OrgRole, PendingInvite };

/**
 * An organization as the screens use it: the list's answer (with the caller's role), and one
 * organization's answer, which also carries its members and pending invitations.
 */
export type Organization = OrgSummary & {
  members?: OrgMember[];
  pendingInvites?: PendingInvite[];
};

/** The `{success, data}` envelope of the organization calls. */
export interface Envelope<T> {
  success: boolean;
  data: T;
}

export type OrgProfileChange = UpdateOrgRequest;
