/**
 * The audit log's JSON (PRODUCT.md §9 "Audit log"), named from the types generated out of the server's
 * OpenAPI document.
 */
import type { components } from '../../api/schema.gen';

type Schemas = components['schemas'];

/** An action code (`app.key_regenerated`, …): the server's one list. */
export type AuditAction = Schemas['AuditAction'];
/** One entry: who, what, when, the target, the fields that changed, from where. */
export type AuditEntry = Schemas['AuditEntryDto'];
/** A page of entries, newest first, with the cursor of the next page (`null` on the last). */
export type AuditPage = Schemas['AuditPageDto'];
export type AuditPageResponse = Schemas['AuditPageResponse'];
export type AuditTarget = Schemas['AuditTarget'];
export type AuditTargetKind = Schemas['AuditTargetKind'];
export type FieldChange = Schemas['FieldChange'];

/** The filters of a read, as the query parameters name them; an absent one does not filter. */
export interface AuditFilters {
  /** An account id. */
  actor?: string;
  action?: AuditAction;
  /** An app's package name. */
  app?: string;
  /** RFC 3339 instants: entries at or after `from`, before `to`. */
  from?: string;
  to?: string;
}

/** Which log: one organization's (its admins) or the platform's (platform admins). */
export type AuditScope = { kind: 'org'; orgId: string } | { kind: 'platform' };

/** A person who may be picked in the "Person" filter. */
export interface AuditPerson {
  id: string;
  email: string;
}
