//! The first platform admins: `PORTAL_ADMIN_EMAILS` at start-up and `app-server admin …`; roles bound to
//! the account that proved the address, never to whoever signed up first with it.

use crate::helpers::{TestApp, spawn_app_with};
use adapter_db::{Backend, Db};
use app_server::admin_cli::{self, AdminCommand};
use app_server::{Application, Config};
use oidc_mock::MockProvider;
use reqwest::StatusCode;
use serde_json::{Value, json};
use std::collections::HashMap;

const PASSWORD: &str = "a sufficiently long passphrase 42";
const BACKENDS: [Backend; 2] = [Backend::Sqlite, Backend::Postgres];
const VERIFIER: &str = "the-browsers-pkce-verifier-the-browsers-pkce-verifier";

fn grant(email: &str, role: &str) -> AdminCommand {
    AdminCommand::Grant {
        email: email.into(),
        role: role.into(),
    }
}

fn revoke(email: &str) -> AdminCommand {
    AdminCommand::Revoke { email: email.into() }
}

/// The rows of `app-server admin list` (header and notes left out): `(email, role, status)`.
async fn listed(db: &Db) -> Vec<(String, String, String)> {
    admin_cli::run(db, AdminCommand::List)
        .await
        .unwrap()
        .lines()
        .skip(1)
        .filter(|line| line.contains('@') && !line.starts_with("bound:"))
        .map(|line| {
            let mut cells = line.split_whitespace();
            let mut next = || cells.next().unwrap_or_default().to_owned();
            (next(), next(), next())
        })
        .collect()
}

impl TestApp {
    async fn post_auth(&self, path: &str, body: Value) -> reqwest::Response {
        self.client
            .post(self.url(&format!("/auth/v1{path}")))
            .header("apikey", "built-in")
            .json(&body)
            .send()
            .await
            .unwrap()
    }

    /// `POST /signup`, answering the body.
    async fn signed_up(&self, email: &str) -> Value {
        let response = self
            .post_auth("/signup", json!({"email": email, "password": PASSWORD}))
            .await;
        assert_eq!(response.status(), StatusCode::OK);
        response.json().await.unwrap()
    }

    async fn password_sign_in(&self, email: &str) -> reqwest::Response {
        self.post_auth(
            "/token?grant_type=password",
            json!({"email": email, "password": PASSWORD}),
        )
        .await
    }

    /// `GET /api/admin/check` with a bearer.
    async fn admin_check(&self, token: &str) -> Value {
        let response = self
            .send(self.client.get(self.url("/api/admin/check")).bearer_auth(token))
            .await;
        assert_eq!(response.status(), StatusCode::OK);
        response.json().await.unwrap()
    }

    /// The six-digit code of the newest e-mail to `to` in the outbox.
    fn code_sent_to(&self, to: &str) -> String {
        use adapter_db::schema::email_outbox::dsl;
        use diesel::prelude::*;
        let db = Db::connect(&self.database_url, 1).unwrap();
        let mut conn = db.connection().unwrap();
        let body: String = dsl::email_outbox
            .filter(dsl::recipient.eq(to))
            .order(dsl::created_at.desc())
            .select(dsl::body)
            .first(&mut *conn)
            .unwrap();
        let at = body.find("enter this code: ").unwrap() + "enter this code: ".len();
        body[at..at + 6].to_owned()
    }
}

fn access_token(session: &Value) -> &str {
    session["access_token"].as_str().unwrap()
}

fn not_admin() -> Value {
    json!({"isAdmin": false, "role": null, "roleAwaitsProof": false})
}

/// No role yet, but one waits for the caller's address to be proven.
fn awaiting_proof() -> Value {
    json!({"isAdmin": false, "role": null, "roleAwaitsProof": true})
}

fn admin() -> Value {
    json!({"isAdmin": true, "role": "admin", "roleAwaitsProof": false})
}

/// Builds (and so seeds) another server on the same database, as a restart with `admin_emails` would.
async fn restart(app: &TestApp, admin_emails: &str) {
    let data = tempfile::tempdir().unwrap();
    let vars: HashMap<String, String> = [
        ("PORTAL_BIND", "127.0.0.1:0".to_owned()),
        ("PORTAL_FRONTEND_DIR", app.frontend.path().display().to_string()),
        ("PORTAL_DATA_DIR", data.path().display().to_string()),
        ("DATABASE_URL", app.database_url.clone()),
        ("PORTAL_UPTIME_INTERVAL_SECS", "0".to_owned()),
        // Staff act without a second factor here (as in local development); the tests of the staff
        // requirement set it back to `required`.
        ("PORTAL_STAFF_MFA", "optional".to_owned()),
        ("PORTAL_MAIL_WORKER", "false".to_owned()),
        ("PORTAL_ADMIN_EMAILS", admin_emails.to_owned()),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_owned(), v))
    .collect();
    let mut config = Config::from_vars(&vars).unwrap();
    config.password_hashing = adapter_identity::HashCost::TestsOnly;
    drop(Application::build(&config).await.unwrap());
}

#[tokio::test]
async fn configured_admin_emails_wait_for_an_account_at_start_up() {
    for backend in BACKENDS {
        let app = spawn_app_with(
            backend,
            &[("PORTAL_ADMIN_EMAILS", "First@Example.com, second@example.com")],
        )
        .await;
        let db = Db::connect(&app.database_url, 2).unwrap();
        assert_eq!(
            listed(&db).await,
            [
                ("first@example.com".into(), "admin".into(), "pending".into()),
                ("second@example.com".into(), "admin".into(), "pending".into()),
            ],
            "{backend:?}"
        );
    }
}

#[tokio::test]
async fn without_smtp_signing_up_with_a_listed_address_does_not_make_an_admin() {
    for backend in BACKENDS {
        let app = spawn_app_with(backend, &[("PORTAL_ADMIN_EMAILS", "boss@example.com")]).await;
        // No SMTP: the account is confirmed and signed in at once, but nobody proved the address.
        let session = app.signed_up("boss@example.com").await;
        assert_eq!(
            app.admin_check(access_token(&session)).await,
            awaiting_proof(),
            "{backend:?}"
        );
        let db = Db::connect(&app.database_url, 2).unwrap();
        assert_eq!(listed(&db).await[0].2, "pending");
        // The operator vouches for that account: the role binds to it.
        assert_eq!(
            admin_cli::run(&db, grant("boss@example.com", "admin"))
                .await
                .unwrap(),
            "boss@example.com is now a platform admin"
        );
        assert_eq!(app.admin_check(access_token(&session)).await, admin());
        assert_eq!(listed(&db).await[0].2, "bound");
    }
}

#[tokio::test]
async fn with_smtp_the_listed_address_proven_by_an_emailed_code_becomes_admin() {
    for backend in BACKENDS {
        // Delivery is off (the helper's default): the e-mails stay in the outbox for the test to read.
        let app = spawn_app_with(
            backend,
            &[
                ("PORTAL_ADMIN_EMAILS", "boss@example.com"),
                ("SMTP_URL", "smtp://127.0.0.1:9"),
            ],
        )
        .await;
        app.signed_up("boss@example.com").await;
        let unconfirmed = app.password_sign_in("boss@example.com").await;
        assert_eq!(unconfirmed.status(), StatusCode::BAD_REQUEST);
        let code = app.code_sent_to("boss@example.com");
        let verified = app
            .post_auth(
                "/verify",
                json!({"type": "signup", "email": "boss@example.com", "token": code}),
            )
            .await;
        assert_eq!(verified.status(), StatusCode::OK, "{backend:?}");
        let session: Value = verified.json().await.unwrap();
        assert_eq!(
            app.admin_check(access_token(&session)).await,
            admin(),
            "{backend:?}"
        );
        // Another address proven the same way gets no role.
        app.signed_up("dev@example.com").await;
        let code = app.code_sent_to("dev@example.com");
        let dev: Value = app
            .post_auth(
                "/verify",
                json!({"type": "signup", "email": "dev@example.com", "token": code}),
            )
            .await
            .json()
            .await
            .unwrap();
        assert_eq!(app.admin_check(access_token(&dev)).await, not_admin());
    }
}

#[tokio::test]
async fn a_configured_admin_revoked_is_not_added_again_at_the_next_start() {
    for backend in BACKENDS {
        let emails = "first@example.com, second@example.com";
        let app = spawn_app_with(backend, &[("PORTAL_ADMIN_EMAILS", emails)]).await;
        let db = Db::connect(&app.database_url, 2).unwrap();
        admin_cli::run(&db, revoke("second@example.com")).await.unwrap();
        restart(&app, emails).await;
        let after: Vec<String> = listed(&db).await.into_iter().map(|row| row.0).collect();
        assert_eq!(after, ["first@example.com"], "{backend:?}");
        // An address added to the list later is added, once.
        restart(&app, "first@example.com, third@example.com").await;
        let after: Vec<String> = listed(&db).await.into_iter().map(|row| row.0).collect();
        assert_eq!(after, ["first@example.com", "third@example.com"], "{backend:?}");
    }
}

#[tokio::test]
async fn the_command_line_grants_lists_and_revokes_with_the_same_rules() {
    let app = spawn_app_with(Backend::Sqlite, &[]).await;
    let db = Db::connect(&app.database_url, 2).unwrap();
    assert!(
        admin_cli::run(&db, AdminCommand::List)
            .await
            .unwrap()
            .starts_with("No platform admins yet")
    );
    // No account has the address yet: the role waits for one that proves it.
    let waiting = admin_cli::run(&db, grant("ada@example.com", "admin"))
        .await
        .unwrap();
    assert!(
        waiting.starts_with("ada@example.com will be a platform admin once an account proves the address"),
        "{waiting}"
    );
    app.signed_up("ada@example.com").await;
    assert_eq!(
        admin_cli::run(&db, grant("ada@example.com", "admin"))
            .await
            .unwrap(),
        "ada@example.com is now a platform admin"
    );
    app.signed_up("rev@example.com").await;
    admin_cli::run(&db, grant("rev@example.com", "reviewer"))
        .await
        .unwrap();
    let refused = admin_cli::run(&db, grant("not-an-email", "boss"))
        .await
        .unwrap_err();
    assert!(
        refused.to_string().contains("Please enter a valid email address"),
        "{refused}"
    );
    let last = admin_cli::run(&db, revoke("ada@example.com")).await.unwrap_err();
    assert_eq!(
        last.to_string(),
        "You cannot remove the last platform admin. Add another admin first."
    );
    admin_cli::run(&db, revoke("rev@example.com")).await.unwrap();
    assert_eq!(
        listed(&db).await,
        [("ada@example.com".into(), "admin".into(), "bound".into())]
    );
}

/// The query pairs of a URL.
fn query_of(url: &str) -> HashMap<String, String> {
    let query = url.split_once('?').map_or("", |(_, q)| q);
    let query = query.split('#').next().unwrap_or_default();
    query
        .split('&')
        .filter_map(|pair| pair.split_once('='))
        .map(|(k, v)| (k.to_owned(), v.to_owned()))
        .collect()
}

/// A whole provider sign-in as supabase-js drives it, answering the session. Links carry the configured
/// public URL; they are pointed at the server under test.
async fn sign_in_with_google(app: &TestApp, hint: &str) -> Value {
    let browser = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    let challenge = domain::identity::oauth::s256_challenge(VERIFIER);
    let started = browser
        .get(app.url(&format!(
            "/auth/v1/authorize?provider=google&redirect_to=%2Fsignin&code_challenge={challenge}&code_challenge_method=s256"
        )))
        .send()
        .await
        .unwrap();
    assert_eq!(started.status().as_u16(), 302);
    let at_provider = started.headers()["location"].to_str().unwrap().to_owned();
    let hint: String = url_encode(hint);
    let back = browser
        .get(format!("{at_provider}&login_hint={hint}"))
        .send()
        .await
        .unwrap();
    let callback = back.headers()["location"].to_str().unwrap().to_owned();
    let path = &callback[callback.find("/auth/v1/callback").unwrap()..];
    let landed = browser.get(app.url(path)).send().await.unwrap();
    let page = landed.headers()["location"].to_str().unwrap().to_owned();
    let code = query_of(&page).remove("code").unwrap_or_else(|| panic!("{page}"));
    let exchanged = app
        .post_auth(
            "/token?grant_type=pkce",
            json!({"auth_code": code, "code_verifier": VERIFIER}),
        )
        .await;
    assert_eq!(exchanged.status(), StatusCode::OK);
    exchanged.json().await.unwrap()
}

fn url_encode(text: &str) -> String {
    text.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => (b as char).to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect()
}

#[tokio::test]
async fn a_provider_sign_in_does_not_share_an_account_pre_registered_by_a_stranger() {
    let google = MockProvider::start("RS256");
    for backend in BACKENDS {
        let app = spawn_app_with(
            backend,
            &[
                ("PORTAL_ADMIN_EMAILS", "owner@example.com"),
                ("PORTAL_OAUTH_GOOGLE_ISSUER", google.issuer.as_str()),
                ("PORTAL_OAUTH_GOOGLE_CLIENT_ID", "portal-client"),
                ("PORTAL_OAUTH_GOOGLE_CLIENT_SECRET", "test-only-secret"),
            ],
        )
        .await;
        // No SMTP: a stranger signs up with the owner's address first and is signed in at once.
        let stranger = app.signed_up("owner@example.com").await;
        // The dashboard tells how the waiting role is obtained; the stranger cannot prove the address.
        assert_eq!(app.admin_check(access_token(&stranger)).await, awaiting_proof());

        // The owner signs in with Google, which verified the address.
        let owner = sign_in_with_google(&app, "g-owner|owner@example.com|true|").await;
        assert_eq!(owner["user"]["email"], "owner@example.com");
        assert_eq!(
            app.admin_check(access_token(&owner)).await,
            admin(),
            "{backend:?}"
        );

        // The stranger is out: the password is gone, and so are the sessions.
        let password = app.password_sign_in("owner@example.com").await;
        assert_eq!(password.status(), StatusCode::BAD_REQUEST, "{backend:?}");
        let refreshed = app
            .post_auth(
                "/token?grant_type=refresh_token",
                json!({"refresh_token": stranger["refresh_token"]}),
            )
            .await;
        assert_eq!(refreshed.status(), StatusCode::BAD_REQUEST, "{backend:?}");
        let check = app
            .send(
                app.client
                    .get(app.url("/api/admin/check"))
                    .bearer_auth(access_token(&stranger)),
            )
            .await;
        assert_eq!(check.status(), StatusCode::UNAUTHORIZED, "{backend:?}");
        let user: Value = app
            .client
            .get(app.url("/auth/v1/user"))
            .bearer_auth(access_token(&owner))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        assert_eq!(user["app_metadata"]["providers"], json!(["google"]), "{user}");
    }
}

/// `POST /api/admin/users` as the holder of `token`, answering the status and the body.
async fn grant_through_api(app: &TestApp, token: &str, email: &str, role: &str) -> (StatusCode, Value) {
    let response = app
        .send(
            app.client
                .post(app.url("/api/admin/users"))
                .bearer_auth(token)
                .json(&json!({"email": email, "role": role})),
        )
        .await;
    let status = response.status();
    (status, response.json().await.unwrap())
}

#[tokio::test]
async fn a_role_granted_in_the_admin_panel_binds_to_the_account_that_proves_the_address() {
    for backend in BACKENDS {
        let app = spawn_app_with(backend, &[("SMTP_URL", "smtp://127.0.0.1:9")]).await;
        let db = Db::connect(&app.database_url, 2).unwrap();
        app.signed_up("boss@example.com").await;
        admin_cli::run(&db, grant("boss@example.com", "admin"))
            .await
            .unwrap();
        let code = app.code_sent_to("boss@example.com");
        let boss: Value = app
            .post_auth(
                "/verify",
                json!({"type": "signup", "email": "boss@example.com", "token": code}),
            )
            .await
            .json()
            .await
            .unwrap();
        let (status, added) =
            grant_through_api(&app, access_token(&boss), "newbie@example.com", "reviewer").await;
        assert_eq!(status, StatusCode::CREATED, "{backend:?}: {added}");
        assert_eq!(added["pending"], true);
        // The first account to prove the address gets it, and its check says so.
        app.signed_up("newbie@example.com").await;
        let code = app.code_sent_to("newbie@example.com");
        let newbie: Value = app
            .post_auth(
                "/verify",
                json!({"type": "signup", "email": "newbie@example.com", "token": code}),
            )
            .await
            .json()
            .await
            .unwrap();
        assert_eq!(
            app.admin_check(access_token(&newbie)).await,
            json!({"isAdmin": true, "role": "reviewer", "roleAwaitsProof": false}),
            "{backend:?}"
        );
        assert!(
            listed(&db)
                .await
                .contains(&("newbie@example.com".into(), "reviewer".into(), "bound".into())),
            "{backend:?}"
        );
    }
}

#[tokio::test]
async fn without_smtp_whoever_signs_up_with_an_address_granted_in_the_admin_panel_does_not_get_the_role() {
    for backend in BACKENDS {
        let app = spawn_app_with(backend, &[]).await;
        let db = Db::connect(&app.database_url, 2).unwrap();
        let boss = app.signed_up("boss@example.com").await;
        admin_cli::run(&db, grant("boss@example.com", "admin"))
            .await
            .unwrap();
        let (status, _) = grant_through_api(&app, access_token(&boss), "later@example.com", "admin").await;
        assert_eq!(status, StatusCode::CREATED, "{backend:?}");
        // Confirmed at once without proof (no mailer): the role keeps waiting.
        let stranger = app.signed_up("later@example.com").await;
        assert_eq!(
            app.admin_check(access_token(&stranger)).await,
            awaiting_proof(),
            "{backend:?}"
        );
        assert!(
            listed(&db)
                .await
                .contains(&("later@example.com".into(), "admin".into(), "pending".into())),
            "{backend:?}"
        );
        assert_eq!(app.admin_check(access_token(&boss)).await, admin());
    }
}
