/**
 * The product API's types, named. They come from `schema.gen.ts`, which `make api-types` generates from
 * the server's OpenAPI document (CI fails when it is stale), so a change on the server shows up here as a
 * type error instead of a surprise at run time.
 */
import type { components } from './schema.gen';

type Schemas = components['schemas'];

export type ErrorBody = Schemas['ErrorBody'];
export type PublicConfig = Schemas['PublicConfig'];
export type IdentityConfig = Schemas['IdentityConfig'];
export type AdminCheck = Schemas['AdminCheckResponse'];
export type PlatformRole = Schemas['RoleName'];
export type ExchangeRequest = Schemas['ExchangeRequest'];
export type ExchangeResponse = Schemas['ExchangeResponse'];
export type Me = Schemas['MeResponse'];
export type OrgRole = Schemas['RoleDto'];
export type OrgProfile = Schemas['ProfileDto'];
export type OrgSummary = Schemas['OrgSummaryDto'];
export type OrgDetails = Schemas['OrgDto'];
export type OrgMember = Schemas['MemberDto'];
export type PendingInvite = Schemas['InviteDto'];
export type CreateOrgRequest = Schemas['CreateOrgRequest'];
export type UpdateOrgRequest = Schemas['UpdateOrgRequest'];
export type AcceptedInvite = Schemas['AcceptedDto'];
export type OrgList = Schemas['OrgListDto'];
