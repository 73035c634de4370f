//! Contract tests of every repository port, each run on a fresh SQLite database and on a fresh PostgreSQL
//! schema. A test named `x::sqlite` and `x::postgres` is the same contract on the two backends.
//!
//! Write a contract with [`contract!`]:
//! ```ignore
//! contract! {
//!     async fn a_created_org_can_be_read_back(db) {
//!         let repo = DieselOrgRepository::new(db.clone());
//!         ...
//!     }
//! }
//! ```

#![allow(clippy::unwrap_used, clippy::expect_used)] // test-only crate: a failed setup should panic

/// Expands each `async fn name(db) { … }` into a module `name` with two tests, `sqlite` and `postgres`,
/// each given a fresh migrated `&Db`.
#[macro_export]
macro_rules! contract {
    ($(async fn $name:ident($db:ident) $body:block)*) => {
        $(
            mod $name {
                #[allow(unused_imports)]
                use super::*;

                async fn run($db: &adapter_db::Db) $body

                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn sqlite() {
                    let test_db = adapter_db::testing::fresh(adapter_db::Backend::Sqlite);
                    run(&test_db).await;
                }

                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn postgres() {
                    let test_db = adapter_db::testing::fresh(adapter_db::Backend::Postgres);
                    run(&test_db).await;
                }
            }
        )*
    };
}

/// As [`contract!`], for state that several server instances share: each `async fn name(first, second)` gets
/// one fresh migrated database opened twice (two pools, as two instances on one database have).
#[macro_export]
macro_rules! shared_contract {
    ($(async fn $name:ident($first:ident, $second:ident) $body:block)*) => {
        $(
            mod $name {
                #[allow(unused_imports)]
                use super::*;

                async fn run($first: &adapter_db::Db, $second: &adapter_db::Db) $body

                async fn on(backend: adapter_db::Backend) {
                    let test_db = adapter_db::testing::fresh(backend);
                    let other = adapter_db::Db::connect(test_db.url(), 4).unwrap();
                    run(&test_db, &other).await;
                }

                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn sqlite() {
                    on(adapter_db::Backend::Sqlite).await;
                }

                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn postgres() {
                    on(adapter_db::Backend::Postgres).await;
                }
            }
        )*
    };
}

mod accounts;
mod admins;
mod apps;
mod apps_store;
mod audit;
mod caps;
mod codes;
mod factors;
mod fixtures;
mod images;
mod infrastructure;
mod invites;
mod live_cache;
mod oauth;
mod org_two_factor;
mod orgs;
mod outbox;
mod passkeys;
mod rate_limits;
mod recovery_codes;
mod review_decisions;
mod reviews;
mod secrets;
mod sessions;
mod uptime;
mod webhooks;
