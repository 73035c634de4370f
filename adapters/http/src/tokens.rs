//! Personal access tokens: `POST|GET /api/dev/tokens`, `DELETE /api/dev/tokens/{id}` (one's own), and
//! `GET /api/orgs/{orgId}/tokens`, `DELETE /api/orgs/{orgId}/tokens/{id}` (the tokens that act in an
//! organization, for its admins). None of these routes takes a token itself
//! ([`crate::auth::token_routes`]).

use actix_web::{HttpResponse, delete, get, post, web};
use chrono::{DateTime, Utc};
use domain::common::OrgId;
use domain::tokens::{AccessToken, AccessTokenService, NewAccessToken, OwnedToken, Scope, TokenStatus};
use serde::{Deserialize, Serialize};
use std::sync::Arc;
use utoipa::ToSchema;

use crate::auth::{OrgMember, Principal, SessionPrincipal};
use crate::json::Json;
use crate::{ApiError, RouteSink};

/// The access token use cases.
#[derive(Clone)]
pub struct TokensApi {
    pub service: Arc<AccessTokenService>,
}

impl std::fmt::Debug for TokensApi {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("TokensApi")
    }
}

/// Registers the routes of this module inside the `/api` scope.
pub fn routes<R: RouteSink>(cfg: &mut R) {
    cfg.service(create)
        .service(list_own)
        .service(revoke_all_own)
        .service(revoke_own)
        .service(list_in_org)
        .service(revoke_in_org);
}

/// A scope as the API spells it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub enum ScopeName {
    #[serde(rename = "apps:read")]
    AppsRead,
    #[serde(rename = "apps:write")]
    AppsWrite,
    #[serde(rename = "apps:publish")]
    AppsPublish,
    #[serde(rename = "apps:keys")]
    AppsKeys,
}

impl From<Scope> for ScopeName {
    fn from(scope: Scope) -> Self {
        match scope {
            Scope::AppsRead => Self::AppsRead,
            Scope::AppsWrite => Self::AppsWrite,
            Scope::AppsPublish => Self::AppsPublish,
            Scope::AppsKeys => Self::AppsKeys,
        }
    }
}

/// Whether a token works now.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum TokenStatusName {
    Active,
    Expired,
    Revoked,
}

/// A personal access token (never its secret).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AccessTokenDto {
    pub id: String,
    pub name: String,
    /// The one organization it acts in; `null`: every organization of its owner.
    pub org_id: Option<String>,
    pub scopes: Vec<ScopeName>,
    pub status: TokenStatusName,
    pub created_at: DateTime<Utc>,
    pub expires_at: DateTime<Utc>,
    pub revoked_at: Option<DateTime<Utc>>,
    pub last_used_at: Option<DateTime<Utc>>,
    /// The client address of the last recorded use.
    pub last_used_ip: Option<String>,
    /// The owner's e-mail address (an organization's list only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub owner_email: Option<String>,
}

impl AccessTokenDto {
    fn of(token: &AccessToken, status: TokenStatus, owner_email: Option<String>) -> Self {
        Self {
            id: token.id.to_string(),
            name: token.name.clone(),
            org_id: token.org_id.map(|org| org.to_string()),
            scopes: token
                .scopes
                .as_slice()
                .iter()
                .copied()
                .map(ScopeName::from)
                .collect(),
            status: match status {
                TokenStatus::Active => TokenStatusName::Active,
                TokenStatus::Expired => TokenStatusName::Expired,
                TokenStatus::Revoked => TokenStatusName::Revoked,
            },
            created_at: token.created_at,
            expires_at: token.expires_at,
            revoked_at: token.revoked_at,
            last_used_at: token.last_used_at,
            last_used_ip: token.last_used_ip.clone(),
            owner_email,
        }
    }

    fn owned(owned: &OwnedToken, status: TokenStatus) -> Self {
        Self::of(&owned.token, status, Some(owned.owner_email.clone()))
    }
}

/// A token just made, with its secret: shown this once.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CreatedTokenDto {
    #[serde(flatten)]
    pub details: AccessTokenDto,
    /// The token itself (`dpt_…`): copy it now, it is never shown again.
    pub token: String,
}

/// A list of tokens.
#[derive(Debug, Serialize, ToSchema)]
pub struct TokenListDto {
    pub tokens: Vec<AccessTokenDto>,
}

/// `POST /api/dev/tokens`.
#[derive(Debug, Clone, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(example = json!({"name": "GitHub Actions deploy", "scopes": ["apps:read", "apps:write"], "expiresInDays": 30}))]
pub struct CreateTokenRequest {
    /// What uses it, such as "GitHub Actions deploy" (1–100 characters).
    #[serde(default)]
    #[schema(required = true, min_length = 1, max_length = 100, pattern = r"\S")]
    pub name: String,
    /// The one organization it acts in; `null` or absent: every organization of its owner.
    #[serde(default)]
    pub org_id: Option<String>,
    /// At least one of `apps:read`, `apps:write`, `apps:publish`, `apps:keys`.
    #[serde(default)]
    #[schema(required = true, value_type = Vec<ScopeName>, min_items = 1)]
    pub scopes: Vec<String>,
    /// 1–365 days; 90 when absent.
    #[serde(default)]
    #[schema(minimum = 1, maximum = 365)]
    pub expires_in_days: Option<i64>,
}

/// Creates a personal access token (from a session at the level of any security change: `aal2` when the
/// account has a second factor, a sign-in within 10 minutes otherwise). The owner is e-mailed.
#[utoipa::path(operation_id = "create_access_token", tag = "access-tokens", security(("bearer" = [])),
    request_body = CreateTokenRequest,
    responses(
        (status = 201, description = "The token, with its secret shown this once", body = CreatedTokenDto),
        (status = 400, description = "A field is wrong (`VALIDATION`)", body = crate::openapi::ErrorBody),
        (status = 401, description = "Not signed in", body = crate::openapi::ErrorBody),
        (status = 403, description = "The session must pass a second factor (`MFA_REQUIRED`) or sign in again (`RECENT_SIGN_IN_NEEDED`); an access token cannot make another (`TOKEN_NOT_ALLOWED`)", body = crate::openapi::ErrorBody),
    ))]
#[post("/dev/tokens")]
pub async fn create(
    api: web::Data<TokensApi>,
    session: SessionPrincipal,
    body: Json<CreateTokenRequest>,
) -> Result<HttpResponse, ApiError> {
    let body = body.into_inner();
    let org_id = match body
        .org_id
        .as_deref()
        .map(str::trim)
        .filter(|text| !text.is_empty())
    {
        None => None,
        Some(text) => Some(text.parse::<OrgId>().map_err(|_| ApiError::Validation {
            message: "The organization id is not valid.".into(),
            fields: [("orgId".to_owned(), "The organization id is not valid.".to_owned())].into(),
        })?),
    };
    let created = api
        .service
        .create(
            &session.0,
            NewAccessToken {
                name: body.name,
                org_id,
                scopes: body.scopes,
                expires_in_days: body.expires_in_days,
            },
        )
        .await?;
    Ok(HttpResponse::Created()
        .insert_header(("Cache-Control", "no-store"))
        .json(CreatedTokenDto {
            details: AccessTokenDto::of(&created.token, api.service.status_of(&created.token), None),
            token: created.secret,
        }))
}

/// The caller's personal access tokens, newest first (revoked and expired ones included).
#[utoipa::path(operation_id = "list_access_tokens", tag = "access-tokens", security(("bearer" = [])),
    responses(
        (status = 200, description = "The tokens", body = TokenListDto),
        (status = 401, description = "Not signed in", body = crate::openapi::ErrorBody),
    ))]
#[get("/dev/tokens")]
pub async fn list_own(api: web::Data<TokensApi>, principal: Principal) -> Result<HttpResponse, ApiError> {
    let tokens = api.service.list_own(&principal.0).await?;
    Ok(HttpResponse::Ok()
        .insert_header(("Cache-Control", "no-store"))
        .json(TokenListDto {
            tokens: tokens
                .iter()
                .map(|t| AccessTokenDto::of(t, api.service.status_of(t), None))
                .collect(),
        }))
}

fn token_id(text: &str) -> Result<uuid::Uuid, ApiError> {
    uuid::Uuid::parse_str(text.trim()).map_err(|_| {
        ApiError::NotFound("This access token does not exist, or is not one you can manage.".into())
    })
}

/// How many tokens "Revoke all" revoked.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RevokedAllDto {
    /// The caller's tokens that worked until now and were revoked (0 when none did).
    pub revoked: usize,
}

/// Revokes every one of the caller's tokens that still works ("Revoke all", offered after a password
/// reset and on Access Tokens); each stops at once and is audited as one revoked alone.
#[utoipa::path(operation_id = "revoke_all_access_tokens", tag = "access-tokens", security(("bearer" = [])),
    responses(
        (status = 200, description = "How many were revoked", body = RevokedAllDto),
        (status = 401, description = "Not signed in", body = crate::openapi::ErrorBody),
        (status = 403, description = "An access token cannot revoke tokens (`TOKEN_NOT_ALLOWED`)", body = crate::openapi::ErrorBody),
    ))]
#[post("/dev/tokens/revoke-all")]
pub async fn revoke_all_own(
    api: web::Data<TokensApi>,
    principal: Principal,
) -> Result<HttpResponse, ApiError> {
    let revoked = api.service.revoke_all_own(&principal.0).await?;
    Ok(HttpResponse::Ok()
        .insert_header(("Cache-Control", "no-store"))
        .json(RevokedAllDto { revoked }))
}

/// Revokes one of the caller's tokens: it stops working at once.
#[utoipa::path(operation_id = "revoke_access_token", tag = "access-tokens", security(("bearer" = [])),
    params(("id" = String, Path, description = "Token id")),
    responses(
        (status = 200, description = "The token as revoked", body = AccessTokenDto),
        (status = 401, description = "Not signed in", body = crate::openapi::ErrorBody),
        (status = 404, description = "No such token of the caller's", body = crate::openapi::ErrorBody),
        (status = 409, description = "Revoked already (`ALREADY_REVOKED`)", body = crate::openapi::ErrorBody),
    ))]
#[delete("/dev/tokens/{id}")]
pub async fn revoke_own(
    api: web::Data<TokensApi>,
    principal: Principal,
    id: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let revoked = api.service.revoke_own(&principal.0, token_id(&id)?).await?;
    Ok(HttpResponse::Ok().json(AccessTokenDto::of(
        &revoked,
        api.service.status_of(&revoked),
        None,
    )))
}

/// The tokens that act in the organization (bound to it, or to every organization of a member), with
/// their owners (admins).
#[utoipa::path(operation_id = "list_org_access_tokens", tag = "access-tokens", security(("bearer" = [])),
    params(("orgId" = String, Path, description = "Organization id")),
    responses(
        (status = 200, description = "The tokens", body = TokenListDto),
        (status = 403, description = "Only admins see them", body = crate::openapi::ErrorBody),
        (status = 404, description = "No such organization, or the caller is not a member", body = crate::openapi::ErrorBody),
    ))]
#[get("/orgs/{orgId}/tokens")]
pub async fn list_in_org(api: web::Data<TokensApi>, member: OrgMember) -> Result<HttpResponse, ApiError> {
    let tokens = api.service.list_in_org(&member.0).await?;
    Ok(HttpResponse::Ok()
        .insert_header(("Cache-Control", "no-store"))
        .json(TokenListDto {
            tokens: tokens
                .iter()
                .map(|t| AccessTokenDto::owned(t, api.service.status_of(&t.token)))
                .collect(),
        }))
}

/// Revokes a token that acts in the organization (admins); a token of every organization of its owner
/// stops everywhere.
#[utoipa::path(operation_id = "revoke_org_access_token", tag = "access-tokens", security(("bearer" = [])),
    params(("orgId" = String, Path, description = "Organization id"), ("id" = String, Path, description = "Token id")),
    responses(
        (status = 200, description = "The token as revoked", body = AccessTokenDto),
        (status = 403, description = "Only admins revoke them", body = crate::openapi::ErrorBody),
        (status = 404, description = "No such token acting in the organization", body = crate::openapi::ErrorBody),
        (status = 409, description = "Revoked already (`ALREADY_REVOKED`)", body = crate::openapi::ErrorBody),
    ))]
#[delete("/orgs/{orgId}/tokens/{id}")]
pub async fn revoke_in_org(
    api: web::Data<TokensApi>,
    member: OrgMember,
    path: web::Path<(String, String)>,
) -> Result<HttpResponse, ApiError> {
    let revoked = api.service.revoke_in_org(&member.0, token_id(&path.1)?).await?;
    Ok(HttpResponse::Ok().json(AccessTokenDto::of(
        &revoked,
        api.service.status_of(&revoked),
        None,
    )))
}
