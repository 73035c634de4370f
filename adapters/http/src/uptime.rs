//! Uptime (specification §7 "Uptime", PRODUCT.md §5): the badges of every monitored app, the month view of
//! the App Status tab (from the day rollups), one app's month chart, one day's problems, and the staff ping
//! of a registered app's health URL, for platform admins and reviewers only (days are UTC days); and the live
//! health check a developer runs on their own app before publishing it.

use actix_web::{HttpResponse, web};
use chrono::{DateTime, Datelike, NaiveDate, Utc};
use domain::apps::service::{AppError, AppService};
use domain::apps::{AppStoreStatus, PackageName};
use domain::uptime::{
    AppHealth, AppMonthDetail, AppMonthRow, Badge, CheckOutcome, DEFAULT_PAGE_SIZE, DayBar, DayColour,
    DayProblems, HealthState, MonthError, MonthListQuery, MonthStatus, MonthView, PageError, PingResult,
    StatusFilter, UptimeError, UptimeService, YearMonth,
};
use serde::{Deserialize, Serialize};
use std::sync::Arc;
use utoipa::{IntoParams, ToSchema};

use crate::ApiError;
use crate::auth::{OrgScope, Principal};

/// The uptime use cases, and the app use cases that authorize a developer's live check, as app data.
#[derive(Clone)]
pub struct UptimeApi {
    pub uptime: Arc<UptimeService>,
    pub apps: Arc<AppService>,
}

impl std::fmt::Debug for UptimeApi {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("UptimeApi")
    }
}

/// Registers the routes of this module inside the `/api` scope.
pub fn routes(api: UptimeApi) -> impl FnOnce(&mut web::ServiceConfig) {
    move |cfg| {
        cfg.app_data(web::Data::new(api))
            .route("/app-uptime/status", web::get().to(status))
            .route("/app-uptime/get-app-uptime-days", web::get().to(month))
            .route("/app-uptime/ping", web::get().to(ping))
            .route("/app-uptime/apps/{packageName}", web::get().to(app_month))
            .route(
                "/app-uptime/apps/{packageName}/days/{day}",
                web::get().to(day_problems),
            )
            .route(
                "/dev/apps/{packageName}/health-check",
                web::get().to(health_check),
            );
    }
}

pub const APP_NOT_FOUND: &str = "App not found";
pub const INVALID_DAY: &str = "The day must be a date such as 2026-02-28";
pub const URL_REQUIRED: &str = "The url query parameter is required";

fn package(text: &str) -> Result<PackageName, ApiError> {
    PackageName::parse(text).map_err(|_| ApiError::NotFound(APP_NOT_FOUND.into()))
}

/// The `month` and `year` query parameters; the current UTC month when both are absent.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct MonthQuery {
    /// 1–12.
    pub month: Option<String>,
    /// 1970–9999.
    pub year: Option<String>,
}

impl MonthQuery {
    fn resolve(&self) -> Result<(i32, u32), ApiError> {
        let now = Utc::now();
        let invalid = |e: MonthError| ApiError::from(UptimeError::InvalidMonth(e));
        let month = match self.month.as_deref().map(str::trim) {
            None | Some("") => now.month(),
            Some(text) => text.parse::<u32>().map_err(|_| invalid(MonthError::Month))?,
        };
        let year = match self.year.as_deref().map(str::trim) {
            None | Some("") => now.year(),
            Some(text) => text.parse::<i32>().map_err(|_| invalid(MonthError::Year))?,
        };
        Ok((year, month))
    }
}

/// The App Status tab's page, search and status filter (`GET /api/app-uptime/get-app-uptime-days`).
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(rename_all = "camelCase")]
pub struct MonthPageQuery {
    /// 1-based; 1 when absent.
    pub page: Option<String>,
    /// 1–100 apps per page; 25 when absent.
    pub page_size: Option<String>,
    /// Part of an app's name or package name, any case.
    pub search: Option<String>,
    /// `ALL` (the default), `SUBMITTED` or `PUBLISHED`.
    pub status: Option<String>,
}

impl MonthPageQuery {
    fn resolve(&self) -> Result<MonthListQuery, ApiError> {
        let number = |text: Option<&str>, default: u32, error: PageError| match text.map(str::trim) {
            None | Some("") => Ok(default),
            Some(text) => text
                .parse::<u32>()
                .map_err(|_| ApiError::from(UptimeError::from(error))),
        };
        let status = match self.status.as_deref() {
            None => StatusFilter::All,
            Some(text) => StatusFilter::parse(text)
                .ok_or_else(|| ApiError::bad_request("INVALID_STATUS", INVALID_STATUS_FILTER.to_owned()))?,
        };
        Ok(MonthListQuery {
            search: self.search.clone().unwrap_or_default(),
            status,
            page: number(self.page.as_deref(), 1, PageError::Page)?,
            page_size: number(self.page_size.as_deref(), DEFAULT_PAGE_SIZE, PageError::PageSize)?,
        })
    }
}

pub const INVALID_STATUS_FILTER: &str = "Status must be ALL, SUBMITTED or PUBLISHED";

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
    health.map_or_else(|| "unknown".to_owned(), |h| h.as_str().to_owned())
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

/// One check of the Problems list.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ProblemDto {
    pub package_name: String,
    pub timestamp: DateTime<Utc>,
    /// `unhealthy`, `unreachable`, `timeout` or `error`.
    pub health: String,
    pub online_status: bool,
    #[schema(required = true)]
    pub http_status: Option<u16>,
    #[schema(required = true)]
    pub latency_ms: Option<u32>,
}

impl From<CheckOutcome> for ProblemDto {
    fn from(check: CheckOutcome) -> Self {
        Self {
            package_name: check.package_name.to_string(),
            timestamp: check.checked_at,
            health: check.health.as_str().to_owned(),
            online_status: check.online,
            http_status: check.http_status,
            latency_ms: check.latency_ms,
        }
    }
}

/// A day's problems: its counts, and the unhealthy or offline checks, newest first.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct DayProblemsResponse {
    pub package_name: String,
    #[serde(flatten)]
    pub day: DayDto,
    pub problems: Vec<ProblemDto>,
    /// `false` for a day older than the 48 hours raw checks are kept: the counts remain, the list is gone.
    pub details_kept: bool,
}

impl From<DayProblems> for DayProblemsResponse {
    fn from(value: DayProblems) -> Self {
        Self {
            package_name: value.package_name.to_string(),
            day: value.bar.into(),
            problems: value.problems.into_iter().map(ProblemDto::from).collect(),
            details_kept: value.details_kept,
        }
    }
}

/// `?url=`: an app's health URL (its server URL plus `/health`).
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct PingQuery {
    pub url: Option<String>,
}

/// The `data` of a ping: the body's `status` word.
#[derive(Debug, Serialize, ToSchema)]
pub struct PingData {
    /// The JSON body's `status` (`healthy` when all is well); `null` without one.
    #[schema(required = true)]
    pub status: Option<String>,
}

/// `GET /api/app-uptime/ping`: the specification's `{success, status, data: {status}}`, with the
/// classification and latency.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PingResponse {
    /// An HTTP answer arrived.
    pub success: bool,
    /// The HTTP status (200 expected); `null` without an answer.
    #[schema(required = true)]
    pub status: Option<u16>,
    pub data: PingData,
    pub package_name: String,
    /// `healthy`, `unhealthy`, `unreachable`, `timeout` or `error`.
    pub health: String,
    pub online: bool,
    #[schema(required = true)]
    pub latency_ms: Option<u32>,
}

impl From<PingResult> for PingResponse {
    fn from(value: PingResult) -> Self {
        Self {
            success: value.success,
            status: value.http_status,
            data: PingData {
                status: value.body_status,
            },
            package_name: value.package_name.to_string(),
            health: value.health.as_str().to_owned(),
            online: value.health.badge() == Badge::Online,
            latency_ms: value.latency_ms,
        }
    }
}

fn no_store() -> actix_web::HttpResponseBuilder {
    let mut response = HttpResponse::Ok();
    response.insert_header(("Cache-Control", "no-store"));
    response
}

/// The current badge of every monitored app (and of apps that have checks but are no longer monitored).
#[utoipa::path(operation_id = "uptime_status", get, path = "/api/app-uptime/status", tag = "uptime",
    security(("bearer" = [])),
    responses(
        (status = 200, description = "Every app's current state", body = StatusResponse),
        (status = 401, description = "Not signed in", body = crate::openapi::ErrorBody),
        (status = 403, description = "Not a platform admin or reviewer", body = crate::openapi::ErrorBody),
    ))]
pub async fn status(api: web::Data<UptimeApi>, principal: Principal) -> Result<HttpResponse, ApiError> {
    let apps = api
        .uptime
        .status_all(&principal.0)
        .await
        .map_err(ApiError::from)?;
    Ok(no_store().json(StatusResponse {
        success: true,
        apps: apps.into_iter().map(AppStatusDto::from).collect(),
    }))
}

/// The App Status tab of a month (UTC days): one page of the apps that match the search and the status
/// filter, each with its uptime, current badge and one bar per day.
#[utoipa::path(operation_id = "uptime_month", get, path = "/api/app-uptime/get-app-uptime-days",
    tag = "uptime", security(("bearer" = [])), params(MonthQuery, MonthPageQuery),
    responses(
        (status = 200, description = "A page of the month's apps", body = MonthResponse),
        (status = 400, description = "Month, year, page, page size or status out of range", body = crate::openapi::ErrorBody),
        (status = 401, description = "Not signed in", body = crate::openapi::ErrorBody),
        (status = 403, description = "Not a platform admin or reviewer", body = crate::openapi::ErrorBody),
    ))]
pub async fn month(
    api: web::Data<UptimeApi>,
    principal: Principal,
    query: web::Query<MonthQuery>,
    page: web::Query<MonthPageQuery>,
) -> Result<HttpResponse, ApiError> {
    let (year, month) = query.resolve()?;
    let page = page.resolve()?;
    let status = api
        .uptime
        .month(&principal.0, year, month, &page)
        .await
        .map_err(ApiError::from)?;
    Ok(no_store().json(MonthResponse::from(status)))
}

/// One app's month chart and current state (the app detail tab).
#[utoipa::path(operation_id = "uptime_app_month", get, path = "/api/app-uptime/apps/{packageName}",
    tag = "uptime", security(("bearer" = [])),
    params(("packageName" = String, Path, description = "The app's package name"), MonthQuery),
    responses(
        (status = 200, description = "The app's month", body = AppDetailResponse),
        (status = 400, description = "Month or year out of range", body = crate::openapi::ErrorBody),
        (status = 401, description = "Not signed in", body = crate::openapi::ErrorBody),
        (status = 403, description = "Not a platform admin or reviewer", body = crate::openapi::ErrorBody),
        (status = 404, description = "Not a package name", body = crate::openapi::ErrorBody),
    ))]
pub async fn app_month(
    api: web::Data<UptimeApi>,
    principal: Principal,
    path: web::Path<String>,
    query: web::Query<MonthQuery>,
) -> Result<HttpResponse, ApiError> {
    let (year, month) = query.resolve()?;
    let package = package(&path)?;
    let detail = api
        .uptime
        .app_month(&principal.0, &package, year, month)
        .await
        .map_err(ApiError::from)?;
    Ok(no_store().json(AppDetailResponse::from(detail)))
}

/// One UTC day of one app: its counts and its unhealthy or offline checks (kept 48 hours).
#[utoipa::path(operation_id = "uptime_day_problems", get,
    path = "/api/app-uptime/apps/{packageName}/days/{day}", tag = "uptime", security(("bearer" = [])),
    params(
        ("packageName" = String, Path, description = "The app's package name"),
        ("day" = String, Path, description = "A UTC date, YYYY-MM-DD"),
    ),
    responses(
        (status = 200, description = "The day's problems", body = DayProblemsResponse),
        (status = 400, description = "Not a date", body = crate::openapi::ErrorBody),
        (status = 401, description = "Not signed in", body = crate::openapi::ErrorBody),
        (status = 403, description = "Not a platform admin or reviewer", body = crate::openapi::ErrorBody),
        (status = 404, description = "Not a package name", body = crate::openapi::ErrorBody),
    ))]
pub async fn day_problems(
    api: web::Data<UptimeApi>,
    principal: Principal,
    path: web::Path<(String, String)>,
) -> Result<HttpResponse, ApiError> {
    let (package_text, day_text) = path.into_inner();
    let package = package(&package_text)?;
    let day = NaiveDate::parse_from_str(day_text.trim(), "%Y-%m-%d")
        .ok()
        .filter(|d| YearMonth::new(d.year(), d.month()).is_ok())
        .ok_or_else(|| ApiError::bad_request("INVALID_DAY", INVALID_DAY))?;
    let problems = api
        .uptime
        .day_problems(&principal.0, &package, day)
        .await
        .map_err(ApiError::from)?;
    Ok(no_store().json(DayProblemsResponse::from(problems)))
}

/// Checks a registered app's health URL now (not recorded). Only URLs that are some app's health URL are
/// probed, through the monitor's guarded prober.
#[utoipa::path(operation_id = "uptime_ping", get, path = "/api/app-uptime/ping", tag = "uptime",
    security(("bearer" = [])), params(PingQuery),
    responses(
        (status = 200, description = "The health check's result", body = PingResponse),
        (status = 400, description = "No url given", body = crate::openapi::ErrorBody),
        (status = 401, description = "Not signed in", body = crate::openapi::ErrorBody),
        (status = 403, description = "Not a platform admin or reviewer", body = crate::openapi::ErrorBody),
        (status = 404, description = "No registered app has this health URL", body = crate::openapi::ErrorBody),
    ))]
pub async fn ping(
    api: web::Data<UptimeApi>,
    principal: Principal,
    query: web::Query<PingQuery>,
) -> Result<HttpResponse, ApiError> {
    // Staff first: a developer learns nothing about which URLs are registered.
    if !principal.0.can_review() {
        return Err(ApiError::from(UptimeError::Forbidden));
    }
    let url = query
        .url
        .as_deref()
        .map(str::trim)
        .filter(|u| !u.is_empty())
        .ok_or_else(|| ApiError::bad_request("URL_REQUIRED", URL_REQUIRED))?;
    let result = api.uptime.ping(&principal.0, url).await.map_err(ApiError::from)?;
    Ok(no_store().json(PingResponse::from(result)))
}

/// Checks the caller's own app now (its server URL plus `/health`), through the monitor's guarded prober,
/// recording nothing: the live check of the publish dialog. Members of the app's organization only.
#[utoipa::path(operation_id = "app_health_check", get, path = "/api/dev/apps/{packageName}/health-check",
    tag = "apps", security(("bearer" = [])),
    params(
        ("packageName" = String, Path, description = "The app's package name"),
        ("x-org-id" = String, Header, description = "The current organization"),
    ),
    responses(
        (status = 200, description = "The health check's result (an unreachable server is a result too)", body = PingResponse),
        (status = 401, description = "Not signed in", body = crate::openapi::ErrorBody),
        (status = 403, description = "Not a member of the organization of x-org-id", body = crate::openapi::ErrorBody),
        (status = 404, description = "The organization has no such app", body = crate::openapi::ErrorBody),
        (status = 429, description = "The app was checked less than 10 s ago, or the caller ran 30 live checks in the last hour; `Retry-After` says when to try again", body = crate::openapi::ErrorBody,
            headers(("Retry-After" = u64, description = "Seconds to wait"))),
    ))]
pub async fn health_check(
    api: web::Data<UptimeApi>,
    scope: OrgScope,
    path: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let package = PackageName::parse(&path).map_err(|_| ApiError::from(AppError::NotFound))?;
    let app = api
        .apps
        .get(scope.member(), &package)
        .await
        .map_err(ApiError::from)?;
    let result = api
        .uptime
        .check_now(&scope.caller, &app)
        .await
        .map_err(ApiError::from)?;
    Ok(no_store().json(PingResponse::from(result)))
}
