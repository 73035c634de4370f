/**
 * The product API's types, named. They come from `schema.gen.ts`, which `make api-types` generates from
 * the server's OpenAPI document (CI fails when it is stale), so a change on the server shows up here as a
 * type error instead of a surprise at run time.
 */
import type { components } from './schema.gen';

type Schemas = components['schemas'];

export type PublicConfig = Schemas['PublicConfig'];
export type AdminCheck = Schemas['AdminCheckResponse'];
export type PlatformRole = Schemas['RoleName'];
export type ExchangeRequest = Schemas['ExchangeRequest'];
export type ExchangeResponse = Schemas['ExchangeResponse'];
export type OrgRole = Schemas['OrgRole'];
/** What happened to an app, in its review history (one list, the server's). */
export type ReviewEventKind = Schemas['ReviewEventKind'];
export type OrgProfile = Schemas['ProfileDto'];
export type OrgSummary = Schemas['OrgSummaryDto'];
export type OrgMember = Schemas['MemberDto'];
export type InvitePreview = Schemas['InvitePreviewDto'];
export type PendingInvite = Schemas['InviteDto'];
export type UpdateOrgRequest = Schemas['UpdateOrgRequest'];
export type OrgList = Schemas['OrgListDto'];

// Apps (the apps API contract).
/** A live health check's result (the staff ping and a developer's check of their own app). */
export type HealthCheck = Schemas['PingResponse'];

// The signed-in user's sessions (Account Security).
export type AccountSession = Schemas['SessionResponse'];
export type SessionList = Schemas['SessionList'];

// Personal access tokens (Access Tokens, and the organization's admins).
export type AccessToken = Schemas['AccessTokenDto'];
export type CreatedAccessToken = Schemas['CreatedTokenDto'];
export type RevokedAllAccessTokens = Schemas['RevokedAllDto'];
export type CreateAccessTokenRequest = Schemas['CreateTokenRequest'];
export type AccessTokenList = Schemas['TokenListDto'];
export type TokenScope = Schemas['ScopeName'];
export type TokenStatus = Schemas['TokenStatusName'];

// Webhooks (Organization Settings → Webhooks, admins).
export type WebhookEndpoint = Schemas['WebhookEndpointDto'];
export type WebhookList = Schemas['WebhookListDto'];
export type CreatedWebhook = Schemas['CreatedWebhookDto'];
export type CreateWebhookRequest = Schemas['CreateWebhookRequest'];
export type UpdateWebhookRequest = Schemas['UpdateWebhookRequest'];
export type RotatedWebhookSecret = Schemas['RotatedSecretDto'];
export type QueuedWebhookDelivery = Schemas['QueuedDeliveryDto'];
export type WebhookDelivery = Schemas['WebhookDeliveryDto'];
export type WebhookDeliveryPage = Schemas['WebhookDeliveryPageDto'];
export type WebhookEventType = Schemas['WebhookEventType'];
