//! The sends by hand of the Webhooks page: "Send test", the deliveries' log and "Retry", within the send
//! limits.

use chrono::{DateTime, Utc};

use crate::webhooks::DeliveryCursor;

use super::{MAX_PAGE, WebhookService, invalid};
use crate::common::RepoError;
use crate::orgs::ActingMember;
use crate::webhooks::WebhookError;
use crate::webhooks::models::{Admission, LimitScope, WebhookDelivery, WebhookEndpointId, message_id};
use crate::webhooks::payload::test_event;

impl WebhookService {
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
        cursor: Option<DeliveryCursor>,
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
}
