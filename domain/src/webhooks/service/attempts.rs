//! The worker's side ([`WebhookDeliveryService`]): claims of due deliveries, one signed attempt and its
//! record (retry, give up or disable the endpoint), the sealing of secrets stored in the clear, and the
//! backlog.

use std::sync::Arc;

use chrono::{DateTime, Duration, Utc};

use super::seal_secret;
use crate::audit::{AuditAction, AuditEntry, AuditTarget, AuditTargetKind};
use crate::common::{Clock, RepoError, SecretGenerator};
use crate::mail::templates::webhook_disabled;
use crate::webhooks::models::{MAX_RESPONSE_BYTES, SigningSecrets, WebhookDelivery, shown_url};
use crate::webhooks::payload::links;
use crate::webhooks::payload::render_body;
use crate::webhooks::ports::{
    AttemptRecord, ClaimedDelivery, DeliveryBacklog, SendError, WebhookRepository, WebhookSender,
};
use crate::webhooks::retry::{
    AttemptResult, DisabledReason, HealthChange, health_after, jitter_from, next_delay,
};
use crate::webhooks::signing::signature_header;
use crate::webhooks::{AttemptOutcome, WebhookConfig};

/// The delivery worker's use cases: claims, attempts, the sealing of secrets stored in the clear, the
/// backlog.
#[derive(Clone)]
pub struct WebhookDeliveryService {
    repo: Arc<dyn WebhookRepository>,
    sender: Arc<dyn WebhookSender>,
    clock: Arc<dyn Clock>,
    secrets: Arc<dyn SecretGenerator>,
    config: WebhookConfig,
}

impl WebhookDeliveryService {
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

    /// The request body of a delivery, exactly as it is sent (as the Webhooks page shows it).
    fn body_of(&self, delivery: &WebhookDelivery) -> String {
        render_body(&delivery.event, &self.config.public_url)
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
                    .reseal_secret(
                        *endpoint,
                        *slot,
                        stored,
                        &seal_secret(self.secrets.as_ref(), &self.config.digest_key, &secret, *endpoint),
                    )
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
                    .change("disabledReason", serde_json::Value::Null, reason.code());
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
    pub async fn backlog(&self) -> Result<DeliveryBacklog, RepoError> {
        self.repo.backlog().await
    }
}
