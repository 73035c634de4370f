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
