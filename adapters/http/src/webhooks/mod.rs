//! Webhook endpoints of an organization (issue 38), for its admins: add, list, change, delete, rotate the
//! secret, send a test, read the delivery log and send a delivery again. Session-only: personal access
//! tokens have no scope for them (`auth::token_routes`).

mod deliveries;
mod dto;

pub use self::deliveries::{
    DeliveryPageQuery, WebhookDeliveryDto, WebhookDeliveryPageDto, list_webhook_deliveries,
    retry_webhook_delivery,
};
pub use self::dto::{
    CreateWebhookRequest, CreatedWebhookDto, QueuedDeliveryDto, RotatedSecretDto, UpdateWebhookRequest,
    WebhookEndpointDto, WebhookListDto,
};

use actix_web::{HttpResponse, delete, get, patch, post, web};
use chrono::Utc;
use domain::webhooks::{EndpointChange, NewEndpoint, WebhookEndpointId, WebhookEventType, WebhookService};
use std::collections::BTreeMap;
use std::sync::Arc;

use crate::auth::OrgMember;
use crate::json::Json;
use crate::{ApiError, RouteSink};

/// The webhook use cases, as app data.
#[derive(Clone)]
pub struct WebhooksApi(pub Arc<WebhookService>);

impl std::fmt::Debug for WebhooksApi {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("WebhooksApi")
    }
}

/// Registers the routes of this module inside the `/api` scope.
pub fn routes<R: RouteSink>(cfg: &mut R) {
    cfg.service(list_webhooks)
        .service(create_webhook)
        .service(get_webhook)
        .service(update_webhook)
        .service(delete_webhook)
        .service(rotate_webhook_secret)
        .service(test_webhook)
        .service(list_webhook_deliveries)
        .service(retry_webhook_delivery);
}

const NOT_FOUND: &str = "Webhook endpoint not found.";

fn endpoint_id(text: &str) -> Result<WebhookEndpointId, ApiError> {
    uuid::Uuid::parse_str(text.trim())
        .map(WebhookEndpointId)
        .map_err(|_| ApiError::NotFound(NOT_FOUND.into()))
}

fn invalid(field: &str, message: &str) -> ApiError {
    ApiError::Validation {
        message: message.to_owned(),
        fields: BTreeMap::from([(field.to_owned(), message.to_owned())]),
    }
}

fn event_types(list: &[String]) -> Result<Vec<WebhookEventType>, ApiError> {
    list.iter()
        .enumerate()
        .map(|(index, code)| {
            WebhookEventType::parse(code)
                .filter(|event| *event != WebhookEventType::Test)
                .ok_or_else(|| invalid(&format!("events[{index}]"), "Unknown event type"))
        })
        .collect()
}
/// The organization's webhook endpoints (admins).
#[utoipa::path(operation_id = "list_webhooks", tag = "webhooks", security(("bearer" = [])),
    params(("orgId" = String, Path, description = "Organization id")),
    responses(
        (status = 200, description = "The endpoints and the event types", body = WebhookListDto),
        (status = 403, description = "Only organization admins manage webhooks", body = crate::openapi::ErrorBody),
        (status = 404, description = "No such organization, or the caller is not a member", body = crate::openapi::ErrorBody),
    ))]
#[get("/orgs/{orgId}/webhooks")]
pub async fn list_webhooks(api: web::Data<WebhooksApi>, member: OrgMember) -> Result<HttpResponse, ApiError> {
    let endpoints = api.0.list(&member.0).await?;
    Ok(HttpResponse::Ok()
        .insert_header(("Cache-Control", "no-store"))
        .json(WebhookListDto {
            endpoints: endpoints.into_iter().map(WebhookEndpointDto::from).collect(),
            event_types: WebhookEventType::subscribable().collect(),
        }))
}

/// Adds an endpoint; its signing secret is in this answer only.
#[utoipa::path(operation_id = "create_webhook", tag = "webhooks", security(("bearer" = [])),
    params(("orgId" = String, Path, description = "Organization id")),
    request_body = CreateWebhookRequest,
    responses(
        (status = 201, description = "The endpoint with its secret", body = CreatedWebhookDto),
        (status = 400, description = "The URL is not https, reaches a private address, or an event is unknown (`VALIDATION`)", body = crate::openapi::ErrorBody),
        (status = 403, description = "Only organization admins manage webhooks", body = crate::openapi::ErrorBody),
        (status = 404, description = "No such organization, or the caller is not a member", body = crate::openapi::ErrorBody),
        (status = 409, description = "The organization has 20 endpoints (`WEBHOOK_LIMIT`)", body = crate::openapi::ErrorBody),
    ))]
#[post("/orgs/{orgId}/webhooks")]
pub async fn create_webhook(
    api: web::Data<WebhooksApi>,
    member: OrgMember,
    body: Json<CreateWebhookRequest>,
) -> Result<HttpResponse, ApiError> {
    let body = body.into_inner();
    let input = NewEndpoint {
        events: event_types(&body.events)?,
        url: body.url,
        description: body.description,
    };
    let (endpoint, secret) = api.0.create(&member.0, input).await?;
    Ok(HttpResponse::Created()
        .insert_header(("Cache-Control", "no-store"))
        .json(CreatedWebhookDto {
            endpoint: endpoint.into(),
            secret: secret.as_str().to_owned(),
        }))
}

/// One endpoint.
#[utoipa::path(operation_id = "get_webhook", tag = "webhooks", security(("bearer" = [])),
    params(("orgId" = String, Path, description = "Organization id"), ("id" = String, Path, description = "Endpoint id")),
    responses(
        (status = 200, description = "The endpoint", body = WebhookEndpointDto),
        (status = 403, description = "Only organization admins manage webhooks", body = crate::openapi::ErrorBody),
        (status = 404, description = "No such endpoint in the organization", body = crate::openapi::ErrorBody),
    ))]
#[get("/orgs/{orgId}/webhooks/{id}")]
pub async fn get_webhook(
    api: web::Data<WebhooksApi>,
    member: OrgMember,
    path: web::Path<(String, String)>,
) -> Result<HttpResponse, ApiError> {
    let endpoint = api.0.get(&member.0, endpoint_id(&path.1)?).await?;
    Ok(HttpResponse::Ok().json(WebhookEndpointDto::from(endpoint)))
}

/// Changes an endpoint's URL, description, events, or enables or disables it.
#[utoipa::path(operation_id = "update_webhook", tag = "webhooks", security(("bearer" = [])),
    params(("orgId" = String, Path, description = "Organization id"), ("id" = String, Path, description = "Endpoint id")),
    request_body = UpdateWebhookRequest,
    responses(
        (status = 200, description = "The endpoint as changed", body = WebhookEndpointDto),
        (status = 400, description = "A field is invalid (`VALIDATION`)", body = crate::openapi::ErrorBody),
        (status = 403, description = "Only organization admins manage webhooks", body = crate::openapi::ErrorBody),
        (status = 404, description = "No such endpoint in the organization", body = crate::openapi::ErrorBody),
    ))]
#[patch("/orgs/{orgId}/webhooks/{id}")]
pub async fn update_webhook(
    api: web::Data<WebhooksApi>,
    member: OrgMember,
    path: web::Path<(String, String)>,
    body: Json<UpdateWebhookRequest>,
) -> Result<HttpResponse, ApiError> {
    let id = endpoint_id(&path.1)?;
    let body = body.into_inner();
    let change = EndpointChange {
        events: body.events.as_deref().map(event_types).transpose()?,
        url: body.url,
        description: body.description,
        enabled: body.enabled,
    };
    let endpoint = api.0.update(&member.0, id, change).await?;
    Ok(HttpResponse::Ok().json(WebhookEndpointDto::from(endpoint)))
}

/// Deletes an endpoint with its delivery log.
#[utoipa::path(operation_id = "delete_webhook", tag = "webhooks", security(("bearer" = [])),
    params(("orgId" = String, Path, description = "Organization id"), ("id" = String, Path, description = "Endpoint id")),
    responses(
        (status = 204, description = "Deleted"),
        (status = 403, description = "Only organization admins manage webhooks", body = crate::openapi::ErrorBody),
        (status = 404, description = "No such endpoint in the organization", body = crate::openapi::ErrorBody),
    ))]
#[delete("/orgs/{orgId}/webhooks/{id}")]
pub async fn delete_webhook(
    api: web::Data<WebhooksApi>,
    member: OrgMember,
    path: web::Path<(String, String)>,
) -> Result<HttpResponse, ApiError> {
    api.0.delete(&member.0, endpoint_id(&path.1)?).await?;
    Ok(HttpResponse::NoContent().finish())
}

/// Replaces the signing secret; the former one keeps signing (a second signature) for 24 hours.
#[utoipa::path(operation_id = "rotate_webhook_secret", tag = "webhooks", security(("bearer" = [])),
    params(("orgId" = String, Path, description = "Organization id"), ("id" = String, Path, description = "Endpoint id")),
    responses(
        (status = 200, description = "The new secret, shown this once", body = RotatedSecretDto),
        (status = 403, description = "Only organization admins manage webhooks", body = crate::openapi::ErrorBody),
        (status = 404, description = "No such endpoint in the organization", body = crate::openapi::ErrorBody),
    ))]
#[post("/orgs/{orgId}/webhooks/{id}/rotate-secret")]
pub async fn rotate_webhook_secret(
    api: web::Data<WebhooksApi>,
    member: OrgMember,
    path: web::Path<(String, String)>,
) -> Result<HttpResponse, ApiError> {
    let id = endpoint_id(&path.1)?;
    let secret = api.0.rotate_secret(&member.0, id).await?;
    let until = api
        .0
        .get(&member.0, id)
        .await?
        .previous_secret_until
        .unwrap_or_else(Utc::now);
    Ok(HttpResponse::Ok()
        .insert_header(("Cache-Control", "no-store"))
        .json(RotatedSecretDto {
            secret: secret.as_str().to_owned(),
            previous_secret_valid_until: until,
        }))
}

/// Queues a `webhook.test` delivery to the endpoint.
#[utoipa::path(operation_id = "test_webhook", tag = "webhooks", security(("bearer" = [])),
    params(("orgId" = String, Path, description = "Organization id"), ("id" = String, Path, description = "Endpoint id")),
    responses(
        (status = 202, description = "Queued; its delivery id", body = QueuedDeliveryDto),
        (status = 403, description = "Only organization admins manage webhooks", body = crate::openapi::ErrorBody),
        (status = 404, description = "No such endpoint in the organization", body = crate::openapi::ErrorBody),
        (status = 409, description = "The endpoint has 1000 deliveries waiting (`WEBHOOK_BACKLOG`), or the e-mail of a hosted identity belongs to another local account (`EMAIL_IN_USE`)", body = crate::openapi::ErrorBody),
        (status = 429, description = "5 tests and retries a minute per endpoint, 20 per organization (`RATE_LIMITED`); the message and `Retry-After` say when to try again", body = crate::openapi::ErrorBody,
            headers(("Retry-After" = u64, description = "Seconds until another one is allowed"))),
    ))]
#[post("/orgs/{orgId}/webhooks/{id}/test")]
pub async fn test_webhook(
    api: web::Data<WebhooksApi>,
    member: OrgMember,
    path: web::Path<(String, String)>,
) -> Result<HttpResponse, ApiError> {
    let delivery_id = api.0.send_test(&member.0, endpoint_id(&path.1)?).await?;
    Ok(HttpResponse::Accepted().json(QueuedDeliveryDto { delivery_id }))
}
