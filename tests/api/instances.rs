//! Two server instances on one database, as behind a load balancer: every request reads what authorizes
//! it (the session, the membership, the apps' revision) from the database in one statement, or on
//! PostgreSQL from memory once a sync round has made it forget every change committed before the request,
//! so what one instance changes is seen by the other at its very next request: a session signed out, a
//! member removed (`apps.rs`), an app registered.

use crate::helpers::TestApp;
use crate::org_fixtures::{BACKENDS, PUBLIC_URL, call, create_org, spawn};
use adapter_db::Backend;
use reqwest::Method;
use serde_json::{Value, json};

const PASSWORD: &str = "a sufficiently long passphrase 42";

/// Signs `email` up on `app`: the identity access token and the core token exchanged from it.
pub(crate) async fn signed_up(app: &TestApp, email: &str) -> (String, crate::org_fixtures::User) {
    let response = app
        .client
        .post(app.url("/auth/v1/signup"))
        .header("apikey", "built-in")
        .json(&json!({"email": email, "password": PASSWORD}))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    let session: Value = response.json().await.unwrap();
    let access = session["access_token"].as_str().unwrap().to_owned();
    let exchanged: Value = app
        .send(
            app.client
                .post(app.url("/api/auth/exchange-token"))
                .json(&json!({"supabaseToken": access})),
        )
        .await
        .json()
        .await
        .unwrap();
    let user = crate::org_fixtures::User {
        id: session["user"]["id"].as_str().unwrap().to_owned(),
        email: email.to_owned(),
        token: exchanged["coreToken"].as_str().unwrap().to_owned(),
    };
    (access, user)
}

pub(crate) fn registration(package: &str) -> Value {
    json!({
        "packageName": package,
        "name": "Notes",
        "description": "Takes notes",
        "onboardingInstructions": "Say 'take a note'",
        "publicUrl": "https://notes.example.com",
        "logoURL": "https://cdn.example.com/logo.png",
        "appType": "standard",
    })
}

/// `GET /api/dev/apps` of `org` with `token`: status and body.
async fn list_apps(app: &TestApp, token: &str, org: &str) -> (u16, Value) {
    call(app, Method::GET, "/api/dev/apps", Some(token), Some(org), None).await
}

async fn signed_out_on_one_instance_is_refused_on_the_other(backend: Backend) {
    let first = spawn(backend).await;
    let data = tempfile::tempdir().unwrap();
    let second = first.view_at(
        first
            .second_instance(&data, &[("PORTAL_PUBLIC_URL", PUBLIC_URL)])
            .await,
    );
    let (access, ada) = signed_up(&first, "ada@example.com").await;
    let org = create_org(&first, &ada, "Acme").await;
    let token = Some(ada.token.as_str());

    // An app registered on one instance is in the very next list of the other (both keep lists).
    for (at, package) in [(&first, "com.acme.one"), (&second, "com.acme.two")] {
        let before = list_apps(&first, &ada.token, &org).await;
        let body = registration(package);
        let (status, answer) = call(
            at,
            Method::POST,
            "/api/dev/apps/register",
            token,
            Some(&org),
            Some(&body),
        )
        .await;
        assert_eq!(status, 201, "{backend:?}: {answer}");
        for app in [&second, &first] {
            let (status, apps) = list_apps(app, &ada.token, &org).await;
            assert_eq!(status, 200, "{backend:?}: {apps}");
            assert_eq!(
                apps.as_array().map(Vec::len),
                before.1.as_array().map(|kept| kept.len() + 1),
                "{backend:?}: {apps}"
            );
        }
    }
    let org_path = format!("/api/orgs/{org}");
    for app in [&first, &second] {
        assert_eq!(call(app, Method::GET, &org_path, token, None, None).await.0, 200);
        assert_eq!(
            call(app, Method::GET, "/api/dev/auth/me", token, None, None)
                .await
                .0,
            200
        );
    }

    // Signed out on the first instance: the core token dies with its session on both, at once.
    let logout = first
        .client
        .post(first.url("/auth/v1/logout?scope=local"))
        .bearer_auth(&access)
        .send()
        .await
        .unwrap();
    assert_eq!(logout.status(), 204, "{backend:?}");
    for app in [&second, &first] {
        let (status, body) = list_apps(app, &ada.token, &org).await;
        assert_eq!(status, 401, "{backend:?}: {body}");
        assert_eq!(
            call(app, Method::GET, &org_path, token, None, None).await.0,
            401,
            "{backend:?}"
        );
        assert_eq!(
            call(app, Method::GET, "/api/dev/auth/me", token, None, None)
                .await
                .0,
            401,
            "{backend:?}"
        );
    }
}

/// The server's database figures: reads and transactions run, and on PostgreSQL the sessions answered
/// from memory and the sync rounds of its listening connection.
fn database_stats(app: &TestApp) -> adapter_db::PoolStats {
    app.server_db
        .as_ref()
        .expect("the server's own database")
        .pool_stats()
}

/// Everything an organization-scoped request is authorized with (the session, the caller's role in the
/// organization, the revision of its apps) is kept in memory, so a kept app list costs no database call,
/// only a sync (one statement: on PostgreSQL a round on the listening connection, shared by the requests
/// that wait for it; on SQLite `PRAGMA data_version`).
async fn a_kept_list_costs_at_most_one_statement(backend: Backend) {
    // Neither the mail worker nor the monitor runs here (the test settings): only requests use the database.
    let app = spawn(backend).await;
    let (_, ada) = signed_up(&app, "ada@example.com").await;
    let org = create_org(&app, &ada, "Acme").await;
    let body = registration("com.acme.one");
    let token = Some(ada.token.as_str());
    let (status, _) = call(
        &app,
        Method::POST,
        "/api/dev/apps/register",
        token,
        Some(&org),
        Some(&body),
    )
    .await;
    assert_eq!(status, 201);
    assert_eq!(
        list_apps(&app, &ada.token, &org).await.0,
        200,
        "the list is kept from here on"
    );
    let before = database_stats(&app);
    let calls = 20;
    for _ in 0..calls {
        let (status, apps) = list_apps(&app, &ada.token, &org).await;
        assert_eq!(
            (status, apps.as_array().map(Vec::len)),
            (200, Some(1)),
            "{backend:?}"
        );
    }
    let after = database_stats(&app);
    let (used, hits, rounds) = (
        after.calls - before.calls,
        after.cache_hits - before.cache_hits,
        after.cache_rounds - before.cache_rounds,
    );
    // One after another, each request has its own sync.
    assert_eq!(
        (used, hits, rounds),
        (0, calls, calls),
        "{backend:?}: calls, sessions from memory and syncs for {calls} kept lists"
    );
}

#[tokio::test]
async fn a_kept_app_list_costs_at_most_one_statement_on_both_databases() {
    for backend in BACKENDS {
        a_kept_list_costs_at_most_one_statement(backend).await;
    }
}

#[tokio::test]
async fn a_session_signed_out_on_one_instance_is_refused_at_once_on_every_instance() {
    for backend in BACKENDS {
        signed_out_on_one_instance_is_refused_on_the_other(backend).await;
    }
}
