//! The embedded migrations of both backends, applied at start.

use super::{Db, DbConnection, DbError};
use diesel::Connection;
use diesel::backend::Backend as DieselBackend;
use diesel::connection::SimpleConnection;
use diesel::migration::MigrationSource;
use diesel_migrations::{EmbeddedMigrations, MigrationHarness, embed_migrations};

const SQLITE_MIGRATIONS: EmbeddedMigrations = embed_migrations!("../../migrations/sqlite");
const POSTGRES_MIGRATIONS: EmbeddedMigrations = embed_migrations!("../../migrations/postgres");
/// Held until the transaction of the migrations ends (a transaction's lock, not a session's: behind a pooler
/// in transaction mode a session's lock would stay with whichever server connection took it).
const MIGRATION_LOCK: &str =
    "SELECT pg_advisory_xact_lock(hashtext('devportal-migrations:' || current_schema()))";

/// Why the transaction of the PostgreSQL migrations ended without applying them.
enum Locked {
    Db(diesel::result::Error),
    Migrate(DbError),
}

impl From<diesel::result::Error> for Locked {
    fn from(value: diesel::result::Error) -> Self {
        Self::Db(value)
    }
}

/// Where a database stands against the migrations this binary carries.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MigrationStatus {
    /// The versions this binary would apply, oldest first.
    pub pending: Vec<String>,
    /// Versions the database has that are newer than every migration of this binary: a newer version of
    /// the server migrated it.
    pub newer: Vec<String>,
}

/// The versions a migration set has, in order.
fn embedded<DB: DieselBackend>(source: &EmbeddedMigrations) -> Result<Vec<String>, DbError>
where
    EmbeddedMigrations: MigrationSource<DB>,
{
    Ok(MigrationSource::<DB>::migrations(source)
        .map_err(|e| DbError::Migrate(e.to_string()))?
        .iter()
        .map(|m| m.name().version().to_string())
        .collect())
}

/// Compares what a database has applied with what this binary carries.
fn status_of(applied: &[String], known: &[String]) -> MigrationStatus {
    let newest_known = known.iter().max();
    MigrationStatus {
        pending: known.iter().filter(|v| !applied.contains(v)).cloned().collect(),
        newer: applied
            .iter()
            .filter(|v| !known.contains(v) && newest_known.is_none_or(|newest| *v > newest))
            .cloned()
            .collect(),
    }
}

impl Db {
    /// What [`Db::run_migrations`] would do, without doing it (`app-server migrate --check`). Only the
    /// migrations' bookkeeping table is made when it is missing.
    ///
    /// # Errors
    /// [`DbError::Migrate`] when the database cannot be read.
    pub fn migration_status(&self) -> Result<MigrationStatus, DbError> {
        let mut conn = self.pool.get()?;
        let versions = |applied: Vec<diesel::migration::MigrationVersion<'_>>| {
            applied.iter().map(ToString::to_string).collect::<Vec<_>>()
        };
        let failed = |e: Box<dyn std::error::Error + Send + Sync>| DbError::Migrate(e.to_string());
        let (applied, known) = match &mut *conn {
            DbConnection::Sqlite(c) => (
                versions(c.applied_migrations().map_err(failed)?),
                embedded::<diesel::sqlite::Sqlite>(&SQLITE_MIGRATIONS)?,
            ),
            DbConnection::Postgres(c) => (
                versions(c.applied_migrations().map_err(failed)?),
                embedded::<diesel::pg::Pg>(&POSTGRES_MIGRATIONS)?,
            ),
        };
        Ok(status_of(&applied, &known))
    }

    /// Applies the migrations up to and including version `last` (such as `20261128000700`), as a
    /// database built by an earlier release had them; the upgrade tests then run [`Db::run_migrations`].
    ///
    /// # Errors
    /// [`DbError::Migrate`] naming the migration that failed.
    #[cfg(feature = "testing")]
    pub fn run_migrations_through(&self, last: &str) -> Result<Vec<String>, DbError> {
        fn through<DB, C>(
            conn: &mut C,
            source: &EmbeddedMigrations,
            last: &str,
        ) -> Result<Vec<String>, DbError>
        where
            DB: DieselBackend,
            C: MigrationHarness<DB>,
            EmbeddedMigrations: MigrationSource<DB>,
        {
            let failed = |e: Box<dyn std::error::Error + Send + Sync>| DbError::Migrate(e.to_string());
            // Makes the bookkeeping table when missing, as `run_pending_migrations` does.
            let done: Vec<String> = conn
                .applied_migrations()
                .map_err(failed)?
                .iter()
                .map(ToString::to_string)
                .collect();
            let mut applied = Vec::new();
            for migration in MigrationSource::<DB>::migrations(source).map_err(failed)? {
                let version = migration.name().version().to_string();
                if version.as_str() <= last && !done.contains(&version) {
                    conn.run_migration(&*migration).map_err(failed)?;
                    applied.push(version);
                }
            }
            Ok(applied)
        }
        let mut conn = self.pool.get()?;
        match &mut *conn {
            DbConnection::Sqlite(c) => through(c, &SQLITE_MIGRATIONS, last),
            DbConnection::Postgres(c) => through(c, &POSTGRES_MIGRATIONS, last),
        }
    }

    /// Applies every pending migration; returns the versions applied.
    ///
    /// # Errors
    /// [`DbError::NewerDatabase`] (nothing is changed) when a newer version of the server migrated the
    /// database; [`DbError::Migrate`] naming the migration that failed.
    pub fn run_migrations(&self) -> Result<Vec<String>, DbError> {
        let mut conn = self.pool.get()?;
        match &mut *conn {
            DbConnection::Sqlite(c) => migrate::<diesel::sqlite::Sqlite, _>(c, SQLITE_MIGRATIONS),
            DbConnection::Postgres(c) => {
                // Several instances may start at once: one migrates, the others wait and then find nothing
                // to do. The lock is per schema, so separate schemas (tests) do not wait for each other. It is
                // taken before anything is read: reading the applied versions makes the bookkeeping table
                // when it is missing, which two instances must not do at once. Everything runs in one
                // transaction that holds the lock (each migration in a savepoint of it): nothing depends on
                // the session, so a pooler in transaction mode may stand between, and an upgrade whose
                // migration fails leaves the database as it was.
                c.transaction::<_, Locked, _>(|c| {
                    c.batch_execute(MIGRATION_LOCK)?;
                    migrate::<diesel::pg::Pg, _>(c, POSTGRES_MIGRATIONS).map_err(Locked::Migrate)
                })
                .map_err(|locked| match locked {
                    Locked::Db(e) => DbError::Migrate(e.to_string()),
                    Locked::Migrate(e) => e,
                })
            }
        }
    }
}

/// Applies `source`'s pending migrations on `conn`, unless a newer version of the server migrated it.
fn migrate<DB, C>(conn: &mut C, source: EmbeddedMigrations) -> Result<Vec<String>, DbError>
where
    DB: DieselBackend,
    C: MigrationHarness<DB>,
    EmbeddedMigrations: MigrationSource<DB>,
{
    let failed = |e: Box<dyn std::error::Error + Send + Sync>| DbError::Migrate(e.to_string());
    let applied: Vec<String> = conn
        .applied_migrations()
        .map_err(failed)?
        .iter()
        .map(ToString::to_string)
        .collect();
    let status = status_of(&applied, &embedded::<DB>(&source)?);
    if !status.newer.is_empty() {
        return Err(DbError::NewerDatabase(status.newer));
    }
    Ok(conn
        .run_pending_migrations(source)
        .map_err(failed)?
        .iter()
        .map(ToString::to_string)
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use diesel::sqlite::Sqlite;

    fn strings(versions: &[&str]) -> Vec<String> {
        versions.iter().map(|v| (*v).to_owned()).collect()
    }

    #[test]
    fn a_database_behind_the_binary_has_pending_migrations_and_none_newer() {
        let status = status_of(&strings(&["1", "2"]), &strings(&["1", "2", "3"]));
        assert_eq!(status.pending, strings(&["3"]));
        assert!(status.newer.is_empty());
    }

    #[test]
    fn a_version_past_the_binarys_newest_marks_a_newer_database_but_an_older_unknown_one_does_not() {
        let status = status_of(&strings(&["0", "1", "2", "4"]), &strings(&["1", "2", "3"]));
        assert_eq!(status.newer, strings(&["4"]));
        assert_eq!(status.pending, strings(&["3"]));
    }

    #[test]
    fn a_database_migrated_by_a_newer_server_is_refused_and_left_as_it_was() {
        let dir = tempfile::tempdir().expect("temp dir");
        let url = format!("sqlite://{}", dir.path().join("portal.db").display());
        let db = Db::connect_for_command(&url).expect("open");
        db.run_migrations().expect("migrate");
        assert_eq!(
            db.migration_status().expect("status"),
            MigrationStatus {
                pending: vec![],
                newer: vec![]
            }
        );
        let mut conn = db.pool.get().expect("connection");
        conn.batch_execute("INSERT INTO __diesel_schema_migrations (version) VALUES ('99991231000000')")
            .expect("a newer server's migration");
        drop(conn);
        let refused = db.run_migrations().expect_err("a newer database is refused");
        assert!(matches!(&refused, DbError::NewerDatabase(newer) if newer == &strings(&["99991231000000"])));
        assert!(refused.to_string().contains("newer version"), "{refused}");
    }

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
