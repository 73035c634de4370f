//! The process's own implementations of the domain's system ports.

use chrono::{DateTime, Utc};
use domain::common::Clock;

/// The wall clock.
#[derive(Debug, Clone, Copy, Default)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> DateTime<Utc> {
        Utc::now()
    }
}
