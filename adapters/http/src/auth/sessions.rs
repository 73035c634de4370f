//! The signed-in user's sessions (PRODUCT.md §1a): `GET /api/dev/auth/sessions` lists them (device, address,
//! last use, the current one marked) and `DELETE /api/dev/auth/sessions/{id}` signs one out at once. Supabase
//! Auth has no such endpoint; signing out every other session is auth-js's `signOut({ scope: 'others' })`
//! (`POST /auth/v1/logout?scope=others`).

use actix_web::{HttpMessage, HttpRequest, HttpResponse, delete, get, web};
use chrono::{DateTime, Utc};
use domain::identity::{SessionService, SessionSummary};
use serde::Serialize;
use std::sync::Arc;
use uuid::Uuid;

use super::principal::CallerSession;
use super::{Principal, ProductAuth};
use crate::ApiError;

/// One live session of the signed-in user.
#[derive(Debug, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SessionResponse {
    pub id: Uuid,
    /// Whether this is the session of the request that asked.
    pub current: bool,
    /// `aal1` or `aal2` (passed a second factor).
    pub aal: String,
    /// How it started: `password`, `otp`, `magiclink`, `recovery`, `email/signup` or `oauth`.
    pub method: String,
    pub started_at: DateTime<Utc>,
    pub last_used_at: DateTime<Utc>,
    /// The `User-Agent` of the client it was last used from (`null` when not known).
    #[schema(required = true)]
    pub user_agent: Option<String>,
    /// The client address it was last used from (`null` when not known).
    #[schema(required = true)]
    pub ip_address: Option<String>,
}

impl From<SessionSummary> for SessionResponse {
    fn from(session: SessionSummary) -> Self {
        Self {
            id: session.id,
            current: session.current,
            aal: session.aal.code().to_owned(),
            method: session.method.code().to_owned(),
            started_at: session.started_at,
            last_used_at: session.last_used_at,
            user_agent: session.user_agent,
            ip_address: session.ip_address,
        }
    }
}

/// The signed-in user's sessions.
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct SessionList {
    /// The current session first, then the most recently used.
    pub sessions: Vec<SessionResponse>,
}

/// The built-in identity service, or 409: a hosted identity service keeps the sessions.
fn built_in(auth: &ProductAuth) -> Result<&Arc<SessionService>, ApiError> {
    auth.identity
        .as_ref()
        .map(|services| &services.sessions)
        .ok_or_else(|| {
            ApiError::conflict(
                "SESSIONS_MANAGED_ELSEWHERE",
                "Sessions are managed by the hosted identity service.",
            )
        })
}

fn caller_session(request: &HttpRequest) -> Option<Uuid> {
    request
        .extensions()
        .get::<CallerSession>()
        .and_then(|session| session.0)
}

/// # Errors
/// 401 without a valid session; 409 with a hosted identity service.
/// Lists the signed-in user's live sessions.
#[utoipa::path(tag = "auth", security(("bearer" = [])),
    responses(
        (status = 200, description = "The user's live sessions", body = SessionList),
        (status = 401, description = "No valid core token or identity access token", body = crate::openapi::ErrorBody),
        (status = 409, description = "Sessions are managed by a hosted identity service", body = crate::openapi::ErrorBody),
    ))]
#[get("/dev/auth/sessions")]
pub async fn list_sessions(
    auth: web::Data<ProductAuth>,
    principal: Principal,
    request: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    let identity = built_in(&auth)?;
    let sessions = identity
        .sessions_of(principal.0.user_id, caller_session(&request))
        .await?;
    Ok(HttpResponse::Ok()
        .insert_header(("Cache-Control", "no-store"))
        .json(SessionList {
            sessions: sessions.into_iter().map(SessionResponse::from).collect(),
        }))
}

/// # Errors
/// 400 for an id that is not a UUID; 401; 404 when the user has no such live session; 409 with a hosted
/// identity service.
/// Signs one of the user's sessions out at once: its refresh token, and the access and core tokens of it,
/// are refused from then on. Ending another session than the current one e-mails the account.
#[utoipa::path(tag = "auth", security(("bearer" = [])),
    params(("id" = Uuid, Path, description = "The session id")),
    responses(
        (status = 204, description = "The session was signed out"),
        (status = 400, description = "The id is not a UUID (`INVALID_PATH`)", body = crate::openapi::ErrorBody),
        (status = 401, description = "No valid core token or identity access token", body = crate::openapi::ErrorBody),
        (status = 404, description = "No live session of the user has this id", body = crate::openapi::ErrorBody),
        (status = 409, description = "Sessions are managed by a hosted identity service", body = crate::openapi::ErrorBody),
    ))]
#[delete("/dev/auth/sessions/{id}")]
pub async fn sign_out_session(
    auth: web::Data<ProductAuth>,
    principal: Principal,
    request: HttpRequest,
    path: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    let identity = built_in(&auth)?;
    let session = path.into_inner();
    identity
        .end_session(
            principal.0.user_id,
            &principal.0.email,
            session,
            caller_session(&request),
        )
        .await?;
    tracing::info!(user_id = %principal.0.user_id, session_id = %session, "session signed out from the sessions list");
    Ok(HttpResponse::NoContent().finish())
}
