/** Organization roles (spec §6): admins manage the organization and its members, members manage apps. */
export type OrgRole = 'admin' | 'member';

export interface OrgProfile {
  website?: string | null;
  contactEmail?: string | null;
  description?: string | null;
  /** Image URL of the logo. */
  logo?: string | null;
}

export interface OrgMember {
  user: { id: string; email: string };
  role: OrgRole;
  joinedAt: string;
}

export interface PendingInvite {
  email: string;
  role: OrgRole;
  invitedAt: string;
  expiresAt: string;
  emailSentCount: number;
}

/** An organization as the API answers it (spec §3). The list names the caller's role; one organization's
 * answer also carries its members and pending invitations. */
export interface Organization {
  id: string;
  name: string;
  profile: OrgProfile;
  members?: OrgMember[];
  pendingInvites?: PendingInvite[];
  /** The caller's own role, where the answer names it. */
  role?: OrgRole;
}

/** The envelope of the organization calls (`{success, data}`). */
export interface Envelope<T> {
  success: boolean;
  data: T;
  message?: string;
}

export interface OrgProfileChange {
  name: string;
  profile: OrgProfile;
}
