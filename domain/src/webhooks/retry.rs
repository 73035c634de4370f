//! When a failed delivery is tried again, and when an endpoint is disabled.
//!
//! A delivery is tried at once, then after each delay of [`RETRY_DELAYS`] (each stretched or shortened by
//! up to [`JITTER_PERCENT`] so that the retries of many deliveries that failed together do not arrive
//! together); after the last one it is given up, about three days after it was queued. An answer `410 Gone`
//! disables the endpoint at once; an endpoint whose deliveries have failed without a success in between
//! for [`FAILING_LIMIT`] is disabled (and its organization's admins e-mailed).

use crate::common::code_enum;
use chrono::{DateTime, Duration, Utc};

/// The waits between attempts: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h, 20 h, 24 h (about 3 days and
/// 3 hours in all, before jitter).
pub const RETRY_DELAYS: [Duration; 9] = [
    Duration::seconds(5),
    Duration::minutes(5),
    Duration::minutes(30),
    Duration::hours(2),
    Duration::hours(5),
    Duration::hours(10),
    Duration::hours(14),
    Duration::hours(20),
    Duration::hours(24),
];

/// How far (in percent, either way) a retry's delay is moved at random.
pub const JITTER_PERCENT: i64 = 20;

/// How long an endpoint may fail without a success before it is disabled.
pub const FAILING_LIMIT: Duration = Duration::days(3);

/// The most attempts a delivery gets: the first and one per delay.
pub const MAX_ATTEMPTS: u32 = RETRY_DELAYS.len() as u32 + 1;

/// The wait before the next attempt of a delivery that has failed `attempts_made` times, moved by `jitter`
/// (a random value in `[-1, 1]`, clamped): `None` once every attempt is used.
#[must_use]
pub fn next_delay(attempts_made: u32, jitter: f64) -> Option<Duration> {
    let index = usize::try_from(attempts_made.checked_sub(1)?).ok()?;
    let base = *RETRY_DELAYS.get(index)?;
    let jitter = if jitter.is_finite() {
        jitter.clamp(-1.0, 1.0)
    } else {
        0.0
    };
    let spread = base.num_milliseconds() * JITTER_PERCENT / 100;
    // `spread` is below 2^53 ms, so the float keeps every millisecond.
    #[allow(clippy::cast_possible_truncation, clippy::cast_precision_loss)]
    let moved = (spread as f64 * jitter).round() as i64;
    Some(Duration::milliseconds(base.num_milliseconds() + moved))
}

/// A jitter in `[-1, 1]` from two random bytes (the domain's randomness comes from `SecretGenerator`).
#[must_use]
pub fn jitter_from(bytes: [u8; 2]) -> f64 {
    f64::from(u16::from_be_bytes(bytes)) / f64::from(u16::MAX) * 2.0 - 1.0
}

/// What one attempt's answer was.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AttemptResult {
    /// A 2xx within the time limit.
    Delivered,
    /// `410 Gone`: the receiver asks never to be called again.
    Gone,
    /// Any other status, a timeout, a refused or failed connection, a redirect, a private address.
    Failed,
}

impl AttemptResult {
    /// The result of an HTTP status.
    #[must_use]
    pub const fn of_status(status: u16) -> Self {
        match status {
            200..=299 => Self::Delivered,
            410 => Self::Gone,
            _ => Self::Failed,
        }
    }
}

code_enum! {
    /// Why an endpoint was disabled by the server (an admin can also disable one by hand).
    pub enum DisabledReason: "Why an endpoint was disabled by the server (an admin can also disable one by hand)." {
        /// An admin disabled it.
        Manual => "MANUAL",
        /// It answered `410 Gone`.
        Gone => "GONE",
        /// Its deliveries failed for three days.
        Failing => "FAILING",
    }
}

/// What an attempt does to its endpoint's health.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HealthChange {
    /// A success: the endpoint is no longer failing.
    Recovered,
    /// A failure: failing since `since` (the first failure after the last success).
    Failing { since: DateTime<Utc> },
    /// The endpoint is disabled now, for `reason`.
    Disable {
        reason: DisabledReason,
        failing_since: Option<DateTime<Utc>>,
    },
}

/// The endpoint's health after an attempt that ended at `now` with `result`, when it was failing since
/// `failing_since` (`None`: its last attempt succeeded).
#[must_use]
pub fn health_after(
    result: AttemptResult,
    failing_since: Option<DateTime<Utc>>,
    now: DateTime<Utc>,
) -> HealthChange {
    match result {
        AttemptResult::Delivered => HealthChange::Recovered,
        AttemptResult::Gone => HealthChange::Disable {
            reason: DisabledReason::Gone,
            failing_since: Some(failing_since.unwrap_or(now)),
        },
        AttemptResult::Failed => {
            let since = failing_since.unwrap_or(now);
            if now - since >= FAILING_LIMIT {
                HealthChange::Disable {
                    reason: DisabledReason::Failing,
                    failing_since: Some(since),
                }
            } else {
                HealthChange::Failing { since }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::noon;

    #[test]
    fn the_schedule_retries_for_about_three_days() {
        let total: Duration = RETRY_DELAYS.iter().copied().fold(Duration::zero(), |a, b| a + b);
        assert!(
            total >= Duration::days(3) && total < Duration::days(3) + Duration::hours(6),
            "{total}"
        );
        let delays: Vec<Duration> = (1..MAX_ATTEMPTS).map(|n| next_delay(n, 0.0).unwrap()).collect();
        assert_eq!(delays, RETRY_DELAYS);
        assert!(
            delays.windows(2).all(|pair| pair[0] < pair[1]),
            "the backoff grows"
        );
        assert_eq!(next_delay(MAX_ATTEMPTS, 0.0), None);
        assert_eq!(next_delay(0, 0.0), None);
    }

    #[test]
    fn jitter_moves_a_delay_by_at_most_a_fifth() {
        let base = Duration::hours(10);
        assert_eq!(next_delay(6, 1.0), Some(base + Duration::hours(2)));
        assert_eq!(next_delay(6, -1.0), Some(base - Duration::hours(2)));
        assert_eq!(next_delay(6, 7.0), Some(base + Duration::hours(2)));
        assert_eq!(next_delay(6, f64::NAN), Some(base));
        assert!((jitter_from([0, 0]) + 1.0).abs() < 1e-9);
        assert!((jitter_from([0xff, 0xff]) - 1.0).abs() < 1e-9);
        for bytes in [[0x12, 0x34], [0x80, 0x00], [0xfe, 0x01]] {
            let delay = next_delay(2, jitter_from(bytes)).unwrap();
            assert!(
                delay >= Duration::minutes(4) && delay <= Duration::minutes(6),
                "{delay}"
            );
        }
    }

    #[test]
    fn only_2xx_is_delivered_and_410_is_gone() {
        assert_eq!(AttemptResult::of_status(200), AttemptResult::Delivered);
        assert_eq!(AttemptResult::of_status(204), AttemptResult::Delivered);
        assert_eq!(AttemptResult::of_status(301), AttemptResult::Failed);
        assert_eq!(AttemptResult::of_status(404), AttemptResult::Failed);
        assert_eq!(AttemptResult::of_status(410), AttemptResult::Gone);
        assert_eq!(AttemptResult::of_status(500), AttemptResult::Failed);
    }

    #[test]
    fn gone_disables_at_once() {
        assert_eq!(
            health_after(AttemptResult::Gone, None, noon()),
            HealthChange::Disable {
                reason: DisabledReason::Gone,
                failing_since: Some(noon())
            }
        );
    }

    #[test]
    fn an_endpoint_failing_for_three_days_is_disabled_and_a_success_heals_it() {
        let since = noon() - Duration::days(3) + Duration::seconds(1);
        assert_eq!(
            health_after(AttemptResult::Failed, Some(since), noon()),
            HealthChange::Failing { since }
        );
        assert_eq!(
            health_after(AttemptResult::Failed, None, noon()),
            HealthChange::Failing { since: noon() }
        );
        let since = noon() - Duration::days(3);
        assert_eq!(
            health_after(AttemptResult::Failed, Some(since), noon()),
            HealthChange::Disable {
                reason: DisabledReason::Failing,
                failing_since: Some(since)
            }
        );
        assert_eq!(
            health_after(AttemptResult::Delivered, Some(since), noon()),
            HealthChange::Recovered
        );
    }

    #[test]
    fn reasons_read_back() {
        for reason in [
            DisabledReason::Manual,
            DisabledReason::Gone,
            DisabledReason::Failing,
        ] {
            assert_eq!(DisabledReason::parse(reason.code()), Some(reason));
        }
        assert_eq!(DisabledReason::parse("other"), None);
    }
}
