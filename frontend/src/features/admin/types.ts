/**
 * The platform-admin calls' JSON (spec §3 "Submitted app (admin view)", "Admin stats", "Admin user";
 * PRODUCT.md §4, §5), as the server's `adapters/http/src/admin/dto.rs` writes it.
 */
import type { PlatformRole } from '../../api/types';

export type { PlatformRole };

/** The organization owning an app; `name` is null when it has no profile. */
export interface OrganizationRef {
  id: string;
  name: string | null;
}

/** A submitted app as the review queue lists it. */
export interface SubmittedApp {
  _id: string;
  name: string;
  packageName: string;
  /** May be empty: a placeholder image stands in. */
  logoURL: string;
  description: string;
  publicUrl: string;
  updatedAt: string;
  createdAt: string;
  developerId: string;
  organization: OrganizationRef;
  appHealthStatus: string;
}

export interface StatsCounts {
  development: number;
  submitted: number;
  published: number;
  rejected: number;
  admins: number;
  reviewers: number;
}

/** `GET /api/admin/apps/stats`. */
export interface AdminStats {
  counts: StatsCounts;
  recentSubmissions: SubmittedApp[];
}

/** One entry of an app's review history, oldest first. */
export interface ReviewHistoryEntry {
  id: string;
  /** `submitted`, `approved`, `rejected`, `edited_after_approval`, `moved`… */
  kind: string;
  at: string;
  actorEmail: string;
  notes: string | null;
  /** A decision by a member of the app's own organization. */
  selfReview: boolean;
  detail: unknown;
}

/** `GET /api/admin/apps/{packageName}`: the app as stored, its organization and its review history. */
export interface AdminApp {
  packageName: string;
  orgId: string;
  developerId: string;
  name: string;
  description: string;
  publicUrl: string;
  logoURL: string;
  appStoreStatus: string;
  createdAt: string;
  /** The revision sent back as `expectedUpdatedAt` with a decision. */
  updatedAt: string;
  reviewNotes: string | null;
  reviewedBy: string | null;
  reviewedAt: string | null;
  organization: OrganizationRef;
  history: ReviewHistoryEntry[];
  /** The caller belongs to the app's organization: a decision is recorded as a self-review. */
  selfReview: boolean;
}

/** `POST /api/admin/apps/{packageName}/approve` and `…/reject`. */
export interface DecisionRequest {
  packageName: string;
  notes: string;
  expectedUpdatedAt: string;
}

/** A platform admin or reviewer. */
export interface AdminUser {
  email: string;
  role: PlatformRole;
  addedAt: string;
  addedBy: string | null;
  /** The role waits for an account that proves the address. */
  pending: boolean;
}

export interface AddAdminUserRequest {
  email: string;
  role: PlatformRole;
}
