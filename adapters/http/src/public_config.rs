//! `GET /api/public-config`: what the browser needs before anything else — the links of the landing page
//! and which identity service and sign-in providers are on.

use actix_web::{HttpResponse, web};
use serde::Serialize;
use utoipa::ToSchema;

/// Where the browser's identity client talks to, and with which public key.
#[derive(Debug, Clone, Serialize, PartialEq, Eq, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct IdentityConfig {
    /// Base URL of the Supabase-compatible auth API (the built-in one is this server's origin).
    pub url: String,
    /// The public anonymous-role key the client sends.
    pub anon_key: String,
}

/// The public configuration, served as is.
#[derive(Debug, Clone, Serialize, PartialEq, Eq, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PublicConfig {
    pub docs_url: String,
    pub source_url: String,
    pub example_app_url: String,
    /// Sign-in providers configured on this server (`google`, `apple`, `github`, `azure`).
    pub providers: Vec<String>,
    pub identity: IdentityConfig,
}

/// `GET /api/public-config`.
#[utoipa::path(get, path = "/api/public-config", tag = "system", responses((status = 200, description = "Links, identity service and sign-in providers", body = PublicConfig)))]
pub async fn get(config: web::Data<PublicConfig>) -> HttpResponse {
    HttpResponse::Ok()
        .insert_header(("Cache-Control", "no-cache"))
        .json(config.get_ref())
}
