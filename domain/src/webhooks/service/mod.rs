//! The use cases of the Webhooks page (organization admins) and one delivery attempt of the worker: the
//! services and what their use cases share. The endpoints' use cases are in `endpoints.rs`, the sends by hand
//! in `sends.rs`, the worker's claims and attempts ([`WebhookDeliveryService`]) in `attempts.rs`, what they
//! take and answer in `types.rs`.

mod attempts;
mod endpoints;
mod sends;
mod types;

use std::sync::Arc;

use super::models::{EventFilter, WebhookDelivery, WebhookEndpoint, WebhookEndpointId, shown_url};
use super::payload::render_body;
use super::ports::{WebhookRepository, WebhookSender};
use super::signing::{NONCE_BYTES, SealedSecret, WebhookSecret};
use crate::audit::{AuditAction, AuditEntry, AuditTarget, AuditTargetKind};
use crate::common::{Clock, FieldErrors, SecretGenerator};
use crate::identity::DigestKey;
use crate::orgs::{ActingMember, OrgAction};

pub use attempts::WebhookDeliveryService;
pub use types::{AttemptOutcome, EndpointChange, MAX_PAGE, NewEndpoint, WebhookConfig, WebhookError};

/// The Webhooks page's use cases.
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

/// `secret` of endpoint `endpoint` sealed for storage under `digest_key`, with a fresh nonce.
fn seal_secret(
    secrets: &dyn SecretGenerator,
    digest_key: &DigestKey,
    secret: &WebhookSecret,
    endpoint: WebhookEndpointId,
) -> SealedSecret {
    SealedSecret::seal(secret, digest_key, endpoint, &secrets.random_bytes(NONCE_BYTES))
}

fn codes(filter: &EventFilter) -> serde_json::Value {
    match filter {
        EventFilter::All => serde_json::json!("*"),
        EventFilter::Only(events) => events.iter().map(|e| e.code()).collect(),
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
    /// `secret` of endpoint `endpoint` sealed for storage.
    fn seal(&self, secret: &WebhookSecret, endpoint: WebhookEndpointId) -> SealedSecret {
        seal_secret(self.secrets.as_ref(), &self.config.digest_key, secret, endpoint)
    }
}
