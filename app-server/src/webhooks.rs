//! The webhook delivery worker (issue 38): claims due deliveries with a lease (so that two instances never
//! attempt one delivery at once, and a delivery claimed by an instance that died is attempted again when its
//! lease ends), attempts each in its own task, at most [`IN_FLIGHT`] at once, [`PER_ENDPOINT`] per endpoint
//! and [`PER_ORG`] per organization, claimed taking turns across organizations, so that neither a slow
//! endpoint nor one organization's many slow endpoints can hold up another organization's deliveries.

use adapter_db::Db;
use adapter_db::repos::DieselWebhookRepository;
use adapter_identity::OsSecretGenerator;
use adapter_probe::ProbeConfig;
use adapter_probe::webhooks::HttpWebhookSender;
use domain::identity::DigestKey;
use domain::webhooks::{AttemptOutcome, WebhookConfig, WebhookDeliveryService, WebhookService};
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::watch;
use tokio::task::JoinSet;

use crate::Config;
use crate::system::SystemClock;

/// Deliveries attempted at once by one instance.
pub const IN_FLIGHT: u32 = 32;
/// Deliveries of one endpoint attempted at once (across instances, as the leases alive say).
pub const PER_ENDPOINT: u32 = 4;
/// Deliveries of one organization attempted at once (across instances, as the leases alive say): a quarter
/// of an instance's slots, so that one organization's endpoints that never answer leave the rest to others.
pub const PER_ORG: u32 = IN_FLIGHT / 4;
/// How long a claim lasts for attempts limited to `timeout` (`PORTAL_WEBHOOK_TIMEOUT_SECS`): four times the
/// limit and 5 s more, so that an attempt and the recording of its outcome finish well within it, yet a
/// delivery of an instance killed mid-attempt goes out again soon after (45 s with the default 10 s).
#[must_use]
pub fn lease(timeout: Duration) -> chrono::Duration {
    chrono::Duration::from_std(timeout * 4 + Duration::from_secs(5)).unwrap_or(chrono::Duration::seconds(45))
}

/// How often an idle worker looks for due deliveries.
const POLL: Duration = Duration::from_millis(500);

use crate::metrics::WEBHOOK_DELIVERIES as DELIVERIES;

/// The webhook use cases over the database and the guarded HTTP client: the Webhooks page's and the
/// delivery worker's; signing secrets are sealed under `digest_key` ([`crate::identity::digest_key`]).
///
/// # Errors
/// When the HTTP client cannot be built.
pub fn service(
    config: &Config,
    db: &Db,
    digest_key: DigestKey,
) -> anyhow::Result<(WebhookService, WebhookDeliveryService)> {
    let sender = Arc::new(HttpWebhookSender::new(ProbeConfig {
        allow_private: config.webhooks_allow_private_targets,
        timeout: config.webhook_timeout,
    })?);
    let repo = Arc::new(DieselWebhookRepository::new(db.clone()));
    let webhook_config = WebhookConfig {
        public_url: config.public_url.clone(),
        allow_private: config.webhooks_allow_private_targets,
        digest_key,
        send_limits: config.webhook_send_limits,
    };
    Ok((
        WebhookService::new(
            repo.clone(),
            sender.clone(),
            Arc::new(SystemClock),
            Arc::new(OsSecretGenerator),
            webhook_config.clone(),
        ),
        WebhookDeliveryService::new(
            repo,
            sender,
            Arc::new(SystemClock),
            Arc::new(OsSecretGenerator),
            webhook_config,
        ),
    ))
}

fn record(outcome: AttemptOutcome) {
    metrics::counter!(DELIVERIES, "outcome" => outcome.as_str()).increment(1);
}

/// Every outcome's counter at zero, so that each series is there before a first attempt.
pub fn register_outcomes() {
    for outcome in [
        AttemptOutcome::Delivered,
        AttemptOutcome::Retrying,
        AttemptOutcome::GivenUp,
        AttemptOutcome::Disabled,
    ] {
        metrics::counter!(DELIVERIES, "outcome" => outcome.as_str()).increment(0);
    }
}

/// Delivers until the server stops, each attempt limited to `timeout`; on shutdown the attempts under way
/// finish (`timeout` at most) and nothing more is claimed.
pub async fn deliver(service: WebhookDeliveryService, timeout: Duration, mut stopped: watch::Receiver<bool>) {
    let lease = lease(timeout);
    let mut running: JoinSet<()> = JoinSet::new();
    loop {
        if *stopped.borrow() {
            break;
        }
        let room = IN_FLIGHT.saturating_sub(u32::try_from(running.len()).unwrap_or(u32::MAX));
        let claimed = if room == 0 {
            Vec::new()
        } else {
            match service.claim(room, PER_ENDPOINT, PER_ORG, lease).await {
                Ok(claimed) => claimed,
                Err(error @ domain::common::RepoError::Unavailable { .. }) => {
                    tracing::debug!(%error, "webhook delivery waits for the database");
                    Vec::new()
                }
                Err(error) => {
                    tracing::error!(%error, "claiming webhook deliveries failed; trying again shortly");
                    Vec::new()
                }
            }
        };
        let claimed_any = !claimed.is_empty();
        for claim in claimed {
            let service = service.clone();
            running.spawn(async move {
                match service.attempt(&claim).await {
                    Ok(outcome) => {
                        record(outcome);
                        tracing::info!(
                            delivery = %claim.delivery.id,
                            event = %claim.delivery.event.event_type,
                            outcome = outcome.as_str(),
                            "webhook attempt"
                        );
                    }
                    Err(error) => {
                        tracing::error!(delivery = %claim.delivery.id, %error, "recording a webhook attempt failed");
                    }
                }
            });
        }
        if claimed_any && room > 0 {
            continue;
        }
        tokio::select! {
            () = tokio::time::sleep(POLL) => {}
            Some(_) = running.join_next(), if !running.is_empty() => {}
            _ = stopped.changed() => {}
        }
    }
    while tokio::time::timeout(timeout + Duration::from_secs(1), running.join_next())
        .await
        .is_ok_and(|next| next.is_some())
    {}
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_claim_outlasts_four_attempts_and_is_45_s_with_the_default_limit() {
        assert_eq!(lease(Duration::from_secs(10)), chrono::Duration::seconds(45));
        assert_eq!(lease(Duration::from_secs(1)), chrono::Duration::seconds(9));
        assert_eq!(lease(Duration::from_secs(30)), chrono::Duration::seconds(125));
    }
}
