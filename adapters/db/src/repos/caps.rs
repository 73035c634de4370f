//! Caps decided inside the write they limit: a write that counts an owner's rows before it adds one takes
//! the owner's cap lock first, in the same transaction, so that two such writes never count the same rows.
//!
//! PostgreSQL at READ COMMITTED: a count followed by an insert lets two transactions that run at once both
//! count N − 1 and both insert (and `INSERT … SELECT … WHERE (SELECT count(*) …) < N` alone is no better).
//! The cap lock is a transaction-scoped advisory lock on (cap, owner), released at commit or rollback; the
//! count that follows it is a new statement, so it sees every row the previous holder committed. It is
//! taken before any row lock of the transaction and nothing else takes it, so it adds no lock cycle.
//! SQLite: nothing to do, every write transaction of the process runs on one writer thread, begun
//! `IMMEDIATE` (`crate::connection`), and another process's writer waits for it.

use diesel::prelude::*;
use diesel::sql_types::Text;
use domain::common::RepoError;

use crate::DbConnection;
use crate::convert::backend;

/// Serialises, until the end of the transaction, the writes that count `cap` of `owner` before they add
/// to it (`cap` names what is counted: `"webhook_endpoints"`, `"factors"`…; `owner` is the id it is
/// counted for).
///
/// # Errors
/// [`RepoError::Backend`] when the lock cannot be taken.
pub(crate) fn lock_cap(conn: &mut DbConnection, cap: &str, owner: &str) -> Result<(), RepoError> {
    if let DbConnection::Postgres(pg) = conn {
        diesel::sql_query("SELECT pg_advisory_xact_lock(hashtext($1), hashtext($2))")
            .bind::<Text, _>(cap)
            .bind::<Text, _>(owner)
            .execute(pg)
            .map_err(backend("taking a cap's lock"))?;
    }
    Ok(())
}
