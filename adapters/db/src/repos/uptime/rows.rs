//! The stored forms of the uptime tables and their mapping to the domain's types.

use chrono::NaiveDate;
use diesel::prelude::*;
use domain::apps::{AppStoreStatus, PackageName};
use domain::common::{EmailAddress, RepoError};
use domain::uptime::models::{CheckOutcome, DailyRollup, HealthState};
use domain::uptime::ports::{AppUptimeState, MonitoredApp};

use crate::convert::{from_millis, from_millis_opt, parse_stored, to_millis};
use crate::schema::{uptime_checks, uptime_daily, uptime_monitor};

/// The store statuses the monitor checks, as stored.
pub(super) const MONITORED: [&str; 2] = [
    AppStoreStatus::MONITORED[0].code(),
    AppStoreStatus::MONITORED[1].code(),
];

/// A day as stored, `YYYY-MM-DD` (chrono's ISO form, without the cost of a format string).
pub(super) fn day_text(day: NaiveDate) -> String {
    day.to_string()
}

pub(super) fn package(column: &'static str, text: &str) -> Result<PackageName, RepoError> {
    parse_stored(column, text, PackageName::parse)
}

pub(super) fn health(column: &'static str, text: &str) -> Result<HealthState, RepoError> {
    parse_stored(column, text, |h| HealthState::parse(h).ok_or("unknown health"))
}

pub(super) fn count(column: &'static str, value: i32) -> Result<u32, RepoError> {
    u32::try_from(value).map_err(|e| RepoError::backend(format!("reading the column {column}"), e))
}

/// An app with what the monitor needs: `apps` joined with its organization.
pub(super) type AppTuple = (String, String, String, String, Option<String>);

pub(super) fn monitored_app(
    (package_name, name, public_url, status, contact): AppTuple,
) -> Result<MonitoredApp, RepoError> {
    Ok(MonitoredApp {
        package_name: package("apps.package_name", &package_name)?,
        name,
        health_url: format!("{}/health", public_url.trim_end_matches('/')),
        store_status: AppStoreStatus::parse_lossy(&status),
        contact_email: contact
            .map(|c| parse_stored("organizations.contact_email", &c, EmailAddress::parse))
            .transpose()?,
    })
}

#[derive(Queryable, Selectable)]
#[diesel(table_name = uptime_monitor)]
pub(super) struct MonitorRow {
    pub(super) package_name: String,
    pub(super) consecutive_failures: i32,
    pub(super) last_health: Option<String>,
    pub(super) last_online: Option<bool>,
    pub(super) last_checked_at: Option<i64>,
    pub(super) offline_alert_at: Option<i64>,
    pub(super) last_changed_at: Option<i64>,
}

impl MonitorRow {
    /// The state; `None` before the first check.
    pub(super) fn into_state(self) -> Result<Option<AppUptimeState>, RepoError> {
        let (Some(last_health), Some(online), Some(checked_at)) =
            (self.last_health, self.last_online, self.last_checked_at)
        else {
            return Ok(None);
        };
        let last_checked_at = from_millis(checked_at)?;
        Ok(Some(AppUptimeState {
            package_name: package("uptime_monitor.package_name", &self.package_name)?,
            online,
            health: health("uptime_monitor.last_health", &last_health)?,
            consecutive_offline: count("uptime_monitor.consecutive_failures", self.consecutive_failures)?,
            last_checked_at,
            changed_at: from_millis_opt(self.last_changed_at)?.unwrap_or(last_checked_at),
            last_offline_alert_at: from_millis_opt(self.offline_alert_at)?,
        }))
    }
}

#[derive(Queryable, Selectable, Insertable)]
#[diesel(table_name = uptime_checks)]
pub(super) struct CheckRow {
    pub(super) package_name: String,
    pub(super) checked_at: i64,
    pub(super) health: String,
    pub(super) online: bool,
    pub(super) http_status: Option<i32>,
    pub(super) latency_ms: Option<i32>,
    pub(super) healthy: bool,
}

impl CheckRow {
    pub(super) fn from_domain(outcome: &CheckOutcome) -> Self {
        Self {
            package_name: outcome.package_name.as_str().to_owned(),
            checked_at: to_millis(outcome.checked_at),
            health: outcome.health.code().to_owned(),
            online: outcome.online,
            http_status: outcome.http_status.map(i32::from),
            latency_ms: outcome.latency_ms.map(|l| i32::try_from(l).unwrap_or(i32::MAX)),
            healthy: outcome.healthy,
        }
    }

    pub(super) fn into_domain(self) -> Result<CheckOutcome, RepoError> {
        let convert = |column: &'static str, e: std::num::TryFromIntError| {
            RepoError::backend(format!("reading the column {column}"), e)
        };
        Ok(CheckOutcome {
            package_name: package("uptime_checks.package_name", &self.package_name)?,
            checked_at: from_millis(self.checked_at)?,
            healthy: self.healthy,
            online: self.online,
            http_status: self
                .http_status
                .map(u16::try_from)
                .transpose()
                .map_err(|e| convert("uptime_checks.http_status", e))?,
            latency_ms: self
                .latency_ms
                .map(u32::try_from)
                .transpose()
                .map_err(|e| convert("uptime_checks.latency_ms", e))?,
            health: health("uptime_checks.health", &self.health)?,
        })
    }
}

#[derive(Queryable, Selectable, Insertable)]
#[diesel(table_name = uptime_daily)]
pub(super) struct DailyRow {
    pub(super) package_name: String,
    pub(super) day: String,
    pub(super) healthy: i32,
    pub(super) unhealthy: i32,
    pub(super) total: i32,
    pub(super) latency_sum_ms: i64,
    pub(super) latency_count: i32,
}

impl DailyRow {
    pub(super) fn into_domain(self) -> Result<DailyRollup, RepoError> {
        Ok(DailyRollup {
            package_name: package("uptime_daily.package_name", &self.package_name)?,
            day: parse_stored("uptime_daily.day", &self.day, str::parse::<NaiveDate>)?,
            healthy: count("uptime_daily.healthy", self.healthy)?,
            unhealthy: count("uptime_daily.unhealthy", self.unhealthy)?,
            total: count("uptime_daily.total", self.total)?,
            latency_sum_ms: u64::try_from(self.latency_sum_ms)
                .map_err(|e| RepoError::backend("reading the column uptime_daily.latency_sum_ms", e))?,
            latency_count: count("uptime_daily.latency_count", self.latency_count)?,
        })
    }
}
