//! The answers about single checks: the Problems list of a day and the staff ping.

use chrono::{DateTime, Utc};
use domain::uptime::{Badge, CheckOutcome, DayProblems, PingResult};
use serde::Serialize;
use utoipa::ToSchema;

use super::dto::DayDto;

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
            health: check.health.code().to_owned(),
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
            health: value.health.code().to_owned(),
            online: value.health.badge() == Badge::Online,
            latency_ms: value.latency_ms,
        }
    }
}
