//! Rate-limit counters (`rate_limit_counters`), shared by every instance: one upsert per hit
//! (`INSERT … ON CONFLICT DO UPDATE SET count = count + 1 RETURNING count`, atomic on both databases) and a
//! read of the previous window's count, in one transaction.

use async_trait::async_trait;
use chrono::{DateTime, Duration, Utc};
use diesel::prelude::*;
use diesel::upsert::excluded;
use domain::common::RepoError;
use domain::identity::rate_limit::{RateLimitStore, WindowCounts};

use crate::convert::{backend, to_millis};
use crate::schema::rate_limit_counters as counters;
use crate::{Db, DbConnection};

/// [`RateLimitStore`] on the `rate_limit_counters` table.
#[derive(Debug, Clone)]
pub struct DieselRateLimitStore {
    db: Db,
}

impl DieselRateLimitStore {
    #[must_use]
    pub const fn new(db: Db) -> Self {
        Self { db }
    }
}

fn to_count(value: i64) -> u32 {
    u32::try_from(value.max(0)).unwrap_or(u32::MAX)
}

fn increment(conn: &mut DbConnection, key: &str, window_start: i64) -> Result<i64, RepoError> {
    let insert = diesel::insert_into(counters::table)
        .values((
            counters::key.eq(key),
            counters::window_start.eq(window_start),
            counters::count.eq(1_i64),
        ))
        .on_conflict((counters::key, counters::window_start))
        .do_update()
        .set(counters::count.eq(counters::count + excluded(counters::count)))
        .returning(counters::count);
    match conn {
        DbConnection::Sqlite(c) => insert.get_result(c),
        DbConnection::Postgres(c) => insert.get_result(c),
    }
    .map_err(backend("counting a rate-limited attempt"))
}

#[async_trait]
impl RateLimitStore for DieselRateLimitStore {
    async fn hit(
        &self,
        key: &str,
        window_start: DateTime<Utc>,
        window_secs: i64,
    ) -> Result<WindowCounts, RepoError> {
        let key = key.to_owned();
        let start = to_millis(window_start);
        let previous_start = to_millis(window_start - Duration::seconds(window_secs.max(1)));
        self.db
            .write(move |conn| {
                let current = increment(conn, &key, start)?;
                let previous: Option<i64> = counters::table
                    .find((&key, previous_start))
                    .select(counters::count)
                    .first(conn)
                    .optional()
                    .map_err(backend("reading a rate-limit counter"))?;
                Ok(WindowCounts {
                    previous: to_count(previous.unwrap_or(0)),
                    current: to_count(current),
                })
            })
            .await
    }

    async fn prune_before(&self, cutoff: DateTime<Utc>) -> Result<u64, RepoError> {
        let cutoff = to_millis(cutoff);
        self.db
            .write(move |conn| {
                diesel::delete(counters::table.filter(counters::window_start.lt(cutoff)))
                    .execute(conn)
                    .map_err(backend("pruning rate-limit counters"))
                    .map(|n| n as u64)
            })
            .await
    }
}
