//! Two `app-server` processes on one PostgreSQL database, started together (so their migrations race too),
//! share the uptime monitor: every submitted or published app is checked once per interval, never twice
//! by both instances (PRODUCT.md §5). The apps' health endpoints are on a loopback server that notes when
//! each one was asked.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use actix_web::{App, HttpRequest, HttpResponse, HttpServer, web};
use adapter_db::testing::fresh;
use adapter_db::{Backend, Db};
use std::collections::BTreeMap;
use std::process::Child;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

mod support;

const APPS: usize = 40;
const INTERVAL_SECS: u64 = 2;

type Hits = Arc<Mutex<BTreeMap<String, Vec<Instant>>>>;

/// Answers `/{app}/health` healthy and notes the time of each request per app.
fn health_server(hits: Hits) -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let server = HttpServer::new(move || {
        let hits = hits.clone();
        App::new().route(
            "/{app}/health",
            web::get().to(move |request: HttpRequest| {
                let hits = hits.clone();
                async move {
                    let app = request.match_info().get("app").unwrap_or_default().to_owned();
                    hits.lock().unwrap().entry(app).or_default().push(Instant::now());
                    HttpResponse::Ok().json(serde_json::json!({"status": "healthy"}))
                }
            }),
        )
    })
    .workers(1)
    .listen(listener)
    .unwrap()
    .run();
    tokio::spawn(server);
    port
}

/// One `app-server serve` on `database_url`, its monitor checking every [`INTERVAL_SECS`].
fn instance(database_url: &str, data: &std::path::Path) -> (Child, u16) {
    let port = support::free_port();
    let interval = INTERVAL_SECS.to_string();
    let child = support::serve(
        database_url,
        data,
        port,
        &[
            ("PORTAL_UPTIME_INTERVAL_SECS", interval.as_str()),
            ("PORTAL_ALLOW_PRIVATE_TARGETS", "true"),
        ],
    );
    (child, port)
}

#[actix_web::test]
async fn two_instances_on_one_postgres_check_each_app_once_per_interval() {
    let test_db = fresh(Backend::Postgres);
    let data = tempfile::tempdir().unwrap();
    // Both start at once on the empty database: migrations and all.
    let (mut first, first_port) = instance(test_db.url(), data.path());
    let (mut second, second_port) = instance(test_db.url(), data.path());
    support::wait_until_up(&mut first, first_port).await;
    support::wait_until_up(&mut second, second_port).await;

    let hits: Hits = Arc::default();
    let port = health_server(hits.clone());
    let db: Db = test_db.db.clone();
    let org = "00000000-0000-4000-8000-000000000001";
    adapter_db::testing::insert_org(&db, org, "Acme");
    for n in 0..APPS {
        let status = if n % 2 == 0 { "PUBLISHED" } else { "SUBMITTED" };
        adapter_db::testing::insert_app(
            &db,
            org,
            "developer",
            &format!("com.acme.app{n}"),
            &format!("http://127.0.0.1:{port}/app{n}"),
            status,
        );
    }

    // Four intervals and a bit, both instances running.
    tokio::time::sleep(Duration::from_secs(INTERVAL_SECS * 4 + 1)).await;
    for child in [&mut first, &mut second] {
        assert!(child.try_wait().unwrap().is_none(), "both instances stay up");
        child.kill().unwrap();
        child.wait().unwrap();
    }

    let hits = hits.lock().unwrap().clone();
    assert_eq!(hits.len(), APPS, "every app was checked: {:?}", hits.keys());
    let interval = Duration::from_secs(INTERVAL_SECS);
    for (app, times) in &hits {
        assert!(
            times.len() >= 3,
            "{app} was checked in every interval: {} checks",
            times.len()
        );
        assert!(
            times.len() <= 5,
            "{app} was checked {} times in four intervals and a bit",
            times.len()
        );
        for pair in times.windows(2) {
            let gap = pair[1] - pair[0];
            // An app falls due one interval after its last check was recorded; the request of the next
            // check can only come later, so two checks closer than the interval mean both instances took it.
            assert!(
                gap >= interval.mul_f64(0.9),
                "{app} was checked twice {gap:?} apart (interval {interval:?})"
            );
        }
    }
}
