//! Provider sign-in through the running server on both databases, with a real OpenID Connect provider on
//! loopback (tests/oidc-mock): an auth code works once, with its verifier only, and not after it expired;
//! an expired flow comes back to the page with the error. (The handlers' every branch is tested on a test
//! clock in app-server/tests/oauth.rs; this is the wired server on SQLite and PostgreSQL.)

use crate::expiry::now_ms;
use crate::helpers::{TestApp, spawn_app_with};
use crate::identity::{BACKENDS, error_of, local, no_redirects};
use adapter_db::Db;
use diesel::prelude::*;
use domain::identity::oauth::s256_challenge;
use oidc_mock::MockProvider;
use reqwest::StatusCode;
use serde_json::{Value, json};
use std::collections::HashMap;

const VERIFIER: &str = "the-browsers-pkce-verifier-the-browsers-pkce-verifier";

async fn app_with_google(backend: adapter_db::Backend, google: &MockProvider) -> TestApp {
    spawn_app_with(
        backend,
        &[
            ("PORTAL_OAUTH_GOOGLE_ISSUER", google.issuer.as_str()),
            ("PORTAL_OAUTH_GOOGLE_CLIENT_ID", "portal-client"),
            ("PORTAL_OAUTH_GOOGLE_CLIENT_SECRET", "test-only-secret"),
        ],
    )
    .await
}

fn location(response: &reqwest::Response) -> String {
    assert_eq!(response.status(), StatusCode::FOUND, "{response:?}");
    response.headers()["location"].to_str().unwrap().to_owned()
}

fn query_of(location: &str) -> HashMap<String, String> {
    url::Url::parse(location)
        .unwrap()
        .query_pairs()
        .into_owned()
        .collect()
}

/// `/authorize` as supabase-js builds it, then the provider's approval: answers the callback URL on this
/// server (links carry the configured public URL).
async fn to_callback(app: &TestApp) -> String {
    let browser = no_redirects();
    let started = browser
        .get(app.url(&format!(
            "/auth/v1/authorize?provider=google&redirect_to=%2Fsignin&code_challenge={}&code_challenge_method=s256",
            s256_challenge(VERIFIER)
        )))
        .send()
        .await
        .unwrap();
    let approved = browser.get(location(&started)).send().await.unwrap();
    local(app, &location(&approved))
}

/// The whole way back to the page: answers the `?code=`.
async fn auth_code(app: &TestApp) -> String {
    let landed = no_redirects().get(to_callback(app).await).send().await.unwrap();
    let landed = location(&landed);
    assert!(
        landed.starts_with("http://127.0.0.1:8080/signin?code="),
        "{landed}"
    );
    query_of(&landed)["code"].clone()
}

async fn exchange(app: &TestApp, code: &str, verifier: &str) -> reqwest::Response {
    app.auth_post(
        "/token?grant_type=pkce",
        json!({"auth_code": code, "code_verifier": verifier}),
    )
    .await
}

fn expire_all(app: &TestApp) {
    use adapter_db::schema::{oauth_auth_codes, oauth_flows};
    let db = Db::connect(&app.database_url, 1).unwrap();
    let mut conn = db.connection().unwrap();
    let past = now_ms() - 1000;
    diesel::update(oauth_auth_codes::table)
        .set(oauth_auth_codes::expires_at.eq(past))
        .execute(&mut *conn)
        .unwrap();
    diesel::update(oauth_flows::table)
        .set(oauth_flows::expires_at.eq(past))
        .execute(&mut *conn)
        .unwrap();
}

#[tokio::test]
async fn a_provider_code_works_once_with_its_verifier_and_not_after_it_expired() {
    let google = MockProvider::start("RS256");
    for backend in BACKENDS {
        let app = app_with_google(backend, &google).await;

        let code = auth_code(&app).await;
        let signed_in = exchange(&app, &code, VERIFIER).await;
        assert_eq!(signed_in.status(), StatusCode::OK, "{backend:?}");
        let session: Value = signed_in.json().await.unwrap();
        assert_eq!(session["user"]["email"], "mock@example.com");
        let access = session["access_token"].as_str().unwrap();
        assert_eq!(
            app.get_bearer("/auth/v1/user", access).await.status(),
            StatusCode::OK
        );
        assert_eq!(app.exchange(access).await.status(), StatusCode::OK, "{backend:?}");
        let (status, error, _) = error_of(exchange(&app, &code, VERIFIER).await).await;
        assert_eq!(
            (status, error.as_str()),
            (404, "flow_state_not_found"),
            "{backend:?}"
        );

        // A wrong verifier is refused and spends the code.
        let code = auth_code(&app).await;
        let wrong = exchange(&app, &code, "another-verifier-another-verifier-another-verifier").await;
        let (status, error, _) = error_of(wrong).await;
        assert_eq!(
            (status, error.as_str()),
            (400, "bad_code_verifier"),
            "{backend:?}"
        );
        let (status, error, _) = error_of(exchange(&app, &code, VERIFIER).await).await;
        assert_eq!(
            (status, error.as_str()),
            (404, "flow_state_not_found"),
            "{backend:?}"
        );

        // An auth code past its time.
        let code = auth_code(&app).await;
        expire_all(&app);
        let (status, error, _) = error_of(exchange(&app, &code, VERIFIER).await).await;
        assert_eq!(
            (status, error.as_str()),
            (422, "flow_state_expired"),
            "{backend:?}"
        );

        // A flow past its time before the provider sent the browser back.
        let callback = to_callback(&app).await;
        expire_all(&app);
        let landed = no_redirects().get(callback).send().await.unwrap();
        let landed = location(&landed);
        assert!(landed.starts_with("http://127.0.0.1:8080/signin?"), "{landed}");
        let query = query_of(&landed);
        assert_eq!(query["error_code"], "bad_oauth_state", "{backend:?}");
        assert!(!query.contains_key("code"));
    }
}
