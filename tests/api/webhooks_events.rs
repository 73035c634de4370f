//! The webhook deliveries `webhooks.rs` leaves out, on SQLite and PostgreSQL, each verified by the
//! `standardwebhooks` package of the Node receiver: a delivery whose answer comes after the time limit is
//! tried again with the same `webhook-id`; the review decisions (`app.approved`, `app.rejected` with the
//! reviewer's notes, `app.published_changed` both ways) and the uptime monitor's `app.offline` and
//! `app.online` are each delivered once per change, with the payload the README documents; and a secret
//! in an endpoint's URL stays out of the audit log and the "endpoint disabled" e-mail.

use crate::helpers::{TestApp, spawn_app_with};
use crate::org_fixtures::{BACKENDS, PUBLIC_URL, User, create_org, get, in_org, send, sign_in, sign_up};
use crate::webhooks::{Receiver, add_endpoint, deliveries, types};
use adapter_db::{Backend, Db};
use app_server::admin_cli::{self, AdminCommand};
use reqwest::Method;
use serde_json::{Value, json};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

const PACKAGE: &str = "com.example.glow";

/// A server that delivers webhooks to this machine, with `extra` settings on top.
async fn spawn_delivering(backend: Backend, extra: &[(&str, &str)]) -> TestApp {
    let vars: Vec<(&str, &str)> = [
        ("PORTAL_PUBLIC_URL", PUBLIC_URL),
        // The monitor checks apps on this machine; webhooks go to a receiver on it.
        ("PORTAL_ALLOW_PRIVATE_TARGETS", "true"),
        ("PORTAL_WEBHOOKS_ALLOW_PRIVATE_TARGETS", "true"),
        ("PORTAL_WEBHOOK_WORKER", "true"),
    ]
    .into_iter()
    .chain(extra.iter().copied())
    .collect();
    spawn_app_with(backend, &vars).await
}

/// Polls `read` (every 200 ms, at most `limit`) until `done` holds of its answer; answers the last one.
async fn poll<T, F, Fut>(limit: Duration, read: F, done: impl Fn(&T) -> bool) -> T
where
    F: Fn() -> Fut,
    Fut: std::future::Future<Output = T>,
{
    let started = Instant::now();
    loop {
        let value = read().await;
        if done(&value) || started.elapsed() > limit {
            return value;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

/// The parsed body of a received delivery.
fn body_of(delivery: &Value) -> Value {
    serde_json::from_str(delivery["body"].as_str().unwrap()).unwrap()
}

/// What arrived, once `count` deliveries came and a duplicate had the time to follow.
async fn settled(receiver: &Receiver, count: usize) -> Vec<Value> {
    receiver
        .wait_for(Duration::from_secs(20), |r| r.len() >= count)
        .await;
    tokio::time::sleep(Duration::from_millis(1500)).await;
    receiver.received().await
}

/// Gives `org` its contact e-mail and registers [`PACKAGE`] with `public_url`.
async fn register_app(app: &TestApp, admin: &User, org: &str, public_url: &str) {
    let (status, body) = send(
        app,
        Method::PUT,
        &format!("/api/orgs/{org}"),
        admin,
        json!({"name": "Acme", "profile": {"contactEmail": "team@example.com"}}),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    let registration = json!({
        "packageName": PACKAGE, "name": "Glow", "description": "Glows",
        "publicUrl": public_url, "logoURL": "https://cdn.example.com/logo.png",
        "permissions": [{"type": "MICROPHONE", "description": "To hear"}],
    });
    let (status, body) = in_org(
        app,
        Method::POST,
        "/api/dev/apps/register",
        admin,
        org,
        Some(registration),
    )
    .await;
    assert_eq!(status, 201, "{body}");
}

async fn submit(app: &TestApp, admin: &User, org: &str) {
    let path = format!("/api/dev/apps/{PACKAGE}/publish");
    let (status, body) = in_org(app, Method::POST, &path, admin, org, None).await;
    assert_eq!(
        (status, body["appStoreStatus"].as_str()),
        (200, Some("SUBMITTED")),
        "{body}"
    );
}

/// The `data` every app event carries, besides its own members.
fn app_data(org: &str, name: &str, extra: Value) -> Value {
    let mut data = json!({
        "organizationId": org,
        "app": {"packageName": PACKAGE, "name": name},
        "link": format!("{PUBLIC_URL}/apps/{PACKAGE}/edit"),
    });
    for (key, value) in extra.as_object().unwrap() {
        data[key] = value.clone();
    }
    data
}

#[tokio::test]
async fn an_answer_after_the_time_limit_is_a_failed_attempt_tried_again_with_the_same_id() {
    for backend in BACKENDS {
        let receiver = Receiver::start();
        let app = spawn_delivering(backend, &[("PORTAL_WEBHOOK_TIMEOUT_SECS", "1")]).await;
        let admin = sign_up(&app, "admin@example.com").await;
        let org = create_org(&app, &admin, "Acme").await;
        let (id, secret) = add_endpoint(&app, &admin, &org, &receiver.url("/hooks"), json!([])).await;
        receiver.secrets(&[&secret]).await;
        // The first answer comes 3 s after the request (past the 1 s limit); the next at once.
        receiver.answers(json!([{"status": 204, "delayMs": 3000}])).await;
        let (status, body) = send(
            &app,
            Method::POST,
            &format!("/api/orgs/{org}/webhooks/{id}/test"),
            &admin,
            json!({}),
        )
        .await;
        assert_eq!(status, 202, "{body}");
        let delivery = body["deliveryId"].as_str().unwrap().to_owned();

        // The first attempt is recorded as failed for want of an answer, and waits for its retry.
        let log = poll(
            Duration::from_secs(10),
            || deliveries(&app, &admin, &org, &id),
            |log| log[0]["attempts"] != 0,
        )
        .await;
        let first = &log[0];
        assert_eq!(
            (
                first["status"].clone(),
                first["attempts"].clone(),
                first["responseStatus"].clone(),
                first["error"].clone()
            ),
            (
                json!("PENDING"),
                json!(1),
                Value::Null,
                json!("no answer within the time limit")
            ),
            "{backend:?}: {first:#}"
        );
        assert!(first["nextAttemptAt"].is_string(), "{first:#}");

        // The retry (about 5 s later) carries the same id and body, and is answered in time.
        let received = receiver.wait_for(Duration::from_secs(20), |r| r.len() >= 2).await;
        assert_eq!(received.len(), 2, "{backend:?}: {received:#?}");
        for attempt in &received {
            assert_eq!(attempt["id"], delivery.as_str(), "{backend:?}");
            assert_eq!(attempt["verifiedWith"], json!([0]), "{backend:?}: {attempt:#}");
            assert_eq!(attempt["body"], received[0]["body"]);
        }
        let log = poll(
            Duration::from_secs(10),
            || deliveries(&app, &admin, &org, &id),
            |log| log[0]["status"] == "DELIVERED",
        )
        .await;
        assert_eq!(
            (
                log[0]["status"].clone(),
                log[0]["attempts"].clone(),
                log[0]["responseStatus"].clone()
            ),
            (json!("DELIVERED"), json!(2), json!(204)),
            "{backend:?}: {:#}",
            log[0]
        );
        tokio::time::sleep(Duration::from_millis(1000)).await;
        assert_eq!(receiver.received().await.len(), 2, "{backend:?}: nothing more");
    }
}

/// A platform reviewer (granted by the command line), signed in again so that the session carries it.
async fn reviewer(app: &TestApp) -> User {
    let email = "reviewer@portal.example.com";
    sign_up(app, email).await;
    admin_cli::run(
        &Db::connect(&app.database_url, 1).unwrap(),
        AdminCommand::Grant {
            email: email.into(),
            role: "reviewer".into(),
        },
    )
    .await
    .unwrap();
    sign_in(app, email).await
}

/// The reviewer decides on [`PACKAGE`] (`approve` or `reject`) with `notes`.
async fn decide(app: &TestApp, reviewer: &User, action: &str, notes: &str) -> Value {
    let (status, seen) = get(app, &format!("/api/admin/apps/{PACKAGE}"), reviewer).await;
    assert_eq!(status, 200, "{seen}");
    let (status, body) = send(
        app,
        Method::POST,
        &format!("/api/admin/apps/{PACKAGE}/{action}"),
        reviewer,
        json!({"notes": notes, "expectedUpdatedAt": seen["updatedAt"]}),
    )
    .await;
    assert_eq!(status, 200, "{action}: {body}");
    body
}

#[tokio::test]
async fn review_decisions_and_unpublishing_are_each_delivered_once_with_their_payload() {
    for backend in BACKENDS {
        let receiver = Receiver::start();
        let app = spawn_delivering(backend, &[]).await;
        let admin = sign_up(&app, "admin@example.com").await;
        let reviewer = reviewer(&app).await;
        let org = create_org(&app, &admin, "Acme").await;
        let (_, secret) = add_endpoint(
            &app,
            &admin,
            &org,
            &receiver.url("/reviews"),
            json!(["app.approved", "app.rejected", "app.published_changed"]),
        )
        .await;
        receiver.secrets(&[&secret]).await;
        register_app(&app, &admin, &org, "https://glow.example.com").await;

        // Submitted, rejected with notes, resubmitted (neither publishes nor unpublishes: no event of these).
        submit(&app, &admin, &org).await;
        let rejected = decide(&app, &reviewer, "reject", "Add a privacy policy").await;
        assert_eq!(rejected["appStoreStatus"], "REJECTED", "{rejected}");
        let received = settled(&receiver, 1).await;
        assert_eq!(types(&received), ["app.rejected"], "{backend:?}: {received:#?}");
        let body = body_of(&received[0]);
        assert_eq!(body["type"], "app.rejected");
        assert_eq!(
            body["data"],
            app_data(&org, "Glow", json!({"reviewNotes": "Add a privacy policy"})),
            "{backend:?}"
        );
        submit(&app, &admin, &org).await;

        // Approved: approved and published, once each.
        decide(&app, &reviewer, "approve", " Looks great ").await;
        let received = settled(&receiver, 3).await;
        let mut got = types(&received);
        got.sort();
        assert_eq!(
            got,
            ["app.approved", "app.published_changed", "app.rejected"],
            "{backend:?}: {received:#?}"
        );
        let of_type = |received: &[Value], kind: &str| -> Vec<Value> {
            received
                .iter()
                .filter(|d| d["type"] == kind)
                .map(body_of)
                .collect()
        };
        let approved = of_type(&received, "app.approved");
        assert_eq!(
            approved[0]["data"],
            app_data(&org, "Glow", json!({"reviewNotes": "Looks great"})),
            "{backend:?}"
        );
        let published = of_type(&received, "app.published_changed");
        assert_eq!(
            published[0]["data"],
            app_data(
                &org,
                "Glow",
                json!({"published": true, "appStoreStatus": "PUBLISHED"})
            ),
            "{backend:?}"
        );

        // An edit that keeps it published sends nothing; adding a permission sends it back to review.
        let (status, body) = in_org(
            &app,
            Method::PUT,
            &format!("/api/dev/apps/{PACKAGE}"),
            &admin,
            &org,
            Some(json!({"name": "Glow Pro"})),
        )
        .await;
        assert_eq!(
            (status, body["appStoreStatus"].as_str()),
            (200, Some("PUBLISHED")),
            "{body}"
        );
        let (status, body) = in_org(
            &app,
            Method::PATCH,
            &format!("/api/permissions/{PACKAGE}"),
            &admin,
            &org,
            Some(json!({"permissions": [
                {"type": "MICROPHONE", "description": "To hear"},
                {"type": "LOCATION", "description": "To find"},
            ]})),
        )
        .await;
        assert_eq!(
            (status, body["appStoreStatus"].as_str()),
            (200, Some("SUBMITTED")),
            "{body}"
        );
        let received = settled(&receiver, 4).await;
        let published = of_type(&received, "app.published_changed");
        assert_eq!(received.len(), 4, "{backend:?}: {received:#?}");
        assert_eq!(published.len(), 2, "{backend:?}: {received:#?}");
        let unpublished = published
            .iter()
            .find(|b| b["data"]["published"] == false)
            .unwrap_or_else(|| panic!("{backend:?}: no unpublishing in {published:#?}"));
        assert_eq!(
            unpublished["data"],
            app_data(
                &org,
                "Glow Pro",
                json!({"published": false, "appStoreStatus": "SUBMITTED"})
            ),
            "{backend:?}"
        );
        for delivery in &received {
            assert_eq!(delivery["verifiedWith"], json!([0]), "{backend:?}: {delivery:#}");
            let body = body_of(delivery);
            assert!(body["timestamp"].as_str().unwrap().ends_with('Z'), "{body}");
            assert_eq!(
                body.as_object().unwrap().keys().collect::<Vec<_>>(),
                ["type", "timestamp", "data"]
            );
        }
        let ids: std::collections::BTreeSet<&str> =
            received.iter().map(|d| d["id"].as_str().unwrap()).collect();
        assert_eq!(ids.len(), 4, "{backend:?}: each delivery once");
    }
}

/// A health endpoint on loopback: `{"status": "healthy"}` while `healthy` holds, 503 otherwise.
async fn health_server(healthy: Arc<AtomicBool>) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    tokio::spawn(async move {
        loop {
            let Ok((mut socket, _)) = listener.accept().await else {
                return;
            };
            let healthy = healthy.load(Ordering::SeqCst);
            tokio::spawn(async move {
                let mut request = [0u8; 4096];
                let _ = socket.read(&mut request).await;
                let (status, body) = if healthy {
                    ("200 OK", r#"{"status":"healthy"}"#)
                } else {
                    ("503 Service Unavailable", r#"{"status":"down"}"#)
                };
                let answer = format!(
                    "HTTP/1.1 {status}\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                    body.len()
                );
                let _ = socket.write_all(answer.as_bytes()).await;
            });
        }
    });
    format!("http://{address}")
}

/// The monitor's view of [`PACKAGE`]: (last online, checks recorded).
fn monitored(app: &TestApp) -> (Option<bool>, i64) {
    use adapter_db::schema::{uptime_checks, uptime_monitor};
    use diesel::prelude::*;
    let db = Db::connect(&app.database_url, 1).unwrap();
    let mut conn = db.connection().unwrap();
    let online: Option<Option<bool>> = uptime_monitor::table
        .find(PACKAGE)
        .select(uptime_monitor::last_online)
        .first(&mut *conn)
        .optional()
        .unwrap();
    let checks: i64 = uptime_checks::table
        .filter(uptime_checks::package_name.eq(PACKAGE))
        .count()
        .get_result(&mut *conn)
        .unwrap();
    (online.flatten(), checks)
}

/// Waits until the monitor recorded `more` checks after `since` (at most 20 s); answers the last view.
async fn checks_after(app: &TestApp, since: i64, more: i64) -> (Option<bool>, i64) {
    poll(
        Duration::from_secs(20),
        || async { monitored(app) },
        |(_, checks)| *checks >= since + more,
    )
    .await
}

#[tokio::test]
async fn an_app_going_offline_and_coming_back_is_delivered_once_each() {
    for backend in BACKENDS {
        let receiver = Receiver::start();
        let healthy = Arc::new(AtomicBool::new(true));
        let server = health_server(healthy.clone()).await;
        let app = spawn_delivering(backend, &[("PORTAL_UPTIME_INTERVAL_SECS", "1")]).await;
        let admin = sign_up(&app, "admin@example.com").await;
        let org = create_org(&app, &admin, "Acme").await;
        let (_, secret) = add_endpoint(
            &app,
            &admin,
            &org,
            &receiver.url("/health"),
            json!(["app.offline", "app.online"]),
        )
        .await;
        receiver.secrets(&[&secret]).await;
        register_app(&app, &admin, &org, &server).await;
        // Submitted apps are monitored; the first check (online) is no change.
        submit(&app, &admin, &org).await;
        let (online, checks) = checks_after(&app, 0, 2).await;
        assert_eq!(online, Some(true), "{backend:?}: {checks} checks");

        healthy.store(false, Ordering::SeqCst);
        let received = receiver
            .wait_for(Duration::from_secs(20), |r| !r.is_empty())
            .await;
        assert_eq!(types(&received), ["app.offline"], "{backend:?}");
        // Offline for three more checks: still one event.
        let (online, checks) = monitored(&app);
        assert_eq!(online, Some(false), "{backend:?}");
        checks_after(&app, checks, 3).await;
        let received = receiver.received().await;
        assert_eq!(types(&received), ["app.offline"], "{backend:?}");
        assert_eq!(
            body_of(&received[0])["data"],
            app_data(&org, "Glow", json!({"online": false})),
            "{backend:?}"
        );

        healthy.store(true, Ordering::SeqCst);
        receiver.wait_for(Duration::from_secs(20), |r| r.len() >= 2).await;
        let (online, checks) = monitored(&app);
        assert_eq!(online, Some(true), "{backend:?}");
        checks_after(&app, checks, 3).await;
        let received = receiver.received().await;
        assert_eq!(
            types(&received),
            ["app.offline", "app.online"],
            "{backend:?}: {received:#?}"
        );
        assert_eq!(
            body_of(&received[1])["data"],
            app_data(&org, "Glow", json!({"online": true})),
            "{backend:?}"
        );
        assert!(
            received.iter().all(|d| d["verifiedWith"] == json!([0])),
            "{backend:?}: {received:#?}"
        );
        assert_ne!(received[0]["id"], received[1]["id"]);
    }
}

/// The e-mails of `kind` in the outbox: (recipient, body).
fn outbox(app: &TestApp, kind: &str) -> Vec<(String, String)> {
    use adapter_db::schema::email_outbox::dsl;
    use diesel::prelude::*;
    let db = Db::connect(&app.database_url, 1).unwrap();
    let mut conn = db.connection().unwrap();
    dsl::email_outbox
        .filter(dsl::kind.eq(kind))
        .select((dsl::recipient, dsl::body))
        .load(&mut *conn)
        .unwrap()
}

#[tokio::test]
async fn a_secret_in_an_endpoint_s_url_stays_out_of_the_audit_log_and_the_disabled_e_mail() {
    for backend in BACKENDS {
        let receiver = Receiver::start();
        let app = spawn_delivering(backend, &[]).await;
        let admin = sign_up(&app, "admin@example.com").await;
        let org = create_org(&app, &admin, "Acme").await;
        // Chat services put the key in the path, CI tools in the query.
        let (id, secret) = add_endpoint(
            &app,
            &admin,
            &org,
            &receiver.url("/services/T000/B000/first-s3cret"),
            json!([]),
        )
        .await;
        receiver.secrets(&[&secret]).await;
        let path = format!("/api/orgs/{org}/webhooks/{id}");
        let (status, body) = send(
            &app,
            Method::PATCH,
            &path,
            &admin,
            json!({"url": receiver.url("/hook?token=second-s3cret")}),
        )
        .await;
        assert_eq!(status, 200, "{body}");
        // The page still shows the whole URL to the organization's admins.
        assert_eq!(body["url"], receiver.url("/hook?token=second-s3cret"));

        // 410 Gone: the server disables it, records it and e-mails the admins.
        receiver.answers(json!([{"status": 410}])).await;
        let (status, _) = send(&app, Method::POST, &format!("{path}/test"), &admin, json!({})).await;
        assert_eq!(status, 202);
        let disabled = poll(
            Duration::from_secs(15),
            || async { outbox(&app, "webhook_disabled") },
            |mails| !mails.is_empty(),
        )
        .await;
        assert_eq!(disabled.len(), 1, "{backend:?}");
        let shown = receiver.url("/…");
        let (to, text) = &disabled[0];
        assert_eq!(to, "admin@example.com");
        assert!(
            text.contains(&shown) && !text.contains("s3cret"),
            "{backend:?}: {text}"
        );

        let (status, log) = get(&app, &format!("/api/orgs/{org}/audit-log"), &admin).await;
        assert_eq!(status, 200, "{log}");
        let entries = log["data"]["entries"].as_array().unwrap();
        let webhook: Vec<&Value> = entries
            .iter()
            .filter(|e| e["target"]["kind"] == "webhook")
            .collect();
        let actions: Vec<&str> = webhook.iter().map(|e| e["action"].as_str().unwrap()).collect();
        assert_eq!(
            actions,
            ["webhook.disabled", "webhook.updated", "webhook.created"],
            "{backend:?}"
        );
        assert!(
            webhook.iter().all(|e| e["target"]["label"] == shown.as_str()),
            "{backend:?}: {webhook:#?}"
        );
        let url_changes: Vec<(Value, Value)> = webhook
            .iter()
            .flat_map(|e| e["changes"].as_array().unwrap())
            .filter(|c| c["field"] == "url")
            .map(|c| (c["old"].clone(), c["new"].clone()))
            .collect();
        assert_eq!(
            url_changes,
            [
                (json!(shown), json!(format!("{shown} (another path)"))),
                (Value::Null, json!(shown))
            ],
            "{backend:?}"
        );
        assert!(!log.to_string().contains("s3cret"), "{backend:?}: {log}");
        let csv = app
            .client
            .get(app.url(&format!("/api/orgs/{org}/audit-log?format=csv")))
            .bearer_auth(&admin.token)
            .send()
            .await
            .unwrap()
            .text()
            .await
            .unwrap();
        assert!(
            csv.contains(&shown) && !csv.contains("s3cret"),
            "{backend:?}: {csv}"
        );
    }
}
