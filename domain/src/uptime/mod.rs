//! Uptime: the health monitor of submitted and published apps (PRODUCT.md §5), its rules (health words and
//! badges, check interpretation, day colours, monthly uptime), the month charts and outage e-mails.

pub mod alert;
pub mod calendar;
pub mod models;
pub mod month_list;
pub mod month_view;
pub mod ports;
pub mod service;

pub use calendar::{MonthError, YearMonth, days_in_month, is_leap_year};
pub use models::{
    Badge, CheckOutcome, DailyRollup, DayColour, HealthState, ProbeError, ProbeResult, RefusalReason,
    body_status_of, uptime_percent,
};
pub use month_list::{
    DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE, MonthApp, MonthListPage, MonthListQuery, PageError, StatusFilter,
    select_page,
};
pub use month_view::{DayBar, MonthView, build_month_view};
pub use ports::{AppUptimeState, HealthProber, LatestStatus, MonitoredApp, UptimeRepository};
pub use service::{
    AppHealth, AppMonthDetail, AppMonthRow, CheckReport, DayProblems, LIVE_CHECK_APP_INTERVAL_SECS,
    LIVE_CHECKS_PER_ACCOUNT_PER_HOUR, LiveCheckLimit, MonthStatus, PingResult, RoundReport, UptimeConfig,
    UptimeError, UptimeMonitorService, UptimeService,
};
