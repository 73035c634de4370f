//! The reads of the uptime pages: a month's apps and daily rollups, the latest check of each app, and an
//! app's failed checks of one day.

use chrono::{Days, NaiveDate};
use diesel::dsl::{exists, not};
use diesel::prelude::*;
use domain::apps::{AppStoreStatus, PackageName};
use domain::common::RepoError;
use domain::uptime::calendar::YearMonth;
use domain::uptime::models::{CheckOutcome, DailyRollup};
use domain::uptime::month_list::MonthApp;
use domain::uptime::ports::LatestStatus;

use super::DieselUptimeRepository;
use super::rows::{CheckRow, DailyRow, MONITORED, day_text, health, package};
use crate::convert::{backend, from_millis, to_millis};
use crate::schema::{apps, uptime_checks, uptime_daily, uptime_monitor};

impl DieselUptimeRepository {
    /// The rollups of `month`: of one app in day order, or of the given apps in any order.
    pub(super) async fn month_rollups(
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
    pub(super) async fn latest_status(
        &self,
        packages: Option<Vec<String>>,
    ) -> Result<Vec<LatestStatus>, RepoError> {
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

    /// The monitored apps and the others checked in `month`, by package name.
    pub(super) async fn apps_of_month(&self, month: YearMonth) -> Result<Vec<MonthApp>, RepoError> {
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

    /// The failed checks of the app on `day` (UTC), newest first.
    pub(super) async fn failed_checks_of_day(
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
}

/// The first and last day of `month` as stored.
fn month_bounds(month: YearMonth) -> Option<(String, String)> {
    Some((day_text(month.day(1)?), day_text(month.day(month.days())?)))
}
