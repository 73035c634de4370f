//! Who may reach an organization's webhooks, beyond the authorization matrix (`authz_matrix.rs`, which names
//! each organization's endpoint under that organization's own path): an admin of organization A naming
//! organization B's endpoint or delivery id under A's own path is answered 404 on every webhook route, and
//! nothing of B (nor of A) changes: endpoints, secrets, deliveries, the audit log. So is a member who is not
//! an admin (403), and an admin whose session has not passed the second factor an organization requires
//! (403 `ORG_MFA_REQUIRED`). On SQLite and PostgreSQL.

use crate::helpers::{TestApp, spawn_app_with};
use crate::org_fixtures::{BACKENDS, PUBLIC_URL, User, add_member, call, code, create_org, send};
use crate::org_two_factor::{with_totp, without_totp};
use adapter_db::{Backend, Db};
use diesel::prelude::*;
use reqwest::Method;
use serde_json::{Value, json};

/// A server whose endpoints may be on this machine, with no delivery worker: deliveries stay as the test
/// leaves them.
async fn spawn_parked(backend: Backend) -> TestApp {
    spawn_app_with(
        backend,
        &[
            ("PORTAL_PUBLIC_URL", PUBLIC_URL),
            ("PORTAL_WEBHOOKS_ALLOW_PRIVATE_TARGETS", "true"),
        ],
    )
    .await
}

/// An enabled endpoint of `org` with one queued test delivery: (endpoint id, delivery id).
async fn endpoint_with_delivery(app: &TestApp, admin: &User, org: &str, url: &str) -> (String, String) {
    let base = format!("/api/orgs/{org}/webhooks");
    let (status, body) = send(
        app,
        Method::POST,
        &base,
        admin,
        json!({"url": url, "description": "Kept as it is", "events": ["member.joined"]}),
    )
    .await;
    assert_eq!(status, 201, "{body}");
    let id = body["id"].as_str().unwrap().to_owned();
    let (status, body) = send(app, Method::POST, &format!("{base}/{id}/test"), admin, json!({})).await;
    assert_eq!(status, 202, "{body}");
    (id, body["deliveryId"].as_str().unwrap().to_owned())
}

type EndpointRow = (
    String,
    String,
    String,
    String,
    String,
    bool,
    Option<String>,
    String,
    Option<String>,
    Option<i64>,
    i64,
    Option<i64>,
);
type DeliveryRow = (
    String,
    String,
    String,
    String,
    String,
    i32,
    Option<i64>,
    Option<i64>,
    Option<i64>,
    Option<String>,
);

/// Everything a webhook call could change, read from the database: every endpoint (secrets included) and
/// delivery of every organization, and the audit log's size.
fn state(app: &TestApp) -> String {
    use adapter_db::schema::{audit_log, webhook_deliveries as d, webhook_endpoints as e};
    let db = Db::connect(&app.database_url, 1).unwrap();
    let mut conn = db.connection().unwrap();
    let endpoints: Vec<EndpointRow> = e::table
        .order(e::id)
        .select((
            e::id,
            e::org_id,
            e::url,
            e::description,
            e::events,
            e::enabled,
            e::disabled_reason,
            e::secret,
            e::previous_secret,
            e::previous_secret_until,
            e::updated_at,
            e::failing_since,
        ))
        .load(&mut *conn)
        .unwrap();
    let deliveries: Vec<DeliveryRow> = d::table
        .order(d::id)
        .select((
            d::id,
            d::endpoint_id,
            d::org_id,
            d::data,
            d::status,
            d::attempts,
            d::next_attempt_at,
            d::lease_until,
            d::last_attempt_at,
            d::last_error,
        ))
        .load(&mut *conn)
        .unwrap();
    let audit: i64 = audit_log::table.count().get_result(&mut *conn).unwrap();
    format!("{endpoints:#?}\n{deliveries:#?}\naudit entries: {audit}")
}

/// Marks a delivery as given up after three attempts, so that sending it again would show.
fn give_up(app: &TestApp, delivery: &str) {
    use adapter_db::schema::webhook_deliveries as d;
    let db = Db::connect(&app.database_url, 1).unwrap();
    let mut conn = db.connection().unwrap();
    let changed = diesel::update(d::table.find(delivery))
        .set((
            d::status.eq("FAILED"),
            d::attempts.eq(3),
            d::next_attempt_at.eq(None::<i64>),
            d::last_error.eq(Some("answered HTTP 500")),
        ))
        .execute(&mut *conn)
        .unwrap();
    assert_eq!(changed, 1);
}

/// Every webhook route once, naming `endpoint` and `delivery` under `org`'s path: (method, path, body).
fn every_route(org: &str, endpoint: &str, delivery: &str) -> Vec<(Method, String, Option<Value>)> {
    let base = format!("/api/orgs/{org}/webhooks");
    let one = format!("{base}/{endpoint}");
    vec![
        (Method::GET, base.clone(), None),
        (
            Method::POST,
            base,
            Some(json!({"url": "http://127.0.0.1:9/new", "events": []})),
        ),
        (Method::GET, one.clone(), None),
        (
            Method::PATCH,
            one.clone(),
            Some(json!({"description": "Changed", "enabled": false, "url": "http://127.0.0.1:9/moved"})),
        ),
        (Method::POST, format!("{one}/rotate-secret"), Some(json!({}))),
        (Method::POST, format!("{one}/test"), Some(json!({}))),
        (Method::GET, format!("{one}/deliveries"), None),
        (
            Method::POST,
            format!("{one}/deliveries/{delivery}/retry"),
            Some(json!({})),
        ),
        (Method::DELETE, one, None),
    ]
}

#[tokio::test]
async fn an_admin_naming_another_organization_s_webhook_by_id_is_answered_404_and_changes_nothing() {
    for backend in BACKENDS {
        let app = spawn_parked(backend).await;
        let alice = crate::org_fixtures::sign_up(&app, "alice@example.com").await;
        let bob = crate::org_fixtures::sign_up(&app, "bob@example.com").await;
        let a = create_org(&app, &alice, "Alice's").await;
        let b = create_org(&app, &bob, "Bob's").await;
        let (a_endpoint, a_delivery) = endpoint_with_delivery(&app, &alice, &a, "http://127.0.0.1:9/a").await;
        let (b_endpoint, b_delivery) = endpoint_with_delivery(&app, &bob, &b, "http://127.0.0.1:9/b").await;
        // A delivery of B given up, and B's secret rotated once: sending it again, or rotating, would show.
        give_up(&app, &b_delivery);
        let (status, body) = send(
            &app,
            Method::POST,
            &format!("/api/orgs/{b}/webhooks/{b_endpoint}/rotate-secret"),
            &bob,
            json!({}),
        )
        .await;
        assert_eq!(status, 200, "{body}");
        give_up(&app, &a_delivery);

        let before = state(&app);
        let mut answers = Vec::new();
        // B's endpoint and delivery under A's path; B's delivery under A's own endpoint; A's delivery under
        // B's endpoint (in A's path).
        let attempts = every_route(&a, &b_endpoint, &b_delivery)
            .into_iter()
            .filter(|(_, path, _)| path.contains(&b_endpoint))
            .chain(
                every_route(&a, &a_endpoint, &b_delivery)
                    .into_iter()
                    .filter(|(_, path, _)| path.ends_with("/retry")),
            )
            .chain(
                every_route(&a, &b_endpoint, &a_delivery)
                    .into_iter()
                    .filter(|(_, path, _)| path.ends_with("/retry")),
            );
        for (method, path, body) in attempts {
            let (status, answer) = call(
                &app,
                method.clone(),
                &path,
                Some(&alice.token),
                None,
                body.as_ref(),
            )
            .await;
            answers.push((format!("{method} {path}"), status, code(&answer).to_owned()));
        }
        assert_eq!(answers.len(), 9, "{answers:#?}");
        assert!(
            answers
                .iter()
                .all(|(_, status, code)| *status == 404 && code == "NOT_FOUND"),
            "{backend:?}: {answers:#?}"
        );
        assert_eq!(
            state(&app),
            before,
            "{backend:?}: an outsider's call changed a webhook"
        );

        // B's own admin still reaches all of it (the ids were right, only the organization was not).
        let (status, body) = call(
            &app,
            Method::GET,
            &format!("/api/orgs/{b}/webhooks/{b_endpoint}/deliveries"),
            Some(&bob.token),
            None,
            None,
        )
        .await;
        assert_eq!(status, 200, "{body}");
        assert_eq!(body["deliveries"][0]["id"], b_delivery.as_str());
        assert_eq!(body["deliveries"][0]["status"], "FAILED");
    }
}

#[tokio::test]
async fn a_member_and_an_admin_without_the_required_second_factor_manage_no_webhook_and_change_nothing() {
    for backend in BACKENDS {
        let app = spawn_parked(backend).await;
        let admin = with_totp(&app, "admin@example.com").await;
        let (plain_admin, _) = without_totp(&app, "plain-admin@example.com").await;
        let (member, _) = without_totp(&app, "member@example.com").await;
        let org = create_org(&app, &admin.user, "Guarded").await;
        add_member(&app, &admin.user, &org, &member, "member").await;
        add_member(&app, &admin.user, &org, &plain_admin, "admin").await;
        let (endpoint, delivery) =
            endpoint_with_delivery(&app, &admin.user, &org, "http://127.0.0.1:9/guarded").await;
        give_up(&app, &delivery);

        // A member, who is not an admin: 403 on every route, the organization not required a factor yet.
        let before = state(&app);
        for (method, path, body) in every_route(&org, &endpoint, &delivery) {
            let (status, answer) = call(
                &app,
                method.clone(),
                &path,
                Some(&member.token),
                None,
                body.as_ref(),
            )
            .await;
            assert_eq!(
                (status, code(&answer)),
                (403, "FORBIDDEN"),
                "{backend:?} member {method} {path}: {answer}"
            );
        }
        assert_eq!(state(&app), before, "{backend:?}: a member changed a webhook");

        // The organization requires a second factor: an admin whose session passed only a password
        // (aal1) is refused on every route too, and changes nothing.
        let (status, body) = send(
            &app,
            Method::PUT,
            &format!("/api/orgs/{org}/two-factor"),
            &admin.user,
            json!({"requireTwoFactor": true}),
        )
        .await;
        assert_eq!(status, 200, "{backend:?}: {body}");
        let before = state(&app);
        for (method, path, body) in every_route(&org, &endpoint, &delivery) {
            let (status, answer) = call(
                &app,
                method.clone(),
                &path,
                Some(&plain_admin.token),
                None,
                body.as_ref(),
            )
            .await;
            assert_eq!(
                (status, code(&answer)),
                (403, "ORG_MFA_REQUIRED"),
                "{backend:?} aal1 admin {method} {path}: {answer}"
            );
        }
        assert_eq!(
            state(&app),
            before,
            "{backend:?}: an aal1 admin changed a webhook"
        );
        // The admin with a factor still manages them.
        let (status, body) = call(
            &app,
            Method::POST,
            &format!("/api/orgs/{org}/webhooks/{endpoint}/deliveries/{delivery}/retry"),
            Some(&admin.user.token),
            None,
            Some(&json!({})),
        )
        .await;
        assert_eq!(status, 202, "{backend:?}: {body}");
    }
}
