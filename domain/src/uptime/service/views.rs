//! What staff read: the status of every app, the App Status month tab, an app's month, a day's problems,
//! and the live checks.

use chrono::{DateTime, NaiveDate, Utc};
use std::collections::{BTreeMap, HashMap};

use crate::apps::PackageName;
use crate::common::Caller;
use crate::common::secrets::digest_secret;
use crate::identity::rate_limit::{Limit, RateDecision};
use crate::uptime::calendar::YearMonth;
use crate::uptime::models::{Badge, CheckOutcome, DailyRollup, HealthState};
use crate::uptime::month_list::{MonthListQuery, select_page};
use crate::uptime::month_view::{DayBar, build_month_view};

use super::types::*;
use super::{UptimeService, require_review};

impl UptimeService {
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
            colour: crate::uptime::models::DayColour::Grey,
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
