//! Operational endpoints.

use actix_web::{HttpResponse, web};
use domain::common::Readiness;
use serde_json::json;
use std::sync::Arc;

use crate::ApiError;

/// What `/readyz` asks: whether the database answers.
#[derive(Clone)]
pub struct ReadinessCheck(pub Arc<dyn Readiness>);

impl std::fmt::Debug for ReadinessCheck {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ReadinessCheck")
    }
}

/// `GET /healthz`: liveness. The process is up and serving; it answers `ok` even while the database is down
/// (restarting the process would not bring the database back).
#[utoipa::path(get, path = "/healthz", tag = "system", responses((status = 200, description = "The process is up", body = crate::openapi::Health)))]
pub async fn healthz() -> HttpResponse {
    HttpResponse::Ok()
        .insert_header(("Cache-Control", "no-store"))
        .json(json!({ "status": "ok" }))
}

/// `GET /readyz`: readiness. `ok` when the database answers; 503 `DATABASE_UNAVAILABLE` with `Retry-After`
/// while it cannot be reached, so that a load balancer sends requests to other instances meanwhile.
#[utoipa::path(get, path = "/readyz", tag = "system", responses(
    (status = 200, description = "The database answers", body = crate::openapi::Health),
    (status = 503, description = "The database cannot be reached", body = crate::openapi::ErrorBody),
))]
pub async fn readyz(check: web::Data<ReadinessCheck>) -> Result<HttpResponse, ApiError> {
    check.0.check().await?;
    Ok(HttpResponse::Ok()
        .insert_header(("Cache-Control", "no-store"))
        .json(json!({ "status": "ok" })))
}

/// Any unknown path under `/api` answers a JSON 404, never the web UI.
pub async fn api_not_found() -> Result<HttpResponse, ApiError> {
    Err(ApiError::NotFound("No such API endpoint.".into()))
}
