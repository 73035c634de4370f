//! The embedded migrations of both backends, applied at start.

use super::{Db, DbConnection, DbError};
use diesel::connection::SimpleConnection;
use diesel_migrations::{EmbeddedMigrations, MigrationHarness, embed_migrations};

const SQLITE_MIGRATIONS: EmbeddedMigrations = embed_migrations!("../../migrations/sqlite");
const POSTGRES_MIGRATIONS: EmbeddedMigrations = embed_migrations!("../../migrations/postgres");
const MIGRATION_LOCK: &str = "SELECT pg_advisory_lock(hashtext('devportal-migrations:' || current_schema()))";
const MIGRATION_UNLOCK: &str =
    "SELECT pg_advisory_unlock(hashtext('devportal-migrations:' || current_schema()))";

impl Db {
    /// Applies every pending migration; returns the versions applied.
    ///
    /// # Errors
    /// [`DbError::Migrate`] naming the migration that failed.
    pub fn run_migrations(&self) -> Result<Vec<String>, DbError> {
        let mut conn = self.pool.get()?;
        let versions = |applied: Vec<diesel::migration::MigrationVersion<'_>>| {
            applied.iter().map(ToString::to_string).collect::<Vec<_>>()
        };
        match &mut *conn {
            DbConnection::Sqlite(c) => c
                .run_pending_migrations(SQLITE_MIGRATIONS)
                .map(versions)
                .map_err(|e| DbError::Migrate(e.to_string())),
            DbConnection::Postgres(c) => {
                // Several instances may start at once: one migrates, the others wait and then find nothing
                // to do. The lock is per schema, so separate schemas (tests) do not wait for each other.
                c.batch_execute(MIGRATION_LOCK)
                    .map_err(|e| DbError::Migrate(e.to_string()))?;
                let result = c
                    .run_pending_migrations(POSTGRES_MIGRATIONS)
                    .map(versions)
                    .map_err(|e| DbError::Migrate(e.to_string()));
                c.batch_execute(MIGRATION_UNLOCK)
                    .map_err(|e| DbError::Migrate(e.to_string()))?;
                result
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use diesel::migration::MigrationSource;
    use diesel::sqlite::Sqlite;

    /// The versions of a migration set, in order.
    fn versions<DB: diesel::backend::Backend>(source: &EmbeddedMigrations) -> Vec<String>
    where
        EmbeddedMigrations: MigrationSource<DB>,
    {
        MigrationSource::<DB>::migrations(source)
            .expect("embedded migrations")
            .iter()
            .map(|m| m.name().version().to_string())
            .collect()
    }

    /// Two migrations written on one day by separate branches can take the same version; diesel would then
    /// run only one of them on a database that has the other. Each version is used once, and both databases
    /// have the same migrations.
    #[test]
    fn every_migration_version_is_unique_and_both_databases_have_the_same() {
        let sqlite = versions::<Sqlite>(&SQLITE_MIGRATIONS);
        let postgres = versions::<diesel::pg::Pg>(&POSTGRES_MIGRATIONS);
        let mut unique = sqlite.clone();
        unique.sort();
        unique.dedup();
        assert_eq!(unique.len(), sqlite.len(), "a version is used twice: {sqlite:?}");
        assert_eq!(sqlite, postgres);
        assert!(sqlite.len() > 10, "{sqlite:?}");
    }
}
