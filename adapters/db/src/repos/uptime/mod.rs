//! Uptime data: the per-app monitor state and lease (`uptime_monitor`), raw checks (`uptime_checks`),
//! per-app-per-UTC-day rollups (`uptime_daily`, `day` as `YYYY-MM-DD`) and state changes
//! (`uptime_state_changes`).
//!
//! `uptime_monitor.check_slot_at` is the key of the due scan: the time of the last check, 0 before the first.

use async_trait::async_trait;
use chrono::{DateTime, Days, NaiveDate, Utc};
use diesel::dsl::{exists, not};
use diesel::prelude::*;
use diesel::sql_types::{BigInt, Integer};
use domain::apps::{AppStoreStatus, PackageName};
use domain::common::RepoError;
use domain::mail::OutgoingEmail;
use domain::uptime::calendar::YearMonth;
use domain::uptime::models::{CheckOutcome, DailyRollup};
use domain::uptime::month_list::MonthApp;
use domain::uptime::ports::{AppUptimeState, LatestStatus, MonitoredApp, UptimeRepository};

use crate::convert::{backend, from_millis, to_millis};
use crate::schema::{apps, organizations, uptime_checks, uptime_daily, uptime_monitor, uptime_state_changes};
use crate::{Db, DbConnection, outbox_rows};

mod batch;
mod rows;

use rows::{AppTuple, CheckRow, DailyRow, MONITORED, MonitorRow, day_text, health, monitored_app, package};

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

fn load_monitor(conn: &mut DbConnection, package_name: &str) -> Result<Option<MonitorRow>, RepoError> {
    uptime_monitor::table
        .find(package_name)
        .select(MonitorRow::as_select())
        .first(conn)
        .optional()
        .map_err(backend("reading an app's uptime state"))
}

/// Creates the monitor rows of SUBMITTED and PUBLISHED apps that have none (due at once). Concurrent
/// instances may do this at the same time, so a row that appeared meanwhile is skipped.
fn create_missing_monitors(conn: &mut DbConnection) -> Result<(), RepoError> {
    let missing = apps::table
        .filter(apps::app_store_status.eq_any(MONITORED))
        .filter(not(exists(
            uptime_monitor::table.filter(uptime_monitor::package_name.eq(apps::package_name)),
        )))
        // One order for every instance, so that concurrent inserts wait on each other without deadlocking.
        .order(apps::package_name.asc())
        .select((
            apps::package_name,
            0_i64.into_sql::<BigInt>(),
            0_i32.into_sql::<Integer>(),
        ));
    let insert = diesel::insert_into(uptime_monitor::table)
        .values(missing)
        .into_columns((
            uptime_monitor::package_name,
            uptime_monitor::check_slot_at,
            uptime_monitor::consecutive_failures,
        ))
        .on_conflict_do_nothing();
    match conn {
        DbConnection::Sqlite(c) => insert.execute(c),
        DbConnection::Postgres(c) => insert.execute(c),
    }
    .map_err(backend("creating uptime monitor rows"))
    .map(drop)
}

/// Loads the apps of `packages`, in that order.
fn load_apps(conn: &mut DbConnection, packages: &[String]) -> Result<Vec<MonitoredApp>, RepoError> {
    let mut rows: Vec<AppTuple> = Vec::with_capacity(packages.len());
    for chunk in packages.chunks(batch::CHUNK * 4) {
        rows.extend(
            app_query!()
                .filter(apps::package_name.eq_any(chunk))
                .load::<AppTuple>(conn)
                .map_err(backend("reading monitored apps"))?,
        );
    }
    let order: std::collections::HashMap<&str, usize> = packages
        .iter()
        .enumerate()
        .map(|(i, p)| (p.as_str(), i))
        .collect();
    rows.sort_by_key(|row| order.get(row.0.as_str()).copied().unwrap_or(usize::MAX));
    rows.into_iter().map(monitored_app).collect()
}

/// Adds one check to the app's rollup of its UTC day, creating the rollup.
fn add_to_rollup(conn: &mut DbConnection, outcome: &CheckOutcome) -> Result<(), RepoError> {
    let up = i32::from(outcome.is_up());
    let latency = outcome.latency_ms.map_or(0, i64::from);
    let measured = i32::from(outcome.latency_ms.is_some());
    let key = (outcome.package_name.as_str(), day_text(outcome.day()));
    let changed = diesel::update(uptime_daily::table.find((key.0, key.1.as_str())))
        .set((
            uptime_daily::healthy.eq(uptime_daily::healthy + up),
            uptime_daily::unhealthy.eq(uptime_daily::unhealthy + (1 - up)),
            uptime_daily::total.eq(uptime_daily::total + 1),
            uptime_daily::latency_sum_ms.eq(uptime_daily::latency_sum_ms + latency),
            uptime_daily::latency_count.eq(uptime_daily::latency_count + measured),
        ))
        .execute(conn)
        .map_err(backend("updating a daily uptime rollup"))?;
    if changed > 0 {
        return Ok(());
    }
    diesel::insert_into(uptime_daily::table)
        .values(DailyRow {
            package_name: key.0.to_owned(),
            day: key.1,
            healthy: up,
            unhealthy: 1 - up,
            total: 1,
            latency_sum_ms: latency,
            latency_count: measured,
        })
        .execute(conn)
        .map_err(backend("creating a daily uptime rollup"))
        .map(drop)
}

/// Maps a write that refers to the app: a foreign-key violation means the app was deleted meanwhile.
fn app_write(context: &'static str) -> impl Fn(diesel::result::Error) -> RepoError {
    move |error| match &error {
        diesel::result::Error::DatabaseError(diesel::result::DatabaseErrorKind::ForeignKeyViolation, _) => {
            RepoError::NotFound
        }
        _ => RepoError::backend(context, error),
    }
}

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

    /// The rollups of `month`: of one app in day order, or of the given apps in any order.
    async fn month_rollups(
        &self,
        packages: Vec<String>,
        month: YearMonth,
    ) -> Result<Vec<DailyRollup>, RepoError> {
        let Some((first, last)) = month_bounds(month) else {
            return Ok(Vec::new());
        };
        self.db
            .read(move |conn| {
                // By the primary key (package, day): each app's days of the month, in order.
                uptime_daily::table
                    .filter(uptime_daily::package_name.eq_any(packages))
                    .filter(uptime_daily::day.ge(first))
                    .filter(uptime_daily::day.le(last))
                    .order((uptime_daily::package_name.asc(), uptime_daily::day.asc()))
                    .select(DailyRow::as_select())
                    .load(conn)
                    .map_err(backend("reading daily uptime rollups"))?
                    .into_iter()
                    .map(DailyRow::into_domain)
                    .collect()
            })
            .await
    }

    /// The latest check of every app that has one, or of the given apps.
    async fn latest_status(&self, packages: Option<Vec<String>>) -> Result<Vec<LatestStatus>, RepoError> {
        self.db
            .read(move |conn| {
                let mut query = uptime_monitor::table
                    .filter(uptime_monitor::last_checked_at.is_not_null())
                    .filter(uptime_monitor::last_health.is_not_null())
                    .order(uptime_monitor::package_name.asc())
                    .select((
                        uptime_monitor::package_name,
                        uptime_monitor::last_health,
                        uptime_monitor::last_checked_at,
                    ))
                    .into_boxed();
                if let Some(packages) = packages {
                    query = query.filter(uptime_monitor::package_name.eq_any(packages));
                }
                let rows: Vec<(String, Option<String>, Option<i64>)> =
                    query.load(conn).map_err(backend("reading the latest checks"))?;
                rows.into_iter()
                    .filter_map(|(p, h, at)| Some((p, h?, at?)))
                    .map(|(package_name, last_health, checked_at)| {
                        Ok(LatestStatus {
                            package_name: package("uptime_monitor.package_name", &package_name)?,
                            health: health("uptime_monitor.last_health", &last_health)?,
                            checked_at: from_millis(checked_at)?,
                        })
                    })
                    .collect()
            })
            .await
    }
}

/// The first and last day of `month` as stored.
fn month_bounds(month: YearMonth) -> Option<(String, String)> {
    Some((day_text(month.day(1)?), day_text(month.day(month.days())?)))
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
            .write(move |conn| {
                create_missing_monitors(conn)?;
                let candidates = uptime_monitor::table
                    .filter(
                        uptime_monitor::package_name.eq_any(
                            apps::table
                                .filter(apps::app_store_status.eq_any(MONITORED))
                                .select(apps::package_name),
                        ),
                    )
                    .filter(uptime_monitor::check_slot_at.lt(due))
                    .filter(
                        uptime_monitor::lease_until
                            .is_null()
                            .or(uptime_monitor::lease_until.le(now)),
                    )
                    .order((
                        uptime_monitor::check_slot_at.asc(),
                        uptime_monitor::package_name.asc(),
                    ))
                    .limit(i64::from(limit))
                    .select(uptime_monitor::package_name);
                // On PostgreSQL the candidates are locked, skipping rows another instance is leasing now,
                // so that instances never wait on each other here; SQLite has one writer at a time.
                let candidates: Vec<String> = match conn {
                    DbConnection::Sqlite(c) => candidates.load(c),
                    DbConnection::Postgres(c) => candidates.for_update().skip_locked().load(c),
                }
                .map_err(backend("finding apps due for a check"))?;
                // The lease is a conditional update of them all, which answers the rows it changed.
                let mut leased: Vec<String> = Vec::with_capacity(candidates.len());
                for chunk in candidates.chunks(batch::CHUNK * 4) {
                    let lease = diesel::update(
                        uptime_monitor::table
                            .filter(uptime_monitor::package_name.eq_any(chunk))
                            .filter(uptime_monitor::check_slot_at.lt(due))
                            .filter(
                                uptime_monitor::lease_until
                                    .is_null()
                                    .or(uptime_monitor::lease_until.le(now)),
                            ),
                    )
                    .set(uptime_monitor::lease_until.eq(until))
                    .returning(uptime_monitor::package_name);
                    let changed: Vec<String> = match conn {
                        DbConnection::Sqlite(c) => lease.get_results(c),
                        DbConnection::Postgres(c) => lease.get_results(c),
                    }
                    .map_err(backend("leasing apps for a check"))?;
                    leased.extend(changed);
                }
                // In the order of the scan: the longest-waiting first.
                let order: std::collections::HashMap<&str, usize> = candidates
                    .iter()
                    .enumerate()
                    .map(|(i, p)| (p.as_str(), i))
                    .collect();
                leased.sort_by_key(|p| order.get(p.as_str()).copied().unwrap_or(usize::MAX));
                load_apps(conn, &leased)
            })
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
            .write(move |conn| {
                let package_name = outcome.package_name.as_str().to_owned();
                // Touching the row first takes its lock on PostgreSQL: a concurrent record of the same app
                // waits, so the read below is the latest state.
                let touched = diesel::update(uptime_monitor::table.find(&package_name))
                    .set(uptime_monitor::lease_until.eq(None::<i64>))
                    .execute(conn)
                    .map_err(backend("releasing an uptime lease"))?;
                if touched == 0 {
                    diesel::insert_into(uptime_monitor::table)
                        .values((
                            uptime_monitor::package_name.eq(&package_name),
                            uptime_monitor::check_slot_at.eq(0_i64),
                            uptime_monitor::consecutive_failures.eq(0),
                        ))
                        .execute(conn)
                        .map_err(app_write("creating an uptime monitor row"))?;
                }
                let previous = load_monitor(conn, &package_name)?.ok_or(RepoError::NotFound)?;
                diesel::insert_into(uptime_checks::table)
                    .values(CheckRow::from_domain(&outcome))
                    .execute(conn)
                    .map_err(app_write("storing a health check"))?;
                add_to_rollup(conn, &outcome)?;

                let checked_at = to_millis(outcome.checked_at);
                let flipped = previous.last_online != Some(outcome.online);
                if flipped {
                    diesel::insert_into(uptime_state_changes::table)
                        .values((
                            uptime_state_changes::package_name.eq(&package_name),
                            uptime_state_changes::changed_at.eq(checked_at),
                            uptime_state_changes::online.eq(outcome.online),
                            uptime_state_changes::health.eq(outcome.health.as_str()),
                        ))
                        .execute(conn)
                        .map_err(app_write("storing an uptime state change"))?;
                }
                let consecutive = if outcome.online {
                    0
                } else {
                    previous.consecutive_failures.saturating_add(1)
                };
                let changed_at = if flipped {
                    Some(checked_at)
                } else {
                    previous.last_changed_at
                };
                diesel::update(uptime_monitor::table.find(&package_name))
                    .set((
                        uptime_monitor::check_slot_at.eq(checked_at),
                        uptime_monitor::lease_until.eq(None::<i64>),
                        uptime_monitor::consecutive_failures.eq(consecutive),
                        uptime_monitor::last_health.eq(outcome.health.as_str()),
                        uptime_monitor::last_online.eq(outcome.online),
                        uptime_monitor::last_checked_at.eq(checked_at),
                        uptime_monitor::last_changed_at.eq(changed_at),
                    ))
                    .execute(conn)
                    .map_err(backend("updating an app's uptime state"))?;
                load_monitor(conn, &package_name)?
                    .ok_or(RepoError::NotFound)?
                    .into_state()?
                    .ok_or_else(|| RepoError::backend("recording a check", "the state was not stored"))
            })
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
        let Some((first, last)) = month_bounds(month) else {
            return Ok(Vec::new());
        };
        self.db
            .read(move |conn| {
                let checked_in_month = exists(
                    uptime_daily::table
                        .filter(uptime_daily::package_name.eq(apps::package_name))
                        .filter(uptime_daily::day.ge(first))
                        .filter(uptime_daily::day.le(last)),
                );
                apps::table
                    .filter(apps::app_store_status.eq_any(MONITORED).or(checked_in_month))
                    .order(apps::package_name.asc())
                    .select((apps::package_name, apps::name, apps::app_store_status))
                    .load::<(String, String, String)>(conn)
                    .map_err(backend("listing the apps of a month"))?
                    .into_iter()
                    .map(|(package_name, name, status)| {
                        Ok(MonthApp {
                            package_name: package("apps.package_name", &package_name)?,
                            name,
                            store_status: AppStoreStatus::parse_lossy(&status),
                        })
                    })
                    .collect()
            })
            .await
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
        let package_name = package.as_str().to_owned();
        let start = day.and_hms_opt(0, 0, 0).map(|t| to_millis(t.and_utc()));
        let end = day
            .checked_add_days(Days::new(1))
            .and_then(|d| d.and_hms_opt(0, 0, 0))
            .map(|t| to_millis(t.and_utc()));
        let (Some(start), Some(end)) = (start, end) else {
            return Ok(Vec::new());
        };
        self.db
            .read(move |conn| {
                uptime_checks::table
                    .filter(uptime_checks::package_name.eq(package_name))
                    .filter(uptime_checks::checked_at.ge(start))
                    .filter(uptime_checks::checked_at.lt(end))
                    .filter(not(uptime_checks::healthy).or(not(uptime_checks::online)))
                    .order(uptime_checks::checked_at.desc())
                    .select(CheckRow::as_select())
                    .load(conn)
                    .map_err(backend("reading problem checks"))?
                    .into_iter()
                    .map(CheckRow::into_domain)
                    .collect()
            })
            .await
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
