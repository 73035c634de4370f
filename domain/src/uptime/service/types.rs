//! The uptime service's settings, errors and answers.

use chrono::{DateTime, Duration, NaiveDate, Utc};

use crate::apps::{AppStoreStatus, PackageName};
use crate::common::RepoError;
use crate::uptime::alert::{ALERT_EVERY_HOURS, OFFLINE_CHECKS_BEFORE_ALERT};
use crate::uptime::calendar::{MonthError, YearMonth};
use crate::uptime::models::{Badge, CheckOutcome, HealthState};
use crate::uptime::month_list::PageError;
use crate::uptime::month_view::{DayBar, MonthView};
use crate::uptime::ports::AppUptimeState;

/// The live check of the publish dialog runs at most once per app in this many seconds (PRODUCT.md §1).
pub const LIVE_CHECK_APP_INTERVAL_SECS: i64 = 10;
/// Live checks one account may run in an hour (PRODUCT.md §1).
pub const LIVE_CHECKS_PER_ACCOUNT_PER_HOUR: u32 = 30;

/// Which limit refused a live check; its text is what the publish dialog shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LiveCheckLimit {
    /// The app was checked less than [`LIVE_CHECK_APP_INTERVAL_SECS`] ago.
    App,
    /// The account ran [`LIVE_CHECKS_PER_ACCOUNT_PER_HOUR`] live checks in the last hour.
    Account,
}

impl LiveCheckLimit {
    /// The message shown to the person who tried.
    #[must_use]
    pub fn message(self) -> String {
        match self {
            Self::App => format!(
                "This app's server was checked less than {LIVE_CHECK_APP_INTERVAL_SECS} seconds ago. Please wait \
                 a moment before checking again."
            ),
            Self::Account => format!(
                "You have run {LIVE_CHECKS_PER_ACCOUNT_PER_HOUR} live health checks in the last hour, the most \
                 allowed. Please try again later."
            ),
        }
    }
}

/// Settings of the monitor.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UptimeConfig {
    /// How often each app is checked (`PORTAL_UPTIME_INTERVAL_SECS`, 60 s).
    pub interval: Duration,
    /// How long a leased app stays reserved for the instance checking it (2 minutes: a 10 s probe plus room).
    pub lease: Duration,
    /// Most apps leased per round.
    pub batch_limit: u32,
    /// Offline checks in a row before an outage e-mail (5).
    pub offline_threshold: u32,
    /// At most one outage e-mail per app per this period (24 h).
    pub alert_every: Duration,
    /// How long raw checks are kept (48 h); rollups stay.
    pub raw_retention: Duration,
    /// Base of the link in outage e-mails (`PORTAL_PUBLIC_URL`).
    pub public_url: String,
}

impl UptimeConfig {
    /// The defaults of PRODUCT.md §5 with the given public URL.
    #[must_use]
    pub fn new(public_url: impl Into<String>) -> Self {
        Self {
            interval: Duration::seconds(60),
            lease: Duration::minutes(2),
            batch_limit: 200,
            offline_threshold: OFFLINE_CHECKS_BEFORE_ALERT,
            alert_every: Duration::hours(ALERT_EVERY_HOURS),
            raw_retention: Duration::hours(48),
            public_url: public_url.into(),
        }
    }
}

/// What the uptime use cases can fail with.
#[derive(Debug, thiserror::Error)]
pub enum UptimeError {
    /// 403: the caller is neither platform admin nor reviewer.
    #[error("Platform admin access required")]
    Forbidden,
    /// 400: the month or year query parameter is out of range.
    #[error(transparent)]
    InvalidMonth(#[from] MonthError),
    /// 400: the page or page size of a month view is out of range.
    #[error(transparent)]
    InvalidPage(#[from] PageError),
    /// 404: the ping URL is not a registered app's health URL.
    #[error("No registered app has this health URL")]
    UnknownHealthUrl,
    /// 429: a limit of the live check refused it; answer `Retry-After: retry_after_secs`.
    #[error("{}", .limit.message())]
    LiveCheckLimited {
        limit: LiveCheckLimit,
        retry_after_secs: u64,
    },
    #[error(transparent)]
    Repo(#[from] RepoError),
}

impl UptimeError {
    /// The machine code of the error body.
    #[must_use]
    pub const fn code(&self) -> &'static str {
        match self {
            Self::Forbidden => "FORBIDDEN",
            Self::InvalidMonth(_) => "INVALID_MONTH",
            Self::InvalidPage(_) => "INVALID_PAGE",
            Self::UnknownHealthUrl => "NOT_FOUND",
            Self::LiveCheckLimited { .. } => "RATE_LIMITED",
            Self::Repo(_) => "INTERNAL",
        }
    }
}

/// The result of checking one app.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckReport {
    pub outcome: CheckOutcome,
    /// `false` when the app was deleted during the check (nothing stored).
    pub recorded: bool,
    pub alert_queued: bool,
}

/// The result of one monitor round.
#[derive(Debug, Default)]
pub struct RoundReport {
    pub checked: Vec<CheckReport>,
    /// Apps whose check could not be stored; the worker logs them and the next round retries.
    pub failures: Vec<(PackageName, UptimeError)>,
}

/// An app's current badge (`GET /api/app-uptime/status`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AppHealth {
    pub package_name: PackageName,
    /// `None` for an app no longer monitored.
    pub name: Option<String>,
    /// `None` before its first check.
    pub health: Option<HealthState>,
    pub badge: Badge,
    pub checked_at: Option<DateTime<Utc>>,
}

/// One row of the App Status tab.
#[derive(Debug, Clone, PartialEq)]
pub struct AppMonthRow {
    pub package_name: PackageName,
    pub name: Option<String>,
    /// For the tab's status filter; `None` for an app no longer monitored.
    pub store_status: Option<AppStoreStatus>,
    pub badge: Badge,
    pub health: Option<HealthState>,
    pub checked_at: Option<DateTime<Utc>>,
    pub view: MonthView,
}

/// The App Status tab for a month.
#[derive(Debug, Clone, PartialEq)]
pub struct MonthStatus {
    pub month: YearMonth,
    pub previous: Option<YearMonth>,
    pub next: Option<YearMonth>,
    /// One page of the monitored apps and apps with checks in the month that match the search and filter,
    /// by package name.
    pub apps: Vec<AppMonthRow>,
    /// Apps that match the search and the filter, on every page.
    pub matching: u32,
    /// Every app of the month.
    pub total: u32,
    pub page: u32,
    pub page_size: u32,
}

/// An app's detail view for a month.
#[derive(Debug, Clone, PartialEq)]
pub struct AppMonthDetail {
    pub package_name: PackageName,
    /// `None` before the first check.
    pub state: Option<AppUptimeState>,
    pub badge: Badge,
    pub view: MonthView,
}

/// A day's Problems list.
#[derive(Debug, Clone, PartialEq)]
pub struct DayProblems {
    pub package_name: PackageName,
    pub day: NaiveDate,
    pub bar: DayBar,
    /// Unhealthy or offline checks, newest first.
    pub problems: Vec<CheckOutcome>,
    /// `false` when the day is older than the raw-check retention: the counts remain, the list is gone.
    pub details_kept: bool,
}

/// The answer of the admin ping.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PingResult {
    pub package_name: PackageName,
    /// An HTTP answer arrived.
    pub success: bool,
    pub http_status: Option<u16>,
    pub body_status: Option<String>,
    pub health: HealthState,
    pub latency_ms: Option<u32>,
}
