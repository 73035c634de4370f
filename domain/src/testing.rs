//! Helpers shared by the unit tests of every context.

use chrono::{DateTime, TimeZone, Utc};

use crate::common::SecretGenerator;
use crate::common::clock::FixedClock;

/// 2026-03-15 12:00:00 UTC.
pub fn noon() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 3, 15, 12, 0, 0)
        .single()
        .unwrap_or_default()
}

pub fn fixed_clock() -> FixedClock {
    FixedClock(noon())
}

/// A generator that repeats one byte, so tokens are predictable in tests.
pub struct RepeatingBytes(pub u8);

impl SecretGenerator for RepeatingBytes {
    fn random_bytes(&self, len: usize) -> Vec<u8> {
        vec![self.0; len]
    }
}

/// Runs a future to completion on the current thread.
pub fn block_on<F: std::future::Future>(future: F) -> F::Output {
    futures::executor::block_on(future)
}
