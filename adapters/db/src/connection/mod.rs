//! The database handle: the backend chosen from the URL scheme, a connection pool, migrations, and the
//! `read`/`write` helpers that run diesel's blocking calls off the async runtime.

mod backup;
mod checkout;
mod circuit;
mod connector;
mod error;
mod migrate;
pub use backup::{sqlite_file, sqlite_integrity_check};
pub use error::DbError;
pub use migrate::MigrationStatus;
mod transaction;
mod work;
mod writer;

use crate::live_cache::LiveCache;
pub use checkout::PoolStats;
use circuit::{Circuit, ResetOnConnect, TripOnError};
pub use connector::Connector;
use connector::{SqlitePragmas, Target, parse_url, private_sqlite_file};
use diesel::pg::PgConnection;
use diesel::r2d2::{Pool, R2D2Connection};
use diesel::sqlite::SqliteConnection;
use diesel::{Connection, MultiConnection};
use domain::common::RepoError;
use domain::media::ImageLinks;
use std::sync::Arc;
use std::sync::atomic::AtomicU64;
use std::time::Duration;
use writer::Writer;

/// Connections a pool opens at start and keeps open when idle.
const MIN_IDLE_CONNECTIONS: u32 = 2;
/// Longest wait for a pooled connection while the database is reachable (every connection busy). Also
/// the pool's connection timeout, half of which bounds the pause between its attempts to reconnect while
/// the database is down, so a database that is back is noticed within a few seconds.
const CHECKOUT_TIMEOUT: Duration = Duration::from_secs(5);
/// What `Retry-After` a caller is told while the database cannot be reached.
pub const RETRY_AFTER: Duration = Duration::from_secs(5);

/// Runs one diesel query on whichever backend the connection is, with that backend's own connection.
/// Through the multi-backend wrapper diesel writes a statement's SQL out again at every execution (to
/// decide whether its prepared statement may be cached); on the backend's own connection a statement of a
/// fixed shape is found in the cache by its type. Worth it for the reads every request makes.
macro_rules! on_backend {
    ($conn:expr, $c:ident => $body:expr) => {
        match $conn {
            $crate::DbConnection::Sqlite($c) => $body,
            $crate::DbConnection::Postgres($c) => $body,
        }
    };
}
pub(crate) use on_backend;

/// One connection to either backend.
#[derive(MultiConnection)]
pub enum DbConnection {
    Sqlite(SqliteConnection),
    Postgres(PgConnection),
}

/// How the server reaches PostgreSQL beyond `DATABASE_URL`, for instances behind a connection pooler
/// (README "Behind a connection pooler"). Ignored on SQLite, where setting either is refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PostgresOptions {
    /// Where the session cache's listening connection goes (`PORTAL_DATABASE_LISTEN_URL`): PostgreSQL
    /// itself or a pooler in session mode, as that connection keeps a `LISTEN` between its statements.
    /// `None`: the pool's URL.
    pub listen_url: Option<String>,
    /// Whether the pool's connections keep prepared statements on the server
    /// (`PORTAL_DATABASE_PREPARED_STATEMENTS`). `false` sends each statement unnamed, parsed with its
    /// parameters in one message, so that no statement outlives its transaction: what a pooler that hands
    /// each transaction to another server connection needs when it does not carry prepared statements over
    /// (PgBouncer's transaction mode before 1.21, or with `max_prepared_statements = 0`).
    pub prepared_statements: bool,
}

impl Default for PostgresOptions {
    fn default() -> Self {
        Self {
            listen_url: None,
            prepared_statements: true,
        }
    }
}

/// Which database a [`Db`] talks to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    Sqlite,
    Postgres,
}

type DbPool = Pool<Connector>;

/// The database: a pool plus, for SQLite, the thread that runs every transaction of the process one after
/// the other (SQLite allows one writer; serialising writers in the process avoids "database is locked" under
/// concurrent requests).
#[derive(Clone)]
pub struct Db {
    pool: DbPool,
    backend: Backend,
    writer: Option<Arc<Writer>>,
    /// One permit per pooled connection: reads wait for their turn here, in arrival order and without
    /// holding a blocking thread, instead of in the pool, which wakes its waiters in no particular order
    /// (under load some reads waited hundreds of milliseconds while later ones went first).
    read_turns: Arc<tokio::sync::Semaphore>,
    circuit: Arc<Circuit>,
    /// Checkouts that found no connection free and had to wait for one ([`PoolStats::waits`]).
    waits: Arc<AtomicU64>,
    /// Reads and transactions run ([`PoolStats::calls`]).
    calls: Arc<AtomicU64>,
    /// What authorizes a request, kept in memory while it is known to be true (`crate::live_cache`);
    /// `None` for commands.
    live_cache: Option<LiveCache>,
    /// How logos are stored and answered: by their key, with today's public address
    /// ([`domain::media::ImageLinks`]; [`Self::with_image_links`]).
    image_links: Arc<ImageLinks>,
}

impl std::fmt::Debug for Db {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Db")
            .field("backend", &self.backend)
            .finish_non_exhaustive()
    }
}

impl Db {
    /// Opens the database named by `url` (an SQLite path, `sqlite://path`, or a `postgres://` URL).
    ///
    /// # Errors
    /// [`DbError`] with the real cause (an unreachable server, bad credentials, an unwritable folder…).
    pub fn connect(url: &str, pool_size: u32) -> Result<Self, DbError> {
        Self::connect_with(url, pool_size, &PostgresOptions::default())
    }

    /// As [`Self::connect`], with how PostgreSQL is reached behind a pooler.
    ///
    /// # Errors
    /// As [`Self::connect`]; [`DbError::ListenUrl`] or [`DbError::PreparedStatementsOnSqlite`] when an
    /// option does not fit the database.
    pub fn connect_with(url: &str, pool_size: u32, options: &PostgresOptions) -> Result<Self, DbError> {
        Self::open(url, pool_size, pool_size.clamp(1, MIN_IDLE_CONNECTIONS), options)
    }

    /// Opens the database for a command that runs and exits (`app-server migrate|admin|factors`): one
    /// connection, opened when first used and never replaced in the background. The server's pool keeps
    /// two idle connections and opens a new one on its own thread whenever one is taken; a process that
    /// exits while that thread is still connecting to PostgreSQL crashed (SIGSEGV in the pool's worker,
    /// about one `admin grant` in forty).
    ///
    /// # Errors
    /// As [`Self::connect`].
    pub fn connect_for_command(url: &str) -> Result<Self, DbError> {
        Self::connect_for_command_with(url, &PostgresOptions::default())
    }

    /// As [`Self::connect_for_command`], with how PostgreSQL is reached behind a pooler.
    ///
    /// # Errors
    /// As [`Self::connect_with`].
    pub fn connect_for_command_with(url: &str, options: &PostgresOptions) -> Result<Self, DbError> {
        Self::open(url, 1, 0, options)
    }

    fn open(url: &str, pool_size: u32, min_idle: u32, options: &PostgresOptions) -> Result<Self, DbError> {
        let target = parse_url(url)?;
        let listen_url = match (&target, &options.listen_url) {
            (_, None) => None,
            (Target::Sqlite(_), Some(_)) => {
                return Err(DbError::ListenUrl(
                    "applies to PostgreSQL only: DATABASE_URL names an SQLite database",
                ));
            }
            (Target::Postgres(_), Some(listen)) => match parse_url(listen) {
                Ok(Target::Postgres(listen)) => Some(listen),
                _ => return Err(DbError::ListenUrl("must be a postgres:// URL")),
            },
        };
        if matches!(target, Target::Sqlite(_)) && !options.prepared_statements {
            return Err(DbError::PreparedStatementsOnSqlite);
        }
        let (backend, connection_url) = match &target {
            Target::Sqlite(path) => {
                private_sqlite_file(path).map_err(|source| DbError::CreateDir {
                    path: path.clone(),
                    source,
                })?;
                (Backend::Sqlite, path.clone())
            }
            Target::Postgres(url) => {
                // A direct connection first: the pool would hide the cause behind a timeout.
                PgConnection::establish(url)?;
                (Backend::Postgres, url.clone())
            }
        };
        let manager = Connector {
            backend,
            url: connection_url,
            prepared_statements: options.prepared_statements,
        };
        let circuit = Arc::new(Circuit::default());
        // No `SELECT 1` before every use. A connection to a local SQLite file does not go stale. A
        // PostgreSQL connection can (a server restart, an administrator ending it), but the check would
        // cost a round trip per use — as much as the read itself — to catch what the read catches anyway:
        // the read fails, diesel then marks the connection broken (libpq's transaction status turns
        // unknown once the connection is bad) and the pool discards it instead of taking it back. A
        // restart so costs at most one failed query per connection the pool held, never a stuck pool
        // (`adapters/db/tests/contract/infrastructure.rs` ends the pool's connections under it).
        // Two connections are opened at start and kept; the rest are opened when load asks for them and
        // closed again after ten idle minutes. Every open SQLite connection holds its own copy of the schema
        // and a page cache, so opening all of them at start made an idle server several megabytes larger.
        let mut builder = Pool::builder()
            .max_size(pool_size.max(1))
            .min_idle(Some(min_idle))
            .connection_timeout(CHECKOUT_TIMEOUT)
            .test_on_check_out(false)
            .error_handler(Box::new(TripOnError(circuit.clone())))
            .event_handler(Box::new(ResetOnConnect(circuit.clone())));
        if backend == Backend::Sqlite {
            builder = builder.connection_customizer(Box::new(SqlitePragmas));
        }
        let pool = builder.build(manager)?;
        let writer = (backend == Backend::Sqlite).then(|| Arc::new(Writer::default()));
        // A command runs a few statements and exits: it keeps nothing, and listens for nothing.
        let live_cache = match &target {
            _ if min_idle == 0 => None,
            Target::Postgres(url) => Some(LiveCache::postgres(listen_url.unwrap_or_else(|| url.clone()))),
            Target::Sqlite(path) => Some(LiveCache::sqlite(path.clone())),
        };
        Ok(Self {
            pool,
            backend,
            writer,
            read_turns: Arc::new(tokio::sync::Semaphore::new(pool_size.max(1) as usize)),
            circuit,
            waits: Arc::new(AtomicU64::new(0)),
            calls: Arc::new(AtomicU64::new(0)),
            live_cache,
            image_links: Arc::default(),
        })
    }

    /// The database whose repositories answer this portal's images at `links`'s address (the server's
    /// `PORTAL_PUBLIC_URL`; without it a stored image key is answered as it is).
    #[must_use]
    pub fn with_image_links(self, links: ImageLinks) -> Self {
        Self {
            image_links: Arc::new(links),
            ..self
        }
    }

    /// How logos are stored and answered.
    pub(crate) fn image_links(&self) -> &ImageLinks {
        &self.image_links
    }

    /// What authorizes requests, kept in memory (`None` for commands).
    pub(crate) const fn live_cache(&self) -> Option<&LiveCache> {
        self.live_cache.as_ref()
    }

    #[must_use]
    pub const fn backend(&self) -> Backend {
        self.backend
    }

    /// Answers once the database has answered `SELECT 1` (readiness).
    ///
    /// # Errors
    /// [`RepoError::Unavailable`] while the database cannot be reached.
    pub async fn ping(&self) -> Result<(), RepoError> {
        self.read(|conn| {
            on_backend!(conn, c => c.ping()).map_err(|e| RepoError::backend("pinging the database", e))
        })
        .await
    }
}

#[async_trait::async_trait]
impl domain::common::Readiness for Db {
    async fn check(&self) -> Result<(), RepoError> {
        self.ping().await
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use diesel::connection::SimpleConnection;

    #[test]
    fn an_unreachable_postgres_reports_the_real_cause() {
        let error = Db::connect("postgres://nobody@127.0.0.1:1/none?connect_timeout=2", 1).unwrap_err();
        let text = error.to_string();
        assert!(text.starts_with("could not connect to the database"), "{text}");
        assert!(text.len() > "could not connect to the database: ".len(), "{text}");
    }

    #[test]
    fn the_pooler_options_are_refused_where_they_cannot_apply() {
        let dir = tempfile::tempdir().unwrap();
        let sqlite = format!("sqlite://{}/portal.db", dir.path().display());
        let listen = PostgresOptions {
            listen_url: Some("postgres://portal@db/portal".into()),
            ..PostgresOptions::default()
        };
        let refused = Db::connect_with(&sqlite, 2, &listen).unwrap_err();
        assert!(matches!(refused, DbError::ListenUrl(_)), "{refused}");
        let unnamed = PostgresOptions {
            prepared_statements: false,
            ..PostgresOptions::default()
        };
        let refused = Db::connect_for_command_with(&sqlite, &unnamed).unwrap_err();
        assert!(
            matches!(refused, DbError::PreparedStatementsOnSqlite),
            "{refused}"
        );
        let not_postgres = PostgresOptions {
            listen_url: Some("sqlite://elsewhere.db".into()),
            ..PostgresOptions::default()
        };
        let refused = Db::connect_with("postgres://nobody@127.0.0.1:1/none", 2, &not_postgres).unwrap_err();
        assert_eq!(
            refused.to_string(),
            "PORTAL_DATABASE_LISTEN_URL: must be a postgres:// URL"
        );
    }

    #[test]
    fn a_fresh_sqlite_file_is_created_and_migrated() {
        let dir = tempfile::tempdir().unwrap();
        let url = format!("sqlite://{}/nested/portal.db", dir.path().display());
        let db = Db::connect(&url, 2).unwrap();
        assert_eq!(db.backend(), Backend::Sqlite);
        let all = std::fs::read_dir(format!(
            "{}/../../migrations/sqlite",
            std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR for the tests it runs")
        ))
        .unwrap()
        .count();
        assert_eq!(db.run_migrations().unwrap().len(), all);
        assert!(
            db.run_migrations().unwrap().is_empty(),
            "a second run applies nothing"
        );
        assert!(dir.path().join("nested/portal.db").is_file());
    }

    /// A transaction that panics is its caller's failure: the writer thread runs the next ones.
    #[test]
    fn a_write_that_panics_stops_no_later_write() {
        let dir = tempfile::tempdir().unwrap();
        let db = Db::connect(&format!("sqlite://{}/portal.db", dir.path().display()), 2).unwrap();
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .build()
            .unwrap();
        runtime.block_on(async {
            let panicked = db
                .write(|_| -> Result<(), RepoError> { panic!("a bug inside a transaction") })
                .await;
            assert!(panicked.is_err());
            for n in 0..3 {
                assert_eq!(db.write(move |_| Ok(n)).await.unwrap(), n);
            }
        });
    }

    /// A transaction that panics fails alone: the transactions that waited with it, and so ran in the same
    /// batch, commit and answer their own outcome, and what the panicking one wrote is rolled back.
    #[test]
    fn a_write_that_panics_fails_no_write_of_its_batch() {
        use diesel::RunQueryDsl;
        use diesel::sql_types::BigInt;
        #[derive(diesel::QueryableByName)]
        struct Count {
            #[diesel(sql_type = BigInt)]
            n: i64,
        }
        let dir = tempfile::tempdir().unwrap();
        let db = Db::connect(&format!("sqlite://{}/portal.db", dir.path().display()), 4).unwrap();
        db.connection()
            .unwrap()
            .batch_execute("CREATE TABLE rows (n BIGINT NOT NULL)")
            .unwrap();
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(4)
            .build()
            .unwrap();
        let outcomes = runtime.block_on(async {
            // The writer is held while the others queue up, so that they run as one batch.
            let (started, holding) = tokio::sync::oneshot::channel();
            let blocker = {
                let db = db.clone();
                tokio::spawn(async move {
                    db.write(move |_| {
                        let _ = started.send(());
                        std::thread::sleep(Duration::from_millis(300));
                        Ok(-1_i64)
                    })
                    .await
                })
            };
            holding.await.unwrap();
            let tasks: Vec<_> = (0..60_i64)
                .map(|n| {
                    let db = db.clone();
                    tokio::spawn(async move {
                        db.write(move |conn| {
                            diesel::sql_query(format!("INSERT INTO rows VALUES ({n})"))
                                .execute(conn)
                                .map_err(|e| RepoError::backend("inserting", e))?;
                            assert!(n % 10 != 7, "a bug inside transaction {n}");
                            Ok(n)
                        })
                        .await
                    })
                })
                .collect();
            assert_eq!(blocker.await.unwrap().unwrap(), -1);
            let mut outcomes = Vec::new();
            for task in tasks {
                outcomes.push(task.await.unwrap());
            }
            outcomes
        });
        for (n, outcome) in (0..60_i64).zip(&outcomes) {
            if n % 10 == 7 {
                assert!(outcome.is_err(), "{n}: {outcome:?}");
            } else {
                assert_eq!(outcome.as_ref().ok(), Some(&n), "{n}: {outcome:?}");
            }
        }
        let kept: Count = diesel::sql_query("SELECT count(*) AS n FROM rows")
            .get_result(&mut *db.connection().unwrap())
            .unwrap();
        assert_eq!(
            kept.n, 54,
            "every innocent row is kept, and no row of a panicking transaction"
        );
        let panicked: Count = diesel::sql_query("SELECT count(*) AS n FROM rows WHERE n % 10 = 7")
            .get_result(&mut *db.connection().unwrap())
            .unwrap();
        assert_eq!(panicked.n, 0);
    }

    /// Transactions that wait together are committed together, each in a savepoint of its own: one whose
    /// work fails is rolled back alone, and every caller is answered with its own outcome.
    #[test]
    fn transactions_committed_together_fail_alone() {
        use diesel::RunQueryDsl;
        use diesel::connection::SimpleConnection;
        use diesel::sql_types::BigInt;
        #[derive(diesel::QueryableByName)]
        struct Count {
            #[diesel(sql_type = BigInt)]
            n: i64,
        }
        let dir = tempfile::tempdir().unwrap();
        let db = Db::connect(&format!("sqlite://{}/portal.db", dir.path().display()), 4).unwrap();
        db.connection()
            .unwrap()
            .batch_execute("CREATE TABLE rows (n BIGINT NOT NULL)")
            .unwrap();
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(4)
            .build()
            .unwrap();
        let outcomes = runtime.block_on(async {
            let tasks: Vec<_> = (0..200_i64)
                .map(|n| {
                    let db = db.clone();
                    tokio::spawn(async move {
                        db.write(move |conn| {
                            diesel::sql_query(format!("INSERT INTO rows VALUES ({n})"))
                                .execute(conn)
                                .map_err(|e| RepoError::backend("inserting", e))?;
                            if n % 5 == 0 {
                                return Err(RepoError::Conflict(format!("row {n}")));
                            }
                            Ok(n)
                        })
                        .await
                    })
                })
                .collect();
            let mut outcomes = Vec::new();
            for task in tasks {
                outcomes.push(task.await.unwrap());
            }
            outcomes
        });
        for (n, outcome) in (0..200_i64).zip(&outcomes) {
            if n % 5 == 0 {
                assert!(matches!(outcome, Err(RepoError::Conflict(_))), "{n}: {outcome:?}");
            } else {
                assert_eq!(outcome.as_ref().ok(), Some(&n));
            }
        }
        let kept: Count = diesel::sql_query("SELECT count(*) AS n FROM rows")
            .get_result(&mut *db.connection().unwrap())
            .unwrap();
        assert_eq!(
            kept.n, 160,
            "the failed transactions' rows were rolled back, and only theirs"
        );
        let failed: Count = diesel::sql_query("SELECT count(*) AS n FROM rows WHERE n % 5 = 0")
            .get_result(&mut *db.connection().unwrap())
            .unwrap();
        assert_eq!(failed.n, 0);
    }

    /// Two processes (here two pools, each with its own writer thread) writing one SQLite file: a
    /// deferred transaction that reads and then writes would fail at once with "database is locked" when
    /// the other wrote in between; every write must wait its turn instead.
    #[test]
    fn writers_of_two_processes_on_one_sqlite_file_wait_instead_of_failing() {
        use diesel::RunQueryDsl;
        use diesel::sql_types::BigInt;
        #[derive(diesel::QueryableByName)]
        struct Count {
            #[diesel(sql_type = BigInt)]
            n: i64,
        }
        let dir = tempfile::tempdir().unwrap();
        let url = format!("sqlite://{}/portal.db", dir.path().display());
        let first = Db::connect(&url, 4).unwrap();
        first.run_migrations().unwrap();
        first
            .connection()
            .unwrap()
            .batch_execute("CREATE TABLE counter (n BIGINT NOT NULL); INSERT INTO counter VALUES (0);")
            .unwrap();
        let second = Db::connect(&url, 4).unwrap();
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(4)
            .build()
            .unwrap();
        let rounds = 40;
        let results = runtime.block_on(async {
            let mut tasks = Vec::new();
            for i in 0..rounds {
                let db = if i % 2 == 0 { first.clone() } else { second.clone() };
                tasks.push(tokio::spawn(async move {
                    db.write(|conn| {
                        // Read first, then write: the upgrade that fails in a deferred transaction.
                        let current = diesel::sql_query("SELECT n FROM counter")
                            .get_result::<Count>(conn)
                            .map_err(|e| RepoError::backend("reading", e))?;
                        std::thread::sleep(Duration::from_millis(2));
                        diesel::sql_query(format!("UPDATE counter SET n = {}", current.n + 1))
                            .execute(conn)
                            .map_err(|e| RepoError::backend("writing", e))?;
                        Ok(())
                    })
                    .await
                }));
            }
            let mut outcomes = Vec::new();
            for task in tasks {
                outcomes.push(task.await.unwrap());
            }
            outcomes
        });
        let failures: Vec<_> = results.iter().filter_map(|r| r.as_ref().err()).collect();
        assert!(
            failures.is_empty(),
            "{} failed: {:?}",
            failures.len(),
            failures.first()
        );
        let total = diesel::sql_query("SELECT n FROM counter")
            .get_result::<Count>(&mut *first.connection().unwrap())
            .unwrap();
        assert_eq!(total.n, rounds, "no update was lost");
    }

    #[cfg(unix)]
    #[test]
    fn the_sqlite_file_and_the_folders_made_for_it_are_private() {
        use std::os::unix::fs::PermissionsExt;
        let mode = |path: &std::path::Path| std::fs::metadata(path).unwrap().permissions().mode() & 0o777;
        let dir = tempfile::tempdir().unwrap();
        let url = format!("sqlite://{}/data/portal.db", dir.path().display());
        let db = Db::connect(&url, 1).unwrap();
        db.run_migrations().unwrap();
        assert_eq!(mode(&dir.path().join("data")), 0o700);
        assert_eq!(mode(&dir.path().join("data/portal.db")), 0o600);
        drop(db);

        // A file left readable by others is tightened; an existing folder is left as it is.
        let existing = dir.path().join("shared");
        std::fs::create_dir(&existing).unwrap();
        std::fs::set_permissions(&existing, std::fs::Permissions::from_mode(0o755)).unwrap();
        let loose = existing.join("portal.db");
        std::fs::write(&loose, b"").unwrap();
        std::fs::set_permissions(&loose, std::fs::Permissions::from_mode(0o644)).unwrap();
        Db::connect(&format!("sqlite://{}", loose.display()), 1).unwrap();
        assert_eq!(mode(&loose), 0o600);
        assert_eq!(mode(&existing), 0o755);
    }
}
