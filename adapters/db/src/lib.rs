//! Persistence: every repository port of the domain, implemented with diesel for an embedded SQLite
//! database (the default) and for PostgreSQL (chosen when `DATABASE_URL` is a `postgres://` URL).
//!
//! Conventions: timestamps are stored as milliseconds since the Unix epoch (UTC), identifiers as UUID text,
//! lists and documents as JSON text, so that one `schema.rs` serves both backends.

pub mod connection;
pub mod convert;
mod live_cache;
pub mod outbox_rows;
pub mod repos;
pub mod schema;
#[cfg(feature = "testing")]
pub mod testing;

pub use connection::{
    Backend, Db, DbConnection, DbError, MigrationStatus, PoolStats, PostgresOptions, sqlite_file,
    sqlite_integrity_check,
};
