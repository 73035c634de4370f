//! The database handle itself: transactions, constraint mapping, concurrent writers.

use crate::fixtures;
use adapter_db::convert::db_error;
use adapter_db::schema::accounts;
use diesel::prelude::*;
use domain::common::RepoError;

contract! {
    async fn a_failed_write_rolls_back_everything_it_did(db) {
        let result: Result<(), RepoError> = db
            .write(|conn| {
                diesel::insert_into(accounts::table)
                    .values((
                        accounts::id.eq("a1"),
                        accounts::email.eq("one@example.com"),
                        accounts::created_at.eq(0_i64),
                        accounts::updated_at.eq(0_i64),
                    ))
                    .execute(conn)
                    .map_err(db_error("insert", "email"))?;
                Err(RepoError::Conflict("stop".into()))
            })
            .await;
        assert!(matches!(result, Err(RepoError::Conflict(_))));
        let count: i64 = db
            .read(|conn| accounts::table.count().get_result(conn).map_err(db_error("count", "")))
            .await
            .unwrap();
        assert_eq!(count, 0, "the insert was rolled back");
    }

    async fn a_unique_violation_is_a_duplicate(db) {
        fixtures::account(db, "twice@example.com");
        let result = db
            .write(|conn| {
                diesel::insert_into(accounts::table)
                    .values((
                        accounts::id.eq("other-id"),
                        accounts::email.eq("twice@example.com"),
                        accounts::created_at.eq(0_i64),
                        accounts::updated_at.eq(0_i64),
                    ))
                    .execute(conn)
                    .map_err(db_error("insert", "email"))
            })
            .await;
        assert!(matches!(result, Err(RepoError::Duplicate("email"))), "{result:?}");
    }

    async fn many_concurrent_writers_lose_nothing(db) {
        let writers = 64;
        let mut tasks = Vec::new();
        for i in 0..writers {
            let db = db.clone();
            tasks.push(tokio::spawn(async move {
                db.write(move |conn| {
                    diesel::insert_into(accounts::table)
                        .values((
                            accounts::id.eq(format!("id-{i}")),
                            accounts::email.eq(format!("user{i}@example.com")),
                            accounts::created_at.eq(0_i64),
                            accounts::updated_at.eq(0_i64),
                        ))
                        .execute(conn)
                        .map_err(db_error("insert", "email"))
                })
                .await
            }));
        }
        for task in tasks {
            task.await.expect("task").expect("every write succeeds");
        }
        let count: i64 = db
            .read(|conn| accounts::table.count().get_result(conn).map_err(db_error("count", "")))
            .await
            .unwrap();
        assert_eq!(count, writers);
    }
}

/// Two instances starting at once on one PostgreSQL database: one migrates, the other waits and finds
/// nothing left to do (an advisory lock per schema). SQLite has one process, so only PostgreSQL is tested.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_instances_migrating_one_postgres_schema_at_once_both_start() {
    let empty = adapter_db::testing::empty(adapter_db::Backend::Postgres);
    let first = adapter_db::Db::connect(empty.url(), 2).unwrap();
    let second = adapter_db::Db::connect(empty.url(), 2).unwrap();
    let a = tokio::task::spawn_blocking(move || first.run_migrations());
    let b = tokio::task::spawn_blocking(move || second.run_migrations());
    let (a, b) = (a.await.unwrap().unwrap(), b.await.unwrap().unwrap());
    let all = std::fs::read_dir(format!(
        "{}/../../migrations/postgres",
        std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR for the tests it runs")
    ))
    .unwrap()
    .count();
    assert!(
        (a.len(), b.len()) == (all, 0) || (a.len(), b.len()) == (0, all),
        "one instance ran every migration, the other none: {a:?} {b:?}"
    );
}

/// The pool does not check a connection before handing it out (a `SELECT 1` round trip per use): a
/// connection the PostgreSQL server dropped — a restart, an administrator ending it — fails the one query
/// that finds out, is discarded, and the pool carries on with new connections. Here the server ends every
/// connection of the pool (found by their `application_name`, so that no other client is touched); then
/// every connection is taken out at once and used, twice.
#[test]
fn a_pool_whose_postgres_connections_were_dropped_recovers_after_one_failure_per_connection() {
    use diesel::sql_types::BigInt;
    #[derive(QueryableByName)]
    struct Count {
        #[diesel(sql_type = BigInt)]
        n: i64,
    }
    const POOL: u32 = 4;
    let test_db = adapter_db::testing::fresh(adapter_db::Backend::Postgres);
    let name = format!("pool_recovery_{}", uuid::Uuid::new_v4().simple());
    let db = adapter_db::Db::connect(&format!("{}&application_name={name}", test_db.url()), POOL).unwrap();
    // Every connection out at once, each used once: how many queries failed.
    let use_every_connection = || {
        let held: Vec<_> = (0..POOL).map(|_| db.connection().unwrap()).collect();
        held.into_iter()
            .filter_map(|mut conn| accounts::table.count().get_result::<i64>(&mut *conn).err())
            .count()
    };
    assert_eq!(use_every_connection(), 0);

    let mut admin = PgConnection::establish(&adapter_db::testing::postgres_admin_url()).unwrap();
    let terminate = format!(
        "SELECT count(pg_terminate_backend(pid)) AS n FROM pg_stat_activity WHERE application_name = '{name}'"
    );
    let ended = diesel::sql_query(&terminate)
        .get_result::<Count>(&mut admin)
        .unwrap()
        .n;
    assert_eq!(ended, i64::from(POOL), "the pool held {POOL} connections");
    std::thread::sleep(std::time::Duration::from_millis(200));

    let first = use_every_connection();
    assert!(
        first <= POOL as usize,
        "at most one failure per dropped connection: {first}"
    );
    assert_eq!(use_every_connection(), 0, "the dropped connections were replaced");
}

contract! {
    async fn the_pool_reports_connections_in_use_and_idle_and_counts_waits(db) {
        let before = db.pool_stats();
        assert!(before.max_size >= 1);
        let held: Vec<_> = (0..before.max_size).map(|_| db.connection().unwrap()).collect();
        let busy = db.pool_stats();
        assert_eq!((busy.open, busy.idle, busy.in_use()), (busy.max_size, 0, busy.max_size));
        // Every connection is lent out: the next checkout waits for one to come back.
        let waiter = {
            let db = db.clone();
            std::thread::spawn(move || db.connection().map(drop))
        };
        std::thread::sleep(std::time::Duration::from_millis(200));
        drop(held);
        waiter.join().unwrap().unwrap();
        let after = db.pool_stats();
        assert_eq!(after.waits, before.waits + 1);
        assert_eq!(after.in_use(), 0);
        assert_eq!(after.idle, after.open);
    }
}

/// A command (`app-server migrate`, `admin`, `factors`) exits as soon as its work is done, so its database
/// opens the one connection it uses and nothing in the background. With the server's pool (two idle
/// connections, a new one opened on the pool's thread whenever one is taken), `admin grant` on PostgreSQL
/// crashed about once in forty runs: the process exited while that thread was still connecting (SIGSEGV in
/// `r2d2-worker-0`).
#[test]
fn a_commands_database_opens_only_the_connection_it_uses() {
    for backend in [adapter_db::Backend::Sqlite, adapter_db::Backend::Postgres] {
        let empty = adapter_db::testing::empty(backend);
        let db = adapter_db::Db::connect_for_command(empty.url()).unwrap();
        assert_eq!(
            db.pool_stats().open,
            0,
            "{backend:?}: nothing opened before it is used"
        );
        db.run_migrations().unwrap();
        drop(db.connection().unwrap());
        drop(db.connection().unwrap());
        std::thread::sleep(std::time::Duration::from_millis(300));
        let stats = db.pool_stats();
        assert_eq!(
            (stats.max_size, stats.open, stats.idle),
            (1, 1, 1),
            "{backend:?}: one connection, reused, none opened meanwhile"
        );
    }
}
