//! Webhook endpoints of an organization (issue 38), for its admins: add, list, change, delete, rotate the
//! secret, send a test, read the delivery log and send a delivery again. Session-only: personal access
//! tokens have no scope for them (`auth::token_routes`).

use actix_web::{HttpResponse, delete, get, patch, post, web};
use chrono::{DateTime, Utc};
use domain::webhooks::{
    DeliveryStatus, DisabledReason, EndpointChange, NewEndpoint, WebhookDelivery, WebhookEndpoint,
    WebhookEndpointId, WebhookEventType, WebhookService,
};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::sync::Arc;
use utoipa::{IntoParams, ToSchema};

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

/// An endpoint (never its secret).
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct WebhookEndpointDto {
    #[schema(format = Uuid)]
    pub id: String,
    pub url: String,
    pub description: String,
    /// The chosen events; empty when `allEvents`.
    pub events: Vec<WebhookEventType>,
    /// Every event, those added later included.
    pub all_events: bool,
    pub enabled: bool,
    /// Why it is disabled: by an admin, a `410 Gone`, or three days of failures.
    pub disabled_reason: Option<DisabledReason>,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
    /// The first failed attempt since the last success; `null` while healthy.
    pub failing_since: Option<DateTime<Utc>>,
    pub last_attempt_at: Option<DateTime<Utc>>,
    pub last_attempt_ok: Option<bool>,
    /// Until when the secret replaced by the last rotation still signs.
    pub previous_secret_valid_until: Option<DateTime<Utc>>,
}

impl From<WebhookEndpoint> for WebhookEndpointDto {
    fn from(endpoint: WebhookEndpoint) -> Self {
        Self {
            id: endpoint.id.to_string(),
            all_events: endpoint.events == domain::webhooks::EventFilter::All,
            events: endpoint.events.to_list(),
            url: endpoint.url,
            description: endpoint.description,
            enabled: endpoint.enabled,
            disabled_reason: endpoint.disabled_reason,
            created_at: endpoint.created_at,
            updated_at: endpoint.updated_at,
            failing_since: endpoint.failing_since,
            last_attempt_at: endpoint.last_attempt_at,
            last_attempt_ok: endpoint.last_attempt_ok,
            previous_secret_valid_until: endpoint.previous_secret_until,
        }
    }
}

/// The organization's endpoints and every event type one may choose.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct WebhookListDto {
    pub endpoints: Vec<WebhookEndpointDto>,
    pub event_types: Vec<WebhookEventType>,
}

/// A new endpoint with its signing secret, shown this once.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CreatedWebhookDto {
    #[serde(flatten)]
    pub endpoint: WebhookEndpointDto,
    /// `whsec_…`: verifies the `webhook-signature` of every delivery. Not shown again.
    pub secret: String,
}

/// The new signing secret; the former one signs beside it until `previousSecretValidUntil`.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RotatedSecretDto {
    pub secret: String,
    pub previous_secret_valid_until: DateTime<Utc>,
}

/// `POST /api/orgs/{orgId}/webhooks`.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CreateWebhookRequest {
    /// `https://…` (plain `http://` only to this machine, when private targets are allowed).
    #[schema(max_length = 2000)]
    pub url: String,
    /// The events wanted; empty or absent: every event.
    #[serde(default)]
    #[schema(value_type = Vec<WebhookEventType>)]
    pub events: Vec<String>,
    #[serde(default)]
    pub description: String,
}

/// `PATCH /api/orgs/{orgId}/webhooks/{id}`: the members given are changed.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct UpdateWebhookRequest {
    #[schema(max_length = 2000)]
    pub url: Option<String>,
    pub description: Option<String>,
    #[schema(value_type = Option<Vec<WebhookEventType>>)]
    pub events: Option<Vec<String>>,
    pub enabled: Option<bool>,
}

/// A queued delivery.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct QueuedDeliveryDto {
    /// The `webhook-id` of its attempts.
    pub delivery_id: String,
}

/// One delivery with its last attempt.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct WebhookDeliveryDto {
    /// The `webhook-id` of every attempt.
    pub id: String,
    pub event_type: WebhookEventType,
    pub status: DeliveryStatus,
    pub attempts: u32,
    pub created_at: DateTime<Utc>,
    pub next_attempt_at: Option<DateTime<Utc>>,
    pub last_attempt_at: Option<DateTime<Utc>>,
    /// The last answer's HTTP status; `null` when none came.
    pub response_status: Option<u16>,
    pub duration_ms: Option<u32>,
    /// The request body, exactly as sent.
    pub request_body: String,
    /// The first 4 KB of the last answer's body.
    pub response_body: Option<String>,
    pub error: Option<String>,
}

/// A page of deliveries, newest first; `nextCursor` reads the next one (`null` on the last).
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct WebhookDeliveryPageDto {
    pub deliveries: Vec<WebhookDeliveryDto>,
    pub next_cursor: Option<String>,
}

/// The cursor and page size of a delivery page.
#[derive(Debug, Default, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct DeliveryPageQuery {
    /// The `nextCursor` of the previous page.
    #[param(pattern = r"^[0-9]{1,15}\.msg_[A-Za-z0-9]{1,96}$")]
    pub cursor: Option<String>,
    /// Deliveries per page, 1–100; 25 when absent.
    #[param(value_type = Option<u32>, minimum = 1, maximum = 100)]
    pub limit: Option<String>,
}

fn delivery_dto(api: &WebhooksApi, delivery: WebhookDelivery) -> WebhookDeliveryDto {
    WebhookDeliveryDto {
        request_body: api.0.body_of(&delivery),
        id: delivery.id,
        event_type: delivery.event.event_type,
        status: delivery.status,
        attempts: delivery.attempts,
        created_at: delivery.created_at,
        next_attempt_at: delivery.next_attempt_at,
        last_attempt_at: delivery.last_attempt_at,
        response_status: delivery.last_status,
        duration_ms: delivery.last_duration_ms,
        response_body: delivery.last_response,
        error: delivery.last_error,
    }
}

fn parse_cursor(text: &str) -> Option<(DateTime<Utc>, String)> {
    let (millis, id) = text.split_once('.')?;
    let at = DateTime::from_timestamp_millis(millis.parse().ok()?)?;
    (id.starts_with("msg_") && id.len() <= 100).then(|| (at, id.to_owned()))
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

/// The endpoint's deliveries, newest first, by cursor.
#[utoipa::path(operation_id = "list_webhook_deliveries", tag = "webhooks", security(("bearer" = [])),
    params(("orgId" = String, Path, description = "Organization id"), ("id" = String, Path, description = "Endpoint id"), DeliveryPageQuery),
    responses(
        (status = 200, description = "A page of deliveries", body = WebhookDeliveryPageDto),
        (status = 400, description = "The cursor or page size is invalid (`VALIDATION`)", body = crate::openapi::ErrorBody),
        (status = 403, description = "Only organization admins manage webhooks", body = crate::openapi::ErrorBody),
        (status = 404, description = "No such endpoint in the organization", body = crate::openapi::ErrorBody),
    ))]
#[get("/orgs/{orgId}/webhooks/{id}/deliveries")]
pub async fn list_webhook_deliveries(
    api: web::Data<WebhooksApi>,
    member: OrgMember,
    path: web::Path<(String, String)>,
    query: web::Query<DeliveryPageQuery>,
) -> Result<HttpResponse, ApiError> {
    let id = endpoint_id(&path.1)?;
    let cursor = match query.cursor.as_deref().map(str::trim).filter(|c| !c.is_empty()) {
        Some(text) => Some(parse_cursor(text).ok_or_else(|| invalid("cursor", "Unknown cursor"))?),
        None => None,
    };
    let limit = match query.limit.as_deref().map(str::trim).filter(|l| !l.is_empty()) {
        Some(text) => text
            .parse::<u32>()
            .map_err(|_| invalid("limit", "The limit must be between 1 and 100."))?,
        None => 25,
    };
    let page = api.0.deliveries(&member.0, id, cursor, limit).await?;
    let next_cursor = (page.len() == limit as usize)
        .then(|| {
            page.last()
                .map(|d| format!("{}.{}", d.created_at.timestamp_millis(), d.id))
        })
        .flatten();
    Ok(HttpResponse::Ok()
        .insert_header(("Cache-Control", "no-store"))
        .json(WebhookDeliveryPageDto {
            deliveries: page.into_iter().map(|d| delivery_dto(&api, d)).collect(),
            next_cursor,
        }))
}

/// Sends a delivery again now (after it was given up, or instead of waiting for its retry).
#[utoipa::path(operation_id = "retry_webhook_delivery", tag = "webhooks", security(("bearer" = [])),
    params(
        ("orgId" = String, Path, description = "Organization id"),
        ("id" = String, Path, description = "Endpoint id"),
        ("deliveryId" = String, Path, description = "Delivery id (`msg_…`)"),
    ),
    responses(
        (status = 202, description = "Queued again", body = QueuedDeliveryDto),
        (status = 403, description = "Only organization admins manage webhooks", body = crate::openapi::ErrorBody),
        (status = 404, description = "No such delivery of the endpoint", body = crate::openapi::ErrorBody),
        (status = 409, description = "It is being sent right now (`DELIVERY_IN_PROGRESS`), or sending it again would put more than 1000 deliveries in the endpoint's queue (`WEBHOOK_BACKLOG`)", body = crate::openapi::ErrorBody),
        (status = 429, description = "5 tests and retries a minute per endpoint, 20 per organization (`RATE_LIMITED`); the message and `Retry-After` say when to try again", body = crate::openapi::ErrorBody,
            headers(("Retry-After" = u64, description = "Seconds until another one is allowed"))),
    ))]
#[post("/orgs/{orgId}/webhooks/{id}/deliveries/{deliveryId}/retry")]
pub async fn retry_webhook_delivery(
    api: web::Data<WebhooksApi>,
    member: OrgMember,
    path: web::Path<(String, String, String)>,
) -> Result<HttpResponse, ApiError> {
    let id = endpoint_id(&path.1)?;
    api.0.retry(&member.0, id, &path.2).await?;
    Ok(HttpResponse::Accepted().json(QueuedDeliveryDto {
        delivery_id: path.2.clone(),
    }))
}
