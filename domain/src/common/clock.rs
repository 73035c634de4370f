//! The clock port: every use case asks it for "now", so that tests can pin time.

use chrono::{DateTime, Utc};

/// The source of the current time.
#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
pub trait Clock: Send + Sync {
    /// The current instant in UTC. Never fails.
    fn now(&self) -> DateTime<Utc>;
}

/// A clock that always answers the same instant; for tests and for replaying events.
#[derive(Debug, Clone, Copy)]
pub struct FixedClock(pub DateTime<Utc>);

impl Clock for FixedClock {
    fn now(&self) -> DateTime<Utc> {
        self.0
    }
}
