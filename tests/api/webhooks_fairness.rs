//! Issue 47, findings 4, 8 and 9, end to end on both databases: one organization's endpoints that accept a
//! connection and never answer hold at most its share of the delivery worker, and another organization's
//! test is delivered while they hang; "Send test" and "Retry" are limited per endpoint and per organization
//! with a 429 that says when to try again; signing secrets are stored sealed (those stored in the clear are
//! sealed when a server starts) and still sign; webhooks reach private targets only with their own setting,
//! and what such a target answers is not kept.

use crate::helpers::{TestApp, spawn_app_with};
use crate::org_fixtures::{BACKENDS, PUBLIC_URL, User, create_org, sign_up};
use crate::webhooks::{Receiver, add_endpoint, deliveries};
use adapter_db::Db;
use diesel::prelude::*;
use serde_json::{Value, json};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};
use tokio::io::AsyncReadExt;

/// The worker's share of one organization (`app_server::webhooks::PER_ORG`).
const PER_ORG: usize = 8;

/// A server delivering to this machine, whose attempts may take 30 s: an endpoint that never answers holds
/// its attempt for the whole test.
async fn spawn_patient(backend: adapter_db::Backend) -> TestApp {
    spawn_app_with(
        backend,
        &[
            ("PORTAL_PUBLIC_URL", PUBLIC_URL),
            ("PORTAL_WEBHOOKS_ALLOW_PRIVATE_TARGETS", "true"),
            ("PORTAL_WEBHOOK_WORKER", "true"),
            ("PORTAL_WEBHOOK_TIMEOUT_SECS", "30"),
        ],
    )
    .await
}

/// Takes every connection and never answers; counts the connections open and those the client closed.
struct Hanging {
    base: String,
    open: Arc<AtomicUsize>,
    closed: Arc<AtomicUsize>,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for Hanging {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl Hanging {
    async fn start() -> Self {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        let (open, closed) = (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0)));
        let (opened, ended) = (open.clone(), closed.clone());
        let task = tokio::spawn(async move {
            while let Ok((mut socket, _)) = listener.accept().await {
                let (opened, ended) = (opened.clone(), ended.clone());
                opened.fetch_add(1, Ordering::SeqCst);
                tokio::spawn(async move {
                    let mut sink = [0u8; 4096];
                    while matches!(socket.read(&mut sink).await, Ok(n) if n > 0) {}
                    opened.fetch_sub(1, Ordering::SeqCst);
                    ended.fetch_add(1, Ordering::SeqCst);
                });
            }
        });
        Self {
            base,
            open,
            closed,
            task,
        }
    }

    fn open(&self) -> usize {
        self.open.load(Ordering::SeqCst)
    }
}

/// Presses "Send test": (status, `Retry-After`, body).
async fn press_test(app: &TestApp, admin: &User, org: &str, endpoint: &str) -> (u16, Option<u64>, Value) {
    let response = app
        .client
        .post(app.url(&format!("/api/orgs/{org}/webhooks/{endpoint}/test")))
        .bearer_auth(&admin.token)
        .send()
        .await
        .unwrap();
    let status = response.status().as_u16();
    let retry_after = response
        .headers()
        .get("retry-after")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse().ok());
    (status, retry_after, response.json().await.unwrap_or(Value::Null))
}

/// Waits (at most `limit`) until `done` holds.
async fn until(limit: Duration, done: impl Fn() -> bool) -> bool {
    let started = Instant::now();
    while !done() {
        if started.elapsed() > limit {
            return false;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    true
}

#[tokio::test]
async fn an_organization_whose_endpoints_never_answer_holds_its_share_and_another_s_test_is_delivered() {
    for backend in BACKENDS {
        let app = spawn_patient(backend).await;
        let hanging = Hanging::start().await;
        let busy_admin = sign_up(&app, "busy@example.com").await;
        let busy = create_org(&app, &busy_admin, "Busy").await;
        let mut hooks = Vec::new();
        for n in 0..8 {
            let url = format!("{}/hang/{n}", hanging.base);
            hooks.push(add_endpoint(&app, &busy_admin, &busy, &url, json!([])).await.0);
        }

        // Five tests to one endpoint in a minute; the sixth is refused, saying when to try again.
        for _ in 0..5 {
            assert_eq!(press_test(&app, &busy_admin, &busy, &hooks[0]).await.0, 202);
        }
        let (status, retry_after, body) = press_test(&app, &busy_admin, &busy, &hooks[0]).await;
        assert_eq!(
            (status, body["code"].as_str()),
            (429, Some("RATE_LIMITED")),
            "{body}"
        );
        let message = body["error"].as_str().unwrap();
        assert!(
            message.starts_with("This endpoint has had 5 tests and retries in the last minute, the most allowed. Try again in "),
            "{message}"
        );
        let retry_after = retry_after.unwrap();
        assert!((1..=60).contains(&retry_after), "{retry_after}");
        assert!(
            message.ends_with(&format!("{retry_after} seconds.")) || message.ends_with("1 second."),
            "{message}"
        );

        // Fifteen more across the other endpoints make the organization's twenty; the next is refused.
        for endpoint in hooks[1..].iter().cycle().take(15) {
            assert_eq!(press_test(&app, &busy_admin, &busy, endpoint).await.0, 202);
        }
        let (status, _, body) = press_test(&app, &busy_admin, &busy, &hooks[7]).await;
        assert_eq!(status, 429, "{body}");
        assert!(
            body["error"]
                .as_str()
                .unwrap()
                .starts_with("Your organization has sent 20 webhook tests and retries in the last minute"),
            "{body}"
        );

        // Its twenty tests hang at the receiver: never more at once than its share of the worker.
        assert!(
            until(Duration::from_secs(20), || hanging.open() >= PER_ORG).await,
            "the busy organization's attempts started ({} open)",
            hanging.open()
        );
        tokio::time::sleep(Duration::from_secs(2)).await;
        assert_eq!(hanging.open(), PER_ORG, "at most its share of the worker at once");

        // Another organization's test is claimed and delivered while all of those still hang.
        let receiver = Receiver::start();
        let quiet_admin = sign_up(&app, "quiet@example.com").await;
        let quiet = create_org(&app, &quiet_admin, "Quiet").await;
        let (hook, secret) = add_endpoint(&app, &quiet_admin, &quiet, &receiver.url("/in"), json!([])).await;
        receiver.secrets(&[&secret]).await;
        assert_eq!(press_test(&app, &quiet_admin, &quiet, &hook).await.0, 202);
        let received = receiver
            .wait_for(Duration::from_secs(20), |r| !r.is_empty())
            .await;
        assert_eq!(received.len(), 1, "the quiet organization's test arrived");
        assert_eq!(received[0]["verifiedWith"], json!([0]), "signed with its secret");
        assert_eq!(
            (hanging.open(), hanging.closed.load(Ordering::SeqCst)),
            (PER_ORG, 0),
            "delivered while the busy organization's attempts still hang"
        );
    }
}

/// The stored secret columns of endpoint `id`: (current, previous).
fn stored_secrets(app: &TestApp, id: &str) -> (String, Option<String>) {
    use adapter_db::schema::webhook_endpoints as e;
    let db = Db::connect(&app.database_url, 1).unwrap();
    let mut conn = db.connection().unwrap();
    e::table
        .find(id)
        .select((e::secret, e::previous_secret))
        .first(&mut *conn)
        .unwrap()
}

fn store_secret(app: &TestApp, id: &str, secret: &str) {
    use adapter_db::schema::webhook_endpoints as e;
    let db = Db::connect(&app.database_url, 1).unwrap();
    let mut conn = db.connection().unwrap();
    let changed = diesel::update(e::table.find(id))
        .set(e::secret.eq(secret))
        .execute(&mut *conn)
        .unwrap();
    assert_eq!(changed, 1);
}

fn hides(stored: &str, secret: &str) {
    assert!(stored.starts_with("v1:"), "{stored}");
    assert!(
        !stored.contains(secret.trim_start_matches("whsec_")),
        "the stored value holds the secret"
    );
}

#[tokio::test]
async fn signing_secrets_are_stored_sealed_and_still_sign_and_those_in_the_clear_are_sealed_at_start() {
    for backend in BACKENDS {
        let receiver = Receiver::start();
        let app = spawn_patient(backend).await;
        let admin = sign_up(&app, "admin@example.com").await;
        let org = create_org(&app, &admin, "Acme").await;
        let (id, first) = add_endpoint(&app, &admin, &org, &receiver.url("/in"), json!([])).await;
        let (current, previous) = stored_secrets(&app, &id);
        hides(&current, &first);
        assert_eq!(previous, None);

        let (status, body) = crate::org_fixtures::send(
            &app,
            reqwest::Method::POST,
            &format!("/api/orgs/{org}/webhooks/{id}/rotate-secret"),
            &admin,
            json!({}),
        )
        .await;
        assert_eq!(status, 200, "{body}");
        let second = body["secret"].as_str().unwrap().to_owned();
        let (current, previous) = stored_secrets(&app, &id);
        hides(&current, &second);
        hides(previous.as_deref().unwrap(), &first);

        // Both still sign: the receiver verifies the test with each.
        receiver.secrets(&[&second, &first]).await;
        assert_eq!(press_test(&app, &admin, &org, &id).await.0, 202);
        let received = receiver
            .wait_for(Duration::from_secs(20), |r| !r.is_empty())
            .await;
        assert_eq!(received.len(), 1);
        assert_eq!(received[0]["verifiedWith"], json!([0, 1]));

        // A row written in the clear (before secrets were sealed) is sealed when a server starts, and
        // signs as before.
        store_secret(&app, &id, &second);
        let data = tempfile::tempdir().unwrap();
        let address = app
            .second_instance(
                &data,
                &[
                    ("PORTAL_PUBLIC_URL", PUBLIC_URL),
                    ("PORTAL_WEBHOOKS_ALLOW_PRIVATE_TARGETS", "true"),
                    ("PORTAL_WEBHOOK_WORKER", "true"),
                ],
            )
            .await;
        let _second = app.view_at(address);
        hides(&stored_secrets(&app, &id).0, &second);
        assert_eq!(press_test(&app, &admin, &org, &id).await.0, 202);
        let received = receiver.wait_for(Duration::from_secs(20), |r| r.len() == 2).await;
        assert_eq!(received.len(), 2);
        assert_eq!(received[1]["verifiedWith"], json!([0, 1]));
    }
}

#[tokio::test]
async fn webhooks_reach_private_targets_only_with_their_own_setting_and_keep_no_answer_from_them() {
    for backend in BACKENDS {
        let receiver = Receiver::start();
        // The monitor's setting alone: a webhook endpoint on this machine is refused.
        let monitor_only = spawn_app_with(
            backend,
            &[
                ("PORTAL_PUBLIC_URL", PUBLIC_URL),
                ("PORTAL_ALLOW_PRIVATE_TARGETS", "true"),
            ],
        )
        .await;
        let admin = sign_up(&monitor_only, "admin@example.com").await;
        let org = create_org(&monitor_only, &admin, "Acme").await;
        let (status, body) = crate::org_fixtures::send(
            &monitor_only,
            reqwest::Method::POST,
            &format!("/api/orgs/{org}/webhooks"),
            &admin,
            json!({"url": receiver.url("/in"), "events": []}),
        )
        .await;
        assert_eq!(status, 400, "{body}");
        drop(monitor_only);

        // With the webhooks' setting it is reached, and its answer's body is not kept in the log.
        let app = spawn_patient(backend).await;
        let admin = sign_up(&app, "admin@example.com").await;
        let org = create_org(&app, &admin, "Acme").await;
        let (id, secret) = add_endpoint(&app, &admin, &org, &receiver.url("/in"), json!([])).await;
        receiver.secrets(&[&secret]).await;
        receiver.answers(json!([{"status": 200}])).await;
        assert_eq!(press_test(&app, &admin, &org, &id).await.0, 202);
        let started = Instant::now();
        let log = loop {
            let log = deliveries(&app, &admin, &org, &id).await;
            if log.iter().any(|d| d["status"] == "DELIVERED") || started.elapsed() > Duration::from_secs(20) {
                break log;
            }
            tokio::time::sleep(Duration::from_millis(200)).await;
        };
        assert_eq!(log[0]["status"], "DELIVERED", "{log:#?}");
        assert_eq!(log[0]["responseStatus"], 200);
        assert_eq!(
            log[0]["responseBody"],
            Value::Null,
            "what a private target answers is not kept"
        );
    }
}
