//! Uptime rules (specification §4 and §9, PRODUCT.md §5): health words and badges, the interpretation of a
//! health check, daily rollups, day colours and the monthly uptime percentage.

use crate::common::code_enum;
use chrono::{DateTime, NaiveDate, Utc};
use serde::{Deserialize, Serialize};

use crate::apps::PackageName;

/// The badge of an app: `Online` or `Offline`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Badge {
    Online,
    Offline,
}

impl Badge {
    /// The badge of a health word (specification §4): `healthy`, `operational` and `up` mean Online;
    /// `unhealthy`, `down`, `error`, `timeout`, `unreachable`, `unknown` and anything else mean Offline.
    /// Case and surrounding white space do not matter.
    #[must_use]
    pub fn of_health_word(word: &str) -> Self {
        match word.trim().to_ascii_lowercase().as_str() {
            "healthy" | "operational" | "up" => Self::Online,
            _ => Self::Offline,
        }
    }

    #[must_use]
    pub const fn label(self) -> &'static str {
        match self {
            Self::Online => "Online",
            Self::Offline => "Offline",
        }
    }

    #[must_use]
    pub const fn is_online(self) -> bool {
        matches!(self, Self::Online)
    }
}

code_enum! {
    /// The result of one health check.
    pub enum HealthState: "The result of one health check." {
        /// HTTP 200 with a JSON body whose `status` is `healthy`.
        Healthy => "healthy",
        /// Any other HTTP answer.
        Unhealthy => "unhealthy",
        /// The connection failed.
        Unreachable => "unreachable",
        /// No complete answer within the timeout (10 s).
        Timeout => "timeout",
        /// The check was refused: a private target, a redirect, or a body over the size limit.
        Error => "error",
    }
}

impl HealthState {
    #[must_use]
    pub fn badge(self) -> Badge {
        Badge::of_health_word(self.code())
    }

    /// Interprets an HTTP answer: healthy only for status 200 with a body `status` of exactly `healthy`.
    ///
    /// The comparison is case-sensitive, as the `@mentra/sdk` `AppServer` serves the lower-case word; a body
    /// saying `Healthy` is unhealthy. (Badges of stored words, by contrast, ignore case.)
    #[must_use]
    pub fn of_answer(http_status: u16, body_status: Option<&str>) -> Self {
        if http_status == 200 && body_status == Some("healthy") {
            Self::Healthy
        } else {
            Self::Unhealthy
        }
    }
}

/// The `status` string of a health body, when the body is a JSON object with one.
#[must_use]
pub fn body_status_of(body: &[u8]) -> Option<String> {
    let value: serde_json::Value = serde_json::from_slice(body).ok()?;
    value.get("status")?.as_str().map(str::to_owned)
}

/// What the prober read from a health URL.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProbeResult {
    pub http_status: u16,
    /// The body's `status` (see [`body_status_of`]).
    pub body_status: Option<String>,
    pub latency_ms: u32,
}

/// Why the prober refused to finish a check.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RefusalReason {
    /// The host resolves to a private, loopback or link-local address.
    PrivateTarget,
    /// The answer was a redirect (none is followed).
    Redirect,
    /// The body is larger than 64 KB.
    TooLarge,
}

/// Why a check got no usable answer.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ProbeError {
    #[error("the health check timed out")]
    Timeout,
    #[error("the health URL could not be reached: {0}")]
    Unreachable(String),
    #[error("the health check was refused: {0:?}")]
    Refused(RefusalReason),
}

/// One recorded health check.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CheckOutcome {
    pub package_name: PackageName,
    pub checked_at: DateTime<Utc>,
    pub healthy: bool,
    /// The badge of the health: Online only when healthy.
    pub online: bool,
    pub http_status: Option<u16>,
    pub latency_ms: Option<u32>,
    pub health: HealthState,
}

impl CheckOutcome {
    /// Classifies a probe: an answer by [`HealthState::of_answer`]; a timeout is `Timeout`; a failed
    /// connection `Unreachable`; a refusal (private target, redirect, too large) `Error`.
    #[must_use]
    pub fn classify(
        package_name: PackageName,
        checked_at: DateTime<Utc>,
        probe: &Result<ProbeResult, ProbeError>,
    ) -> Self {
        let (health, http_status, latency_ms) = match probe {
            Ok(answer) => (
                HealthState::of_answer(answer.http_status, answer.body_status.as_deref()),
                Some(answer.http_status),
                Some(answer.latency_ms),
            ),
            Err(ProbeError::Timeout) => (HealthState::Timeout, None, None),
            Err(ProbeError::Unreachable(_)) => (HealthState::Unreachable, None, None),
            Err(ProbeError::Refused(_)) => (HealthState::Error, None, None),
        };
        Self {
            package_name,
            checked_at,
            healthy: health == HealthState::Healthy,
            online: health.badge().is_online(),
            http_status,
            latency_ms,
            health,
        }
    }

    /// Counts towards uptime: healthy or online (specification §9).
    #[must_use]
    pub const fn is_up(&self) -> bool {
        self.healthy || self.online
    }

    /// A problem for the day's Problems list: unhealthy or offline.
    #[must_use]
    pub const fn is_problem(&self) -> bool {
        !self.healthy || !self.online
    }

    /// The UTC day of the check.
    #[must_use]
    pub fn day(&self) -> NaiveDate {
        self.checked_at.date_naive()
    }
}

/// The colour of a day's bar.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum DayColour {
    /// Every check healthy.
    Green,
    /// Some healthy, some not.
    Yellow,
    /// Every check unhealthy.
    Red,
    /// No check.
    Grey,
}

impl DayColour {
    #[must_use]
    pub const fn of(healthy: u32, total: u32) -> Self {
        if total == 0 {
            Self::Grey
        } else if healthy >= total {
            Self::Green
        } else if healthy == 0 {
            Self::Red
        } else {
            Self::Yellow
        }
    }
}

/// The checks of one app on one UTC day.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DailyRollup {
    pub package_name: PackageName,
    pub day: NaiveDate,
    /// Healthy-or-online checks.
    pub healthy: u32,
    pub unhealthy: u32,
    pub total: u32,
    pub latency_sum_ms: u64,
    /// Checks that measured a latency (answers, not failures).
    pub latency_count: u32,
}

impl DailyRollup {
    #[must_use]
    pub const fn empty(package_name: PackageName, day: NaiveDate) -> Self {
        Self {
            package_name,
            day,
            healthy: 0,
            unhealthy: 0,
            total: 0,
            latency_sum_ms: 0,
            latency_count: 0,
        }
    }

    /// Adds one check (the repository does the same in SQL when it records one).
    pub fn add(&mut self, outcome: &CheckOutcome) {
        self.total = self.total.saturating_add(1);
        if outcome.is_up() {
            self.healthy = self.healthy.saturating_add(1);
        } else {
            self.unhealthy = self.unhealthy.saturating_add(1);
        }
        if let Some(latency) = outcome.latency_ms {
            self.latency_sum_ms = self.latency_sum_ms.saturating_add(u64::from(latency));
            self.latency_count = self.latency_count.saturating_add(1);
        }
    }

    #[must_use]
    pub const fn colour(&self) -> DayColour {
        DayColour::of(self.healthy, self.total)
    }

    /// Mean latency of the answered checks, rounded down.
    #[must_use]
    pub fn average_latency_ms(&self) -> Option<u32> {
        (self.latency_count > 0)
            .then(|| u32::try_from(self.latency_sum_ms / u64::from(self.latency_count)).unwrap_or(u32::MAX))
    }
}

/// Uptime in percent, rounded half up to one decimal; `0.0` without checks (specification §9).
#[must_use]
pub fn uptime_percent(up: u64, total: u64) -> f64 {
    if total == 0 {
        return 0.0;
    }
    // Tenths of a percent, rounded half up, in integers: (up * 1000 + total / 2) / total.
    let tenths = (u128::from(up.min(total)) * 1000 + u128::from(total) / 2) / u128::from(total);
    // At most 1000: exact in f64.
    f64::from(u32::try_from(tenths).unwrap_or(1000)) / 10.0
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::noon;

    fn pkg() -> PackageName {
        PackageName::parse("com.example.app").unwrap()
    }

    fn outcome(probe: Result<ProbeResult, ProbeError>) -> CheckOutcome {
        CheckOutcome::classify(pkg(), noon(), &probe)
    }

    fn answer(status: u16, body: Option<&str>) -> Result<ProbeResult, ProbeError> {
        Ok(ProbeResult {
            http_status: status,
            body_status: body.map(str::to_owned),
            latency_ms: 42,
        })
    }

    #[test]
    fn healthy_operational_and_up_are_online_in_any_case() {
        for word in ["healthy", "operational", "up", "HEALTHY", "Operational", " Up "] {
            assert_eq!(Badge::of_health_word(word), Badge::Online, "{word:?}");
        }
    }

    #[test]
    fn every_other_health_word_is_offline() {
        for word in [
            "unhealthy",
            "down",
            "error",
            "timeout",
            "unreachable",
            "unknown",
            "",
            "degraded",
            "DOWN",
        ] {
            assert_eq!(Badge::of_health_word(word), Badge::Offline, "{word:?}");
        }
        assert_eq!(Badge::Offline.label(), "Offline");
    }

    #[test]
    fn only_the_healthy_state_is_online() {
        assert_eq!(HealthState::Healthy.badge(), Badge::Online);
        for state in [
            HealthState::Unhealthy,
            HealthState::Unreachable,
            HealthState::Timeout,
            HealthState::Error,
        ] {
            assert_eq!(state.badge(), Badge::Offline);
            assert_eq!(HealthState::parse(state.code()), Some(state));
        }
        assert_eq!(HealthState::parse("unknown"), None);
    }

    #[test]
    fn http_200_with_status_healthy_is_healthy_and_online() {
        let check = outcome(answer(200, Some("healthy")));
        assert_eq!(check.health, HealthState::Healthy);
        assert!(check.healthy && check.online);
        assert_eq!((check.http_status, check.latency_ms), (Some(200), Some(42)));
    }

    #[test]
    fn http_200_with_another_body_is_unhealthy_and_the_word_is_case_sensitive() {
        for body in [None, Some("ok"), Some("Healthy"), Some("HEALTHY")] {
            let check = outcome(answer(200, body));
            assert_eq!(check.health, HealthState::Unhealthy, "{body:?}");
            assert!(!check.healthy && !check.online);
        }
    }

    #[test]
    fn a_non_200_answer_is_unhealthy_even_with_a_healthy_body() {
        for status in [201, 204, 301, 404, 500, 503] {
            assert_eq!(
                outcome(answer(status, Some("healthy"))).health,
                HealthState::Unhealthy,
                "{status}"
            );
        }
    }

    #[test]
    fn failures_map_to_unreachable_timeout_and_error() {
        assert_eq!(
            outcome(Err(ProbeError::Unreachable("refused".into()))).health,
            HealthState::Unreachable
        );
        assert_eq!(outcome(Err(ProbeError::Timeout)).health, HealthState::Timeout);
        for reason in [
            RefusalReason::PrivateTarget,
            RefusalReason::Redirect,
            RefusalReason::TooLarge,
        ] {
            let check = outcome(Err(ProbeError::Refused(reason)));
            assert_eq!(check.health, HealthState::Error);
            assert_eq!((check.http_status, check.latency_ms), (None, None));
        }
    }

    #[test]
    fn the_body_status_is_read_from_a_json_object() {
        assert_eq!(
            body_status_of(br#"{"status":"healthy","uptime":3}"#).as_deref(),
            Some("healthy")
        );
        assert_eq!(body_status_of(br#"{"status":1}"#), None);
        assert_eq!(body_status_of(b"healthy"), None);
        assert_eq!(body_status_of(b""), None);
    }

    #[test]
    fn day_colours_follow_the_mix_of_checks() {
        assert_eq!(DayColour::of(5, 5), DayColour::Green);
        assert_eq!(DayColour::of(3, 5), DayColour::Yellow);
        assert_eq!(DayColour::of(0, 5), DayColour::Red);
        assert_eq!(DayColour::of(0, 0), DayColour::Grey);
    }

    #[test]
    fn a_rollup_counts_checks_and_latency() {
        let mut day = DailyRollup::empty(pkg(), noon().date_naive());
        day.add(&outcome(answer(200, Some("healthy"))));
        day.add(&outcome(answer(500, None)));
        day.add(&outcome(Err(ProbeError::Timeout)));
        assert_eq!((day.healthy, day.unhealthy, day.total), (1, 2, 3));
        assert_eq!((day.latency_sum_ms, day.latency_count), (84, 2));
        assert_eq!(day.average_latency_ms(), Some(42));
        assert_eq!(day.colour(), DayColour::Yellow);
        assert_eq!(
            DailyRollup::empty(pkg(), noon().date_naive()).average_latency_ms(),
            None
        );
    }

    #[test]
    fn uptime_percent_is_rounded_to_one_decimal() {
        assert_eq!(uptime_percent(2, 3), 66.7);
        assert_eq!(uptime_percent(1, 3), 33.3);
        assert_eq!(uptime_percent(1, 8), 12.5);
        assert_eq!(uptime_percent(999, 1000), 99.9);
        assert_eq!(uptime_percent(43_199, 43_200), 100.0);
        assert_eq!(uptime_percent(9_994, 10_000), 99.9);
        assert_eq!(uptime_percent(9_995, 10_000), 100.0);
        assert_eq!(uptime_percent(1, 2_001), 0.0);
    }

    #[test]
    fn uptime_percent_is_zero_without_data_and_full_when_all_up() {
        assert_eq!(uptime_percent(0, 0), 0.0);
        assert_eq!(uptime_percent(7, 7), 100.0);
        assert_eq!(uptime_percent(0, 7), 0.0);
    }

    #[test]
    fn a_problem_is_an_unhealthy_or_offline_check_on_its_utc_day() {
        assert!(outcome(answer(503, None)).is_problem());
        assert!(!outcome(answer(200, Some("healthy"))).is_problem());
        assert_eq!(outcome(Err(ProbeError::Timeout)).day(), noon().date_naive());
    }
}
