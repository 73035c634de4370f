//! `POST /api/auth/exchange-token {supabaseToken}` → `{coreToken, expiresAt}`.

use actix_web::post;
use actix_web::{HttpResponse, web};
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

use super::ProductAuth;
use crate::ApiError;
use crate::json::Json;

#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ExchangeRequest {
    /// Required, not blank: the identity service's access token.
    #[schema(required = true, value_type = String, min_length = 1, pattern = r"\S")]
    pub supabase_token: Option<String>,
}

impl ExchangeRequest {
    /// The identity access token to exchange; a missing or blank one is refused by name.
    fn token(&self) -> Result<&str, ApiError> {
        self.supabase_token
            .as_deref()
            .map(str::trim)
            .filter(|t| !t.is_empty())
            .ok_or_else(|| ApiError::Validation {
                message: "supabaseToken is required".into(),
                fields: BTreeMap::from([(
                    "supabaseToken".to_owned(),
                    "supabaseToken is required".to_owned(),
                )]),
            })
    }
}

#[derive(Debug, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ExchangeResponse {
    pub core_token: String,
    /// When the core token expires (never after the identity access token it came from).
    pub expires_at: DateTime<Utc>,
}

/// Exchanges an identity access token of a live session for a core token.
///
/// # Errors
/// 422 without `supabaseToken`; 401 when it is not a valid identity access token (a core token, a refresh
/// token, an expired or signed-out session's token); 409 `EMAIL_IN_USE` when a hosted user's e-mail
/// belongs to another local account.
#[utoipa::path(tag = "auth", request_body = ExchangeRequest,
    responses(
        (status = 200, description = "A core token for the product API", body = ExchangeResponse),
        (status = 401, description = "Not a valid identity access token of a live session", body = crate::openapi::ErrorBody),
        (status = 409, description = "A hosted user's e-mail belongs to another account on this server", body = crate::openapi::ErrorBody),
        (status = 400, description = "supabaseToken is missing (`VALIDATION`, `fields`)", body = crate::openapi::ErrorBody),
    ))]
#[post("/auth/exchange-token")]
pub async fn exchange_token(
    auth: web::Data<ProductAuth>,
    body: Json<ExchangeRequest>,
) -> Result<HttpResponse, ApiError> {
    let core = auth.core_tokens.exchange(body.token()?).await?;
    Ok(HttpResponse::Ok()
        .insert_header(("Cache-Control", "no-store"))
        .json(ExchangeResponse {
            core_token: core.token,
            expires_at: core.expires_at,
        }))
}
