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

/// An in-memory [`RateLimitStore`](crate::identity::rate_limit::RateLimitStore): fixed-window counters by
/// (key, window start).
#[derive(Default)]
pub struct MemoryRateLimitStore(std::sync::Mutex<Vec<(String, i64, u32)>>);

impl MemoryRateLimitStore {
    /// The sum of every window's count of `key`.
    pub fn count_of(&self, key: &str) -> u32 {
        self.0
            .lock()
            .unwrap()
            .iter()
            .filter(|(k, _, _)| k == key)
            .map(|(_, _, n)| n)
            .sum()
    }
}

#[async_trait::async_trait]
impl crate::identity::rate_limit::RateLimitStore for MemoryRateLimitStore {
    async fn hit(
        &self,
        key: &str,
        window_start: DateTime<Utc>,
        window_secs: i64,
    ) -> Result<crate::identity::rate_limit::WindowCounts, crate::common::RepoError> {
        let mut rows = self.0.lock().unwrap();
        let start = window_start.timestamp();
        let current = match rows.iter_mut().find(|(k, s, _)| k == key && *s == start) {
            Some(row) => {
                row.2 += 1;
                row.2
            }
            None => {
                rows.push((key.to_owned(), start, 1));
                1
            }
        };
        let previous = rows
            .iter()
            .find(|(k, s, _)| k == key && *s == start - window_secs)
            .map_or(0, |row| row.2);
        Ok(crate::identity::rate_limit::WindowCounts { previous, current })
    }

    async fn prune_before(&self, cutoff: DateTime<Utc>) -> Result<u64, crate::common::RepoError> {
        let mut rows = self.0.lock().unwrap();
        let before = rows.len();
        rows.retain(|(_, s, _)| *s >= cutoff.timestamp());
        Ok((before - rows.len()) as u64)
    }
}
