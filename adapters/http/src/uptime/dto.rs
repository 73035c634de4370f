//! The answers of the uptime views: current badges and month views.

use chrono::{DateTime, NaiveDate, Utc};
use domain::apps::AppStoreStatus;
use domain::uptime::{
    AppHealth, AppMonthDetail, AppMonthRow, Badge, DayBar, DayColour, HealthState, MonthStatus, MonthView,
    YearMonth,
};
use serde::Serialize;
use utoipa::ToSchema;

/// A calendar month.
#[derive(Debug, Serialize, ToSchema)]
pub struct MonthDto {
    pub year: i32,
    /// 1–12.
    pub month: u32,
}

impl From<YearMonth> for MonthDto {
    fn from(value: YearMonth) -> Self {
        Self {
            year: value.year(),
            month: value.month(),
        }
    }
}

/// An app's current state (`GET /api/app-uptime/status`).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AppStatusDto {
    pub package_name: String,
    /// `null` for an app that is no longer monitored.
    #[schema(required = true)]
    pub name: Option<String>,
    /// `healthy`, `unhealthy`, `unreachable`, `timeout` or `error`; `unknown` before the first check.
    pub health_status: String,
    /// The Online/Offline badge.
    pub online: bool,
    #[schema(required = true)]
    pub checked_at: Option<DateTime<Utc>>,
}

fn health_word(health: Option<HealthState>) -> String {
    health.map_or_else(|| "unknown".to_owned(), |h| h.code().to_owned())
}

impl From<AppHealth> for AppStatusDto {
    fn from(value: AppHealth) -> Self {
        Self {
            package_name: value.package_name.to_string(),
            name: value.name,
            health_status: health_word(value.health),
            online: value.badge == Badge::Online,
            checked_at: value.checked_at,
        }
    }
}

#[derive(Debug, Serialize, ToSchema)]
pub struct StatusResponse {
    pub success: bool,
    pub apps: Vec<AppStatusDto>,
}

/// One UTC day's bar: its colour and its tooltip figures.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct DayDto {
    /// `YYYY-MM-DD` (UTC).
    pub date: NaiveDate,
    /// `green` (all healthy), `yellow` (mixed), `red` (all unhealthy), `grey` (no data).
    #[schema(value_type = String)]
    pub colour: DayColour,
    pub healthy: u32,
    pub unhealthy: u32,
    pub total: u32,
    #[schema(required = true)]
    pub average_latency_ms: Option<u32>,
}

impl From<DayBar> for DayDto {
    fn from(bar: DayBar) -> Self {
        Self {
            date: bar.day,
            colour: bar.colour,
            healthy: bar.healthy,
            unhealthy: bar.unhealthy,
            total: bar.total,
            average_latency_ms: bar.average_latency_ms,
        }
    }
}

/// A month chart: the uptime of the month and one bar per day (the month's real length).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct MonthViewDto {
    /// Healthy checks over all checks of the month, one decimal; 0 without data.
    pub uptime_percent: f64,
    pub days: Vec<DayDto>,
}

impl From<MonthView> for MonthViewDto {
    fn from(view: MonthView) -> Self {
        Self {
            uptime_percent: view.uptime_percent,
            days: view.bars.into_iter().map(DayDto::from).collect(),
        }
    }
}

/// One row of the App Status tab.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AppMonthDto {
    pub package_name: String,
    #[schema(required = true)]
    pub name: Option<String>,
    /// `SUBMITTED` or `PUBLISHED`; `null` for an app no longer monitored (rejected, or back in
    /// development: its checks of the month remain, and the screens say "Not monitored").
    #[schema(required = true, value_type = Option<String>)]
    pub app_store_status: Option<AppStoreStatus>,
    pub health_status: String,
    pub online: bool,
    #[schema(required = true)]
    pub checked_at: Option<DateTime<Utc>>,
    #[serde(flatten)]
    pub view: MonthViewDto,
}

impl From<AppMonthRow> for AppMonthDto {
    fn from(row: AppMonthRow) -> Self {
        Self {
            package_name: row.package_name.to_string(),
            name: row.name,
            app_store_status: row.store_status,
            health_status: health_word(row.health),
            online: row.badge == Badge::Online,
            checked_at: row.checked_at,
            view: row.view.into(),
        }
    }
}

/// `GET /api/app-uptime/get-app-uptime-days`: the month of every monitored app, from the day rollups.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct MonthResponse {
    pub success: bool,
    pub month: MonthDto,
    #[schema(required = true)]
    pub previous: Option<MonthDto>,
    #[schema(required = true)]
    pub next: Option<MonthDto>,
    /// Days of the month (28–31).
    pub days_in_month: u32,
    /// The page's apps, by package name.
    pub data: Vec<AppMonthDto>,
    /// Apps that match the search and the status filter, on all pages.
    pub matching: u32,
    /// Every app of the month (monitored, or checked in the month), before the search and the filter.
    pub total: u32,
    pub page: u32,
    pub page_size: u32,
}

impl From<MonthStatus> for MonthResponse {
    fn from(status: MonthStatus) -> Self {
        Self {
            success: true,
            days_in_month: status.month.days(),
            month: status.month.into(),
            previous: status.previous.map(MonthDto::from),
            next: status.next.map(MonthDto::from),
            data: status.apps.into_iter().map(AppMonthDto::from).collect(),
            matching: status.matching,
            total: status.total,
            page: status.page,
            page_size: status.page_size,
        }
    }
}

/// One app's detail for a month.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AppDetailResponse {
    pub package_name: String,
    pub month: MonthDto,
    pub online: bool,
    /// `unknown` before the first check.
    pub health_status: String,
    #[schema(required = true)]
    pub last_checked_at: Option<DateTime<Utc>>,
    /// When the app last went online or offline.
    #[schema(required = true)]
    pub status_changed_at: Option<DateTime<Utc>>,
    /// Failed checks in a row (5 e-mail the organization's contact, at most once a day).
    pub consecutive_offline: u32,
    #[serde(flatten)]
    pub view: MonthViewDto,
}

impl From<AppMonthDetail> for AppDetailResponse {
    fn from(detail: AppMonthDetail) -> Self {
        let state = detail.state.as_ref();
        Self {
            package_name: detail.package_name.to_string(),
            month: detail.view.month.into(),
            online: detail.badge == Badge::Online,
            health_status: health_word(state.map(|s| s.health)),
            last_checked_at: state.map(|s| s.last_checked_at),
            status_changed_at: state.map(|s| s.changed_at),
            consecutive_offline: state.map_or(0, |s| s.consecutive_offline),
            view: detail.view.into(),
        }
    }
}
