//! One limit's sliding window: the estimate over two fixed windows, the decision, and when to retry.

use chrono::{DateTime, Duration, TimeZone, Utc};

/// At most `max` attempts per sliding window of `window_secs` seconds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limit {
    pub max: u32,
    pub window_secs: i64,
}

/// The answer to one attempt.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RateDecision {
    Allowed {
        remaining: u32,
    },
    /// Refuse with 429 and `Retry-After: retry_after_secs`.
    Limited {
        retry_after_secs: u64,
    },
}

impl Limit {
    #[must_use]
    pub const fn new(max: u32, window_secs: i64) -> Self {
        Self { max, window_secs }
    }

    /// The start of the window holding `now` (windows are aligned on the Unix epoch).
    #[must_use]
    pub fn window_start(&self, now: DateTime<Utc>) -> DateTime<Utc> {
        let window = self.window_secs.max(1);
        let start = now.timestamp().div_euclid(window) * window;
        Utc.timestamp_opt(start, 0).single().unwrap_or(now)
    }

    /// Whole seconds until the window holding `now` ends, rounded up, at least 1.
    #[must_use]
    pub fn retry_after(&self, now: DateTime<Utc>) -> u64 {
        let end = self.window_start(now) + Duration::seconds(self.window_secs.max(1));
        let left = end - now;
        let secs = left.num_seconds() + i64::from(left.subsec_nanos() > 0);
        u64::try_from(secs.max(1)).unwrap_or(1)
    }

    /// The sliding-window estimate of attempts in the last `window_secs` at `now`, this attempt included.
    #[must_use]
    pub fn estimate(&self, counts: WindowCounts, now: DateTime<Utc>) -> f64 {
        let window_ms = (self.window_secs.max(1) * 1000) as f64;
        let elapsed_ms = (now - self.window_start(now)).num_milliseconds() as f64;
        let still_to_come = (1.0 - elapsed_ms / window_ms).clamp(0.0, 1.0);
        f64::from(counts.previous) * still_to_come + f64::from(counts.current)
    }

    /// The highest count the window holding `now` may reach when the window before it counted `previous`:
    /// the largest `current` whose estimate stays within `max` (the counts [`Self::decide`] allows).
    #[must_use]
    pub fn allowance(&self, previous: u32, now: DateTime<Utc>) -> u32 {
        let room = f64::from(self.max) - self.estimate(WindowCounts { previous, current: 0 }, now);
        if room < 0.0 {
            return 0;
        }
        // `room` lies in 0..=max, a u32.
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        let room = room.floor() as u32;
        room.min(self.max)
    }

    /// The decision for an attempt that brought the counters to `counts` (this attempt included).
    #[must_use]
    pub fn decide(&self, counts: WindowCounts, now: DateTime<Utc>) -> RateDecision {
        let estimate = self.estimate(counts, now);
        let max = f64::from(self.max);
        if estimate <= max {
            let remaining = (max - estimate).floor();
            // `remaining` lies in 0..=max, a u32.
            #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
            let remaining = remaining as u32;
            return RateDecision::Allowed { remaining };
        }
        RateDecision::Limited {
            retry_after_secs: self.retry_after_sliding(counts, now),
        }
    }

    /// Whole seconds (at least 1) until one more attempt would be allowed, if nothing else is attempted.
    #[must_use]
    pub fn retry_after_sliding(&self, counts: WindowCounts, now: DateTime<Utc>) -> u64 {
        let window = (self.window_secs.max(1) * 1000) as f64;
        let elapsed = (now - self.window_start(now)).num_milliseconds() as f64;
        // The next attempt is allowed when estimate + 1 <= max.
        let room = f64::from(self.max) - 1.0;
        let wait_ms = if f64::from(counts.current) <= room {
            // Within this window, once the previous window's weight has decayed enough.
            let previous = f64::from(counts.previous);
            if previous <= 0.0 {
                0.0
            } else {
                let share = 1.0 - (room - f64::from(counts.current)) / previous;
                (share * window - elapsed).max(0.0)
            }
        } else {
            // In the next window, where this window's count becomes the decaying previous one.
            let current = f64::from(counts.current);
            let share = if room <= 0.0 && current > 0.0 {
                1.0
            } else {
                (1.0 - room / current).clamp(0.0, 1.0)
            };
            (window - elapsed) + share * window
        };
        let secs = (wait_ms / 1000.0).ceil().max(1.0);
        // At most two windows: far below u64::MAX.
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        let secs = secs as u64;
        secs
    }
}

/// The attempts counted for one key: in the fixed window holding `now`, and in the window before it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct WindowCounts {
    pub previous: u32,
    pub current: u32,
}

impl RateDecision {
    #[must_use]
    pub const fn is_limited(&self) -> bool {
        matches!(self, Self::Limited { .. })
    }
}

/// A unit of a limit taken before an attempt ([`RateLimiter::reserve_failure`](super::RateLimiter::reserve_failure),
/// [`RateLimiter::reserve_second_factor_answer`](super::RateLimiter::reserve_second_factor_answer)): kept when the attempt fails, given back
/// ([`RateLimiter::give_back`](super::RateLimiter::give_back)) when it does not count.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Held {
    /// The counter's key, as stored (a digest).
    pub(super) key: String,
    pub(super) window_start: DateTime<Utc>,
}
