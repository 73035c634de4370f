//! Fresh databases for tests: an SQLite file in a temporary folder, or a PostgreSQL schema of its own
//! (dropped when the guard goes). Both are migrated. For instances behind a connection pooler, a PostgreSQL
//! database of its own with PgBouncer in front ([`PgBouncer`]).
//!
//! PostgreSQL comes from `PORTAL_TEST_DATABASE_URL` (set by `scripts/with-postgres.sh`, which uses the
//! machine's server on 127.0.0.1:5432 or starts a throwaway cluster), defaulting to
//! `postgres://postgres@127.0.0.1:5432/postgres`.

use diesel::Connection;
use diesel::connection::SimpleConnection;
use diesel::pg::PgConnection;

use crate::{Backend, Db};

mod pgbouncer;
pub use pgbouncer::{PgBouncer, PostgresDatabase};

/// A migrated database for one test. Dropping it removes the SQLite folder or the PostgreSQL schema.
pub struct TestDb {
    pub db: Db,
    url: String,
    cleanup: Cleanup,
}

impl TestDb {
    /// The connection URL of this database (for a server under test to open it too).
    #[must_use]
    pub fn url(&self) -> &str {
        &self.url
    }

    /// The PostgreSQL schema of this database (`None` on SQLite).
    #[must_use]
    pub fn schema(&self) -> Option<&str> {
        match &self.cleanup {
            Cleanup::Postgres { schema, .. } => Some(schema),
            Cleanup::Sqlite(_) => None,
        }
    }
}

enum Cleanup {
    Sqlite(#[allow(dead_code)] tempfile::TempDir),
    Postgres { admin_url: String, schema: String },
}

impl std::ops::Deref for TestDb {
    type Target = Db;
    fn deref(&self) -> &Db {
        &self.db
    }
}

impl Drop for TestDb {
    fn drop(&mut self) {
        if let Cleanup::Postgres { admin_url, schema } = &self.cleanup
            && let Ok(mut conn) = PgConnection::establish(admin_url)
        {
            let _ = conn.batch_execute(&format!("DROP SCHEMA IF EXISTS \"{schema}\" CASCADE"));
        }
    }
}

/// The PostgreSQL server tests use.
#[must_use]
pub fn postgres_admin_url() -> String {
    std::env::var("PORTAL_TEST_DATABASE_URL")
        .ok()
        .filter(|v| !v.trim().is_empty())
        .unwrap_or_else(|| "postgres://postgres@127.0.0.1:5432/postgres".to_owned())
}

/// A fresh, migrated database of the given backend.
///
/// # Panics
/// When the database cannot be created (tests want to fail loudly: a missing PostgreSQL is a failure,
/// never a silent skip).
#[must_use]
pub fn fresh(backend: Backend) -> TestDb {
    match backend {
        Backend::Sqlite => fresh_sqlite(),
        Backend::Postgres => fresh_postgres(),
    }
}

/// A fresh database of the given backend with no tables yet (for testing that a server migrates it).
///
/// # Panics
/// As [`fresh`].
#[must_use]
pub fn empty(backend: Backend) -> TestDb {
    match backend {
        Backend::Sqlite => {
            let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("temporary folder: {e}"));
            let url = format!("sqlite://{}/portal.db", dir.path().display());
            let db = Db::connect(&url, 8).unwrap_or_else(|e| panic!("SQLite test database: {e}"));
            TestDb {
                db,
                url,
                cleanup: Cleanup::Sqlite(dir),
            }
        }
        Backend::Postgres => postgres_schema(),
    }
}

fn fresh_sqlite() -> TestDb {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("temporary folder: {e}"));
    let url = format!("sqlite://{}/portal.db", dir.path().display());
    let db = Db::connect(&url, 8).unwrap_or_else(|e| panic!("SQLite test database: {e}"));
    db.run_migrations()
        .unwrap_or_else(|e| panic!("SQLite migrations: {e}"));
    TestDb {
        db,
        url,
        cleanup: Cleanup::Sqlite(dir),
    }
}

fn fresh_postgres() -> TestDb {
    fresh_postgres_named(&format!("test_{}", uuid::Uuid::new_v4().simple()))
}

/// A fresh, migrated PostgreSQL database in a new schema of this exact name (which may be any identifier,
/// multibyte characters included) and nothing else on its `search_path`.
///
/// # Panics
/// As [`fresh`].
#[must_use]
pub fn fresh_postgres_named(schema: &str) -> TestDb {
    let test_db = postgres_schema_named(schema);
    test_db
        .db
        .run_migrations()
        .unwrap_or_else(|e| panic!("PostgreSQL migrations: {e}"));
    test_db
}

fn postgres_schema() -> TestDb {
    postgres_schema_named(&format!("test_{}", uuid::Uuid::new_v4().simple()))
}

/// The URL of a PostgreSQL database whose `search_path` is `schemas`, in that order.
#[must_use]
pub fn postgres_url_with_search_path(schemas: &[&str]) -> String {
    let admin_url = postgres_admin_url();
    let separator = if admin_url.contains('?') { '&' } else { '?' };
    let path: Vec<String> = schemas.iter().map(|schema| format!("\"{schema}\"")).collect();
    let option = format!("-csearch_path={}", path.join(","));
    let encoded: String = option
        .bytes()
        .map(|byte| {
            if byte.is_ascii_alphanumeric() || b"-_.".contains(&byte) {
                char::from(byte).to_string()
            } else {
                format!("%{byte:02X}")
            }
        })
        .collect();
    format!("{admin_url}{separator}options={encoded}")
}

/// Runs `sql` as the tests' PostgreSQL administrator.
///
/// # Panics
/// When the statement fails.
pub fn postgres_admin_execute(sql: &str) {
    let admin_url = postgres_admin_url();
    let mut admin = PgConnection::establish(&admin_url)
        .unwrap_or_else(|e| panic!("PostgreSQL for tests is not reachable at {admin_url}: {e}"));
    admin.batch_execute(sql).unwrap_or_else(|e| panic!("{sql}: {e}"));
}

fn postgres_schema_named(schema: &str) -> TestDb {
    let admin_url = postgres_admin_url();
    let schema = schema.to_owned();
    let mut admin = PgConnection::establish(&admin_url).unwrap_or_else(|e| {
        panic!(
            "PostgreSQL for tests is not reachable at {admin_url}: {e}. Run the tests through `make test` \
             (scripts/with-postgres.sh starts a throwaway cluster when none is running)."
        )
    });
    admin
        .batch_execute(&format!("CREATE SCHEMA \"{schema}\""))
        .unwrap_or_else(|e| panic!("creating schema {schema}: {e}"));
    let url = postgres_url_with_search_path(&[&schema]);
    let db = Db::connect(&url, 8).unwrap_or_else(|e| panic!("PostgreSQL test database: {e}"));
    let cleanup = Cleanup::Postgres { admin_url, schema };
    TestDb { db, url, cleanup }
}

/// Inserts an organization row named `name` with the id `id` behind the API's back, for tests that set up
/// apps with [`insert_app`].
///
/// # Panics
/// When the row cannot be written.
pub fn insert_org(db: &Db, id: &str, name: &str) {
    use crate::schema::organizations;
    use diesel::{ExpressionMethods, RunQueryDsl};
    let mut conn = db.connection().unwrap_or_else(|e| panic!("connection: {e}"));
    diesel::insert_into(organizations::table)
        .values((
            organizations::id.eq(id),
            organizations::name.eq(name),
            organizations::created_at.eq(1_700_000_000_000_i64),
            organizations::updated_at.eq(1_700_000_000_000_i64),
        ))
        .execute(&mut *conn)
        .unwrap_or_else(|e| panic!("insert organization: {e}"));
}

/// Inserts a minimal app row behind the API's back, for tests of what reads apps (deleting an
/// organization, the uptime monitor) before they go through the app API. `store_status` is the stored
/// spelling (`development`, `SUBMITTED`, `PUBLISHED`…).
///
/// # Panics
/// When the row cannot be written.
pub fn insert_app(
    db: &Db,
    org: &str,
    developer: &str,
    package_name: &str,
    public_url: &str,
    store_status: &str,
) {
    use crate::schema::apps;
    use diesel::{ExpressionMethods, RunQueryDsl};
    let mut conn = db.connection().unwrap_or_else(|e| panic!("connection: {e}"));
    diesel::insert_into(apps::table)
        .values((
            apps::package_name.eq(package_name),
            apps::org_id.eq(org),
            apps::developer_id.eq(developer),
            apps::name.eq(package_name),
            apps::description.eq(""),
            apps::onboarding_instructions.eq(""),
            apps::public_url.eq(public_url),
            apps::logo_url.eq("https://app.example.com/logo.png"),
            apps::is_public.eq(false),
            apps::app_store_status.eq(store_status),
            apps::app_type.eq("standard"),
            apps::created_at.eq(1_700_000_000_000_i64),
            apps::updated_at.eq(1_700_000_000_000_i64),
            apps::tools.eq("[]"),
            apps::settings.eq("[]"),
            apps::hardware_requirements.eq("[]"),
            apps::permissions.eq("[]"),
            apps::shared_with_organization.eq(false),
            apps::shared_with_emails.eq("[]"),
        ))
        .execute(&mut *conn)
        .unwrap_or_else(|e| panic!("insert app {package_name}: {e}"));
}
