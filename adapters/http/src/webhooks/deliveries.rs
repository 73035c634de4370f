//! An endpoint's delivery log: its pages by cursor, and a delivery sent again.

use actix_web::{HttpResponse, get, post, web};
use chrono::{DateTime, Utc};
use domain::webhooks::{DeliveryCursor, DeliveryStatus, WebhookDelivery, WebhookEventType};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use super::{QueuedDeliveryDto, WebhooksApi, endpoint_id, invalid};
use crate::ApiError;
use crate::auth::OrgMember;

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
        Some(text) => Some(DeliveryCursor::parse(text).ok_or_else(|| invalid("cursor", "Unknown cursor"))?),
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
        .then(|| page.last().map(|d| DeliveryCursor::after(d).to_string()))
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
