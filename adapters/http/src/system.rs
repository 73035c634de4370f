//! Operational endpoints.

use actix_web::HttpResponse;
use serde_json::json;

use crate::ApiError;

/// `GET /healthz`: the process is up and serving.
#[utoipa::path(get, path = "/healthz", tag = "system", responses((status = 200, description = "The process is up", body = crate::openapi::Health)))]
pub async fn healthz() -> HttpResponse {
    HttpResponse::Ok()
        .insert_header(("Cache-Control", "no-store"))
        .json(json!({ "status": "ok" }))
}

/// Any unknown path under `/api` answers a JSON 404, never the web UI.
pub async fn api_not_found() -> Result<HttpResponse, ApiError> {
    Err(ApiError::NotFound("No such API endpoint.".into()))
}
