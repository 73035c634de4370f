//! The endpoints' use cases of the Webhooks page: list, read, add, change, delete, rotate the secret.

use super::{WebhookService, codes, invalid, target};
use crate::audit::AuditAction;
use crate::common::RepoError;
use crate::orgs::ActingMember;
use crate::webhooks::models::{
    EventFilter, MAX_DESCRIPTION_CHARS, PRIVATE_TARGETS_SETTING, ROTATION_OVERLAP, WebhookEndpoint,
    WebhookEndpointId, check_endpoint_url, shown_url,
};
use crate::webhooks::ports::SendError;
use crate::webhooks::retry::DisabledReason;
use crate::webhooks::signing::WebhookSecret;
use crate::webhooks::{EndpointChange, NewEndpoint, WebhookError};

impl WebhookService {
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
}
