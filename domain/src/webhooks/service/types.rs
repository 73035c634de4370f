//! What the webhook use cases take and answer: their error, a new endpoint and a change to one, the
//! service's config and the outcome of one attempt.

use crate::common::{FieldErrors, RepoError};
use crate::identity::DigestKey;
use crate::webhooks::WebhookEventType;
use crate::webhooks::models::SendLimits;

/// The most deliveries one page answers.
pub const MAX_PAGE: u32 = 100;

/// Errors of the webhook use cases.
#[derive(Debug, thiserror::Error)]
pub enum WebhookError {
    /// 403: the member is not an admin.
    #[error("Only organization admins can manage webhooks.")]
    AdminOnly,
    /// 404: no such endpoint or delivery in this organization.
    #[error("Webhook endpoint not found.")]
    NotFound,
    /// 400: a field is invalid.
    #[error("Some fields are invalid.")]
    Validation(FieldErrors),
    /// 409: the organization has the most endpoints it may have.
    #[error("An organization can have at most 20 webhook endpoints.")]
    TooMany,
    /// 409: the delivery is being attempted now.
    #[error("This delivery is being sent right now; try again in a moment.")]
    InProgress,
    /// 429: too many tests and retries sent by hand within the window, for the endpoint or the
    /// organization (`message` says which and when to try again).
    #[error("{message}")]
    SendLimited { message: String, retry_after_secs: u64 },
    /// 409: the endpoint has the most deliveries waiting that it may have.
    #[error(
        "This endpoint has {} deliveries waiting to be sent; send more once they are delivered or given up.",
        crate::webhooks::MAX_PENDING_PER_ENDPOINT
    )]
    Backlog,
    /// 500 (or 503).
    #[error(transparent)]
    Repo(#[from] RepoError),
}

impl WebhookError {
    /// The machine code of the answer.
    #[must_use]
    pub const fn code(&self) -> &'static str {
        match self {
            Self::AdminOnly => "FORBIDDEN",
            Self::NotFound => "NOT_FOUND",
            Self::Validation(_) => "VALIDATION",
            Self::TooMany => "WEBHOOK_LIMIT",
            Self::InProgress => "DELIVERY_IN_PROGRESS",
            Self::SendLimited { .. } => "RATE_LIMITED",
            Self::Backlog => "WEBHOOK_BACKLOG",
            Self::Repo(_) => "INTERNAL",
        }
    }
}

/// A new endpoint as the API takes it.
#[derive(Debug, Clone, Default)]
pub struct NewEndpoint {
    pub url: String,
    pub description: String,
    /// Empty: every event.
    pub events: Vec<WebhookEventType>,
}

/// A change to an endpoint; `None` leaves a field as it is.
#[derive(Debug, Clone, Default)]
pub struct EndpointChange {
    pub url: Option<String>,
    pub description: Option<String>,
    pub events: Option<Vec<WebhookEventType>>,
    pub enabled: Option<bool>,
}

/// How deliveries are made.
#[derive(Debug, Clone)]
pub struct WebhookConfig {
    /// `PORTAL_PUBLIC_URL`: the links of the payloads.
    pub public_url: String,
    /// `PORTAL_WEBHOOKS_ALLOW_PRIVATE_TARGETS` (not the monitor's `PORTAL_ALLOW_PRIVATE_TARGETS`): endpoints
    /// on private addresses and plain `http://` to loopback allowed (development and tests).
    pub allow_private: bool,
    /// The server's digest key: signing secrets are sealed at rest under a key derived from it.
    pub digest_key: DigestKey,
    /// The bounds on "Send test" and "Retry".
    pub send_limits: SendLimits,
}

/// The outcome of one attempt, for the worker's log and metrics.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AttemptOutcome {
    Delivered,
    /// Failed; tried again later.
    Retrying,
    /// Failed for the last time.
    GivenUp,
    /// The endpoint was disabled by this attempt.
    Disabled,
}

impl AttemptOutcome {
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Delivered => "delivered",
            Self::Retrying => "retrying",
            Self::GivenUp => "given_up",
            Self::Disabled => "disabled",
        }
    }
}
