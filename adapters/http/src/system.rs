//! Operational endpoints.

use actix_web::body::{EitherBody, MessageBody};
use actix_web::dev::{ResourceDef, ServiceRequest, ServiceResponse};
use actix_web::get;
use actix_web::http::StatusCode;
use actix_web::middleware::Next;
use actix_web::{HttpResponse, ResponseError, web};
use domain::common::Readiness;
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
#[utoipa::path(tag = "system", responses((status = 200, description = "The process is up", body = crate::openapi::Health)))]
#[get("/healthz")]
pub async fn healthz() -> HttpResponse {
    HttpResponse::Ok()
        .insert_header(("Cache-Control", "no-store"))
        .json(crate::openapi::Health::OK)
}

/// `GET /readyz`: readiness. `ok` when the database answers; 503 `DATABASE_UNAVAILABLE` with `Retry-After`
/// while it cannot be reached, so that a load balancer sends requests to other instances meanwhile.
#[utoipa::path(tag = "system", responses(
    (status = 200, description = "The database answers", body = crate::openapi::Health),
    (status = 503, description = "The database cannot be reached", body = crate::openapi::ErrorBody),
))]
#[get("/readyz")]
pub async fn readyz(check: web::Data<ReadinessCheck>) -> Result<HttpResponse, ApiError> {
    check.0.check().await?;
    Ok(HttpResponse::Ok()
        .insert_header(("Cache-Control", "no-store"))
        .json(crate::openapi::Health::OK))
}

/// Any unknown path under `/api` answers a JSON 404, never the web UI; a known path asked with a method it
/// does not answer, 405 with `Allow`.
pub async fn api_not_found(req: actix_web::HttpRequest) -> Result<HttpResponse, ApiError> {
    match allowed_methods(req.path()) {
        Some(allow) => Err(ApiError::MethodNotAllowed {
            method: req.method().to_string(),
            allow: allow.to_owned(),
        }),
        None => Err(ApiError::NotFound("No such API endpoint.".into())),
    }
}

/// Each documented path of the product API with the methods it answers (`Allow`), from the served OpenAPI
/// document, where every route under `/api` is written.
static ALLOWED: std::sync::LazyLock<Vec<(ResourceDef, String)>> = std::sync::LazyLock::new(|| {
    crate::openapi::document()
        .paths
        .paths
        .iter()
        .map(|(path, item)| {
            let methods = [
                ("GET", item.get.is_some()),
                ("HEAD", item.get.is_some()),
                ("POST", item.post.is_some()),
                ("PUT", item.put.is_some()),
                ("PATCH", item.patch.is_some()),
                ("DELETE", item.delete.is_some()),
            ];
            let allow = methods
                .iter()
                .filter(|(_, present)| *present)
                .map(|(name, _)| *name)
                .collect::<Vec<_>>()
                .join(", ");
            (ResourceDef::new(path.as_str()), allow)
        })
        .collect()
});

/// The methods a path of the product API answers, if it is one.
fn allowed_methods(path: &str) -> Option<&'static str> {
    ALLOWED
        .iter()
        .find(|(def, _)| def.is_match(path))
        .map(|(_, allow)| allow.as_str())
}

/// Middleware of `/api`: a 405 (a route that exists, a method it does not answer) becomes the JSON
/// envelope with `Allow`, instead of actix's empty answer.
///
/// # Errors
/// Whatever the inner service answers.
pub async fn method_not_allowed(
    req: ServiceRequest,
    next: Next<impl MessageBody>,
) -> Result<ServiceResponse<EitherBody<impl MessageBody>>, actix_web::Error> {
    let response = next.call(req).await?;
    if response.status() != StatusCode::METHOD_NOT_ALLOWED || !response.response().body().size().is_eof() {
        return Ok(response.map_into_left_body());
    }
    let allow = allowed_methods(response.request().path()).unwrap_or("GET");
    let error = ApiError::MethodNotAllowed {
        method: response.request().method().to_string(),
        allow: allow.to_owned(),
    };
    Ok(response
        .into_response(error.error_response())
        .map_into_right_body())
}
