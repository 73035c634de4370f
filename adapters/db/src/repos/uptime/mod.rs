//! Uptime data: the per-app monitor state and lease (`uptime_monitor`), raw checks (`uptime_checks`),
//! per-app-per-UTC-day rollups (`uptime_daily`, `day` as `YYYY-MM-DD`) and state changes
//! (`uptime_state_changes`).
//!
//! `uptime_monitor.check_slot_at` is the key of the due scan: the time of the last check, 0 before the first.

use async_trait::async_trait;
use chrono::{DateTime, NaiveDate, Utc};
use diesel::prelude::*;
use domain::apps::PackageName;
use domain::common::RepoError;
use domain::mail::OutgoingEmail;
use domain::uptime::calendar::YearMonth;
use domain::uptime::models::{CheckOutcome, DailyRollup};
use domain::uptime::month_list::MonthApp;
use domain::uptime::ports::{AppUptimeState, LatestStatus, MonitoredApp, UptimeRepository};

use crate::convert::{backend, from_millis, to_millis};
use crate::schema::{apps, organizations, uptime_checks, uptime_monitor};
use crate::{Db, outbox_rows};

mod batch;
mod rows;

use rows::{AppTuple, MONITORED, MonitorRow, monitored_app};

macro_rules! app_query {
    () => {
        apps::table.inner_join(organizations::table).select((
            apps::package_name,
            apps::name,
            apps::public_url,
            apps::app_store_status,
            organizations::contact_email,
        ))
    };
}

mod lease;
mod reads;
mod record;

use record::load_monitor;

/// [`UptimeRepository`] on the uptime tables, reading apps and organizations.
#[derive(Debug, Clone)]
pub struct DieselUptimeRepository {
    db: Db,
}

impl DieselUptimeRepository {
    #[must_use]
    pub const fn new(db: Db) -> Self {
        Self { db }
    }
}

#[async_trait]
impl UptimeRepository for DieselUptimeRepository {
    async fn lease_due_apps(
        &self,
        now: DateTime<Utc>,
        due_before: DateTime<Utc>,
        limit: u32,
        lease_until: DateTime<Utc>,
    ) -> Result<Vec<MonitoredApp>, RepoError> {
        let (now, due, until) = (to_millis(now), to_millis(due_before), to_millis(lease_until));
        self.db
            .write(move |conn| lease::lease_due(conn, now, due, limit, until))
            .await
    }

    async fn record_many(&self, outcomes: &[CheckOutcome]) -> Result<Vec<Option<AppUptimeState>>, RepoError> {
        if outcomes.is_empty() {
            return Ok(Vec::new());
        }
        let outcomes = outcomes.to_vec();
        self.db
            .write(move |conn| batch::record_batch(conn, &outcomes))
            .await
    }

    async fn record(&self, outcome: &CheckOutcome) -> Result<AppUptimeState, RepoError> {
        let outcome = outcome.clone();
        self.db
            .write(move |conn| record::record_one(conn, &outcome))
            .await
    }

    async fn queue_offline_alert(
        &self,
        package: &PackageName,
        email: &OutgoingEmail,
        now: DateTime<Utc>,
        not_since: DateTime<Utc>,
    ) -> Result<bool, RepoError> {
        let package_name = package.as_str().to_owned();
        let email = email.clone();
        self.db
            .write(move |conn| {
                let changed = diesel::update(
                    uptime_monitor::table
                        .find(&package_name)
                        .filter(uptime_monitor::last_checked_at.is_not_null())
                        .filter(
                            uptime_monitor::offline_alert_at
                                .is_null()
                                .or(uptime_monitor::offline_alert_at.lt(to_millis(not_since))),
                        ),
                )
                .set(uptime_monitor::offline_alert_at.eq(to_millis(now)))
                .execute(conn)
                .map_err(backend("marking an outage e-mail"))?;
                if changed > 0 {
                    outbox_rows::enqueue(conn, std::slice::from_ref(&email), now)?;
                    return Ok(true);
                }
                let has_state =
                    load_monitor(conn, &package_name)?.is_some_and(|m| m.last_checked_at.is_some());
                if has_state {
                    Ok(false)
                } else {
                    Err(RepoError::NotFound)
                }
            })
            .await
    }

    async fn app_state(&self, package: &PackageName) -> Result<Option<AppUptimeState>, RepoError> {
        let package_name = package.as_str().to_owned();
        self.db
            .read(move |conn| {
                load_monitor(conn, &package_name)?
                    .map(MonitorRow::into_state)
                    .transpose()
                    .map(Option::flatten)
            })
            .await
    }

    async fn all_monitored_apps(&self) -> Result<Vec<MonitoredApp>, RepoError> {
        self.db
            .read(|conn| {
                app_query!()
                    .filter(apps::app_store_status.eq_any(MONITORED))
                    .order(apps::package_name.asc())
                    .load::<AppTuple>(conn)
                    .map_err(backend("listing monitored apps"))?
                    .into_iter()
                    .map(monitored_app)
                    .collect()
            })
            .await
    }

    async fn find_app_by_health_url(&self, url: &str) -> Result<Option<MonitoredApp>, RepoError> {
        let Some(base) = url.strip_suffix("/health") else {
            return Ok(None);
        };
        let url = url.to_owned();
        let bases = vec![base.to_owned(), format!("{base}/")];
        self.db
            .read(move |conn| {
                let rows: Vec<AppTuple> = app_query!()
                    .filter(apps::public_url.eq_any(bases))
                    .order(apps::package_name.asc())
                    .load(conn)
                    .map_err(backend("finding an app by its health URL"))?;
                for row in rows {
                    let app = monitored_app(row)?;
                    if app.health_url == url {
                        return Ok(Some(app));
                    }
                }
                Ok(None)
            })
            .await
    }

    async fn month_apps(&self, month: YearMonth) -> Result<Vec<MonthApp>, RepoError> {
        self.apps_of_month(month).await
    }

    async fn month_rollups_of(
        &self,
        month: YearMonth,
        packages: &[PackageName],
    ) -> Result<Vec<DailyRollup>, RepoError> {
        self.month_rollups(packages.iter().map(|p| p.as_str().to_owned()).collect(), month)
            .await
    }

    async fn app_month_rollups(
        &self,
        package: &PackageName,
        month: YearMonth,
    ) -> Result<Vec<DailyRollup>, RepoError> {
        self.month_rollups(vec![package.as_str().to_owned()], month).await
    }

    async fn problem_checks(
        &self,
        package: &PackageName,
        day: NaiveDate,
    ) -> Result<Vec<CheckOutcome>, RepoError> {
        self.failed_checks_of_day(package, day).await
    }

    async fn all_latest_status(&self) -> Result<Vec<LatestStatus>, RepoError> {
        self.latest_status(None).await
    }

    async fn latest_status_of(&self, packages: &[PackageName]) -> Result<Vec<LatestStatus>, RepoError> {
        self.latest_status(Some(packages.iter().map(|p| p.as_str().to_owned()).collect()))
            .await
    }

    async fn oldest_check_slot(&self) -> Result<Option<DateTime<Utc>>, RepoError> {
        let oldest: Option<i64> = self
            .db
            .read(|conn| {
                uptime_monitor::table
                    .filter(
                        uptime_monitor::package_name.eq_any(
                            apps::table
                                .filter(apps::app_store_status.eq_any(MONITORED))
                                .select(apps::package_name),
                        ),
                    )
                    // 0 is the slot of an app never checked yet: it has no interval to be behind.
                    .filter(uptime_monitor::check_slot_at.gt(0_i64))
                    .select(diesel::dsl::min(uptime_monitor::check_slot_at))
                    .first(conn)
                    .map_err(backend("finding the oldest check slot"))
            })
            .await?;
        oldest.map(from_millis).transpose()
    }

    async fn prune_raw_before(&self, cutoff: DateTime<Utc>) -> Result<u64, RepoError> {
        let cutoff = to_millis(cutoff);
        self.db
            .write(move |conn| {
                diesel::delete(uptime_checks::table.filter(uptime_checks::checked_at.lt(cutoff)))
                    .execute(conn)
                    .map_err(backend("pruning raw checks"))
                    .map(|n| n as u64)
            })
            .await
    }
}
