//! The query parameters of the uptime calls, read into the domain's values with field errors.

use chrono::{Datelike, Utc};
use domain::uptime::{DEFAULT_PAGE_SIZE, MonthError, MonthListQuery, PageError, StatusFilter, UptimeError};
use serde::Deserialize;
use utoipa::IntoParams;

use crate::ApiError;

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct MonthQuery {
    /// 1–12.
    pub month: Option<String>,
    /// 1970–9999.
    pub year: Option<String>,
}

impl MonthQuery {
    pub(super) fn resolve(&self) -> Result<(i32, u32), ApiError> {
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
    pub(super) fn resolve(&self) -> Result<MonthListQuery, ApiError> {
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

/// `?url=`: an app's health URL (its server URL plus `/health`).
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct PingQuery {
    /// Required: a request without it is refused (`URL_REQUIRED`).
    #[param(required = true, min_length = 1)]
    pub url: Option<String>,
}
