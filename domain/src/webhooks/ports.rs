//! The store of endpoints and deliveries, and the sender that makes the HTTP requests.

use async_trait::async_trait;
use chrono::{DateTime, Utc};

use super::ids::DeliveryCursor;
use super::models::{
    Admission, SealedSecrets, SecretSlot, SendLimits, WebhookDelivery, WebhookEndpoint, WebhookEndpointId,
};
use super::payload::WebhookEvent;
use super::retry::DisabledReason;
use super::signing::SealedSecret;
use crate::audit::AuditEntry;
use crate::common::{OrgId, RepoError};
use crate::mail::OutgoingEmail;

/// A delivery claimed for an attempt, with what the attempt needs of its endpoint.
#[derive(Debug, Clone)]
pub struct ClaimedDelivery {
    pub delivery: WebhookDelivery,
    pub url: String,
    /// As stored; the service opens them ([`SealedSecrets::open`]).
    pub secrets: SealedSecrets,
    pub failing_since: Option<DateTime<Utc>>,
}

/// What an attempt changes, written in one transaction.
#[derive(Debug, Clone)]
pub struct AttemptRecord {
    pub delivery_id: String,
    pub endpoint_id: WebhookEndpointId,
    pub org_id: OrgId,
    pub at: DateTime<Utc>,
    pub attempts: u32,
    pub delivered: bool,
    /// When to try again; `None` when delivered or given up.
    pub next_attempt_at: Option<DateTime<Utc>>,
    pub status: Option<u16>,
    pub duration_ms: Option<u32>,
    pub response: Option<String>,
    pub error: Option<String>,
    /// The endpoint's `failing_since` after the attempt.
    pub failing_since: Option<DateTime<Utc>>,
    /// Set when the attempt disables the endpoint: why, the audit entry and the e-mails to its admins.
    pub disable: Option<(DisabledReason, AuditEntry, Vec<OutgoingEmail>)>,
}

/// How much is waiting.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct DeliveryBacklog {
    pub pending: u64,
    pub oldest_created_at: Option<DateTime<Utc>>,
}

/// Endpoints (`webhook_endpoints`) and deliveries (`webhook_deliveries`).
///
/// Events caused by a change are queued by the change's own repository method, in its transaction (the
/// audit entry it appends names them, see [`super::payload::events_of`]); this port queues only the events
/// that have no other change to ride with (tests, uptime transitions go through the uptime repository).
#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
#[async_trait]
pub trait WebhookRepository: Send + Sync {
    /// Stores a new endpoint with its (sealed) secret and appends `audit`, in one transaction.
    ///
    /// # Errors
    /// [`RepoError::Conflict`] when the organization has [`super::MAX_ENDPOINTS_PER_ORG`] endpoints already;
    /// [`RepoError::Backend`] when the store fails.
    async fn create_endpoint(
        &self,
        endpoint: &WebhookEndpoint,
        secret: &SealedSecret,
        audit: &AuditEntry,
    ) -> Result<(), RepoError>;

    /// The organization's endpoints, oldest first.
    ///
    /// # Errors
    /// [`RepoError::Backend`] when the store fails.
    async fn list_endpoints(&self, org: OrgId) -> Result<Vec<WebhookEndpoint>, RepoError>;

    /// Endpoint `id` of `org`, `None` when there is none.
    ///
    /// # Errors
    /// [`RepoError::Backend`] when the store fails.
    async fn find_endpoint(
        &self,
        org: OrgId,
        id: WebhookEndpointId,
    ) -> Result<Option<WebhookEndpoint>, RepoError>;

    /// Replaces the editable fields (url, description, events, enabled and the reason) and appends `audit`.
    /// Enabling an endpoint clears its `failing_since`.
    ///
    /// # Errors
    /// [`RepoError::NotFound`] when `org` has no such endpoint; [`RepoError::Backend`] otherwise.
    async fn update_endpoint(&self, endpoint: &WebhookEndpoint, audit: &AuditEntry) -> Result<(), RepoError>;

    /// Deletes the endpoint with its deliveries and appends `audit`.
    ///
    /// # Errors
    /// [`RepoError::NotFound`] when `org` has no such endpoint; [`RepoError::Backend`] otherwise.
    async fn delete_endpoint(
        &self,
        org: OrgId,
        id: WebhookEndpointId,
        audit: &AuditEntry,
    ) -> Result<(), RepoError>;

    /// Makes `secret` (sealed) the current one; the former keeps signing until `previous_until`. Appends
    /// `audit`.
    ///
    /// # Errors
    /// [`RepoError::NotFound`] when `org` has no such endpoint; [`RepoError::Backend`] otherwise.
    async fn rotate_secret(
        &self,
        org: OrgId,
        id: WebhookEndpointId,
        secret: &SealedSecret,
        previous_until: DateTime<Utc>,
        audit: &AuditEntry,
    ) -> Result<(), RepoError>;

    /// Queues `event` for endpoint `id` only (a test, sent by hand), as delivery `delivery_id`, due at
    /// `event.at`, within `limits`, all decided in the write that queues it: [`Admission::Limited`] when the
    /// endpoint or the organization has had its sends by hand within the window, [`Admission::Backlog`]
    /// when the endpoint has `max_pending` deliveries waiting (nothing is written then).
    ///
    /// # Errors
    /// [`RepoError::NotFound`] when `org` has no such endpoint; [`RepoError::Backend`] otherwise.
    async fn enqueue_for(
        &self,
        id: WebhookEndpointId,
        event: &WebhookEvent,
        delivery_id: &str,
        limits: SendLimits,
    ) -> Result<Admission, RepoError>;

    /// A page of the endpoint's deliveries, newest first, after `cursor` (`(created_at, id)` of the last
    /// delivery of the previous page); at most `limit`.
    ///
    /// # Errors
    /// [`RepoError::Backend`] when the store fails.
    async fn list_deliveries(
        &self,
        org: OrgId,
        id: WebhookEndpointId,
        cursor: Option<DeliveryCursor>,
        limit: u32,
    ) -> Result<Vec<WebhookDelivery>, RepoError>;

    /// Makes a delivery of the endpoint due at `now` again (one more attempt after it was given up, or at
    /// once instead of its scheduled retry), within `limits` as [`WebhookRepository::enqueue_for`] (a
    /// delivery still pending does not count against `max_pending`: it is waiting already).
    ///
    /// # Errors
    /// [`RepoError::NotFound`] when there is no such delivery of that endpoint of `org`;
    /// [`RepoError::Conflict`] while it is being attempted; [`RepoError::Backend`] otherwise.
    async fn retry_delivery(
        &self,
        org: OrgId,
        id: WebhookEndpointId,
        delivery_id: &str,
        now: DateTime<Utc>,
        limits: SendLimits,
    ) -> Result<Admission, RepoError>;

    /// Claims up to `limit` due deliveries of enabled endpoints until `lease_until`, taking turns across
    /// organizations (each one's oldest due first, then each one's second, …), never more than
    /// `per_endpoint` leased at once for one endpoint nor `per_org` for one organization (counting the
    /// leases alive, those of other instances included). Deliveries of disabled endpoints that are due
    /// are given up. Two callers never claim the same delivery while its lease lasts.
    ///
    /// # Errors
    /// [`RepoError::Backend`] when the store fails.
    async fn claim_due(
        &self,
        now: DateTime<Utc>,
        limit: u32,
        per_endpoint: u32,
        per_org: u32,
        lease_until: DateTime<Utc>,
    ) -> Result<Vec<ClaimedDelivery>, RepoError>;

    /// The secrets stored in the clear (rows written before secrets were sealed), at most `limit`.
    ///
    /// # Errors
    /// [`RepoError::Backend`] when the store fails.
    async fn plain_secrets(
        &self,
        limit: u32,
    ) -> Result<Vec<(WebhookEndpointId, SecretSlot, SealedSecret)>, RepoError>;

    /// Replaces the secret in `slot` of endpoint `id` by `sealed` if it is still `plain`; answers whether
    /// it was.
    ///
    /// # Errors
    /// [`RepoError::Backend`] when the store fails.
    async fn reseal_secret(
        &self,
        id: WebhookEndpointId,
        slot: SecretSlot,
        plain: &SealedSecret,
        sealed: &SealedSecret,
    ) -> Result<bool, RepoError>;

    /// Writes an attempt's outcome: the delivery, its endpoint's health, and when it disables the
    /// endpoint, the endpoint, the audit entry and the admins' e-mails; in one transaction.
    ///
    /// # Errors
    /// [`RepoError::NotFound`] when the delivery is gone (its endpoint deleted meanwhile);
    /// [`RepoError::Backend`] otherwise.
    async fn record_attempt(&self, record: &AttemptRecord) -> Result<(), RepoError>;

    /// The e-mail addresses of the organization's admins.
    ///
    /// # Errors
    /// [`RepoError::Backend`] when the store fails.
    async fn admin_emails(&self, org: OrgId) -> Result<Vec<crate::common::EmailAddress>, RepoError>;

    /// Pending deliveries and the oldest one's age.
    ///
    /// # Errors
    /// [`RepoError::Backend`] when the store fails.
    async fn backlog(&self) -> Result<DeliveryBacklog, RepoError>;

    /// Deletes the delivered and failed deliveries whose last attempt (or, without one, whose queueing) was
    /// before `cutoff`; a pending one stays, whatever its age: it is still being attempted. Answers how many
    /// went.
    ///
    /// # Errors
    /// [`RepoError::Backend`] when the store fails.
    async fn prune_finished_before(&self, cutoff: DateTime<Utc>) -> Result<u64, RepoError>;
}

/// The answer of one delivery request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SendResult {
    pub status: u16,
    /// The first [`super::MAX_RESPONSE_BYTES`] of the body, lossily as text; `None` when the answer came
    /// from an address that is not public (allowed by `PORTAL_WEBHOOKS_ALLOW_PRIVATE_TARGETS`): what a
    /// private service answers is never read back into the delivery log.
    pub body: Option<String>,
    pub duration_ms: u32,
}

/// Why no answer came.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SendError {
    /// The target resolves to a private, link-local or metadata address (the prober's guard).
    #[error("the address is not public")]
    PrivateTarget,
    /// No answer within the time limit (`PORTAL_WEBHOOK_TIMEOUT_SECS`, 10 s by default).
    #[error("no answer within the time limit")]
    Timeout,
    /// Anything else: refused connection, DNS, TLS.
    #[error("{0}")]
    Failed(String),
}

/// Makes delivery requests: `POST` with the given headers, no redirect followed, no proxy, private targets
/// refused after resolution, within the time limit.
#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
#[async_trait]
pub trait WebhookSender: Send + Sync {
    /// Sends `body` to `url`.
    ///
    /// # Errors
    /// [`SendError`] when no answer came.
    async fn send(
        &self,
        url: &str,
        headers: &[(String, String)],
        body: &str,
    ) -> Result<SendResult, SendError>;

    /// Whether `url`'s host may be a target (resolves, and only to public addresses unless private targets
    /// are allowed).
    ///
    /// # Errors
    /// [`SendError::PrivateTarget`] for a private address; [`SendError::Failed`] for a name that does not
    /// resolve.
    async fn check_target(&self, url: &str) -> Result<(), SendError>;
}
