/**
 * The platform-admin calls' JSON (spec §3 "Submitted app (admin view)", "Admin stats", "Admin user";
 * PRODUCT.md §4, §5), named from the types generated out of the server's OpenAPI document.
 */
import type { PlatformRole } from '../../api/types';
import type { components } from '../../api/schema.gen';

type Schemas = components['schemas'];

export type { PlatformRole };

/** A submitted app as the review queue lists it (`logoURL` may be empty). */
export type SubmittedApp = Schemas['SubmittedAppDto'];
/** `GET /api/admin/apps/stats`. */
export type AdminStats = Schemas['StatsDto'];
/** One entry of an app's review history, oldest first; `selfReview` marks a decision by the app's org. */
export type ReviewHistoryEntry = Schemas['ReviewHistoryEntryDto'];
/**
 * `GET /api/admin/apps/{packageName}`: the app as stored (its `updatedAt` is the revision a decision sends
 * back), its organization, its review history and whether the caller's decision is a self-review.
 */
export type AdminApp = Schemas['AdminAppDto'];
/** A platform admin or reviewer. */
export type AdminUser = Schemas['AdminUserDto'];

/** `POST /api/admin/apps/{packageName}/approve` and `…/reject`, with the app they concern. */
export type DecisionRequest = Schemas['DecisionRequest'] & { packageName: string; notes: string };

/** `POST /api/admin/users`, as the form sends it. */
export interface AddAdminUserRequest {
  email: string;
  role: PlatformRole;
}
