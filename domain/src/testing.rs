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
/// (key, window start), each with the time it expires (two of its windows after it started).
#[derive(Default)]
pub struct MemoryRateLimitStore(pub std::sync::Mutex<Vec<(String, i64, u32, i64)>>);

impl MemoryRateLimitStore {
    /// The sum of every window's count of `key`.
    pub fn count_of(&self, key: &str) -> u32 {
        self.0
            .lock()
            .unwrap()
            .iter()
            .filter(|(k, _, _, _)| k == key)
            .map(|(_, _, n, _)| n)
            .sum()
    }

    fn counts(
        rows: &[(String, i64, u32, i64)],
        key: &str,
        start: i64,
        window_secs: i64,
    ) -> crate::identity::rate_limit::WindowCounts {
        let count = |at: i64| {
            rows.iter()
                .find(|(k, s, _, _)| k == key && *s == at)
                .map_or(0, |row| row.2)
        };
        crate::identity::rate_limit::WindowCounts {
            previous: count(start - window_secs),
            current: count(start),
        }
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
        match rows.iter_mut().find(|(k, s, _, _)| k == key && *s == start) {
            Some(row) => row.2 += 1,
            None => rows.push((key.to_owned(), start, 1, start + 2 * window_secs)),
        }
        Ok(Self::counts(&rows, key, start, window_secs))
    }

    async fn peek(
        &self,
        key: &str,
        window_start: DateTime<Utc>,
        window_secs: i64,
    ) -> Result<crate::identity::rate_limit::WindowCounts, crate::common::RepoError> {
        let rows = self.0.lock().unwrap();
        Ok(Self::counts(&rows, key, window_start.timestamp(), window_secs))
    }

    async fn take(
        &self,
        key: &str,
        limit: crate::identity::rate_limit::Limit,
        now: DateTime<Utc>,
    ) -> Result<Option<crate::identity::rate_limit::WindowCounts>, crate::common::RepoError> {
        let mut rows = self.0.lock().unwrap();
        let start = limit.window_start(now).timestamp();
        let counts = Self::counts(&rows, key, start, limit.window_secs);
        if counts.current >= limit.allowance(counts.previous, now) {
            return Ok(None);
        }
        match rows.iter_mut().find(|(k, s, _, _)| k == key && *s == start) {
            Some(row) => row.2 += 1,
            None => rows.push((key.to_owned(), start, 1, start + 2 * limit.window_secs)),
        }
        Ok(Some(Self::counts(&rows, key, start, limit.window_secs)))
    }

    async fn give_back(
        &self,
        key: &str,
        window_start: DateTime<Utc>,
    ) -> Result<(), crate::common::RepoError> {
        let mut rows = self.0.lock().unwrap();
        let start = window_start.timestamp();
        if let Some(row) = rows.iter_mut().find(|(k, s, _, _)| k == key && *s == start) {
            row.2 = row.2.saturating_sub(1);
        }
        Ok(())
    }

    async fn prune_expired(&self, now: DateTime<Utc>) -> Result<u64, crate::common::RepoError> {
        let mut rows = self.0.lock().unwrap();
        let before = rows.len();
        rows.retain(|(_, _, _, expires)| *expires >= now.timestamp());
        Ok((before - rows.len()) as u64)
    }
}
