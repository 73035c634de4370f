//! Why the database could not be opened or migrated ([`DbError`]).

/// Why the database could not be opened or migrated.
#[derive(Debug, thiserror::Error)]
pub enum DbError {
    /// Only the scheme is shown: the rest may hold a password.
    #[error("DATABASE_URL (scheme `{0}`) is neither an SQLite path nor a postgres:// URL")]
    UnsupportedUrl(String),
    #[error(
        "DATABASE_URL: an in-memory SQLite database would be a different empty database per connection; \
         give a file path"
    )]
    InMemorySqlite,
    #[error("could not create or protect the SQLite database {path} or its folder: {source}")]
    CreateDir { path: String, source: std::io::Error },
    // The causes are part of the message (not a `source`), so that they are printed once.
    #[error("could not connect to the database: {0}")]
    Connect(diesel::ConnectionError),
    #[error("could not build the connection pool: {0}")]
    Pool(diesel::r2d2::PoolError),
    #[error("could not apply the migrations: {0}")]
    Migrate(String),
    #[error(
        "the database was migrated by a newer version of the portal (migrations {} are not known to this \
         binary): run that version or a later one, or restore the backup taken before the upgrade",
        .0.join(", ")
    )]
    NewerDatabase(Vec<String>),
    #[error("backup: {0}")]
    Backup(String),
    #[error("PORTAL_DATABASE_LISTEN_URL: {0}")]
    ListenUrl(&'static str),
    #[error(
        "PORTAL_DATABASE_PREPARED_STATEMENTS=false applies to PostgreSQL only: DATABASE_URL names an SQLite \
         database"
    )]
    PreparedStatementsOnSqlite,
}

impl From<diesel::ConnectionError> for DbError {
    fn from(value: diesel::ConnectionError) -> Self {
        Self::Connect(value)
    }
}

impl From<diesel::r2d2::PoolError> for DbError {
    fn from(value: diesel::r2d2::PoolError) -> Self {
        Self::Pool(value)
    }
}
