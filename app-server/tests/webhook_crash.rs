//! A crash loses no webhook event: many deliveries are queued to a local receiver that answers slowly, the
//! `app-server` process is killed with SIGKILL while some are being sent, and a new process on the same
//! database sends the rest. Every queued delivery arrives at least once; a delivery sent again carries the
//! `webhook-id` and body it had (the receiver can drop the duplicate); the ones in flight at the kill are
//! sent again once their lease ends. On SQLite and PostgreSQL.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use actix_web::{App, HttpRequest, HttpResponse, HttpServer, web};
use adapter_db::testing::fresh;
use adapter_db::{Backend, Db};
use diesel::prelude::*;
use serde_json::{Value, json};
use std::collections::{BTreeMap, BTreeSet};
use std::process::Child;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

mod support;

/// Deliveries queued in all.
const EVENTS: usize = 80;
/// How long the receiver takes to answer each (well within the server's time limit).
const ANSWER_DELAY: Duration = Duration::from_millis(300);
/// The server's time limit for an answer (`PORTAL_WEBHOOK_TIMEOUT_SECS`): a claim then lasts 13 s.
const TIMEOUT_SECS: &str = "2";

/// What the receiver saw.
#[derive(Default)]
struct Seen {
    /// Every request, in order of arrival: (`webhook-id`, body).
    received: Vec<(String, String)>,
    /// The requests not answered yet: request number → `webhook-id`.
    in_flight: BTreeMap<usize, String>,
}

/// Takes a request off the in-flight list when its handler ends, answered or dropped.
struct Answering(Arc<Mutex<Seen>>, usize);

impl Drop for Answering {
    fn drop(&mut self) {
        self.0.lock().unwrap().in_flight.remove(&self.1);
    }
}

/// A receiver on loopback that records every delivery and answers 204 after [`ANSWER_DELAY`].
fn receiver(seen: Arc<Mutex<Seen>>) -> String {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let address = listener.local_addr().unwrap();
    let server = HttpServer::new(move || {
        let seen = seen.clone();
        App::new().default_service(web::to(move |request: HttpRequest, body: web::Bytes| {
            let seen = seen.clone();
            async move {
                let id = request
                    .headers()
                    .get("webhook-id")
                    .and_then(|v| v.to_str().ok())
                    .unwrap_or_default()
                    .to_owned();
                let number = {
                    let mut seen = seen.lock().unwrap();
                    seen.received
                        .push((id.clone(), String::from_utf8_lossy(&body).into_owned()));
                    let number = seen.received.len();
                    seen.in_flight.insert(number, id);
                    number
                };
                let _answering = Answering(seen, number);
                tokio::time::sleep(ANSWER_DELAY).await;
                HttpResponse::NoContent().finish()
            }
        }))
    })
    .workers(2)
    .listen(listener)
    .unwrap()
    .run();
    tokio::spawn(server);
    format!("http://{address}/hooks")
}

/// `app-server serve` on `database_url` delivering webhooks to loopback; the public URL (in every body's
/// link, and in tokens) is the same whichever process serves.
fn start(database_url: &str, data: &std::path::Path) -> (Child, u16, String) {
    let port = support::free_port();
    let child = support::serve(
        database_url,
        data,
        port,
        &[
            ("PORTAL_PUBLIC_URL", "http://portal.test"),
            ("PORTAL_WEBHOOKS_ALLOW_PRIVATE_TARGETS", "true"),
            ("PORTAL_WEBHOOK_WORKER", "true"),
            ("PORTAL_WEBHOOK_TIMEOUT_SECS", TIMEOUT_SECS),
            // Its tests are many tests to one endpoint, more than an admin may press in a minute.
            ("PORTAL_WEBHOOK_SENDS_PER_ENDPOINT", "1000"),
            ("PORTAL_WEBHOOK_SENDS_PER_ORG", "1000"),
        ],
    );
    (child, port, format!("http://127.0.0.1:{port}"))
}

async fn json_of(response: reqwest::Response) -> Value {
    let status = response.status();
    let body: Value = response.json().await.unwrap_or(Value::Null);
    assert!(status.is_success(), "{status}: {body}");
    body
}

/// Signs up, makes an organization with one endpoint at `url`: (core token, organization, endpoint).
async fn set_up(client: &reqwest::Client, base: &str, url: &str) -> (String, String, String) {
    let session = json_of(
        client
            .post(format!("{base}/auth/v1/signup"))
            .header("apikey", "built-in")
            .json(&json!({"email": "admin@example.com", "password": "a sufficiently long passphrase 42"}))
            .send()
            .await
            .unwrap(),
    )
    .await;
    let access = session["access_token"].as_str().expect("a session: no SMTP");
    let exchanged = json_of(
        client
            .post(format!("{base}/api/auth/exchange-token"))
            .json(&json!({"supabaseToken": access}))
            .send()
            .await
            .unwrap(),
    )
    .await;
    let token = exchanged["coreToken"].as_str().unwrap().to_owned();
    let org = json_of(
        client
            .post(format!("{base}/api/orgs"))
            .bearer_auth(&token)
            .json(&json!({"name": "Acme"}))
            .send()
            .await
            .unwrap(),
    )
    .await["data"]["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let endpoint = json_of(
        client
            .post(format!("{base}/api/orgs/{org}/webhooks"))
            .bearer_auth(&token)
            .json(&json!({"url": url}))
            .send()
            .await
            .unwrap(),
    )
    .await["id"]
        .as_str()
        .unwrap()
        .to_owned();
    (token, org, endpoint)
}

/// The stored status of every delivery: id → status.
fn statuses(database_url: &str) -> BTreeMap<String, String> {
    use adapter_db::schema::webhook_deliveries as d;
    let db = Db::connect(database_url, 1).unwrap();
    let mut conn = db.connection().unwrap();
    d::table
        .select((d::id, d::status))
        .load::<(String, String)>(&mut *conn)
        .unwrap()
        .into_iter()
        .collect()
}

async fn kill_during_deliveries(backend: Backend) {
    let test_db = fresh(backend);
    let data = tempfile::tempdir().unwrap();
    let seen: Arc<Mutex<Seen>> = Arc::default();
    let url = receiver(seen.clone());
    let (mut server, port, base) = start(test_db.url(), data.path());
    support::wait_until_up(&mut server, port).await;
    let client = reqwest::Client::new();
    let (token, org, endpoint) = set_up(&client, &base, &url).await;

    // Queue the deliveries (each a committed change answered 202); the worker starts sending at once.
    let mut queued = BTreeSet::new();
    for _ in 0..EVENTS {
        let body = json_of(
            client
                .post(format!("{base}/api/orgs/{org}/webhooks/{endpoint}/test"))
                .bearer_auth(&token)
                .json(&json!({}))
                .send()
                .await
                .unwrap(),
        )
        .await;
        queued.insert(body["deliveryId"].as_str().unwrap().to_owned());
    }
    assert_eq!(queued.len(), EVENTS);

    // Kill it while deliveries are in flight (sent, their answers not yet back) and others wait.
    let started = Instant::now();
    let in_flight: BTreeSet<String> = loop {
        {
            let seen = seen.lock().unwrap();
            if seen.received.len() >= EVENTS / 5 && !seen.in_flight.is_empty() {
                server.kill().unwrap(); // SIGKILL: no shutdown, no attempt recorded.
                break seen.in_flight.values().cloned().collect();
            }
        }
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "{backend:?}: the deliveries did not start"
        );
        tokio::time::sleep(Duration::from_millis(5)).await;
    };
    server.wait().unwrap();
    let before_restart = seen.lock().unwrap().received.len();
    assert!(
        before_restart < EVENTS,
        "{backend:?}: every delivery was made before the kill ({before_restart})"
    );

    let (mut restarted, port, _) = start(test_db.url(), data.path());
    support::wait_until_up(&mut restarted, port).await;
    let started = Instant::now();
    loop {
        let arrived: BTreeSet<String> = seen
            .lock()
            .unwrap()
            .received
            .iter()
            .map(|(id, _)| id.clone())
            .collect();
        let stored = statuses(test_db.url());
        if arrived.is_superset(&queued) && stored.values().all(|s| s == "DELIVERED") {
            break;
        }
        assert!(
            started.elapsed() < Duration::from_secs(90),
            "{backend:?}: {} of {EVENTS} deliveries arrived after the restart; stored: {stored:?}",
            arrived.intersection(&queued).count()
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    // A duplicate has the time to show up.
    tokio::time::sleep(Duration::from_secs(1)).await;
    restarted.kill().unwrap();
    restarted.wait().unwrap();

    let seen = seen.lock().unwrap();
    let mut bodies: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
    let mut times: BTreeMap<&str, usize> = BTreeMap::new();
    for (id, body) in &seen.received {
        bodies.entry(id).or_default().insert(body);
        *times.entry(id).or_default() += 1;
    }
    let arrived: BTreeSet<String> = bodies.keys().map(|id| (*id).to_owned()).collect();
    assert_eq!(
        arrived, queued,
        "{backend:?}: every queued delivery arrives, and nothing else"
    );
    for (id, sent) in &bodies {
        assert_eq!(
            sent.len(),
            1,
            "{backend:?}: {id} was sent again with another body"
        );
    }
    for id in &in_flight {
        assert!(
            times[id.as_str()] >= 2,
            "{backend:?}: {id}, in flight at the kill, was not sent again"
        );
    }
    let duplicates = seen.received.len() - queued.len();
    eprintln!(
        "{backend:?}: {before_restart} requests before the kill ({} in flight), {} in all for {EVENTS} \
         deliveries ({duplicates} sent again with their webhook-id)",
        in_flight.len(),
        seen.received.len()
    );
}

#[actix_web::test]
async fn no_webhook_event_is_lost_to_a_kill_during_deliveries_on_sqlite() {
    kill_during_deliveries(Backend::Sqlite).await;
}

#[actix_web::test]
async fn no_webhook_event_is_lost_to_a_kill_during_deliveries_on_postgres() {
    kill_during_deliveries(Backend::Postgres).await;
}
