//! The uptime monitor's use cases ([`UptimeMonitorService`]): lease the due apps, probe, classify, record,
//! alert, and prune the raw checks; the lag the metrics report.
//!
//! Concurrency is the worker's: it may call [`UptimeMonitorService::lease_due`] and then
//! [`UptimeMonitorService::check_app`] for several apps at once; [`UptimeMonitorService::run_checks`] does one
//! round sequentially.

use chrono::Duration;
use std::sync::Arc;

use super::types::{CheckReport, RoundReport, UptimeConfig, UptimeError};
use crate::common::{Clock, RepoError};
use crate::uptime::alert::{offline_alert_due, offline_alert_email};
use crate::uptime::models::CheckOutcome;
use crate::uptime::ports::{AppUptimeState, HealthProber, MonitoredApp, UptimeRepository};

/// The uptime monitor.
pub struct UptimeMonitorService {
    repo: Arc<dyn UptimeRepository>,
    prober: Arc<dyn HealthProber>,
    clock: Arc<dyn Clock>,
    config: UptimeConfig,
}

impl UptimeMonitorService {
    #[must_use]
    pub fn new(
        repo: Arc<dyn UptimeRepository>,
        prober: Arc<dyn HealthProber>,
        clock: Arc<dyn Clock>,
        config: UptimeConfig,
    ) -> Self {
        Self {
            repo,
            prober,
            clock,
            config,
        }
    }

    /// Most apps one [`Self::lease_due`] answers.
    #[must_use]
    pub const fn batch_limit(&self) -> u32 {
        self.config.batch_limit
    }

    /// How far the monitor is behind its interval: how long the most overdue monitored app has been due
    /// (its last check slot plus the interval) without a check; zero when none is overdue.
    ///
    /// # Errors
    /// A store failure.
    pub async fn lag(&self) -> Result<Duration, UptimeError> {
        let now = self.clock.now();
        let oldest = self.repo.oldest_check_slot().await?;
        Ok(oldest.map_or(Duration::zero(), |slot| {
            (now - (slot + self.config.interval)).max(Duration::zero())
        }))
    }

    /// Leases the apps due for a check.
    ///
    /// # Errors
    /// A store failure.
    pub async fn lease_due(&self) -> Result<Vec<MonitoredApp>, UptimeError> {
        let now = self.clock.now();
        Ok(self
            .repo
            .lease_due_apps(
                now,
                now - self.config.interval,
                self.config.batch_limit,
                now + self.config.lease,
            )
            .await?)
    }

    /// Checks one app: probe, classify, record atomically; then, when it has been offline for 5 checks in a
    /// row and no outage e-mail went out within 24 hours, queues one to the organization's contact.
    ///
    /// # Errors
    /// A store failure.
    pub async fn check_app(&self, app: &MonitoredApp) -> Result<CheckReport, UptimeError> {
        let outcome = self.probe_app(app).await;
        let state = match self.repo.record(&outcome).await {
            Ok(state) => state,
            Err(RepoError::NotFound) => {
                return Ok(CheckReport {
                    outcome,
                    recorded: false,
                    alert_queued: false,
                });
            }
            Err(other) => return Err(other.into()),
        };
        self.after_record(app, outcome, Some(&state)).await
    }

    /// The first half of [`Self::check_app`]: probes the app and classifies the answer, storing nothing.
    /// The monitor probes many apps at once and stores their outcomes together with
    /// [`Self::record_checks`].
    pub async fn probe_app(&self, app: &MonitoredApp) -> CheckOutcome {
        let now = self.clock.now();
        let probe = self.prober.probe(&app.health_url).await;
        CheckOutcome::classify(app.package_name.clone(), now, &probe)
    }

    /// The second half of [`Self::check_app`] for many checks: records them in one transaction, then
    /// queues the outage e-mails that fell due. Answers a report per check, in order.
    ///
    /// # Errors
    /// A store failure (then none of the checks is stored; their leases expire and they are checked again).
    pub async fn record_checks(
        &self,
        checks: Vec<(MonitoredApp, CheckOutcome)>,
    ) -> Result<Vec<CheckReport>, UptimeError> {
        let outcomes: Vec<CheckOutcome> = checks.iter().map(|(_, outcome)| outcome.clone()).collect();
        let states = self.repo.record_many(&outcomes).await?;
        if states.len() != checks.len() {
            return Err(RepoError::backend(
                "recording checks",
                format!("{} states for {} checks", states.len(), checks.len()),
            )
            .into());
        }
        let mut reports = Vec::with_capacity(checks.len());
        for ((app, outcome), state) in checks.into_iter().zip(states) {
            reports.push(self.after_record(&app, outcome, state.as_ref()).await?);
        }
        Ok(reports)
    }

    /// Queues the outage e-mail when the recorded `state` calls for one (`None`: the app was deleted during
    /// its check, nothing was stored).
    async fn after_record(
        &self,
        app: &MonitoredApp,
        outcome: CheckOutcome,
        state: Option<&AppUptimeState>,
    ) -> Result<CheckReport, UptimeError> {
        let Some(state) = state else {
            return Ok(CheckReport {
                outcome,
                recorded: false,
                alert_queued: false,
            });
        };
        let now = outcome.checked_at;
        let mut alert_queued = false;
        if offline_alert_due(state, now, self.config.offline_threshold, self.config.alert_every)
            && let Some(to) = &app.contact_email
        {
            let email = offline_alert_email(app, to, state, &self.config.public_url);
            alert_queued = self
                .repo
                .queue_offline_alert(&app.package_name, &email, now, now - self.config.alert_every)
                .await?;
        }
        Ok(CheckReport {
            outcome,
            recorded: true,
            alert_queued,
        })
    }

    /// One monitor round: leases the due apps and checks each in turn. A failed check does not stop the
    /// round; it is reported.
    ///
    /// # Errors
    /// A store failure while leasing.
    pub async fn run_checks(&self) -> Result<RoundReport, UptimeError> {
        let mut report = RoundReport::default();
        for app in self.lease_due().await? {
            match self.check_app(&app).await {
                Ok(checked) => report.checked.push(checked),
                Err(error) => report.failures.push((app.package_name, error)),
            }
        }
        Ok(report)
    }

    /// Deletes raw checks past the retention (48 h); answers how many.
    ///
    /// # Errors
    /// A store failure.
    pub async fn prune(&self) -> Result<u64, UptimeError> {
        Ok(self
            .repo
            .prune_raw_before(self.clock.now() - self.config.raw_retention)
            .await?)
    }
}
