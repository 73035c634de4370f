//! Uptime use cases: the monitor round (lease, probe, classify, record, alert) and the admin views (status of
//! every app, the App Status month tab, an app's month and a day's problems, the ping).
//!
//! Concurrency is the worker's: it may call [`UptimeService::lease_due`] and then
//! [`UptimeService::check_app`] for several apps at once; [`UptimeService::run_checks`] does one round
//! sequentially.

use chrono::{DateTime, Duration, NaiveDate, Utc};
use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use super::alert::{ALERT_EVERY_HOURS, OFFLINE_CHECKS_BEFORE_ALERT, offline_alert_due, offline_alert_email};
use super::calendar::{MonthError, YearMonth};
use super::models::{Badge, CheckOutcome, DailyRollup, HealthState};
use super::month_list::{MonthListQuery, PageError, select_page};
use super::month_view::{DayBar, MonthView, build_month_view};
use super::ports::{AppUptimeState, HealthProber, MonitoredApp, UptimeRepository};
use crate::apps::{AppStoreStatus, PackageName};
use crate::common::secrets::digest_secret;
use crate::common::{Caller, Clock, RepoError};
use crate::identity::rate_limit::{Limit, RateDecision, RateLimitStore};

/// The live check of the publish dialog runs at most once per app in this many seconds (PRODUCT.md §1).
pub const LIVE_CHECK_APP_INTERVAL_SECS: i64 = 10;
/// Live checks one account may run in an hour (PRODUCT.md §1).
pub const LIVE_CHECKS_PER_ACCOUNT_PER_HOUR: u32 = 30;

/// Which limit refused a live check; its text is what the publish dialog shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LiveCheckLimit {
    /// The app was checked less than [`LIVE_CHECK_APP_INTERVAL_SECS`] ago.
    App,
    /// The account ran [`LIVE_CHECKS_PER_ACCOUNT_PER_HOUR`] live checks in the last hour.
    Account,
}

impl LiveCheckLimit {
    /// The message shown to the person who tried.
    #[must_use]
    pub fn message(self) -> String {
        match self {
            Self::App => format!(
                "This app's server was checked less than {LIVE_CHECK_APP_INTERVAL_SECS} seconds ago. Please wait \
                 a moment before checking again."
            ),
            Self::Account => format!(
                "You have run {LIVE_CHECKS_PER_ACCOUNT_PER_HOUR} live health checks in the last hour, the most \
                 allowed. Please try again later."
            ),
        }
    }
}

/// Settings of the monitor.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UptimeConfig {
    /// How often each app is checked (`PORTAL_UPTIME_INTERVAL_SECS`, 60 s).
    pub interval: Duration,
    /// How long a leased app stays reserved for the instance checking it (2 minutes: a 10 s probe plus room).
    pub lease: Duration,
    /// Most apps leased per round.
    pub batch_limit: u32,
    /// Offline checks in a row before an outage e-mail (5).
    pub offline_threshold: u32,
    /// At most one outage e-mail per app per this period (24 h).
    pub alert_every: Duration,
    /// How long raw checks are kept (48 h); rollups stay.
    pub raw_retention: Duration,
    /// Base of the link in outage e-mails (`PORTAL_PUBLIC_URL`).
    pub public_url: String,
}

impl UptimeConfig {
    /// The defaults of PRODUCT.md §5 with the given public URL.
    #[must_use]
    pub fn new(public_url: impl Into<String>) -> Self {
        Self {
            interval: Duration::seconds(60),
            lease: Duration::minutes(2),
            batch_limit: 200,
            offline_threshold: OFFLINE_CHECKS_BEFORE_ALERT,
            alert_every: Duration::hours(ALERT_EVERY_HOURS),
            raw_retention: Duration::hours(48),
            public_url: public_url.into(),
        }
    }
}

/// What the uptime use cases can fail with.
#[derive(Debug, thiserror::Error)]
pub enum UptimeError {
    /// 403: the caller is neither platform admin nor reviewer.
    #[error("Platform admin access required")]
    Forbidden,
    /// 400: the month or year query parameter is out of range.
    #[error(transparent)]
    InvalidMonth(#[from] MonthError),
    /// 400: the page or page size of a month view is out of range.
    #[error(transparent)]
    InvalidPage(#[from] PageError),
    /// 404: the ping URL is not a registered app's health URL.
    #[error("No registered app has this health URL")]
    UnknownHealthUrl,
    /// 429: a limit of the live check refused it; answer `Retry-After: retry_after_secs`.
    #[error("{}", .limit.message())]
    LiveCheckLimited {
        limit: LiveCheckLimit,
        retry_after_secs: u64,
    },
    #[error(transparent)]
    Repo(#[from] RepoError),
}

impl UptimeError {
    /// The machine code of the error body.
    #[must_use]
    pub const fn code(&self) -> &'static str {
        match self {
            Self::Forbidden => "FORBIDDEN",
            Self::InvalidMonth(_) => "INVALID_MONTH",
            Self::InvalidPage(_) => "INVALID_PAGE",
            Self::UnknownHealthUrl => "NOT_FOUND",
            Self::LiveCheckLimited { .. } => "RATE_LIMITED",
            Self::Repo(_) => "INTERNAL",
        }
    }
}

/// The result of checking one app.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckReport {
    pub outcome: CheckOutcome,
    /// `false` when the app was deleted during the check (nothing stored).
    pub recorded: bool,
    pub alert_queued: bool,
}

/// The result of one monitor round.
#[derive(Debug, Default)]
pub struct RoundReport {
    pub checked: Vec<CheckReport>,
    /// Apps whose check could not be stored; the worker logs them and the next round retries.
    pub failures: Vec<(PackageName, UptimeError)>,
}

/// An app's current badge (`GET /api/app-uptime/status`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AppHealth {
    pub package_name: PackageName,
    /// `None` for an app no longer monitored.
    pub name: Option<String>,
    /// `None` before its first check.
    pub health: Option<HealthState>,
    pub badge: Badge,
    pub checked_at: Option<DateTime<Utc>>,
}

/// One row of the App Status tab.
#[derive(Debug, Clone, PartialEq)]
pub struct AppMonthRow {
    pub package_name: PackageName,
    pub name: Option<String>,
    /// For the tab's status filter; `None` for an app no longer monitored.
    pub store_status: Option<AppStoreStatus>,
    pub badge: Badge,
    pub health: Option<HealthState>,
    pub checked_at: Option<DateTime<Utc>>,
    pub view: MonthView,
}

/// The App Status tab for a month.
#[derive(Debug, Clone, PartialEq)]
pub struct MonthStatus {
    pub month: YearMonth,
    pub previous: Option<YearMonth>,
    pub next: Option<YearMonth>,
    /// One page of the monitored apps and apps with checks in the month that match the search and filter,
    /// by package name.
    pub apps: Vec<AppMonthRow>,
    /// Apps that match the search and the filter, on every page.
    pub matching: u32,
    /// Every app of the month.
    pub total: u32,
    pub page: u32,
    pub page_size: u32,
}

/// An app's detail view for a month.
#[derive(Debug, Clone, PartialEq)]
pub struct AppMonthDetail {
    pub package_name: PackageName,
    /// `None` before the first check.
    pub state: Option<AppUptimeState>,
    pub badge: Badge,
    pub view: MonthView,
}

/// A day's Problems list.
#[derive(Debug, Clone, PartialEq)]
pub struct DayProblems {
    pub package_name: PackageName,
    pub day: NaiveDate,
    pub bar: DayBar,
    /// Unhealthy or offline checks, newest first.
    pub problems: Vec<CheckOutcome>,
    /// `false` when the day is older than the raw-check retention: the counts remain, the list is gone.
    pub details_kept: bool,
}

/// The answer of the admin ping.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PingResult {
    pub package_name: PackageName,
    /// An HTTP answer arrived.
    pub success: bool,
    pub http_status: Option<u16>,
    pub body_status: Option<String>,
    pub health: HealthState,
    pub latency_ms: Option<u32>,
}

/// The uptime monitor and its views.
pub struct UptimeService {
    repo: Arc<dyn UptimeRepository>,
    prober: Arc<dyn HealthProber>,
    clock: Arc<dyn Clock>,
    config: UptimeConfig,
    /// The shared rate-limit counters (the identity limits' store), for the live check's limits.
    limits: Arc<dyn RateLimitStore>,
}

impl UptimeService {
    /// `limits` are the shared rate-limit counters, which the live check's limits count on.
    #[must_use]
    pub fn new(
        repo: Arc<dyn UptimeRepository>,
        prober: Arc<dyn HealthProber>,
        clock: Arc<dyn Clock>,
        config: UptimeConfig,
        limits: Arc<dyn RateLimitStore>,
    ) -> Self {
        Self {
            repo,
            prober,
            clock,
            config,
            limits,
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

    /// The badge of every monitored or checked app.
    ///
    /// # Errors
    /// [`UptimeError::Forbidden`]; a store failure.
    pub async fn status_all(&self, caller: &Caller) -> Result<Vec<AppHealth>, UptimeError> {
        require_review(caller)?;
        let mut apps: BTreeMap<PackageName, AppHealth> = BTreeMap::new();
        for app in self.repo.all_monitored_apps().await? {
            apps.insert(
                app.package_name.clone(),
                AppHealth {
                    package_name: app.package_name,
                    name: Some(app.name),
                    health: None,
                    badge: Badge::Offline,
                    checked_at: None,
                },
            );
        }
        for latest in self.repo.all_latest_status().await? {
            let entry = apps
                .entry(latest.package_name.clone())
                .or_insert_with(|| AppHealth {
                    package_name: latest.package_name,
                    name: None,
                    health: None,
                    badge: Badge::Offline,
                    checked_at: None,
                });
            entry.health = Some(latest.health);
            entry.badge = latest.health.badge();
            entry.checked_at = Some(latest.checked_at);
        }
        Ok(apps.into_values().collect())
    }

    /// The App Status tab: one page of the apps of the month that match the tab's search and status filter,
    /// each with the month's uptime, a bar per day and the current badge. Only the page's apps' days are read.
    ///
    /// # Errors
    /// [`UptimeError::Forbidden`]; [`UptimeError::InvalidMonth`]; [`UptimeError::InvalidPage`]; a store
    /// failure.
    pub async fn month(
        &self,
        caller: &Caller,
        year: i32,
        month: u32,
        query: &MonthListQuery,
    ) -> Result<MonthStatus, UptimeError> {
        require_review(caller)?;
        let month = YearMonth::new(year, month)?;
        query.validate()?;
        let page = select_page(self.repo.month_apps(month).await?, query);
        let packages: Vec<PackageName> = page.apps.iter().map(|app| app.package_name.clone()).collect();
        // A page past the end reads nothing more.
        let mut rollups: HashMap<PackageName, Vec<DailyRollup>> = HashMap::new();
        let mut latest: HashMap<PackageName, (HealthState, DateTime<Utc>)> = HashMap::new();
        if !packages.is_empty() {
            for rollup in self.repo.month_rollups_of(month, &packages).await? {
                rollups
                    .entry(rollup.package_name.clone())
                    .or_default()
                    .push(rollup);
            }
            for status in self.repo.latest_status_of(&packages).await? {
                latest.insert(status.package_name, (status.health, status.checked_at));
            }
        }
        let apps = page
            .apps
            .into_iter()
            .map(|app| {
                let current = latest.get(&app.package_name);
                let monitored = app.is_monitored();
                AppMonthRow {
                    view: build_month_view(month, rollups.get(&app.package_name).map_or(&[], Vec::as_slice)),
                    name: Some(app.name),
                    store_status: monitored.then_some(app.store_status),
                    badge: current.map_or(Badge::Offline, |(health, _)| health.badge()),
                    health: current.map(|(health, _)| *health),
                    checked_at: current.map(|(_, at)| *at),
                    package_name: app.package_name,
                }
            })
            .collect();
        Ok(MonthStatus {
            month,
            previous: month.previous(),
            next: month.next(),
            apps,
            matching: page.matching,
            total: page.total,
            page: query.page,
            page_size: query.page_size,
        })
    }

    /// An app's detail view: its current state and the month chart.
    ///
    /// # Errors
    /// [`UptimeError::Forbidden`]; [`UptimeError::InvalidMonth`]; a store failure.
    pub async fn app_month(
        &self,
        caller: &Caller,
        package: &PackageName,
        year: i32,
        month: u32,
    ) -> Result<AppMonthDetail, UptimeError> {
        require_review(caller)?;
        let month = YearMonth::new(year, month)?;
        let state = self.repo.app_state(package).await?;
        let rollups = self.repo.app_month_rollups(package, month).await?;
        Ok(AppMonthDetail {
            package_name: package.clone(),
            badge: if state.as_ref().is_some_and(|s| s.online) {
                Badge::Online
            } else {
                Badge::Offline
            },
            state,
            view: build_month_view(month, &rollups),
        })
    }

    /// A day's Problems list: the unhealthy or offline checks of that UTC day, with the day's counts.
    ///
    /// # Errors
    /// [`UptimeError::Forbidden`]; a store failure.
    pub async fn day_problems(
        &self,
        caller: &Caller,
        package: &PackageName,
        day: NaiveDate,
    ) -> Result<DayProblems, UptimeError> {
        require_review(caller)?;
        let month = YearMonth::of(day);
        let rollups = self.repo.app_month_rollups(package, month).await?;
        let view = build_month_view(month, &rollups);
        let bar = view.bars.into_iter().find(|b| b.day == day).unwrap_or(DayBar {
            day,
            colour: super::models::DayColour::Grey,
            healthy: 0,
            unhealthy: 0,
            total: 0,
            average_latency_ms: None,
        });
        let mut problems = self.repo.problem_checks(package, day).await?;
        problems.retain(CheckOutcome::is_problem);
        problems.sort_by_key(|p| std::cmp::Reverse(p.checked_at));
        let oldest_kept = (self.clock.now() - self.config.raw_retention).date_naive();
        Ok(DayProblems {
            package_name: package.clone(),
            day,
            bar,
            problems,
            details_kept: day >= oldest_kept,
        })
    }

    /// `GET /api/app-uptime/ping?url=`: checks a registered app's health URL now (not recorded). Only URLs
    /// that are some app's health URL are probed, and the stored URL is the one used.
    ///
    /// # Errors
    /// [`UptimeError::Forbidden`]; [`UptimeError::UnknownHealthUrl`]; a store failure.
    pub async fn ping(&self, caller: &Caller, url: &str) -> Result<PingResult, UptimeError> {
        require_review(caller)?;
        let app = self
            .repo
            .find_app_by_health_url(url.trim())
            .await?
            .ok_or(UptimeError::UnknownHealthUrl)?;
        Ok(self.probe_now(app.package_name, &app.health_url).await)
    }

    /// Checks an app's health URL now, through the guarded prober, without recording anything: the live
    /// check of the publish dialog, at most once per app per [`LIVE_CHECK_APP_INTERVAL_SECS`] and
    /// [`LIVE_CHECKS_PER_ACCOUNT_PER_HOUR`] times per account an hour (the account's limit first). The caller
    /// must already be allowed to see `app` (the app use cases checked its membership when they read it).
    ///
    /// # Errors
    /// [`UptimeError::LiveCheckLimited`] when a limit refuses the check (nothing is fetched);
    /// [`UptimeError::Repo`] when the counters fail.
    pub async fn check_now(
        &self,
        caller: &Caller,
        app: &crate::apps::App,
    ) -> Result<PingResult, UptimeError> {
        let now = self.clock.now();
        let checks = [
            (
                Limit::new(LIVE_CHECKS_PER_ACCOUNT_PER_HOUR, 3600),
                format!("live_check:account:{}", caller.user_id),
                LiveCheckLimit::Account,
            ),
            (
                Limit::new(1, LIVE_CHECK_APP_INTERVAL_SECS),
                format!("live_check:app:{}", app.package_name),
                LiveCheckLimit::App,
            ),
        ];
        for (limit, key, which) in checks {
            let counts = self
                .limits
                .hit(&digest_secret(&key), limit.window_start(now), limit.window_secs)
                .await?;
            if let RateDecision::Limited { retry_after_secs } = limit.decide(counts, now) {
                return Err(UptimeError::LiveCheckLimited {
                    limit: which,
                    retry_after_secs,
                });
            }
        }
        Ok(self.probe_now(app.package_name.clone(), &app.health_url()).await)
    }

    /// Probes `url` now for `package`, recording nothing.
    async fn probe_now(&self, package: PackageName, url: &str) -> PingResult {
        let probe = self.prober.probe(url).await;
        let outcome = CheckOutcome::classify(package.clone(), self.clock.now(), &probe);
        PingResult {
            package_name: package,
            success: probe.is_ok(),
            http_status: outcome.http_status,
            body_status: probe.as_ref().ok().and_then(|answer| answer.body_status.clone()),
            health: outcome.health,
            latency_ms: outcome.latency_ms,
        }
    }
}

fn require_review(caller: &Caller) -> Result<(), UptimeError> {
    if caller.can_review() {
        Ok(())
    } else {
        Err(UptimeError::Forbidden)
    }
}

#[cfg(test)]
mod service_tests;
