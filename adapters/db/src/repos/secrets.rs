//! Secrets every instance of the server shares (`server_secrets`), such as the token signing keys: created
//! once by whichever instance needs one first.

use chrono::Utc;
use diesel::prelude::*;
use domain::common::RepoError;

use crate::convert::{backend, db_error, to_millis};
use crate::schema::server_secrets;
use crate::{Db, DbConnection};

/// The shared secrets of the server.
#[derive(Debug, Clone)]
pub struct ServerSecrets {
    db: Db,
}

fn read_secret(conn: &mut DbConnection, name: &str) -> Result<Option<String>, RepoError> {
    server_secrets::table
        .find(name)
        .select(server_secrets::value)
        .first(conn)
        .optional()
        .map_err(backend("reading a server secret"))
}

impl ServerSecrets {
    #[must_use]
    pub const fn new(db: Db) -> Self {
        Self { db }
    }

    /// The secret called `name`; when there is none yet, stores `generate()` under it. Safe when several
    /// instances start at once: the one whose insert lands first wins, every other gets its value.
    /// (`generate` runs on every call, before any database work, so that it need not be `Send`; keep it
    /// cheap, as random bytes are.)
    ///
    /// # Errors
    /// [`RepoError::Backend`] when the store fails.
    pub async fn get_or_create(
        &self,
        name: &str,
        generate: impl FnOnce() -> String,
    ) -> Result<String, RepoError> {
        let candidate = generate();
        let key = name.to_owned();
        let stored = self
            .db
            .write(move |conn| {
                if let Some(existing) = read_secret(conn, &key)? {
                    return Ok(existing);
                }
                diesel::insert_into(server_secrets::table)
                    .values((
                        server_secrets::name.eq(&key),
                        server_secrets::value.eq(&candidate),
                        server_secrets::created_at.eq(to_millis(Utc::now())),
                    ))
                    .execute(conn)
                    .map_err(db_error("storing a server secret", "server_secret"))?;
                Ok(candidate)
            })
            .await;
        match stored {
            // Another instance inserted it between our read and our insert (PostgreSQL): take its value.
            Err(RepoError::Duplicate(_)) => {
                let key = name.to_owned();
                self.db
                    .read(move |conn| read_secret(conn, &key))
                    .await?
                    .ok_or_else(|| {
                        RepoError::backend("reading a server secret", "the secret vanished after a conflict")
                    })
            }
            other => other,
        }
    }
}
