//! Helpers of the organization authorization matrix (`authz_matrix.rs`): signed-up users, calls with an
//! optional `x-org-id`, invitations read from the outbox, and apps inserted behind the API's back.

use crate::helpers::{TestApp, spawn_app_with};
use adapter_db::{Backend, Db};
use diesel::prelude::*;
use reqwest::Method;
use serde_json::{Value, json};

pub const BACKENDS: [Backend; 2] = [Backend::Sqlite, Backend::Postgres];
const PASSWORD: &str = "a sufficiently long passphrase 42";
/// The public URL the servers of these tests are configured with (the base of invitation links).
pub const PUBLIC_URL: &str = "https://portal.example.com";

/// A signed-up user with a core token.
#[derive(Debug, Clone)]
pub struct User {
    pub id: String,
    pub email: String,
    pub token: String,
}

/// A server on a fresh database of `backend`, with [`PUBLIC_URL`].
pub async fn spawn(backend: Backend) -> TestApp {
    spawn_app_with(backend, &[("PORTAL_PUBLIC_URL", PUBLIC_URL)]).await
}

/// As [`spawn`], with private targets allowed (`PORTAL_ALLOW_PRIVATE_TARGETS` for app servers and the
/// monitor, `PORTAL_WEBHOOKS_ALLOW_PRIVATE_TARGETS` for webhook endpoints): they may then be on this machine
/// (`http://127.0.0.1:…`); the webhook worker runs, and sends by hand are not limited in practice.
pub async fn spawn_allowing_private(backend: Backend) -> TestApp {
    spawn_app_with(
        backend,
        &[
            ("PORTAL_PUBLIC_URL", PUBLIC_URL),
            ("PORTAL_ALLOW_PRIVATE_TARGETS", "true"),
            ("PORTAL_WEBHOOKS_ALLOW_PRIVATE_TARGETS", "true"),
            ("PORTAL_WEBHOOK_WORKER", "true"),
            // The matrices and the delivery tests press "Send test" more often than an admin may
            // (`webhooks_fairness.rs` tests the limits).
            ("PORTAL_WEBHOOK_SENDS_PER_ENDPOINT", "1000"),
            ("PORTAL_WEBHOOK_SENDS_PER_ORG", "1000"),
        ],
    )
    .await
}

/// Signs up (no SMTP: the account is usable at once) and exchanges the access token for a core token.
pub async fn sign_up(app: &TestApp, email: &str) -> User {
    session(app, "/auth/v1/signup", email).await
}

/// Signs in with the password of [`sign_up`] and exchanges the access token for a core token.
pub async fn sign_in(app: &TestApp, email: &str) -> User {
    session(app, "/auth/v1/token?grant_type=password", email).await
}

async fn session(app: &TestApp, path: &str, email: &str) -> User {
    let response = app
        .client
        .post(app.url(path))
        .header("apikey", "built-in")
        .json(&json!({"email": email, "password": PASSWORD}))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200, "{path} of {email}");
    let session: Value = response.json().await.unwrap();
    let access = session["access_token"].as_str().unwrap();
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
    User {
        id: session["user"]["id"].as_str().unwrap().to_owned(),
        email: email.to_lowercase(),
        token: exchanged["coreToken"].as_str().unwrap().to_owned(),
    }
}

/// A call scoped to `org` (`x-org-id`) with `user`'s token: status and JSON body.
pub async fn in_org(
    app: &TestApp,
    method: Method,
    path: &str,
    user: &User,
    org: &str,
    body: Option<Value>,
) -> (u16, Value) {
    call(app, method, path, Some(&user.token), Some(org), body.as_ref()).await
}

/// One API call: the status and the JSON body (`Null` when there is none).
pub async fn call(
    app: &TestApp,
    method: Method,
    path: &str,
    token: Option<&str>,
    org_header: Option<&str>,
    body: Option<&Value>,
) -> (u16, Value) {
    let mut request = app.client.request(method, app.url(path));
    if let Some(token) = token {
        request = request.bearer_auth(token);
    }
    if let Some(org) = org_header {
        request = request.header("x-org-id", org);
    }
    if let Some(body) = body {
        request = request.json(body);
    }
    let response = request.send().await.unwrap();
    let status = response.status().as_u16();
    let text = response.text().await.unwrap();
    let body = if text.is_empty() {
        Value::Null
    } else {
        serde_json::from_str(&text).unwrap_or(Value::String(text))
    };
    (status, body)
}

pub async fn get(app: &TestApp, path: &str, user: &User) -> (u16, Value) {
    call(app, Method::GET, path, Some(&user.token), None, None).await
}

pub async fn send(app: &TestApp, method: Method, path: &str, user: &User, body: Value) -> (u16, Value) {
    call(app, method, path, Some(&user.token), None, Some(&body)).await
}

/// Creates an organization as `admin` and answers its id.
pub async fn create_org(app: &TestApp, admin: &User, name: &str) -> String {
    let (status, body) = send(app, Method::POST, "/api/orgs", admin, json!({"name": name})).await;
    assert_eq!(status, 201, "{body}");
    body["data"]["id"].as_str().unwrap().to_owned()
}

/// Invites `email` into `org` as `admin` and answers the token of the e-mailed link.
pub async fn invite(app: &TestApp, admin: &User, org: &str, email: &str, role: &str) -> String {
    let (status, body) = send(
        app,
        Method::POST,
        &format!("/api/orgs/{org}/members"),
        admin,
        json!({"email": email, "role": role}),
    )
    .await;
    assert_eq!(status, 201, "{body}");
    invite_token(app, email)
}

/// Invites `user` into `org` and accepts as `user`.
pub async fn add_member(app: &TestApp, admin: &User, org: &str, user: &User, role: &str) {
    let token = invite(app, admin, org, &user.email, role).await;
    let (status, body) = accept(app, user, &token).await;
    assert_eq!(status, 200, "{body}");
}

pub async fn accept(app: &TestApp, user: &User, token: &str) -> (u16, Value) {
    call(
        app,
        Method::POST,
        &format!("/api/orgs/accept/{token}"),
        Some(&user.token),
        None,
        None,
    )
    .await
}

fn db(app: &TestApp) -> Db {
    Db::connect(&app.database_url, 1).unwrap()
}

/// The link of the newest e-mail to `to` in the outbox.
pub fn last_link(app: &TestApp, to: &str) -> String {
    use adapter_db::schema::email_outbox::dsl;
    let db = db(app);
    let mut conn = db.connection().unwrap();
    let link: Option<String> = dsl::email_outbox
        .filter(dsl::recipient.eq(to))
        .order(dsl::created_at.desc())
        .select(dsl::link)
        .first(&mut *conn)
        .unwrap();
    link.unwrap()
}

/// The token of the newest invitation e-mail to `email`.
pub fn invite_token(app: &TestApp, email: &str) -> String {
    let link = last_link(app, email);
    let prefix = format!("{PUBLIC_URL}/invite/accept?token=");
    assert!(link.starts_with(&prefix), "{link}");
    link[prefix.len()..].to_owned()
}

/// Inserts an app owned by `org` (the app API is not part of this slice; the row is what deleting checks).
pub fn insert_app(app: &TestApp, org: &str, developer: &str, package_name: &str) {
    adapter_db::testing::insert_app(
        &db(app),
        org,
        developer,
        package_name,
        "https://app.example.com",
        "development",
    );
}

pub fn code(body: &Value) -> &str {
    body["code"].as_str().unwrap_or_default()
}
