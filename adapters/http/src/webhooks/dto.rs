//! The bodies of the endpoint routes: an endpoint as answered (never its secret), the list, the secret shown
//! once, the requests that add and change one, and a queued delivery's id.

use chrono::{DateTime, Utc};
use domain::webhooks::{DisabledReason, WebhookEndpoint, WebhookEventType};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

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
