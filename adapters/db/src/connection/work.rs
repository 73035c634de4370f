//! How work reaches a connection: [`Db::read`] and [`Db::lookup`] on a pooled connection, [`Db::write`] in
//! one transaction (on SQLite, on the writer thread).

use diesel::Connection;
use domain::common::RepoError;
use std::sync::atomic::Ordering;

use super::transaction::{TxError, run_blocking};
use super::{Backend, Db, DbConnection, writer};

impl Db {
    /// Runs read-only work on a pooled connection, off the async runtime.
    ///
    /// # Errors
    /// What `work` answers, or [`RepoError::Backend`] when no connection can be had.
    pub async fn read<T, F>(&self, work: F) -> Result<T, RepoError>
    where
        T: Send + 'static,
        F: FnOnce(&mut DbConnection) -> Result<T, RepoError> + Send + 'static,
    {
        self.calls.fetch_add(1, Ordering::Relaxed);
        let (turn, waited) = match self.read_turns.clone().try_acquire_owned() {
            Ok(turn) => (turn, false),
            Err(_) => {
                self.waits.fetch_add(1, Ordering::Relaxed);
                let turn = self
                    .read_turns
                    .clone()
                    .acquire_owned()
                    .await
                    .map_err(|e| RepoError::backend("waiting for a database connection", e))?;
                (turn, true)
            }
        };
        let db = self.clone();
        run_blocking(move || {
            // The connection goes back to the pool before the next read in line starts.
            let outcome = db.on_connection(waited, |conn| work(conn));
            drop(turn);
            outcome
        })
        .await
    }

    /// Runs a read of a row or two by key (a session, a role, a membership): like [`Self::read`] on
    /// PostgreSQL, where the network round trip must not hold the async worker; on SQLite on the calling
    /// thread, where such a read takes a few microseconds — less than handing it to a blocking thread and
    /// waking the worker again, which was most of its cost. Readers never wait for the writer (WAL), and
    /// when no pooled connection is idle the read is handed off as [`Self::read`] does, so the worker is held
    /// only for the read itself. Not for reads of many rows.
    ///
    /// # Errors
    /// What `work` answers, or [`RepoError::Backend`] when no connection can be had.
    pub async fn lookup<T, F>(&self, work: F) -> Result<T, RepoError>
    where
        T: Send + 'static,
        F: FnOnce(&mut DbConnection) -> Result<T, RepoError> + Send + 'static,
    {
        // Only with a connection at hand: waiting for one would hold the worker too.
        if self.backend == Backend::Sqlite
            && let Some(mut conn) = self.pool.try_get()
        {
            self.calls.fetch_add(1, Ordering::Relaxed);
            return work(&mut conn);
        }
        self.read(work).await
    }

    /// Runs `work` in one transaction (committed when it answers `Ok`, rolled back otherwise), off the
    /// async runtime; on SQLite, one writer at a time, on the writer thread ([`writer`]).
    ///
    /// # Errors
    /// What `work` answers, or [`RepoError::Backend`] when the transaction cannot start or commit.
    pub async fn write<T, F>(&self, work: F) -> Result<T, RepoError>
    where
        T: Send + 'static,
        F: FnOnce(&mut DbConnection) -> Result<T, RepoError> + Send + 'static,
    {
        self.calls.fetch_add(1, Ordering::Relaxed);
        let Some(writer) = &self.writer else {
            let db = self.clone();
            return run_blocking(move || db.transaction(work)).await;
        };
        // Its turn first, then a connection: writers waiting their turn hold no pooled connection that
        // readers need. The work runs in a savepoint of the batch's transaction (diesel's nested
        // transaction); its caller is answered once the batch has committed.
        let (answer, answered) = tokio::sync::oneshot::channel();
        let job: writer::Job = Box::new(move |conn| {
            let outcome = conn
                .transaction(|c| work(c).map_err(TxError::Repo))
                .map_err(RepoError::from);
            Box::new(move |failure: Option<String>| {
                let _ = answer.send(match failure {
                    None => outcome,
                    Some(failure) => Err(RepoError::backend("committing a transaction", failure)),
                });
            })
        });
        writer.submit(job, || Db {
            writer: None,
            live_cache: None,
            ..self.clone()
        })?;
        answered
            .await
            .map_err(|e| RepoError::backend("a database task stopped", e))?
    }

    /// `work` in one transaction on a pooled connection, on the calling thread (PostgreSQL: SQLite's
    /// transactions run on its writer thread).
    fn transaction<T, F>(&self, work: F) -> Result<T, RepoError>
    where
        F: FnOnce(&mut DbConnection) -> Result<T, RepoError>,
    {
        self.on_connection(false, |conn| {
            conn.transaction(|c| work(c).map_err(TxError::Repo))
                .map_err(RepoError::from)
        })
    }
}
