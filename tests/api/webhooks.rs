//! Webhooks (issue 38) end to end on both databases: a Node receiver verifies every delivery with the
//! `standardwebhooks` package (`tests/e2e/webhook-receiver.mjs`), as a team's own system would.

use crate::helpers::TestApp;
use crate::org_fixtures::{
    BACKENDS, User, add_member, call, create_org, get, in_org, send, sign_up, spawn, spawn_allowing_private,
};
use reqwest::Method;
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The receiver process, stopped when dropped.
pub(crate) struct Receiver {
    child: Child,
    base: String,
    client: reqwest::Client,
}

impl Drop for Receiver {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Receiver {
    pub(crate) fn start() -> Self {
        let script = concat!(env!("CARGO_MANIFEST_DIR"), "/../e2e/webhook-receiver.mjs");
        let mut child = Command::new("node")
            .arg(script)
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("node runs the webhook receiver (tests/e2e: npm ci)");
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let port = line
            .trim()
            .strip_prefix("listening ")
            .expect("the receiver's port")
            .to_owned();
        Self {
            child,
            base: format!("http://127.0.0.1:{port}"),
            client: reqwest::Client::new(),
        }
    }

    pub(crate) fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    pub(crate) async fn secrets(&self, secrets: &[&str]) {
        let response = self
            .client
            .put(self.url("/_secrets"))
            .json(&json!({"secrets": secrets}))
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 204);
    }

    pub(crate) async fn answers(&self, answers: Value) {
        let response = self
            .client
            .put(self.url("/_answers"))
            .json(&json!({"answers": answers}))
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 204);
    }

    pub(crate) async fn received(&self) -> Vec<Value> {
        let body: Value = self
            .client
            .get(self.url("/_received"))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        body.as_array().unwrap().clone()
    }

    /// Waits until `done` holds of what arrived (at most `limit`).
    pub(crate) async fn wait_for(&self, limit: Duration, done: impl Fn(&[Value]) -> bool) -> Vec<Value> {
        let started = Instant::now();
        loop {
            let received = self.received().await;
            if done(&received) || started.elapsed() > limit {
                return received;
            }
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    }
}

pub(crate) fn types(received: &[Value]) -> Vec<String> {
    received
        .iter()
        .map(|r| r["type"].as_str().unwrap_or_default().to_owned())
        .collect()
}

pub(crate) async fn add_endpoint(
    app: &TestApp,
    admin: &User,
    org: &str,
    url: &str,
    events: Value,
) -> (String, String) {
    let (status, body) = send(
        app,
        Method::POST,
        &format!("/api/orgs/{org}/webhooks"),
        admin,
        json!({"url": url, "events": events, "description": "The team's receiver"}),
    )
    .await;
    assert_eq!(status, 201, "{body}");
    let secret = body["secret"].as_str().unwrap().to_owned();
    assert!(secret.starts_with("whsec_"), "{body}");
    (body["id"].as_str().unwrap().to_owned(), secret)
}

pub(crate) async fn deliveries(app: &TestApp, admin: &User, org: &str, id: &str) -> Vec<Value> {
    let (status, body) = get(app, &format!("/api/orgs/{org}/webhooks/{id}/deliveries"), admin).await;
    assert_eq!(status, 200, "{body}");
    body["deliveries"].as_array().unwrap().clone()
}

#[tokio::test]
async fn every_change_is_delivered_once_and_signed_so_that_standard_webhooks_verifies_it() {
    for backend in BACKENDS {
        let receiver = Receiver::start();
        let app = spawn_allowing_private(backend).await;
        let admin = sign_up(&app, "admin@example.com").await;
        let bob = sign_up(&app, "bob@example.com").await;
        let org = create_org(&app, &admin, "Acme").await;
        let (id, secret) = add_endpoint(&app, &admin, &org, &receiver.url("/hooks"), json!([])).await;
        receiver.secrets(&[&secret]).await;

        // Member events.
        add_member(&app, &admin, &org, &bob, "member").await;
        let member = format!("/api/orgs/{org}/members/{}", bob.id);
        let (status, body) = send(&app, Method::PATCH, &member, &admin, json!({"role": "admin"})).await;
        assert_eq!(status, 200, "{body}");
        let (status, body) = call(&app, Method::DELETE, &member, Some(&admin.token), None, None).await;
        assert_eq!(status, 200, "{body}");
        // App events: registered (no event), submitted, key regenerated.
        let (status, body) = send(
            &app,
            Method::PUT,
            &format!("/api/orgs/{org}"),
            &admin,
            json!({"name": "Acme", "profile": {"contactEmail": "team@example.com"}}),
        )
        .await;
        assert_eq!(status, 200, "{body}");
        let registration = json!({
            "packageName": "com.example.glow", "name": "Glow", "description": "Glows",
            "publicUrl": "https://glow.example.com", "logoURL": "https://cdn.example.com/logo.png",
        });
        let (status, body) = in_org(
            &app,
            Method::POST,
            "/api/dev/apps/register",
            &admin,
            &org,
            Some(registration),
        )
        .await;
        assert_eq!(status, 201, "{body}");
        for path in [
            "/api/dev/apps/com.example.glow/publish",
            "/api/dev/apps/com.example.glow/api-key",
        ] {
            let (status, body) = in_org(&app, Method::POST, path, &admin, &org, None).await;
            assert!(status == 200 || status == 201, "{path}: {status} {body}");
        }
        // A test from the page.
        let (status, body) = send(
            &app,
            Method::POST,
            &format!("/api/orgs/{org}/webhooks/{id}/test"),
            &admin,
            json!({}),
        )
        .await;
        assert_eq!(status, 202, "{body}");

        let expected = [
            "member.joined",
            "invitation.accepted",
            "member.role_changed",
            "member.removed",
            "app.submitted",
            "app.key_regenerated",
            "webhook.test",
        ];
        let received = receiver
            .wait_for(Duration::from_secs(20), |r| r.len() >= expected.len())
            .await;
        // Give a duplicate the time to show up.
        tokio::time::sleep(Duration::from_millis(1500)).await;
        let received = if received.len() >= expected.len() {
            receiver.received().await
        } else {
            received
        };
        let mut got = types(&received);
        got.sort();
        let mut want: Vec<String> = expected.iter().map(|t| (*t).to_owned()).collect();
        want.sort();
        assert_eq!(got, want, "{backend:?}: {received:#?}");
        for delivery in &received {
            assert_eq!(
                delivery["verifiedWith"],
                json!([0]),
                "{backend:?}: not verified: {delivery:#}"
            );
            assert!(delivery["id"].as_str().unwrap().starts_with("msg_"));
            let body: Value = serde_json::from_str(delivery["body"].as_str().unwrap()).unwrap();
            assert_eq!(body["data"]["organizationId"], org, "{body}");
            assert!(
                body["data"]["link"].as_str().unwrap().starts_with("http"),
                "{body}"
            );
            assert!(!delivery["body"].as_str().unwrap().contains("whsec_"));
        }
        let submitted = received.iter().find(|d| d["type"] == "app.submitted").unwrap();
        let body: Value = serde_json::from_str(submitted["body"].as_str().unwrap()).unwrap();
        assert_eq!(
            body["data"]["app"],
            json!({"packageName": "com.example.glow", "name": "Glow"})
        );
        let ids: std::collections::BTreeSet<&str> =
            received.iter().map(|d| d["id"].as_str().unwrap()).collect();
        assert_eq!(ids.len(), received.len(), "each delivery once");

        // The log shows each delivery as delivered, with the body sent.
        let log = deliveries(&app, &admin, &org, &id).await;
        assert_eq!(log.len(), expected.len());
        for entry in &log {
            assert_eq!(entry["status"], "DELIVERED", "{entry:#}");
            assert_eq!(entry["responseStatus"], 204);
            let sent = received.iter().find(|d| d["id"] == entry["id"]).unwrap();
            assert_eq!(entry["requestBody"], sent["body"]);
        }
    }
}

#[tokio::test]
async fn an_endpoint_wanting_some_events_gets_only_those_and_a_refused_change_sends_nothing() {
    for backend in BACKENDS {
        let receiver = Receiver::start();
        let app = spawn_allowing_private(backend).await;
        let admin = sign_up(&app, "admin@example.com").await;
        let bob = sign_up(&app, "bob@example.com").await;
        let org = create_org(&app, &admin, "Acme").await;
        let (_, secret) = add_endpoint(
            &app,
            &admin,
            &org,
            &receiver.url("/roles"),
            json!(["member.role_changed"]),
        )
        .await;
        receiver.secrets(&[&secret]).await;
        add_member(&app, &admin, &org, &bob, "member").await;
        // Refused (the only admin cannot demote themselves): rolled back, nothing sent.
        let me = format!("/api/orgs/{org}/members/{}", admin.id);
        let (status, _) = send(&app, Method::PATCH, &me, &admin, json!({"role": "member"})).await;
        assert!(status >= 400);
        let member = format!("/api/orgs/{org}/members/{}", bob.id);
        let (status, body) = send(&app, Method::PATCH, &member, &admin, json!({"role": "admin"})).await;
        assert_eq!(status, 200, "{body}");
        receiver
            .wait_for(Duration::from_secs(15), |r| !r.is_empty())
            .await;
        // Give a stray event the time to show up.
        tokio::time::sleep(Duration::from_millis(1500)).await;
        let received = receiver.received().await;
        assert_eq!(
            types(&received),
            ["member.role_changed"],
            "{backend:?}: {received:#?}"
        );
        let body: Value = serde_json::from_str(received[0]["body"].as_str().unwrap()).unwrap();
        assert_eq!(body["data"]["member"]["id"], bob.id);
        assert_eq!(body["data"]["role"], "admin");
    }
}

#[tokio::test]
async fn a_rotated_secret_signs_beside_the_new_one() {
    for backend in BACKENDS {
        let receiver = Receiver::start();
        let app = spawn_allowing_private(backend).await;
        let admin = sign_up(&app, "admin@example.com").await;
        let org = create_org(&app, &admin, "Acme").await;
        let (id, old) = add_endpoint(&app, &admin, &org, &receiver.url("/hooks"), json!([])).await;
        let (status, body) = send(
            &app,
            Method::POST,
            &format!("/api/orgs/{org}/webhooks/{id}/rotate-secret"),
            &admin,
            json!({}),
        )
        .await;
        assert_eq!(status, 200, "{body}");
        let new = body["secret"].as_str().unwrap().to_owned();
        assert_ne!(new, old);
        assert!(body["previousSecretValidUntil"].is_string(), "{body}");
        receiver
            .secrets(&[&old, &new, "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"])
            .await;
        let (status, _) = send(
            &app,
            Method::POST,
            &format!("/api/orgs/{org}/webhooks/{id}/test"),
            &admin,
            json!({}),
        )
        .await;
        assert_eq!(status, 202);
        let received = receiver
            .wait_for(Duration::from_secs(15), |r| !r.is_empty())
            .await;
        assert_eq!(received.len(), 1, "{backend:?}");
        assert_eq!(
            received[0]["verifiedWith"],
            json!([0, 1]),
            "{backend:?}: {:#}",
            received[0]
        );
        assert_eq!(received[0]["signatures"].as_str().unwrap().split(' ').count(), 2);
    }
}

#[tokio::test]
async fn a_500_is_retried_with_the_same_id_and_410_disables_the_endpoint() {
    for backend in BACKENDS {
        let receiver = Receiver::start();
        let app = spawn_allowing_private(backend).await;
        let admin = sign_up(&app, "admin@example.com").await;
        let org = create_org(&app, &admin, "Acme").await;
        let (id, secret) = add_endpoint(&app, &admin, &org, &receiver.url("/hooks"), json!([])).await;
        receiver.secrets(&[&secret]).await;
        receiver.answers(json!([{"status": 500}])).await;
        let test = format!("/api/orgs/{org}/webhooks/{id}/test");
        let (status, body) = send(&app, Method::POST, &test, &admin, json!({})).await;
        assert_eq!(status, 202, "{body}");
        let delivery = body["deliveryId"].as_str().unwrap().to_owned();
        // The first retry comes about 5 s later (±1 s).
        let received = receiver.wait_for(Duration::from_secs(15), |r| r.len() >= 2).await;
        assert_eq!(received.len(), 2, "{backend:?}: {received:#?}");
        assert!(
            received
                .iter()
                .all(|d| d["id"] == delivery.as_str() && d["verifiedWith"] == json!([0]))
        );
        let log = deliveries(&app, &admin, &org, &id).await;
        assert_eq!(
            (log[0]["status"].clone(), log[0]["attempts"].clone()),
            (json!("DELIVERED"), json!(2))
        );

        // 410 Gone: disabled at once, the audit log says so.
        receiver.answers(json!([{"status": 410}])).await;
        let (status, _) = send(&app, Method::POST, &test, &admin, json!({})).await;
        assert_eq!(status, 202);
        let started = Instant::now();
        let endpoint = loop {
            let (_, endpoint) = get(&app, &format!("/api/orgs/{org}/webhooks/{id}"), &admin).await;
            if endpoint["enabled"] == false || started.elapsed() > Duration::from_secs(15) {
                break endpoint;
            }
            tokio::time::sleep(Duration::from_millis(200)).await;
        };
        assert_eq!(
            (endpoint["enabled"].clone(), endpoint["disabledReason"].clone()),
            (json!(false), json!("GONE"))
        );
        let (_, log) = get(
            &app,
            &format!("/api/orgs/{org}/audit-log?action=webhook.disabled"),
            &admin,
        )
        .await;
        assert_eq!(log["data"]["entries"].as_array().map(Vec::len), Some(1), "{log}");
        // Nothing more is sent to it.
        let before = receiver.received().await.len();
        let (status, _) = send(&app, Method::POST, &test, &admin, json!({})).await;
        assert_eq!(status, 202);
        tokio::time::sleep(Duration::from_secs(2)).await;
        assert_eq!(receiver.received().await.len(), before);
    }
}

#[tokio::test]
async fn private_targets_are_refused_at_creation_and_members_cannot_manage_webhooks() {
    for backend in BACKENDS {
        let app = spawn(backend).await;
        let admin = sign_up(&app, "admin@example.com").await;
        let member = sign_up(&app, "member@example.com").await;
        let org = create_org(&app, &admin, "Acme").await;
        add_member(&app, &admin, &org, &member, "member").await;
        let path = format!("/api/orgs/{org}/webhooks");
        let mut refusals = BTreeMap::new();
        for url in [
            "https://127.0.0.1/hook",
            "https://localhost/hook",
            "https://169.254.169.254/latest/meta-data",
            "https://[::1]/hook",
            "http://127.0.0.1:9/hook",
            "ftp://example.com/hook",
        ] {
            let (status, body) = send(&app, Method::POST, &path, &admin, json!({"url": url})).await;
            refusals.insert(
                url,
                (status, body["code"].clone(), body["fields"]["url"].is_string()),
            );
        }
        assert!(
            refusals.values().all(|r| *r == (400, json!("VALIDATION"), true)),
            "{backend:?}: {refusals:#?}"
        );
        let (status, body) = send(
            &app,
            Method::POST,
            &path,
            &member,
            json!({"url": "https://example.com/x"}),
        )
        .await;
        assert_eq!(
            (status, body["error"].as_str()),
            (403, Some("Only organization admins can manage webhooks."))
        );
        let (status, _) = get(&app, &path, &member).await;
        assert_eq!(status, 403);
        let (status, body) = get(&app, &path, &admin).await;
        assert_eq!(status, 200, "{body}");
        assert_eq!(body["endpoints"], json!([]));
        assert_eq!(body["eventTypes"].as_array().map(Vec::len), Some(11), "{body}");
    }
}

#[tokio::test]
async fn two_instances_on_one_database_deliver_each_event_once() {
    for backend in BACKENDS {
        let receiver = Receiver::start();
        let first = spawn_allowing_private(backend).await;
        let data = tempfile::tempdir().unwrap();
        let second_address = first
            .second_instance(
                &data,
                &[
                    ("PORTAL_PUBLIC_URL", crate::org_fixtures::PUBLIC_URL),
                    ("PORTAL_WEBHOOKS_ALLOW_PRIVATE_TARGETS", "true"),
                    ("PORTAL_WEBHOOK_WORKER", "true"),
                ],
            )
            .await;
        let _second = first.view_at(second_address);
        let admin = sign_up(&first, "admin@example.com").await;
        let org = create_org(&first, &admin, "Acme").await;
        let (id, secret) = add_endpoint(&first, &admin, &org, &receiver.url("/hooks"), json!([])).await;
        receiver.secrets(&[&secret]).await;
        // Slow answers keep deliveries in flight while both instances claim.
        receiver
            .answers(json!(
                (0..30)
                    .map(|_| json!({"status": 200, "delayMs": 100}))
                    .collect::<Vec<_>>()
            ))
            .await;
        let test = format!("/api/orgs/{org}/webhooks/{id}/test");
        let mut queued = Vec::new();
        for _ in 0..30 {
            let (status, body) = send(&first, Method::POST, &test, &admin, json!({})).await;
            assert_eq!(status, 202, "{body}");
            queued.push(body["deliveryId"].as_str().unwrap().to_owned());
        }
        receiver
            .wait_for(Duration::from_secs(30), |r| r.len() >= queued.len())
            .await;
        tokio::time::sleep(Duration::from_secs(2)).await;
        let received = receiver.received().await;
        let mut ids: Vec<String> = received
            .iter()
            .map(|d| d["id"].as_str().unwrap().to_owned())
            .collect();
        ids.sort();
        queued.sort();
        assert_eq!(ids, queued, "{backend:?}: each delivery exactly once");
    }
}
