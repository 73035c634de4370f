//! SQLite's sync: a connection of its own that only asks `PRAGMA data_version`, which moves whenever another
//! connection — of this process or of another one on the same file, such as `app-server admin` — has
//! committed. The pragma opens a read transaction, so it sees every commit made before it; when the number
//! moved, everything kept is forgotten (SQLite says that something changed, not what). Writes are rare next
//! to reads, and a change costs each session one read of the database.

use super::{Shared, Ticket};
use diesel::connection::SimpleConnection;
use diesel::sql_types::BigInt;
use diesel::sqlite::SqliteConnection;
use diesel::{Connection, RunQueryDsl};
use std::sync::{Mutex, PoisonError};

#[derive(diesel::QueryableByName)]
struct DataVersion {
    #[diesel(sql_type = BigInt)]
    data_version: i64,
}

#[derive(Default)]
struct State {
    conn: Option<SqliteConnection>,
    /// The number the last sync read.
    seen: Option<i64>,
}

/// Opens its connection at first use, and again after a failure.
pub(crate) struct Watch {
    path: String,
    state: Mutex<State>,
}

impl std::fmt::Debug for Watch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Watch")
            .field("path", &self.path)
            .finish_non_exhaustive()
    }
}

impl Watch {
    pub(super) fn new(path: String) -> Self {
        Self {
            path,
            state: Mutex::new(State::default()),
        }
    }

    /// Forgets everything if anything was committed since the last sync; `None` when the file cannot be
    /// read (nothing kept is trusted then).
    pub(super) fn sync(&self, shared: &Shared) -> Option<Ticket> {
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        if state.conn.is_none() {
            state.conn = open(&self.path)
                .inspect_err(
                    |error| tracing::warn!(%error, "the session cache could not watch the database file"),
                )
                .ok();
        }
        let read = diesel::sql_query("PRAGMA data_version").get_result::<DataVersion>(state.conn.as_mut()?);
        match read {
            Ok(DataVersion { data_version }) => {
                if state.seen.is_some_and(|seen| seen != data_version) {
                    shared.forget_everything();
                }
                state.seen = Some(data_version);
                Some(shared.round_done([]))
            }
            Err(error) => {
                tracing::warn!(%error, "the session cache could not read the database's version");
                shared.forget_everything();
                *state = State::default();
                None
            }
        }
    }
}

fn open(path: &str) -> Result<SqliteConnection, String> {
    let mut conn = SqliteConnection::establish(path).map_err(|e| e.to_string())?;
    conn.batch_execute("PRAGMA busy_timeout = 1000;")
        .map_err(|e| e.to_string())?;
    Ok(conn)
}
