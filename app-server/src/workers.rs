//! Background work of the server: delivering the e-mail outbox (PRODUCT.md §2), webhooks
//! (`crate::webhooks`), the uptime monitor (`crate::uptime`) and pruning expired rows (audit entries past
//! `PORTAL_AUDIT_RETENTION_DAYS`, finished webhook deliveries after 30 days).
//! Each worker is a task that stops when the server stops. State lives in the database, so a restart loses
//! nothing, and the outbox's leases keep several instances from sending one e-mail twice.

use adapter_db::Db;
use adapter_db::repos::{
    DieselAuditLog, DieselOneTimeCodeRepository, DieselOutboxRepository, DieselRateLimitStore,
    DieselRefreshTokenRepository, DieselUptimeRepository, DieselWebhookRepository,
};
use adapter_mail::{LogMailer, SmtpMailer};
use chrono::Duration as Span;
use domain::audit::AuditService;
use domain::common::Clock;
use domain::identity::ports::{OneTimeCodeRepository, RefreshTokenRepository};
use domain::identity::{RateLimitPolicy, RateLimiter};
use domain::mail::{Mailer, OutboxService, RetryPolicy};
use domain::uptime::UptimeRepository;
use domain::webhooks::WebhookRepository;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::watch;
use tokio::task::JoinHandle;

use crate::Config;
use crate::system::SystemClock;

/// How often an idle outbox worker looks for due e-mails.
const OUTBOX_POLL: Duration = Duration::from_secs(1);
/// How often expired rows are pruned.
const PRUNE_EVERY: Duration = Duration::from_secs(60 * 60);
/// Codes are kept a day past their expiry (for support questions), then deleted.
const CODES_KEPT: Span = Span::days(1);
/// Refresh tokens of sessions older than the 30-day limit, and revoked ones, go after this.
const SESSIONS_KEPT: Span = Span::days(31);
/// Raw uptime checks are kept 48 hours (the daily rollups stay).
const RAW_CHECKS_KEPT: Span = Span::hours(48);
/// Delivered and failed webhook deliveries are kept 30 days after their last attempt (the delivery log shows
/// them; pending ones stay).
const DELIVERIES_KEPT: Span = Span::days(30);

/// The running workers; [`Workers::stop`] ends them.
pub struct Workers {
    stop: watch::Sender<bool>,
    handles: Vec<JoinHandle<()>>,
}

/// The mailer `SMTP_URL` asks for: SMTP, or the log-only mailer when unset.
///
/// # Errors
/// An unusable `SMTP_URL` or `PORTAL_MAIL_FROM`.
pub fn mailer(config: &Config) -> anyhow::Result<Arc<dyn Mailer>> {
    match &config.smtp_url {
        Some(url) => {
            let smtp = SmtpMailer::new(url, &config.mail_from).map_err(|e| anyhow::anyhow!("{e}"))?;
            tracing::info!(server = %smtp.server(), "e-mails are delivered through SMTP");
            Ok(Arc::new(smtp))
        }
        None => {
            tracing::info!("no SMTP_URL: e-mails are written to this log (subject and link) instead of sent");
            Ok(Arc::new(LogMailer))
        }
    }
}

impl Workers {
    /// Starts the outbox worker and the pruning job on the current runtime, and the webhook worker with
    /// `webhooks` unless `PORTAL_WEBHOOK_WORKER=false` (`None`: not wired here).
    ///
    /// # Errors
    /// As [`mailer`].
    pub fn start(
        config: &Config,
        db: &Db,
        tokens: Option<Arc<domain::tokens::AccessTokenService>>,
        webhooks: Option<domain::webhooks::WebhookDeliveryService>,
    ) -> anyhow::Result<Self> {
        let (stop, stopped) = watch::channel(false);
        let clock: Arc<dyn Clock> = Arc::new(SystemClock);
        let outbox = OutboxService::new(
            Arc::new(DieselOutboxRepository::new(db.clone())),
            mailer(config)?,
            clock.clone(),
            RetryPolicy::default(),
        );
        let mut pruner = Pruner::new(db, clock, config.audit_retention_days);
        pruner.tokens = tokens;
        let mut handles = vec![tokio::spawn(prune(pruner, stopped.clone()))];
        let images = crate::media::service(config, db, crate::media::image_store(config)?);
        handles.push(tokio::spawn(crate::media::remove_unreferenced(
            images,
            stopped.clone(),
        )));
        if config.uptime_interval_secs > 0 {
            let monitor = crate::uptime::Monitor::from_config(config, db)?;
            handles.push(tokio::spawn(monitor.run(stopped.clone())));
        } else {
            tracing::info!("PORTAL_UPTIME_INTERVAL_SECS=0: this instance checks no app's health");
        }
        if let Some(webhooks) = webhooks.filter(|_| config.webhook_worker) {
            handles.push(tokio::spawn(crate::webhooks::deliver(
                webhooks,
                config.webhook_timeout,
                stopped.clone(),
            )));
        } else if !config.webhook_worker {
            tracing::info!(
                "PORTAL_WEBHOOK_WORKER=false: this instance leaves webhooks for another to deliver"
            );
        }
        if config.mail_worker {
            handles.push(tokio::spawn(deliver_outbox(outbox, stopped)));
        } else {
            tracing::info!("PORTAL_MAIL_WORKER=false: this instance leaves e-mails for another to deliver");
        }
        Ok(Self { stop, handles })
    }

    /// Asks every worker to stop and waits (a few seconds at most) for them to finish what they are doing.
    pub async fn stop(self) {
        let _ = self.stop.send(true);
        for handle in self.handles {
            let _ = tokio::time::timeout(Duration::from_secs(5), handle).await;
        }
    }
}

/// Waits `delay`, or less when the server stops; answers whether to go on.
async fn pause(delay: Duration, stopped: &mut watch::Receiver<bool>) -> bool {
    if *stopped.borrow() {
        return false;
    }
    tokio::select! {
        () = tokio::time::sleep(delay) => true,
        _ = stopped.changed() => false,
    }
}

async fn deliver_outbox(outbox: OutboxService, mut stopped: watch::Receiver<bool>) {
    let batch = outbox.policy().batch_size as usize;
    // Asked before each e-mail: on shutdown the e-mails claimed but not yet sent are given back at once,
    // not left to wait for their lease after the restart.
    let asked_to_stop = stopped.clone();
    let stopping = move || *asked_to_stop.borrow();
    loop {
        let full_batch = match outbox.deliver_due_until(&stopping).await {
            Ok(report) => {
                if report.claimed > 0 {
                    tracing::info!(
                        sent = report.sent,
                        retried = report.retried,
                        given_up = report.given_up,
                        released = report.released,
                        "outbox delivery"
                    );
                }
                report.claimed >= batch
            }
            // The database adapter logs an outage's cause once; a line per second here would drown it.
            Err(error @ domain::common::RepoError::Unavailable { .. }) => {
                tracing::debug!(%error, "outbox delivery waits for the database");
                false
            }
            Err(error) => {
                tracing::error!(%error, "outbox delivery failed; trying again shortly");
                false
            }
        };
        let delay = if full_batch { Duration::ZERO } else { OUTBOX_POLL };
        if !pause(delay, &mut stopped).await {
            return;
        }
    }
}

struct Pruner {
    clock: Arc<dyn Clock>,
    codes: DieselOneTimeCodeRepository,
    sessions: DieselRefreshTokenRepository,
    uptime: DieselUptimeRepository,
    deliveries: DieselWebhookRepository,
    rate_limits: RateLimiter,
    /// Removes audit entries older than `audit_retention_days`, in batches.
    audit: AuditService,
    audit_retention_days: u32,
    /// Records the expiry of personal access tokens in the audit log (`None`: not wired here).
    tokens: Option<Arc<domain::tokens::AccessTokenService>>,
}

impl Pruner {
    fn new(db: &Db, clock: Arc<dyn Clock>, audit_retention_days: u32) -> Self {
        Self {
            audit: AuditService::new(Arc::new(DieselAuditLog::new(db.clone()))),
            audit_retention_days,
            tokens: None,
            codes: DieselOneTimeCodeRepository::new(db.clone()),
            sessions: DieselRefreshTokenRepository::new(db.clone()),
            uptime: DieselUptimeRepository::new(db.clone()),
            deliveries: DieselWebhookRepository::new(db.clone()),
            rate_limits: RateLimiter::new(
                Arc::new(DieselRateLimitStore::new(db.clone())),
                clock.clone(),
                RateLimitPolicy::default(),
            ),
            clock,
        }
    }

    /// One round; answers how many rows of each kind went. A failure of one kind does not stop the others.
    async fn run(&self) -> [(&'static str, Result<u64, String>); 7] {
        let now = self.clock.now();
        [
            (
                "one_time_codes",
                self.codes
                    .prune_expired(now - CODES_KEPT)
                    .await
                    .map_err(|e| e.to_string()),
            ),
            (
                "refresh_tokens",
                self.sessions
                    .prune_before(now - SESSIONS_KEPT)
                    .await
                    .map_err(|e| e.to_string()),
            ),
            (
                "uptime_checks",
                self.uptime
                    .prune_raw_before(now - RAW_CHECKS_KEPT)
                    .await
                    .map_err(|e| e.to_string()),
            ),
            (
                "webhook_deliveries",
                self.deliveries
                    .prune_finished_before(now - DELIVERIES_KEPT)
                    .await
                    .map_err(|e| e.to_string()),
            ),
            (
                "rate_limits",
                self.rate_limits.prune().await.map_err(|e| e.to_string()),
            ),
            (
                "audit_log",
                self.audit
                    .apply_retention(now, self.audit_retention_days)
                    .await
                    .map_err(|e| e.to_string()),
            ),
            ("access_token_expiries", self.record_token_expiries().await),
        ]
    }
}

impl Pruner {
    async fn record_token_expiries(&self) -> Result<u64, String> {
        match &self.tokens {
            None => Ok(0),
            Some(tokens) => tokens
                .record_expirations()
                .await
                .map(|n| n as u64)
                .map_err(|e| e.to_string()),
        }
    }
}

async fn prune(pruner: Pruner, mut stopped: watch::Receiver<bool>) {
    loop {
        for (what, outcome) in pruner.run().await {
            match outcome {
                Ok(0) => {}
                Ok(rows) => tracing::info!(what, rows, "pruned expired rows"),
                Err(error) => tracing::error!(what, %error, "pruning failed"),
            }
        }
        if !pause(PRUNE_EVERY, &mut stopped).await {
            return;
        }
    }
}
