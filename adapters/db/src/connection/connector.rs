//! Opening connections: the backend taken from `DATABASE_URL`, SQLite's pragmas and private file, and a
//! connection manager that reports each backend's own error.

use super::{Backend, DbConnection, DbError, on_backend};
use diesel::Connection;
use diesel::connection::SimpleConnection;
use diesel::pg::PgConnection;
use diesel::r2d2::{CustomizeConnection, ManageConnection, R2D2Connection};
use diesel::sqlite::SqliteConnection;
use std::path::PathBuf;

/// A connection string taken apart.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Target {
    Sqlite(String),
    Postgres(String),
}

pub(super) fn parse_url(url: &str) -> Result<Target, DbError> {
    let url = url.trim();
    if url.starts_with("postgres://") || url.starts_with("postgresql://") {
        return Ok(Target::Postgres(url.to_owned()));
    }
    let path = url
        .strip_prefix("sqlite://")
        .or_else(|| url.strip_prefix("sqlite:"))
        .unwrap_or(url);
    if path.is_empty() || path.contains("://") {
        let scheme = url.split_once("://").map_or("none", |(scheme, _)| scheme);
        return Err(DbError::UnsupportedUrl(scheme.to_owned()));
    }
    if path == ":memory:" || path.contains("mode=memory") {
        return Err(DbError::InMemorySqlite);
    }
    Ok(Target::Sqlite(path.to_owned()))
}

/// Sets the pragmas every SQLite connection needs: WAL (readers never block the writer), foreign keys,
/// and a busy timeout so that a second process waits instead of failing.
#[derive(Debug)]
pub(super) struct SqlitePragmas;

impl CustomizeConnection<DbConnection, diesel::r2d2::Error> for SqlitePragmas {
    fn on_acquire(&self, conn: &mut DbConnection) -> Result<(), diesel::r2d2::Error> {
        if let DbConnection::Sqlite(sqlite) = conn {
            sqlite
                .batch_execute(
                    "PRAGMA busy_timeout = 10000; PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; \
                     PRAGMA foreign_keys = ON;",
                )
                .map_err(diesel::r2d2::Error::QueryError)?;
        }
        Ok(())
    }
}

/// Opens connections of the backend the URL names, with that backend's own error. (diesel's multi-backend
/// `establish` tries each backend in turn and keeps only "Invalid connection url for multiconnection",
/// hiding "connection refused" and every other real cause.)
#[derive(Debug)]
pub struct Connector {
    pub(super) backend: Backend,
    pub(super) url: String,
    /// `false`: PostgreSQL statements are sent unnamed ([`super::PostgresOptions::prepared_statements`]).
    pub(super) prepared_statements: bool,
}

impl ManageConnection for Connector {
    type Connection = DbConnection;
    type Error = diesel::r2d2::Error;

    fn connect(&self) -> Result<DbConnection, Self::Error> {
        match self.backend {
            Backend::Sqlite => SqliteConnection::establish(&self.url).map(DbConnection::Sqlite),
            Backend::Postgres => PgConnection::establish(&self.url).map(|mut conn| {
                if !self.prepared_statements {
                    // Unnamed statements: diesel then sends each with its parameters in one message
                    // (PQsendQueryParams), which leaves nothing on the server connection for the next
                    // transaction, whichever client a pooler gives it to.
                    conn.set_prepared_statement_cache_size(diesel::connection::CacheSize::Disabled);
                }
                DbConnection::Postgres(conn)
            }),
        }
        .map_err(diesel::r2d2::Error::ConnectionError)
    }

    fn is_valid(&self, conn: &mut DbConnection) -> Result<(), Self::Error> {
        on_backend!(conn, c => c.ping()).map_err(diesel::r2d2::Error::QueryError)
    }

    fn has_broken(&self, conn: &mut DbConnection) -> bool {
        std::thread::panicking() || on_backend!(conn, c => c.is_broken())
    }
}

/// Makes the SQLite file's folders (only those that do not exist yet, as 0700) and the file itself (0600,
/// tightened if it exists): it holds password digests, sessions and the signing keys. SQLite gives its
/// `-wal` and `-shm` files the database file's mode.
pub(super) fn private_sqlite_file(path: &str) -> std::io::Result<()> {
    if path == ":memory:" || path.starts_with("file:") {
        return Ok(());
    }
    let file = PathBuf::from(path);
    if let Some(parent) = file.parent().filter(|p| !p.as_os_str().is_empty()) {
        let mut builder = std::fs::DirBuilder::new();
        builder.recursive(true);
        #[cfg(unix)]
        std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
        builder.create(parent)?;
    }
    let mut options = std::fs::OpenOptions::new();
    options.create(true).append(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    let opened = options.open(&file)?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let metadata = opened.metadata()?;
        if metadata.permissions().mode() & 0o077 != 0 {
            opened.set_permissions(std::fs::Permissions::from_mode(0o600))?;
        }
    }
    drop(opened);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_refused_connection_answers_unavailable_at_once_with_its_real_cause() {
        let manager = Connector {
            backend: Backend::Postgres,
            url: "postgres://nobody@127.0.0.1:1/none".into(),
            prepared_statements: true,
        };
        let error = manager
            .connect()
            .err()
            .expect("nothing listens on port 1")
            .to_string();
        assert!(!error.contains("multiconnection"), "{error}");
        assert!(error.to_lowercase().contains("refused"), "{error}");
    }

    #[test]
    fn the_backend_is_chosen_from_the_scheme() {
        assert_eq!(
            parse_url("postgres://u@h/db").unwrap(),
            Target::Postgres("postgres://u@h/db".into())
        );
        assert_eq!(
            parse_url("postgresql://h/db").unwrap(),
            Target::Postgres("postgresql://h/db".into())
        );
        assert_eq!(
            parse_url("sqlite://data/portal.db").unwrap(),
            Target::Sqlite("data/portal.db".into())
        );
        assert_eq!(
            parse_url("sqlite:///var/lib/p.db").unwrap(),
            Target::Sqlite("/var/lib/p.db".into())
        );
        assert_eq!(
            parse_url("portal.db").unwrap(),
            Target::Sqlite("portal.db".into())
        );
    }

    #[test]
    fn other_schemes_are_refused_without_echoing_the_url() {
        let error = parse_url("mysql://user:hunter2@h/db").unwrap_err();
        assert!(matches!(error, DbError::UnsupportedUrl(_)));
        assert!(!error.to_string().contains("hunter2"), "{error}");
        assert!(error.to_string().contains("mysql"), "{error}");
        assert!(matches!(parse_url(""), Err(DbError::UnsupportedUrl(_))));
    }

    #[test]
    fn an_in_memory_sqlite_database_is_refused() {
        assert!(matches!(
            parse_url("sqlite::memory:"),
            Err(DbError::InMemorySqlite)
        ));
        assert!(matches!(parse_url(":memory:"), Err(DbError::InMemorySqlite)));
    }
}
