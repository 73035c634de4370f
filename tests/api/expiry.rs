//! What time ends: a session idle for 7 days or started 30 days ago (PRODUCT.md §1), and e-mail codes and
//! links past their 15 minutes, through the running server on both databases.
//!
//! The server has no clock that a test can set, so these tests move time the other way: they age the
//! timestamps the server stored (the rows it reads back on the next request), as the mail tests make an
//! outbox e-mail due. A clock hook in `spawn_app` would let them stay fully black-box.

use crate::helpers::{TestApp, spawn_app_on, spawn_app_with};
use crate::identity::{BACKENDS, PASSWORD, code_in, error_of, fragment_of, local, no_redirects};
use adapter_db::Db;
use diesel::prelude::*;
use reqwest::StatusCode;
use serde_json::{Value, json};

const MINUTE_MS: i64 = 60_000;
const DAY_MS: i64 = 24 * 60 * MINUTE_MS;

pub(crate) fn now_ms() -> i64 {
    i64::try_from(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_millis(),
    )
    .unwrap()
}

/// Sets the stored times of every refresh token of `user_id`: when it was last used and when its session
/// started, `idle_ms` and `age_ms` ago.
fn age_sessions(app: &TestApp, user_id: &str, idle_ms: i64, age_ms: i64) {
    use adapter_db::schema::refresh_tokens::dsl;
    let db = Db::connect(&app.database_url, 1).unwrap();
    let mut conn = db.connection().unwrap();
    let now = now_ms();
    let changed = diesel::update(dsl::refresh_tokens.filter(dsl::user_id.eq(user_id)))
        .set((
            dsl::created_at.eq(now - idle_ms),
            dsl::last_used_at.eq(now - idle_ms),
            dsl::family_started_at.eq(now - age_ms),
        ))
        .execute(&mut *conn)
        .unwrap();
    assert!(changed > 0, "refresh tokens of {user_id}");
}

/// Makes every e-mail code and link of `email` `ago_ms` past its expiry.
fn expire_codes(app: &TestApp, email: &str, ago_ms: i64) {
    use adapter_db::schema::one_time_codes::dsl;
    let db = Db::connect(&app.database_url, 1).unwrap();
    let mut conn = db.connection().unwrap();
    let now = now_ms();
    let changed = diesel::update(dsl::one_time_codes.filter(dsl::email.eq(email)))
        .set((
            dsl::created_at.eq(now - ago_ms - 15 * MINUTE_MS),
            dsl::expires_at.eq(now - ago_ms),
        ))
        .execute(&mut *conn)
        .unwrap();
    assert!(changed > 0, "codes of {email}");
}

async fn refresh(app: &TestApp, token: &str) -> reqwest::Response {
    app.auth_post("/token?grant_type=refresh_token", json!({"refresh_token": token}))
        .await
}

/// The access token of an ended session is refused by the identity service, the product API and the
/// exchange alike.
async fn assert_session_over(app: &TestApp, access: &str, backend: adapter_db::Backend) {
    let (status, code, _) = error_of(app.get_bearer("/auth/v1/user", access).await).await;
    assert_eq!((status, code.as_str()), (403, "session_not_found"), "{backend:?}");
    let me = app.get_bearer("/api/dev/auth/me", access).await;
    assert_eq!(me.status(), StatusCode::UNAUTHORIZED, "{backend:?}");
    assert_eq!(
        app.exchange(access).await.status(),
        StatusCode::UNAUTHORIZED,
        "{backend:?}"
    );
}

#[tokio::test]
async fn a_session_unused_for_seven_days_ends() {
    for backend in BACKENDS {
        let app = spawn_app_on(backend).await;
        app.sign_up("dev@example.com").await;
        let session = app.sign_in("dev@example.com").await;
        let user_id = session["user"]["id"].as_str().unwrap();

        // Just under seven days: the token still refreshes, and the new one counts from now.
        age_sessions(&app, user_id, 7 * DAY_MS - 5 * MINUTE_MS, 8 * DAY_MS);
        let refreshed = refresh(&app, session["refresh_token"].as_str().unwrap()).await;
        assert_eq!(refreshed.status(), StatusCode::OK, "{backend:?}");
        let refreshed: Value = refreshed.json().await.unwrap();
        let access = refreshed["access_token"].as_str().unwrap();
        assert_eq!(
            app.get_bearer("/auth/v1/user", access).await.status(),
            StatusCode::OK
        );

        // Seven days without a refresh: the session is over, its access token with it.
        age_sessions(&app, user_id, 7 * DAY_MS + MINUTE_MS, 8 * DAY_MS);
        let idle = refresh(&app, refreshed["refresh_token"].as_str().unwrap()).await;
        let (status, code, body) = error_of(idle).await;
        assert_eq!(
            (status, code.as_str()),
            (400, "session_expired"),
            "{backend:?} {body}"
        );
        assert_session_over(&app, access, backend).await;

        // A new sign-in is a new session.
        let again = app.sign_in("dev@example.com").await;
        let again = refresh(&app, again["refresh_token"].as_str().unwrap()).await;
        assert_eq!(again.status(), StatusCode::OK, "{backend:?}");
    }
}

#[tokio::test]
async fn a_session_ends_thirty_days_after_it_started_however_often_it_is_refreshed() {
    for backend in BACKENDS {
        let app = spawn_app_on(backend).await;
        app.sign_up("dev@example.com").await;
        let session = app.sign_in("dev@example.com").await;
        let user_id = session["user"]["id"].as_str().unwrap();

        // Used an hour ago, started just under thirty days ago: still fine.
        age_sessions(&app, user_id, 60 * MINUTE_MS, 30 * DAY_MS - 5 * MINUTE_MS);
        let refreshed = refresh(&app, session["refresh_token"].as_str().unwrap()).await;
        assert_eq!(refreshed.status(), StatusCode::OK, "{backend:?}");
        let refreshed: Value = refreshed.json().await.unwrap();

        // Refreshed a minute ago, but started thirty days ago: over.
        age_sessions(&app, user_id, MINUTE_MS, 30 * DAY_MS + MINUTE_MS);
        let old = refresh(&app, refreshed["refresh_token"].as_str().unwrap()).await;
        let (status, code, body) = error_of(old).await;
        assert_eq!(
            (status, code.as_str()),
            (400, "session_expired"),
            "{backend:?} {body}"
        );
        assert_session_over(&app, refreshed["access_token"].as_str().unwrap(), backend).await;
    }
}

#[tokio::test]
async fn expired_e_mail_codes_and_links_are_refused() {
    for backend in BACKENDS {
        let app = spawn_app_on(backend).await;
        app.sign_up("dev@example.com").await;
        let browser = no_redirects();

        // A magic link and its code, a second past their fifteen minutes.
        let sent = app.auth_post("/otp", json!({"email": "dev@example.com"})).await;
        assert_eq!(sent.status(), StatusCode::OK);
        let (link, body) = app.last_email("dev@example.com");
        expire_codes(&app, "dev@example.com", 1000);
        let code = app
            .auth_post(
                "/verify",
                json!({"type": "email", "email": "dev@example.com", "token": code_in(&body)}),
            )
            .await;
        let (status, code, _) = error_of(code).await;
        assert_eq!((status, code.as_str()), (403, "otp_expired"), "{backend:?}");
        let followed = browser.get(local(&app, &link)).send().await.unwrap();
        let fragment = fragment_of(followed.headers()["location"].to_str().unwrap());
        assert_eq!(fragment["error_code"], "otp_expired", "{backend:?}");
        assert!(!fragment.contains_key("access_token"));

        // An expired recovery link changes nothing.
        app.auth_post("/recover", json!({"email": "dev@example.com"}))
            .await;
        let (link, _) = app.last_email("dev@example.com");
        assert!(link.contains("type=recovery"));
        expire_codes(&app, "dev@example.com", 1000);
        let followed = browser.get(local(&app, &link)).send().await.unwrap();
        let fragment = fragment_of(followed.headers()["location"].to_str().unwrap());
        assert_eq!(fragment["error_code"], "otp_expired", "{backend:?}");

        // A fresh e-mail works: the refusals above were the clock's.
        app.auth_post("/otp", json!({"email": "dev@example.com"})).await;
        let (_, body) = app.last_email("dev@example.com");
        let verified = app
            .auth_post(
                "/verify",
                json!({"type": "email", "email": "dev@example.com", "token": code_in(&body)}),
            )
            .await;
        assert_eq!(verified.status(), StatusCode::OK, "{backend:?}");
    }
}

#[tokio::test]
async fn an_expired_confirmation_link_leaves_the_account_unconfirmed() {
    for backend in BACKENDS {
        // SMTP configured (nothing listens; the worker is off): sign-up waits for the confirmation.
        let app = spawn_app_with(backend, &[("SMTP_URL", "smtp://127.0.0.1:9")]).await;
        let signed_up = app
            .auth_post(
                "/signup",
                json!({"email": "new@example.com", "password": PASSWORD}),
            )
            .await;
        assert_eq!(signed_up.status(), StatusCode::OK);
        let (link, _) = app.last_email("new@example.com");
        assert!(link.contains("type=signup"), "{link}");
        expire_codes(&app, "new@example.com", 1000);
        let followed = no_redirects().get(local(&app, &link)).send().await.unwrap();
        let fragment = fragment_of(followed.headers()["location"].to_str().unwrap());
        assert_eq!(fragment["error_code"], "otp_expired", "{backend:?}");
        let token = link.split("token=").nth(1).unwrap().split('&').next().unwrap();
        let by_hash = app
            .auth_post("/verify", json!({"type": "signup", "token_hash": token}))
            .await;
        assert_eq!(error_of(by_hash).await.1, "otp_expired", "{backend:?}");
        let signed_in = app
            .auth_post(
                "/token?grant_type=password",
                json!({"email": "new@example.com", "password": PASSWORD}),
            )
            .await;
        // The sign-up's password rode on its codes: with them expired there is none to check.
        let (status, code, _) = error_of(signed_in).await;
        assert_eq!(
            (status, code.as_str()),
            (400, "invalid_credentials"),
            "{backend:?}"
        );
        use adapter_db::schema::accounts::dsl;
        let db = Db::connect(&app.database_url, 1).unwrap();
        let confirmed: Option<i64> = dsl::accounts
            .filter(dsl::email.eq("new@example.com"))
            .select(dsl::email_confirmed_at)
            .first(&mut *db.connection().unwrap())
            .unwrap();
        assert_eq!(confirmed, None, "{backend:?}: still unconfirmed");
    }
}
