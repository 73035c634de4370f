//! The uptime monitor against real HTTP servers on loopback, on SQLite and PostgreSQL: a healthy app reads
//! Online, silent ones time out without holding the healthy one up, and every due app is checked once.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use actix_web::{App, HttpResponse, HttpServer, web};
use adapter_db::repos::DieselUptimeRepository;
use adapter_db::schema::{app_api_keys, organizations};
use adapter_db::testing::{TestDb, fresh};
use adapter_db::{Backend, Db};
use app_server::uptime::{Monitor, ProbeConfig, monitor_service_with_probe};
use diesel::prelude::*;
use domain::common::Clock;
use domain::uptime::{HealthState, UptimeRepository};
use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

struct Now;

impl Clock for Now {
    fn now(&self) -> chrono::DateTime<chrono::Utc> {
        chrono::Utc::now()
    }
}

fn healthy_server() -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let server = HttpServer::new(|| {
        App::new().route(
            "/health",
            web::get().to(|| async { HttpResponse::Ok().json(serde_json::json!({"status": "healthy"})) }),
        )
    })
    .workers(1)
    .listen(listener)
    .unwrap()
    .run();
    tokio::spawn(server);
    port
}

/// A server that accepts connections and never answers; counts how many it holds open at once (at most).
async fn silent_server(most_open: Arc<AtomicUsize>) -> u16 {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let open = Arc::new(AtomicUsize::new(0));
    tokio::spawn(async move {
        loop {
            let Ok((socket, _)) = listener.accept().await else {
                return;
            };
            let now_open = open.fetch_add(1, Ordering::SeqCst) + 1;
            most_open.fetch_max(now_open, Ordering::SeqCst);
            let open = open.clone();
            tokio::spawn(async move {
                tokio::time::sleep(Duration::from_secs(30)).await;
                drop(socket);
                open.fetch_sub(1, Ordering::SeqCst);
            });
        }
    });
    port
}

fn insert_app(db: &Db, org: &str, package: &str, public_url: &str, status: &str) {
    adapter_db::testing::insert_app(db, org, "developer", package, public_url, status);
    let mut conn = db.connection().unwrap();
    diesel::insert_into(app_api_keys::table)
        .values((
            app_api_keys::package_name.eq(package),
            app_api_keys::key_hash.eq(format!("hash-{package}")),
            app_api_keys::created_at.eq(1_700_000_000_000_i64),
        ))
        .execute(&mut *conn)
        .unwrap();
}

async fn statuses(db: &Db) -> HashMap<String, HealthState> {
    DieselUptimeRepository::new(db.clone())
        .all_latest_status()
        .await
        .unwrap()
        .into_iter()
        .map(|s| (s.package_name.as_str().to_owned(), s.health))
        .collect()
}

async fn monitor_checks_each_due_app_without_waiting_for_silent_ones(backend: Backend) {
    let test_db: TestDb = fresh(backend);
    let db = test_db.db.clone();
    let org = "00000000-0000-4000-8000-000000000001";
    {
        let mut conn = db.connection().unwrap();
        diesel::insert_into(organizations::table)
            .values((
                organizations::id.eq(org),
                organizations::name.eq("Acme"),
                organizations::created_at.eq(1_700_000_000_000_i64),
                organizations::updated_at.eq(1_700_000_000_000_i64),
            ))
            .execute(&mut *conn)
            .unwrap();
    }
    let healthy = healthy_server();
    let most_open = Arc::new(AtomicUsize::new(0));
    let silent = silent_server(most_open.clone()).await;
    insert_app(
        &db,
        org,
        "com.acme.healthy",
        &format!("http://127.0.0.1:{healthy}"),
        "PUBLISHED",
    );
    for n in 1..=3 {
        insert_app(
            &db,
            org,
            &format!("com.acme.silent{n}"),
            &format!("http://127.0.0.1:{silent}/s{n}"),
            "SUBMITTED",
        );
    }
    // In development: never checked.
    insert_app(
        &db,
        org,
        "com.acme.draft",
        &format!("http://127.0.0.1:{healthy}"),
        "DEVELOPMENT",
    );

    let vars = HashMap::from([
        ("PORTAL_ALLOW_PRIVATE_TARGETS".to_owned(), "true".to_owned()),
        ("PORTAL_UPTIME_CONCURRENCY".to_owned(), "4".to_owned()),
    ]);
    let config = app_server::Config::from_vars(&vars).unwrap();
    let probe = ProbeConfig {
        allow_private: true,
        timeout: Duration::from_secs(2),
    };
    let service = monitor_service_with_probe(&config, &db, Arc::new(Now), probe).unwrap();
    let monitor = Monitor::new(service, config.uptime_concurrency);

    let leased = monitor.run_once().await;
    assert_eq!(
        leased, 4,
        "{backend:?}: the SUBMITTED and PUBLISHED apps, not the draft"
    );
    // The three silent servers were waited on together, not one after the other.
    assert_eq!(most_open.load(Ordering::SeqCst), 3, "{backend:?}");
    let seen = statuses(&db).await;
    assert_eq!(
        seen.get("com.acme.healthy"),
        Some(&HealthState::Healthy),
        "{backend:?}"
    );
    for n in 1..=3 {
        assert_eq!(
            seen.get(&format!("com.acme.silent{n}")),
            Some(&HealthState::Timeout),
            "{backend:?}"
        );
    }
    assert!(!seen.contains_key("com.acme.draft"));

    // Checked within this interval: nothing is due again.
    assert_eq!(monitor.run_once().await, 0, "{backend:?}");
}

#[actix_web::test]
async fn the_monitor_on_sqlite() {
    monitor_checks_each_due_app_without_waiting_for_silent_ones(Backend::Sqlite).await;
}

#[actix_web::test]
async fn the_monitor_on_postgres() {
    monitor_checks_each_due_app_without_waiting_for_silent_ones(Backend::Postgres).await;
}
