//! Uptime (specification §7 "Uptime", PRODUCT.md §5): the badges of every monitored app, the month view of
//! the App Status tab (from the day rollups), one app's month chart, one day's problems, and the staff ping
//! of a registered app's health URL, for platform admins and reviewers only (days are UTC days); and the live
//! health check a developer runs on their own app before publishing it.

mod checks;
mod dto;
mod query;

pub use checks::*;
pub use dto::*;
pub use query::*;

use actix_web::get;
use actix_web::{HttpResponse, web};
use chrono::{Datelike, NaiveDate};
use domain::apps::PackageName;
use domain::apps::service::{AppError, AppService};
use domain::uptime::{UptimeError, UptimeService, YearMonth};
use std::sync::Arc;

use crate::ApiError;
use crate::RouteSink;
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
pub fn routes<R: RouteSink>(cfg: &mut R) {
    cfg.service(current_status)
        .service(month_view)
        .service(ping)
        .service(app_month)
        .service(day_problems)
        .service(health_check);
}

pub const APP_NOT_FOUND: &str = "App not found";
pub const INVALID_DAY: &str = "The day must be a date such as 2026-02-28";
pub const URL_REQUIRED: &str = "The url query parameter is required";

fn package(text: &str) -> Result<PackageName, ApiError> {
    PackageName::parse(text).map_err(|_| ApiError::NotFound(APP_NOT_FOUND.into()))
}

/// The `month` and `year` query parameters; the current UTC month when both are absent.
fn no_store() -> actix_web::HttpResponseBuilder {
    let mut response = HttpResponse::Ok();
    response.insert_header(("Cache-Control", "no-store"));
    response
}

/// The current badge of every monitored app (and of apps that have checks but are no longer monitored).
#[utoipa::path(operation_id = "uptime_status", tag = "uptime",
    security(("bearer" = [])),
    responses(
        (status = 200, description = "Every app's current state", body = StatusResponse),
        (status = 403, description = "Not a platform admin or reviewer", body = crate::openapi::ErrorBody),
    ))]
#[get("/app-uptime/status")]
pub async fn current_status(
    api: web::Data<UptimeApi>,
    principal: Principal,
) -> Result<HttpResponse, ApiError> {
    let apps = api.uptime.status_all(&principal.0).await?;
    Ok(no_store().json(StatusResponse {
        success: true,
        apps: apps.into_iter().map(AppStatusDto::from).collect(),
    }))
}

/// The App Status tab of a month (UTC days): one page of the apps that match the search and the status
/// filter, each with its uptime, current badge and one bar per day.
#[utoipa::path(operation_id = "uptime_month", tag = "uptime", security(("bearer" = [])), params(MonthQuery, MonthPageQuery),
    responses(
        (status = 200, description = "A page of the month's apps", body = MonthResponse),
        (status = 400, description = "Month, year, page, page size or status out of range", body = crate::openapi::ErrorBody),
        (status = 403, description = "Not a platform admin or reviewer", body = crate::openapi::ErrorBody),
    ))]
#[get("/app-uptime/get-app-uptime-days")]
pub async fn month_view(
    api: web::Data<UptimeApi>,
    principal: Principal,
    query: web::Query<MonthQuery>,
    page: web::Query<MonthPageQuery>,
) -> Result<HttpResponse, ApiError> {
    let (year, month) = query.resolve()?;
    let page = page.resolve()?;
    let status = api.uptime.month(&principal.0, year, month, &page).await?;
    Ok(no_store().json(MonthResponse::from(status)))
}

/// One app's month chart and current state (the app detail tab).
#[utoipa::path(operation_id = "uptime_app_month", tag = "uptime", security(("bearer" = [])),
    params(("packageName" = String, Path, description = "The app's package name"), MonthQuery),
    responses(
        (status = 200, description = "The app's month", body = AppDetailResponse),
        (status = 400, description = "Month or year out of range", body = crate::openapi::ErrorBody),
        (status = 403, description = "Not a platform admin or reviewer", body = crate::openapi::ErrorBody),
        (status = 404, description = "Not a package name", body = crate::openapi::ErrorBody),
    ))]
#[get("/app-uptime/apps/{packageName}")]
pub async fn app_month(
    api: web::Data<UptimeApi>,
    principal: Principal,
    path: web::Path<String>,
    query: web::Query<MonthQuery>,
) -> Result<HttpResponse, ApiError> {
    let (year, month) = query.resolve()?;
    let package = package(&path)?;
    let detail = api.uptime.app_month(&principal.0, &package, year, month).await?;
    Ok(no_store().json(AppDetailResponse::from(detail)))
}

/// One UTC day of one app: its counts and its unhealthy or offline checks (kept 48 hours).
#[utoipa::path(operation_id = "uptime_day_problems", tag = "uptime", security(("bearer" = [])),
    params(
        ("packageName" = String, Path, description = "The app's package name"),
        ("day" = String, Path, description = "A UTC date, YYYY-MM-DD"),
    ),
    responses(
        (status = 200, description = "The day's problems", body = DayProblemsResponse),
        (status = 400, description = "Not a date", body = crate::openapi::ErrorBody),
        (status = 403, description = "Not a platform admin or reviewer", body = crate::openapi::ErrorBody),
        (status = 404, description = "Not a package name", body = crate::openapi::ErrorBody),
    ))]
#[get("/app-uptime/apps/{packageName}/days/{day}")]
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
    let problems = api.uptime.day_problems(&principal.0, &package, day).await?;
    Ok(no_store().json(DayProblemsResponse::from(problems)))
}

/// Checks a registered app's health URL now (not recorded). Only URLs that are some app's health URL are
/// probed, through the monitor's guarded prober.
#[utoipa::path(operation_id = "uptime_ping", tag = "uptime",
    security(("bearer" = [])), params(PingQuery),
    responses(
        (status = 200, description = "The health check's result", body = PingResponse),
        (status = 400, description = "No url given", body = crate::openapi::ErrorBody),
        (status = 403, description = "Not a platform admin or reviewer", body = crate::openapi::ErrorBody),
        (status = 404, description = "No registered app has this health URL", body = crate::openapi::ErrorBody),
    ))]
#[get("/app-uptime/ping")]
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
    let result = api.uptime.ping(&principal.0, url).await?;
    Ok(no_store().json(PingResponse::from(result)))
}

/// Checks the caller's own app now (its server URL plus `/health`), through the monitor's guarded prober,
/// recording nothing: the live check of the publish dialog. Members of the app's organization only.
#[utoipa::path(operation_id = "app_health_check", tag = "apps", security(("bearer" = []), ("accessToken" = ["apps:read"])),
    params(
        ("packageName" = String, Path, description = "The app's package name"),
        crate::auth::OrgHeader,
    ),
    responses(
        (status = 200, description = "The health check's result (an unreachable server is a result too)", body = PingResponse),
        (status = 403, description = "Not a member of the organization of x-org-id", body = crate::openapi::ErrorBody),
        (status = 429, description = "The app was checked less than 10 s ago, or the caller ran 30 live checks in the last hour; `Retry-After` says when to try again", body = crate::openapi::ErrorBody,
            headers(("Retry-After" = u64, description = "Seconds to wait"))),
    ))]
#[get("/dev/apps/{packageName}/health-check")]
pub async fn health_check(
    api: web::Data<UptimeApi>,
    scope: OrgScope,
    path: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let package = PackageName::parse(&path).map_err(|_| ApiError::from(AppError::NotFound))?;
    let app = api.apps.get(scope.member(), &package).await?;
    let result = api.uptime.check_now(&scope.caller, &app).await?;
    Ok(no_store().json(PingResponse::from(result)))
}
