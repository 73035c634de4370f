//! Rate-limit counters (`rate_limit_counters`), shared by every instance: one upsert per hit
//! (`INSERT … ON CONFLICT DO UPDATE SET count = count + 1 RETURNING count`, atomic on both databases) and a
//! read of the previous window's count, in one transaction. A unit taken before an attempt is one
//! conditional write (`UPDATE … SET count = count + 1 WHERE count < allowance RETURNING count`): under
//! PostgreSQL's READ COMMITTED a second writer waits for the first and checks the condition again on the
//! row it left, so two can never both take the last unit. Each counter carries when it stops mattering
//! (`expires_at`: two of its windows after it started), so pruning needs no knowledge of the windows.

use async_trait::async_trait;
use chrono::{DateTime, Duration, Utc};
use diesel::prelude::*;
use diesel::upsert::excluded;
use domain::common::RepoError;
use domain::identity::rate_limit::{Limit, RateLimitStore, WindowCounts};

use crate::connection::on_backend;
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

fn increment(
    conn: &mut DbConnection,
    key: &str,
    window_start: i64,
    expires_at: i64,
) -> Result<i64, RepoError> {
    let insert = diesel::insert_into(counters::table)
        .values((
            counters::key.eq(key),
            counters::window_start.eq(window_start),
            counters::count.eq(1_i64),
            counters::expires_at.eq(expires_at),
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

/// The count of `key` in the window starting at `window_start` (0 without a counter).
fn count_of(conn: &mut DbConnection, key: &str, window_start: i64) -> Result<i64, RepoError> {
    let count: Option<i64> = counters::table
        .find((key, window_start))
        .select(counters::count)
        .first(conn)
        .optional()
        .map_err(backend("reading a rate-limit counter"))?;
    Ok(count.unwrap_or(0))
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
        let window = Duration::seconds(window_secs.max(1));
        let start = to_millis(window_start);
        let previous_start = to_millis(window_start - window);
        let expires_at = to_millis(window_start + window + window);
        self.db
            .write(move |conn| {
                let current = increment(conn, &key, start, expires_at)?;
                let previous = count_of(conn, &key, previous_start)?;
                Ok(WindowCounts {
                    previous: to_count(previous),
                    current: to_count(current),
                })
            })
            .await
    }

    async fn peek(
        &self,
        key: &str,
        window_start: DateTime<Utc>,
        window_secs: i64,
    ) -> Result<WindowCounts, RepoError> {
        let key = key.to_owned();
        let start = to_millis(window_start);
        let previous_start = to_millis(window_start - Duration::seconds(window_secs.max(1)));
        self.db
            .read(move |conn| {
                Ok(WindowCounts {
                    previous: to_count(count_of(conn, &key, previous_start)?),
                    current: to_count(count_of(conn, &key, start)?),
                })
            })
            .await
    }

    async fn take(
        &self,
        key: &str,
        limit: Limit,
        now: DateTime<Utc>,
    ) -> Result<Option<WindowCounts>, RepoError> {
        let key = key.to_owned();
        let window_start = limit.window_start(now);
        let window = Duration::seconds(limit.window_secs.max(1));
        let start = to_millis(window_start);
        let previous_start = to_millis(window_start - window);
        let expires_at = to_millis(window_start + window + window);
        self.db
            .write(move |conn| {
                let previous = to_count(count_of(conn, &key, previous_start)?);
                let allowance = i64::from(limit.allowance(previous, now));
                if allowance == 0 {
                    return Ok(None);
                }
                let absent = diesel::insert_into(counters::table)
                    .values((
                        counters::key.eq(&key),
                        counters::window_start.eq(start),
                        counters::count.eq(0_i64),
                        counters::expires_at.eq(expires_at),
                    ))
                    .on_conflict((counters::key, counters::window_start))
                    .do_nothing();
                on_backend!(conn, c => absent.execute(c)).map_err(backend("opening a rate-limit counter"))?;
                let take = diesel::update(
                    counters::table
                        .find((&key, start))
                        .filter(counters::count.lt(allowance)),
                )
                .set(counters::count.eq(counters::count + 1_i64))
                .returning(counters::count);
                let taken: Option<i64> = on_backend!(conn, c => take.get_result(c).optional())
                    .map_err(backend("taking a unit of a rate limit"))?;
                Ok(taken.map(|current| WindowCounts {
                    previous,
                    current: to_count(current),
                }))
            })
            .await
    }

    async fn give_back(&self, key: &str, window_start: DateTime<Utc>) -> Result<(), RepoError> {
        let key = key.to_owned();
        let start = to_millis(window_start);
        self.db
            .write(move |conn| {
                diesel::update(
                    counters::table
                        .find((&key, start))
                        .filter(counters::count.gt(0_i64)),
                )
                .set(counters::count.eq(counters::count - 1_i64))
                .execute(conn)
                .map_err(backend("giving back a unit of a rate limit"))
                .map(drop)
            })
            .await
    }

    async fn prune_expired(&self, now: DateTime<Utc>) -> Result<u64, RepoError> {
        let now = to_millis(now);
        self.db
            .write(move |conn| {
                diesel::delete(counters::table.filter(counters::expires_at.lt(now)))
                    .execute(conn)
                    .map_err(backend("pruning rate-limit counters"))
                    .map(|n| n as u64)
            })
            .await
    }
}
