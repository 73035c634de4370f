//! Lending connections out of the pool: a checkout gives up at once while the database is known to be
//! unreachable and waits at most [`CHECKOUT_TIMEOUT`] otherwise; waits are counted for `/metrics`; a
//! connection that lost its server makes the call [`RepoError::Unavailable`].

use diesel::r2d2::{PooledConnection, R2D2Connection};
use domain::common::RepoError;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use super::circuit::Circuit;
use super::{CHECKOUT_TIMEOUT, Connector, Db, DbConnection, on_backend};

/// How often a request waiting for a connection looks whether the database was found unreachable meanwhile.
const CHECKOUT_SLICE: Duration = Duration::from_millis(50);

/// The pool as operators watch it (`/metrics`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PoolStats {
    /// Most connections the pool opens.
    pub max_size: u32,
    /// Connections open now: in use plus idle.
    pub open: u32,
    /// Open connections not lent out.
    pub idle: u32,
    /// Since start, how many reads and writes found every connection lent out and waited for one.
    pub waits: u64,
    /// Since start, the reads and transactions run on the database: each is one round trip to PostgreSQL
    /// for a read by key (the session a request is authenticated with) and one transaction for a write.
    pub calls: u64,
    /// Since start: the sessions read from memory instead of the database, and the syncs that made memory
    /// trustworthy (one statement each: on PostgreSQL a round on the listening connection, shared by the
    /// requests that waited for it; on SQLite `PRAGMA data_version` on a connection of its own).
    pub cache_hits: u64,
    pub cache_rounds: u64,
}

impl PoolStats {
    /// Connections lent out now.
    #[must_use]
    pub const fn in_use(&self) -> u32 {
        self.open.saturating_sub(self.idle)
    }
}

impl Db {
    /// The pool's connections now, and the waits for one since start.
    #[must_use]
    pub fn pool_stats(&self) -> PoolStats {
        let state = self.pool.state();
        let cache = self
            .live_cache()
            .map(crate::live_cache::LiveCache::stats)
            .unwrap_or_default();
        PoolStats {
            max_size: self.pool.max_size(),
            open: state.connections,
            idle: state.idle_connections,
            waits: self.waits.load(Ordering::Relaxed),
            calls: self.calls.load(Ordering::Relaxed),
            cache_hits: cache.hits,
            cache_rounds: cache.rounds,
        }
    }

    /// A pooled connection for blocking work (tests, command-line tools, and [`Self::read`] and
    /// [`Self::write`]). Answers at once while the database is known to be unreachable; otherwise waits
    /// for a connection at most `CHECKOUT_TIMEOUT`, and less when the pool finds the database
    /// unreachable meanwhile.
    ///
    /// # Errors
    /// [`RepoError::Unavailable`] when no connection can be had.
    pub fn connection(&self) -> Result<PooledConnection<Connector>, RepoError> {
        self.checkout(false)
    }

    /// As [`Self::connection`]; a checkout that finds every connection lent out counts as a wait, unless
    /// the caller already waited for its turn (`waited`, counted then).
    pub(super) fn checkout(&self, waited: bool) -> Result<PooledConnection<Connector>, RepoError> {
        if !self.circuit.is_open()
            && let Some(conn) = self.pool.try_get()
        {
            return Ok(conn);
        }
        // A wait is every connection lent out; no idle one while the pool may still open more is not.
        let state = self.pool.state();
        if !waited && state.idle_connections == 0 && state.connections >= self.pool.max_size() {
            self.waits.fetch_add(1, Ordering::Relaxed);
        }
        let deadline = Instant::now() + CHECKOUT_TIMEOUT;
        loop {
            if self.circuit.is_open() {
                return Err(Circuit::unavailable());
            }
            let slice = deadline
                .saturating_duration_since(Instant::now())
                .min(CHECKOUT_SLICE);
            match self.pool.get_timeout(slice) {
                Ok(conn) => return Ok(conn),
                Err(error) if Instant::now() >= deadline => {
                    // Every connection stayed busy (or connecting hangs): no outage to remember, but the
                    // caller is told to come back rather than kept waiting.
                    tracing::warn!(%error, "no database connection became free in time");
                    return Err(Circuit::unavailable());
                }
                Err(_) => {}
            }
        }
    }

    /// Runs `work` on a pooled connection; a failure that left the connection broken (the server went away
    /// under it) is [`RepoError::Unavailable`], since the same call may well succeed on a new connection.
    pub(super) fn on_connection<T>(
        &self,
        waited: bool,
        work: impl FnOnce(&mut PooledConnection<Connector>) -> Result<T, RepoError>,
    ) -> Result<T, RepoError> {
        let mut conn = self.checkout(waited)?;
        let outcome = work(&mut conn);
        match outcome {
            Err(RepoError::Backend { context, source }) if Self::lost(&mut conn) => {
                tracing::warn!(context, error = %source, "a database connection broke");
                Err(Circuit::unavailable())
            }
            outcome => outcome,
        }
    }

    /// Whether a connection on which a statement just failed has lost its server: diesel marks it broken,
    /// or it cannot even answer `SELECT 1` (asked only after a failure, so it costs nothing otherwise).
    fn lost(conn: &mut DbConnection) -> bool {
        on_backend!(conn, c => c.is_broken() || c.ping().is_err())
    }
}
