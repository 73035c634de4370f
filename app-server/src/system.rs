//! The process's own implementations of the domain's system ports.

use chrono::{DateTime, DurationRound, TimeDelta, Utc};
use domain::common::Clock;

/// The wall clock, to the millisecond: the databases keep milliseconds, so a time answered right after a
/// write (a registered app's `createdAt`) is the time read back later.
#[derive(Debug, Clone, Copy, Default)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> DateTime<Utc> {
        let now = Utc::now();
        now.duration_trunc(TimeDelta::milliseconds(1)).unwrap_or(now)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::Timelike;

    #[test]
    fn the_clock_reads_whole_milliseconds() {
        assert_eq!(SystemClock.now().nanosecond() % 1_000_000, 0);
    }
}
