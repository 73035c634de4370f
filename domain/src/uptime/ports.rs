//! Ports of the uptime context: the health prober and the uptime store.

use async_trait::async_trait;
use chrono::{DateTime, NaiveDate, Utc};

use super::calendar::YearMonth;
use super::models::{CheckOutcome, DailyRollup, HealthState, ProbeError, ProbeResult};
use super::month_list::MonthApp;
use crate::apps::{AppStoreStatus, PackageName};
use crate::common::{EmailAddress, RepoError};
use crate::mail::OutgoingEmail;

/// An app the monitor checks (or, for the ping, any registered app).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MonitoredApp {
    pub package_name: PackageName,
    pub name: String,
    /// The app's `publicUrl` plus `/health`.
    pub health_url: String,
    pub store_status: AppStoreStatus,
    /// The owning organization's contact e-mail, for outage e-mails.
    pub contact_email: Option<EmailAddress>,
}

/// An app's current uptime state, as kept by [`UptimeRepository::record`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AppUptimeState {
    pub package_name: PackageName,
    pub online: bool,
    pub health: HealthState,
    /// Offline checks in a row up to the last one (0 when the last was online).
    pub consecutive_offline: u32,
    pub last_checked_at: DateTime<Utc>,
    /// When `online` last changed (the first check counts as a change).
    pub changed_at: DateTime<Utc>,
    pub last_offline_alert_at: Option<DateTime<Utc>>,
}

/// The latest check of an app.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LatestStatus {
    pub package_name: PackageName,
    pub health: HealthState,
    pub checked_at: DateTime<Utc>,
}

/// Checks a health URL. The adapter refuses private, loopback and link-local targets (unless configured for
/// tests), follows no redirect, reads at most 64 KB and gives up after 10 seconds.
#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
#[async_trait]
pub trait HealthProber: Send + Sync {
    /// `GET url`, answering the status, the body's `status` and the latency.
    ///
    /// # Errors
    /// [`ProbeError::Timeout`] after 10 s; [`ProbeError::Unreachable`] when the connection fails (DNS, refused,
    /// TLS); [`ProbeError::Refused`] for a private target, a redirect or a body over 64 KB.
    async fn probe(&self, url: &str) -> Result<ProbeResult, ProbeError>;
}

/// Uptime data: raw checks (kept 48 hours), per-app-per-day rollups, state changes and the per-app state.
#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
#[async_trait]
pub trait UptimeRepository: Send + Sync {
    /// Leases up to `limit` SUBMITTED or PUBLISHED apps that are due — never checked, or last checked before
    /// `due_before` — and not leased past `now`, setting their lease to `lease_until` (row locking with
    /// `SKIP LOCKED` on PostgreSQL), so that several instances check each app once.
    ///
    /// # Errors
    /// [`RepoError::Backend`] when the store fails.
    async fn lease_due_apps(
        &self,
        now: DateTime<Utc>,
        due_before: DateTime<Utc>,
        limit: u32,
        lease_until: DateTime<Utc>,
    ) -> Result<Vec<MonitoredApp>, RepoError>;

    /// In one transaction: stores the raw check; adds it to the app's rollup of its UTC day (creating it);
    /// updates the app's state (`consecutive_offline` + 1 when offline, else 0; `last_checked_at`); stores
    /// a state-change row when `online` differs from the previous state (or there was none); releases the
    /// lease. Answers the new state (with `last_offline_alert_at` as stored).
    ///
    /// # Errors
    /// [`RepoError::NotFound`] when the app was deleted meanwhile (nothing is stored);
    /// [`RepoError::Backend`] when the store fails.
    async fn record(&self, outcome: &CheckOutcome) -> Result<AppUptimeState, RepoError>;

    /// [`Self::record`] for many checks in one transaction (the monitor's writes, batched): answers, in
    /// the order of `outcomes`, each app's new state, or `None` for an app deleted meanwhile (nothing is
    /// stored for it). Two checks of one app are recorded in their order.
    ///
    /// # Errors
    /// [`RepoError::Backend`] when the store fails; then nothing of the batch is stored.
    async fn record_many(&self, outcomes: &[CheckOutcome]) -> Result<Vec<Option<AppUptimeState>>, RepoError>;

    /// Compare-and-set: when the app's `last_offline_alert_at` is unset or before `not_since`, sets it to
    /// `now` and puts the e-mail in the outbox, in one transaction; answers whether it did. So an outage
    /// e-mail goes out at most once per period even with several instances.
    ///
    /// # Errors
    /// [`RepoError::NotFound`] when the app has no state; [`RepoError::Backend`] when the store fails.
    async fn queue_offline_alert(
        &self,
        package: &PackageName,
        email: &OutgoingEmail,
        now: DateTime<Utc>,
        not_since: DateTime<Utc>,
    ) -> Result<bool, RepoError>;

    /// The app's state; `None` before its first check.
    ///
    /// # Errors
    /// [`RepoError::Backend`] when the store fails.
    async fn app_state(&self, package: &PackageName) -> Result<Option<AppUptimeState>, RepoError>;

    /// Every app the monitor checks (SUBMITTED and PUBLISHED), ordered by package name.
    ///
    /// # Errors
    /// [`RepoError::Backend`] when the store fails.
    async fn all_monitored_apps(&self) -> Result<Vec<MonitoredApp>, RepoError>;

    /// The registered app (any status) whose health URL is exactly `url`.
    ///
    /// # Errors
    /// [`RepoError::Backend`] when the store fails.
    async fn find_app_by_health_url(&self, url: &str) -> Result<Option<MonitoredApp>, RepoError>;

    /// The apps of a month view: every monitored app (SUBMITTED and PUBLISHED) and every other app with a
    /// rollup in `month`, by package name.
    ///
    /// # Errors
    /// [`RepoError::Backend`] when the store fails.
    async fn month_apps(&self, month: YearMonth) -> Result<Vec<MonthApp>, RepoError>;

    /// The rollups of `packages` for the days of `month` (at most 31 per app), in any order.
    ///
    /// # Errors
    /// [`RepoError::Backend`] when the store fails.
    async fn month_rollups_of(
        &self,
        month: YearMonth,
        packages: &[PackageName],
    ) -> Result<Vec<DailyRollup>, RepoError>;

    /// One app's rollups for the days of `month`.
    ///
    /// # Errors
    /// [`RepoError::Backend`] when the store fails.
    async fn app_month_rollups(
        &self,
        package: &PackageName,
        month: YearMonth,
    ) -> Result<Vec<DailyRollup>, RepoError>;

    /// The raw checks of one app on one UTC day that were unhealthy or offline, newest first (empty once the
    /// raw checks of that day were pruned).
    ///
    /// # Errors
    /// [`RepoError::Backend`] when the store fails.
    async fn problem_checks(
        &self,
        package: &PackageName,
        day: NaiveDate,
    ) -> Result<Vec<CheckOutcome>, RepoError>;

    /// The latest check of every app that has one.
    ///
    /// # Errors
    /// [`RepoError::Backend`] when the store fails.
    async fn all_latest_status(&self) -> Result<Vec<LatestStatus>, RepoError>;

    /// The latest check of each of `packages` that has one.
    ///
    /// # Errors
    /// [`RepoError::Backend`] when the store fails.
    async fn latest_status_of(&self, packages: &[PackageName]) -> Result<Vec<LatestStatus>, RepoError>;

    /// The earliest check slot (the time of the app's last check) among the monitored apps (SUBMITTED or
    /// PUBLISHED) checked at least once; `None` when there is none. The monitor's lag is measured
    /// from it ([`crate::uptime::UptimeMonitorService::lag`]).
    ///
    /// # Errors
    /// [`RepoError::Backend`] when the store fails.
    async fn oldest_check_slot(&self) -> Result<Option<DateTime<Utc>>, RepoError>;

    /// Deletes raw checks older than `cutoff` (rollups and state changes stay); answers how many.
    ///
    /// # Errors
    /// [`RepoError::Backend`] when the store fails.
    async fn prune_raw_before(&self, cutoff: DateTime<Utc>) -> Result<u64, RepoError>;
}
