//! Transactions and blocking work: SQLite's immediate transactions and the hand-off of diesel's blocking
//! calls to the blocking thread pool.

use super::DbConnection;
use diesel::Connection;
use domain::common::RepoError;

/// An SQLite transaction that takes the write lock when it begins (`BEGIN IMMEDIATE`), so that it waits
/// (busy timeout) for a writer of another process — the `admin` command while the server runs — instead
/// of failing with "database is locked" when a read inside it turns into a write. Begun through diesel's
/// transaction manager, so that diesel knows the connection is in a transaction (a panic inside `work`
/// leaves it marked broken, and the pool drops it).
pub(super) fn immediate_transaction<T, F>(conn: &mut DbConnection, work: F) -> Result<T, TxError>
where
    F: FnOnce(&mut DbConnection) -> Result<T, RepoError>,
{
    use diesel::connection::{AnsiTransactionManager, TransactionManager};
    type Manager = <DbConnection as Connection>::TransactionManager;
    if let DbConnection::Sqlite(sqlite) = conn {
        AnsiTransactionManager::begin_transaction_sql(sqlite, "BEGIN IMMEDIATE")?;
    }
    match work(conn) {
        Ok(value) => {
            Manager::commit_transaction(conn)?;
            Ok(value)
        }
        Err(error) => {
            Manager::rollback_transaction(conn)?;
            Err(TxError::Repo(error))
        }
    }
}

/// Lets a transaction carry both our errors and diesel's own (begin/commit failures).
pub(super) enum TxError {
    Repo(RepoError),
    Diesel(diesel::result::Error),
}

impl From<diesel::result::Error> for TxError {
    fn from(value: diesel::result::Error) -> Self {
        Self::Diesel(value)
    }
}

impl From<TxError> for RepoError {
    fn from(value: TxError) -> Self {
        match value {
            TxError::Repo(repo) => repo,
            TxError::Diesel(diesel) => Self::backend("running a transaction", diesel),
        }
    }
}

pub(super) async fn run_blocking<T, F>(work: F) -> Result<T, RepoError>
where
    T: Send + 'static,
    F: FnOnce() -> Result<T, RepoError> + Send + 'static,
{
    tokio::task::spawn_blocking(work)
        .await
        .map_err(|e| RepoError::backend("a database task stopped", e))?
}
