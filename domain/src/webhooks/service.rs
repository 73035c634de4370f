//! The use cases of the Webhooks page (organization admins) and one delivery attempt of the worker.

use std::sync::Arc;

use chrono::{DateTime, Duration, Utc};

use super::WebhookEventType;
use super::models::{
    Admission, EventFilter, LimitScope, MAX_DESCRIPTION_CHARS, MAX_RESPONSE_BYTES, PRIVATE_TARGETS_SETTING,
    ROTATION_OVERLAP, SendLimits, SigningSecrets, WebhookDelivery, WebhookEndpoint, WebhookEndpointId,
    check_endpoint_url, message_id, shown_url,
};
use super::payload::{links, render_body, test_event};
use super::ports::{AttemptRecord, ClaimedDelivery, SendError, WebhookRepository, WebhookSender};
use super::retry::{AttemptResult, DisabledReason, HealthChange, health_after, jitter_from, next_delay};
use super::signing::{NONCE_BYTES, SealedSecret, WebhookSecret, signature_header};
use crate::audit::{AuditAction, AuditEntry, AuditTarget, AuditTargetKind};
use crate::common::{Clock, FieldErrors, RepoError, SecretGenerator};
use crate::identity::DigestKey;
use crate::mail::templates::webhook_disabled;
use crate::orgs::{ActingMember, OrgAction};

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
        super::MAX_PENDING_PER_ENDPOINT
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

/// The Webhooks page's use cases and the worker's attempts.
#[derive(Clone)]
pub struct WebhookService {
    repo: Arc<dyn WebhookRepository>,
    sender: Arc<dyn WebhookSender>,
    clock: Arc<dyn Clock>,
    secrets: Arc<dyn SecretGenerator>,
    config: WebhookConfig,
}

fn invalid(field: &str, message: impl Into<String>) -> WebhookError {
    WebhookError::Validation(FieldErrors::single(field, message))
}

/// The audit target of an endpoint, labelled with its URL as shown ([`shown_url`]: the path, which may
/// hold a secret, elided).
fn target(endpoint: &WebhookEndpoint) -> AuditTarget {
    AuditTarget::new(AuditTargetKind::Webhook, endpoint.id.to_string()).with_label(shown_url(&endpoint.url))
}

fn codes(filter: &EventFilter) -> serde_json::Value {
    match filter {
        EventFilter::All => serde_json::json!("*"),
        EventFilter::Only(events) => events.iter().map(|e| e.code()).collect(),
    }
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

impl WebhookService {
    #[must_use]
    pub fn new(
        repo: Arc<dyn WebhookRepository>,
        sender: Arc<dyn WebhookSender>,
        clock: Arc<dyn Clock>,
        secrets: Arc<dyn SecretGenerator>,
        config: WebhookConfig,
    ) -> Self {
        Self {
            repo,
            sender,
            clock,
            secrets,
            config,
        }
    }

    /// The request body of a delivery, exactly as it is sent.
    #[must_use]
    pub fn body_of(&self, delivery: &WebhookDelivery) -> String {
        render_body(&delivery.event, &self.config.public_url)
    }

    fn admin(member: &ActingMember) -> Result<(), WebhookError> {
        if member.can(OrgAction::ManageWebhooks) {
            Ok(())
        } else {
            Err(WebhookError::AdminOnly)
        }
    }

    fn audit(&self, member: &ActingMember, action: AuditAction) -> AuditEntry {
        AuditEntry::by(self.secrets.as_ref(), member.caller(), action, self.clock.now()).in_org(member.org())
    }

    async fn checked_url(&self, url: &str) -> Result<String, WebhookError> {
        let parsed =
            check_endpoint_url(url, self.config.allow_private).map_err(|e| invalid("url", e.to_string()))?;
        match self.sender.check_target(parsed.as_str()).await {
            Ok(()) => Ok(parsed.to_string()),
            Err(SendError::PrivateTarget) => Err(invalid(
                "url",
                format!(
                    "The URL must reach a public address, not a loopback, private, link-local or metadata one \
                     (a server for local development may allow them with {PRIVATE_TARGETS_SETTING}=true)."
                ),
            )),
            Err(_) => Err(invalid("url", "The URL's host could not be found.")),
        }
    }

    fn checked_description(text: &str) -> Result<String, WebhookError> {
        let text = text.trim();
        if text.chars().count() > MAX_DESCRIPTION_CHARS {
            return Err(invalid(
                "description",
                "The description is too long (at most 500 characters).",
            ));
        }
        Ok(text.to_owned())
    }

    async fn existing(
        &self,
        member: &ActingMember,
        id: WebhookEndpointId,
    ) -> Result<WebhookEndpoint, WebhookError> {
        self.repo
            .find_endpoint(member.org(), id)
            .await?
            .ok_or(WebhookError::NotFound)
    }

    /// The organization's endpoints.
    ///
    /// # Errors
    /// [`WebhookError::AdminOnly`]; [`WebhookError::Repo`].
    pub async fn list(&self, member: &ActingMember) -> Result<Vec<WebhookEndpoint>, WebhookError> {
        Self::admin(member)?;
        Ok(self.repo.list_endpoints(member.org()).await?)
    }

    /// One endpoint.
    ///
    /// # Errors
    /// [`WebhookError::AdminOnly`]; [`WebhookError::NotFound`]; [`WebhookError::Repo`].
    pub async fn get(
        &self,
        member: &ActingMember,
        id: WebhookEndpointId,
    ) -> Result<WebhookEndpoint, WebhookError> {
        Self::admin(member)?;
        self.existing(member, id).await
    }

    /// Adds an endpoint; answers it with its secret, which is never shown again.
    ///
    /// # Errors
    /// [`WebhookError::AdminOnly`]; [`WebhookError::Validation`] for a URL that is not `https://` (or
    /// reaches a private address) or a long description; [`WebhookError::TooMany`]; [`WebhookError::Repo`].
    pub async fn create(
        &self,
        member: &ActingMember,
        input: NewEndpoint,
    ) -> Result<(WebhookEndpoint, WebhookSecret), WebhookError> {
        Self::admin(member)?;
        let url = self.checked_url(&input.url).await?;
        let description = Self::checked_description(&input.description)?;
        let now = self.clock.now();
        let bytes = self.secrets.random_bytes(16);
        let endpoint = WebhookEndpoint {
            id: WebhookEndpointId(
                uuid::Builder::from_random_bytes(bytes.try_into().unwrap_or([0; 16])).into_uuid(),
            ),
            org_id: member.org(),
            url,
            description,
            events: EventFilter::from_list(&input.events),
            enabled: true,
            disabled_reason: None,
            created_at: now,
            updated_at: now,
            failing_since: None,
            last_attempt_at: None,
            last_attempt_ok: None,
            previous_secret_until: None,
        };
        let secret = WebhookSecret::generate(self.secrets.as_ref());
        let sealed = self.seal(&secret, endpoint.id);
        let audit = self
            .audit(member, AuditAction::WebhookCreated)
            .on(target(&endpoint))
            .change("url", serde_json::Value::Null, shown_url(&endpoint.url))
            .change("events", serde_json::Value::Null, codes(&endpoint.events));
        match self.repo.create_endpoint(&endpoint, &sealed, &audit).await {
            Ok(()) => Ok((endpoint, secret)),
            Err(RepoError::Conflict(_)) => Err(WebhookError::TooMany),
            Err(error) => Err(error.into()),
        }
    }

    /// Changes an endpoint's URL, description, events or state; enabling it clears its failure.
    ///
    /// # Errors
    /// As [`WebhookService::create`], and [`WebhookError::NotFound`].
    pub async fn update(
        &self,
        member: &ActingMember,
        id: WebhookEndpointId,
        change: EndpointChange,
    ) -> Result<WebhookEndpoint, WebhookError> {
        Self::admin(member)?;
        let current = self.existing(member, id).await?;
        let mut next = current.clone();
        if let Some(url) = &change.url {
            next.url = self.checked_url(url).await?;
        }
        if let Some(description) = &change.description {
            next.description = Self::checked_description(description)?;
        }
        if let Some(events) = &change.events {
            next.events = EventFilter::from_list(events);
        }
        if let Some(enabled) = change.enabled {
            next.enabled = enabled;
            next.disabled_reason = if enabled {
                None
            } else {
                Some(DisabledReason::Manual)
            };
            if enabled {
                next.failing_since = None;
            }
        }
        next.updated_at = self.clock.now();
        let mut audit = self.audit(member, AuditAction::WebhookUpdated).on(target(&next));
        if next.url != current.url {
            // Shown without their paths; a change of the path alone still shows as a change.
            let (old, mut new) = (shown_url(&current.url), shown_url(&next.url));
            if old == new {
                new.push_str(" (another path)");
            }
            audit = audit.change("url", old, new);
        }
        if next.description != current.description {
            audit = audit.change(
                "description",
                current.description.clone(),
                next.description.clone(),
            );
        }
        if next.events != current.events {
            audit = audit.change("events", codes(&current.events), codes(&next.events));
        }
        if next.enabled != current.enabled {
            audit = audit.change("enabled", current.enabled, next.enabled);
        }
        match self.repo.update_endpoint(&next, &audit).await {
            Ok(()) => Ok(next),
            Err(RepoError::NotFound) => Err(WebhookError::NotFound),
            Err(error) => Err(error.into()),
        }
    }

    /// Deletes an endpoint with its deliveries.
    ///
    /// # Errors
    /// [`WebhookError::AdminOnly`]; [`WebhookError::NotFound`]; [`WebhookError::Repo`].
    pub async fn delete(&self, member: &ActingMember, id: WebhookEndpointId) -> Result<(), WebhookError> {
        Self::admin(member)?;
        let current = self.existing(member, id).await?;
        let audit = self
            .audit(member, AuditAction::WebhookDeleted)
            .on(target(&current));
        match self.repo.delete_endpoint(member.org(), id, &audit).await {
            Ok(()) => Ok(()),
            Err(RepoError::NotFound) => Err(WebhookError::NotFound),
            Err(error) => Err(error.into()),
        }
    }

    /// Replaces the signing secret; the former one signs beside it for 24 hours. Answers the new secret.
    ///
    /// # Errors
    /// [`WebhookError::AdminOnly`]; [`WebhookError::NotFound`]; [`WebhookError::Repo`].
    pub async fn rotate_secret(
        &self,
        member: &ActingMember,
        id: WebhookEndpointId,
    ) -> Result<WebhookSecret, WebhookError> {
        Self::admin(member)?;
        let current = self.existing(member, id).await?;
        let secret = WebhookSecret::generate(self.secrets.as_ref());
        let sealed = self.seal(&secret, id);
        let until = self.clock.now() + ROTATION_OVERLAP;
        let audit = self
            .audit(member, AuditAction::WebhookSecretRotated)
            .on(target(&current));
        match self
            .repo
            .rotate_secret(member.org(), id, &sealed, until, &audit)
            .await
        {
            Ok(()) => Ok(secret),
            Err(RepoError::NotFound) => Err(WebhookError::NotFound),
            Err(error) => Err(error.into()),
        }
    }

    /// Queues a `webhook.test` delivery to the endpoint (enabled or not); answers its id.
    ///
    /// # Errors
    /// [`WebhookError::AdminOnly`]; [`WebhookError::NotFound`]; [`WebhookError::SendLimited`] past the
    /// sends by hand of the endpoint or the organization; [`WebhookError::Backlog`]; [`WebhookError::Repo`].
    pub async fn send_test(
        &self,
        member: &ActingMember,
        id: WebhookEndpointId,
    ) -> Result<String, WebhookError> {
        Self::admin(member)?;
        let now = self.clock.now();
        let event = test_event(member.org(), id, now);
        let delivery = message_id(&self.secrets.random_bytes(16));
        match self
            .repo
            .enqueue_for(id, &event, &delivery, self.config.send_limits)
            .await
        {
            Ok(admission) => self.admitted(admission, now).map(|()| delivery),
            Err(RepoError::NotFound) => Err(WebhookError::NotFound),
            Err(error) => Err(error.into()),
        }
    }

    /// The answer to a send by hand that the store admitted or refused.
    fn admitted(&self, admission: Admission, now: DateTime<Utc>) -> Result<(), WebhookError> {
        let limits = self.config.send_limits;
        let window = match limits.window.num_seconds() {
            60 => "minute".to_owned(),
            secs => format!("{secs} seconds"),
        };
        match admission {
            Admission::Queued => Ok(()),
            Admission::Backlog => Err(WebhookError::Backlog),
            Admission::Limited { scope, retry_at } => {
                let millis = (retry_at - now).num_milliseconds().max(0);
                let retry_after_secs = u64::try_from((millis + 999) / 1000).unwrap_or(1).max(1);
                let wait = match retry_after_secs {
                    1 => "1 second".to_owned(),
                    secs => format!("{secs} seconds"),
                };
                let message = match scope {
                    LimitScope::Endpoint => format!(
                        "This endpoint has had {} tests and retries in the last {window}, the most allowed. \
                         Try again in {wait}.",
                        limits.per_endpoint
                    ),
                    LimitScope::Organization => format!(
                        "Your organization has sent {} webhook tests and retries in the last {window}, the most \
                         allowed. Try again in {wait}.",
                        limits.per_org
                    ),
                };
                Err(WebhookError::SendLimited {
                    message,
                    retry_after_secs,
                })
            }
        }
    }

    /// A page of the endpoint's deliveries, newest first, after `cursor`.
    ///
    /// # Errors
    /// [`WebhookError::Validation`] for a limit outside 1–100; as [`WebhookService::get`].
    pub async fn deliveries(
        &self,
        member: &ActingMember,
        id: WebhookEndpointId,
        cursor: Option<(DateTime<Utc>, String)>,
        limit: u32,
    ) -> Result<Vec<WebhookDelivery>, WebhookError> {
        Self::admin(member)?;
        if !(1..=MAX_PAGE).contains(&limit) {
            return Err(invalid("limit", "The limit must be between 1 and 100."));
        }
        self.existing(member, id).await?;
        Ok(self.repo.list_deliveries(member.org(), id, cursor, limit).await?)
    }

    /// Sends a delivery again now.
    ///
    /// # Errors
    /// [`WebhookError::InProgress`] while it is being attempted; [`WebhookError::SendLimited`] and
    /// [`WebhookError::Backlog`] as [`WebhookService::send_test`]; as [`WebhookService::get`].
    pub async fn retry(
        &self,
        member: &ActingMember,
        id: WebhookEndpointId,
        delivery: &str,
    ) -> Result<(), WebhookError> {
        Self::admin(member)?;
        let now = self.clock.now();
        match self
            .repo
            .retry_delivery(member.org(), id, delivery, now, self.config.send_limits)
            .await
        {
            Ok(admission) => self.admitted(admission, now),
            Err(RepoError::NotFound) => Err(WebhookError::NotFound),
            Err(RepoError::Conflict(_)) => Err(WebhookError::InProgress),
            Err(error) => Err(error.into()),
        }
    }

    /// The headers of an attempt of `claim` signed with `secrets` at `now`: `webhook-id`,
    /// `webhook-timestamp`, `webhook-signature` (one signature per valid secret) and the content type.
    #[must_use]
    pub fn headers(
        claim: &ClaimedDelivery,
        secrets: &SigningSecrets,
        body: &str,
        now: DateTime<Utc>,
    ) -> Vec<(String, String)> {
        let timestamp = now.timestamp();
        let id = &claim.delivery.id;
        vec![
            ("content-type".into(), "application/json".into()),
            ("webhook-id".into(), id.clone()),
            ("webhook-timestamp".into(), timestamp.to_string()),
            (
                "webhook-signature".into(),
                signature_header(secrets.valid_at(now), id, timestamp, body),
            ),
        ]
    }

    /// Claims due deliveries for the worker, taking turns across organizations, at most `per_endpoint`
    /// and `per_org` in flight.
    ///
    /// # Errors
    /// [`RepoError`] when the store fails.
    pub async fn claim(
        &self,
        limit: u32,
        per_endpoint: u32,
        per_org: u32,
        lease: Duration,
    ) -> Result<Vec<ClaimedDelivery>, RepoError> {
        let now = self.clock.now();
        self.repo
            .claim_due(now, limit, per_endpoint, per_org, now + lease)
            .await
    }

    /// `secret` of endpoint `endpoint` sealed for storage.
    fn seal(&self, secret: &WebhookSecret, endpoint: WebhookEndpointId) -> SealedSecret {
        SealedSecret::seal(
            secret,
            &self.config.digest_key,
            endpoint,
            &self.secrets.random_bytes(NONCE_BYTES),
        )
    }

    /// Seals the signing secrets stored in the clear (rows written before secrets were sealed, or by an
    /// older instance during an upgrade); run once when the server starts. Answers how many were sealed.
    ///
    /// # Errors
    /// [`RepoError`] when the store fails.
    pub async fn seal_stored_secrets(&self) -> Result<u64, RepoError> {
        let mut sealed = 0;
        loop {
            let plain = self.repo.plain_secrets(100).await?;
            let mut changed = 0;
            for (endpoint, slot, stored) in &plain {
                let Ok(secret) = stored.open(&self.config.digest_key, *endpoint) else {
                    continue;
                };
                if self
                    .repo
                    .reseal_secret(*endpoint, *slot, stored, &self.seal(&secret, *endpoint))
                    .await?
                {
                    changed += 1;
                }
            }
            sealed += changed;
            if plain.len() < 100 || changed == 0 {
                return Ok(sealed);
            }
        }
    }

    /// Makes one attempt of a claimed delivery and records it (retry, give up or disable the endpoint).
    ///
    /// # Errors
    /// [`RepoError`] when recording fails (the lease then runs out and another attempt follows).
    pub async fn attempt(&self, claim: &ClaimedDelivery) -> Result<AttemptOutcome, RepoError> {
        let body = self.body_of(&claim.delivery);
        let sent = match claim
            .secrets
            .open(&self.config.digest_key, claim.delivery.endpoint_id)
        {
            Ok(secrets) => {
                let headers = Self::headers(claim, &secrets, &body, self.clock.now());
                self.sender.send(&claim.url, &headers, &body).await
            }
            Err(unsealable) => Err(SendError::Failed(format!("not sent: {unsealable}"))),
        };
        let now = self.clock.now();
        let (result, status, duration, response, error) = match sent {
            Ok(answer) => {
                let result = AttemptResult::of_status(answer.status);
                let error =
                    (result != AttemptResult::Delivered).then(|| format!("answered HTTP {}", answer.status));
                // No body from a target that is not public: the delivery log is no way to read one back.
                let text = answer.body.map(|mut text| {
                    if text.len() > MAX_RESPONSE_BYTES {
                        let mut cut = MAX_RESPONSE_BYTES;
                        while !text.is_char_boundary(cut) {
                            cut -= 1;
                        }
                        text.truncate(cut);
                    }
                    text
                });
                (result, Some(answer.status), Some(answer.duration_ms), text, error)
            }
            Err(failure) => (AttemptResult::Failed, None, None, None, Some(failure.to_string())),
        };
        let attempts = claim.delivery.attempts.saturating_add(1);
        let health = health_after(result, claim.failing_since, now);
        let mut record = AttemptRecord {
            delivery_id: claim.delivery.id.clone(),
            endpoint_id: claim.delivery.endpoint_id,
            org_id: claim.delivery.event.org_id,
            at: now,
            attempts,
            delivered: result == AttemptResult::Delivered,
            next_attempt_at: None,
            status,
            duration_ms: duration,
            response,
            error,
            failing_since: None,
            disable: None,
        };
        let outcome = match health {
            HealthChange::Recovered => AttemptOutcome::Delivered,
            HealthChange::Failing { since } => {
                record.failing_since = Some(since);
                let bytes = self.secrets.random_bytes(2);
                let jitter = jitter_from([
                    bytes.first().copied().unwrap_or(0),
                    bytes.get(1).copied().unwrap_or(0),
                ]);
                match next_delay(attempts, jitter) {
                    Some(delay) => {
                        record.next_attempt_at = Some(now + delay);
                        AttemptOutcome::Retrying
                    }
                    None => AttemptOutcome::GivenUp,
                }
            }
            HealthChange::Disable {
                reason,
                failing_since,
            } => {
                record.failing_since = failing_since;
                let why = match reason {
                    DisabledReason::Gone => "it answered 410 Gone",
                    _ => "its deliveries failed for three days",
                };
                let audit = AuditEntry::by_operator(self.secrets.as_ref(), AuditAction::WebhookDisabled, now)
                    .in_org(claim.delivery.event.org_id)
                    .on(
                        AuditTarget::new(AuditTargetKind::Webhook, claim.delivery.endpoint_id.to_string())
                            .with_label(shown_url(&claim.url)),
                    )
                    .change("enabled", true, false)
                    .change("disabledReason", serde_json::Value::Null, reason.as_str());
                let link = format!(
                    "{}{}",
                    self.config.public_url.trim_end_matches('/'),
                    links::WEBHOOKS
                );
                let emails = self
                    .repo
                    .admin_emails(claim.delivery.event.org_id)
                    .await?
                    .iter()
                    .map(|to| webhook_disabled(to, &shown_url(&claim.url), why, &link))
                    .collect();
                record.disable = Some((reason, audit, emails));
                AttemptOutcome::Disabled
            }
        };
        self.repo.record_attempt(&record).await?;
        Ok(outcome)
    }

    /// How many deliveries wait, and since when.
    ///
    /// # Errors
    /// [`RepoError`] when the store fails.
    pub async fn backlog(&self) -> Result<super::DeliveryBacklog, RepoError> {
        self.repo.backlog().await
    }
}
