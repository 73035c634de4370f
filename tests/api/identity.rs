//! The built-in identity service (`/auth/v1`) and the product API's authentication, as supabase-js and the
//! browser use them: shapes, GoTrue error bodies, e-mail links and codes read from the outbox, rate limits,
//! and token kinds that must not be interchangeable.
//!
//! Idle (7 days) and absolute (30 days) refresh expiry and expired e-mail codes are in `expiry.rs`.

use crate::helpers::{TestApp, spawn_app, spawn_app_on, spawn_app_with};
use adapter_db::{Backend, Db};
use diesel::prelude::*;
use reqwest::StatusCode;
use serde_json::{Value, json};

pub(crate) const PASSWORD: &str = "a sufficiently long passphrase 42";
pub(crate) const BACKENDS: [Backend; 2] = [Backend::Sqlite, Backend::Postgres];

impl TestApp {
    pub(crate) async fn auth_post(&self, path: &str, body: Value) -> reqwest::Response {
        self.client
            .post(self.url(&format!("/auth/v1{path}")))
            .header("apikey", "built-in")
            .header("Authorization", "Bearer built-in")
            .header("x-supabase-api-version", "2024-01-01")
            .json(&body)
            .send()
            .await
            .unwrap()
    }

    pub(crate) async fn sign_up(&self, email: &str) -> Value {
        let response = self
            .auth_post(
                "/signup",
                json!({"email": email, "password": PASSWORD, "data": {"full_name": "Ada"}}),
            )
            .await;
        assert_eq!(response.status(), StatusCode::OK);
        response.json().await.unwrap()
    }

    pub(crate) async fn sign_in(&self, email: &str) -> Value {
        let response = self
            .auth_post(
                "/token?grant_type=password",
                json!({"email": email, "password": PASSWORD}),
            )
            .await;
        assert_eq!(response.status(), StatusCode::OK);
        response.json().await.unwrap()
    }

    pub(crate) async fn get_bearer(&self, path: &str, token: &str) -> reqwest::Response {
        self.client
            .get(self.url(path))
            .bearer_auth(token)
            .send()
            .await
            .unwrap()
    }

    pub(crate) async fn exchange(&self, token: &str) -> reqwest::Response {
        self.send(
            self.client
                .post(self.url("/api/auth/exchange-token"))
                .json(&json!({"supabaseToken": token})),
        )
        .await
    }

    /// The link and the body of the newest e-mail to `to` in the outbox.
    pub(crate) fn last_email(&self, to: &str) -> (String, String) {
        use adapter_db::schema::email_outbox::dsl;
        let db = Db::connect(&self.database_url, 1).unwrap();
        let mut conn = db.connection().unwrap();
        let (link, body): (Option<String>, String) = dsl::email_outbox
            .filter(dsl::recipient.eq(to))
            .order(dsl::created_at.desc())
            .select((dsl::link, dsl::body))
            .first(&mut *conn)
            .unwrap();
        (link.unwrap(), body)
    }

    pub(crate) fn outbox_count(&self, to: &str) -> i64 {
        use adapter_db::schema::email_outbox::dsl;
        let db = Db::connect(&self.database_url, 1).unwrap();
        let mut conn = db.connection().unwrap();
        dsl::email_outbox
            .filter(dsl::recipient.eq(to))
            .count()
            .get_result(&mut *conn)
            .unwrap()
    }
}

pub(crate) fn code_in(body: &str) -> String {
    let at = body.find("enter this code: ").unwrap() + "enter this code: ".len();
    body[at..at + 6].to_owned()
}

/// The e-mail link, pointed at the server under test (links carry the configured public URL).
pub(crate) fn local(app: &TestApp, link: &str) -> String {
    let path = &link[link.find("/auth/v1/").unwrap()..];
    app.url(path)
}

pub(crate) async fn error_of(response: reqwest::Response) -> (u16, String, Value) {
    let status = response.status().as_u16();
    let body: Value = response.json().await.unwrap();
    (status, body["code"].as_str().unwrap_or_default().to_owned(), body)
}

pub(crate) fn no_redirects() -> reqwest::Client {
    reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap()
}

pub(crate) fn fragment_of(location: &str) -> std::collections::HashMap<String, String> {
    let fragment = location.split_once('#').unwrap().1;
    url_pairs(fragment)
}

fn url_pairs(text: &str) -> std::collections::HashMap<String, String> {
    text.split('&')
        .filter_map(|pair| pair.split_once('='))
        .map(|(k, v)| {
            (
                k.to_owned(),
                v.replace('+', " ").replace("%3A", ":").replace("%2F", "/"),
            )
        })
        .collect()
}

#[tokio::test]
async fn sign_up_sign_in_user_refresh_reuse_and_logout() {
    for backend in BACKENDS {
        let app = spawn_app_on(backend).await;
        // No SMTP: the account is confirmed and signed in at once.
        let signed_up = app.sign_up("Dev@Example.com").await;
        assert_eq!(signed_up["token_type"], "bearer");
        assert_eq!(signed_up["expires_in"], 3600);
        assert_eq!(signed_up["user"]["email"], "dev@example.com");
        assert!(signed_up["user"]["email_confirmed_at"].is_string());
        assert_eq!(signed_up["user"]["user_metadata"]["full_name"], "Ada");
        assert_eq!(signed_up["user"]["app_metadata"]["provider"], "email");

        let session = app.sign_in("dev@example.com").await;
        let access = session["access_token"].as_str().unwrap();
        let user: Value = app
            .get_bearer("/auth/v1/user", access)
            .await
            .json()
            .await
            .unwrap();
        assert_eq!(user["id"], signed_up["user"]["id"]);
        assert_eq!(user["aud"], "authenticated");

        let refresh = session["refresh_token"].as_str().unwrap();
        let refreshed = app
            .auth_post(
                "/token?grant_type=refresh_token",
                json!({"refresh_token": refresh}),
            )
            .await;
        assert_eq!(refreshed.status(), StatusCode::OK, "{backend:?}");
        let refreshed: Value = refreshed.json().await.unwrap();
        let new_refresh = refreshed["refresh_token"].as_str().unwrap().to_owned();
        assert_ne!(new_refresh, refresh);

        // Presenting the old token again revokes the whole session, the new token included.
        let reused = app
            .auth_post(
                "/token?grant_type=refresh_token",
                json!({"refresh_token": refresh}),
            )
            .await;
        let (status, code, _) = error_of(reused).await;
        assert_eq!((status, code.as_str()), (400, "refresh_token_already_used"));
        let after = app
            .auth_post(
                "/token?grant_type=refresh_token",
                json!({"refresh_token": new_refresh}),
            )
            .await;
        let (status, code, _) = error_of(after).await;
        assert_eq!((status, code.as_str()), (400, "session_expired"));

        // Sign-out (global) ends every other session too.
        let third = app.sign_in("dev@example.com").await;
        let other = app.sign_in("dev@example.com").await;
        let other_core = core_token_of(&app, other["access_token"].as_str().unwrap()).await;
        let me = app.get_bearer("/api/dev/auth/me", &other_core).await;
        assert_eq!(me.status(), StatusCode::OK, "{backend:?}");
        let logout = app
            .client
            .post(app.url("/auth/v1/logout?scope=global"))
            .bearer_auth(third["access_token"].as_str().unwrap())
            .send()
            .await
            .unwrap();
        assert_eq!(logout.status(), StatusCode::NO_CONTENT);
        let other_refresh = app
            .auth_post(
                "/token?grant_type=refresh_token",
                json!({"refresh_token": other["refresh_token"]}),
            )
            .await;
        assert_eq!(other_refresh.status(), StatusCode::BAD_REQUEST, "{backend:?}");
        // And a signed-out session's access token can no longer be exchanged for a core token.
        let exchange = app.exchange(other["access_token"].as_str().unwrap()).await;
        assert_eq!(exchange.status(), StatusCode::UNAUTHORIZED);
        // Nor is it a session anywhere else: not for the identity service, not for the product API.
        let (status, code, _) = error_of(
            app.get_bearer("/auth/v1/user", other["access_token"].as_str().unwrap())
                .await,
        )
        .await;
        assert_eq!((status, code.as_str()), (403, "session_not_found"), "{backend:?}");
        let me = app
            .get_bearer("/api/dev/auth/me", other["access_token"].as_str().unwrap())
            .await;
        assert_eq!(me.status(), StatusCode::UNAUTHORIZED, "{backend:?}");
        // A core token exchanged from that session dies with it, hours before its own expiry.
        let me = app.get_bearer("/api/dev/auth/me", &other_core).await;
        assert_eq!(me.status(), StatusCode::UNAUTHORIZED, "{backend:?}");
        // The session whose refresh token was reused is over too.
        let (status, code, _) = error_of(app.get_bearer("/auth/v1/user", access).await).await;
        assert_eq!((status, code.as_str()), (403, "session_not_found"));
    }
}

/// Exchanges an identity access token for a core token.
async fn core_token_of(app: &TestApp, access_token: &str) -> String {
    let body: Value = app.exchange(access_token).await.json().await.unwrap();
    body["coreToken"].as_str().unwrap().to_owned()
}

#[tokio::test]
async fn local_sign_out_ends_only_that_session() {
    let app = spawn_app().await;
    app.sign_up("dev@example.com").await;
    let first = app.sign_in("dev@example.com").await;
    let second = app.sign_in("dev@example.com").await;
    let logout = app
        .client
        .post(app.url("/auth/v1/logout?scope=local"))
        .bearer_auth(first["access_token"].as_str().unwrap())
        .send()
        .await
        .unwrap();
    assert_eq!(logout.status(), StatusCode::NO_CONTENT);
    let refresh = |token: &Value| json!({"refresh_token": token["refresh_token"]});
    let first_refresh = app
        .auth_post("/token?grant_type=refresh_token", refresh(&first))
        .await;
    assert_eq!(first_refresh.status(), StatusCode::BAD_REQUEST);
    let second_refresh = app
        .auth_post("/token?grant_type=refresh_token", refresh(&second))
        .await;
    assert_eq!(second_refresh.status(), StatusCode::OK);
    let bad_scope = app
        .client
        .post(app.url("/auth/v1/logout?scope=everyone"))
        .bearer_auth(second["access_token"].as_str().unwrap())
        .send()
        .await
        .unwrap();
    assert_eq!(error_of(bad_scope).await.1, "validation_failed");
}

#[tokio::test]
async fn errors_have_the_gotrue_shape_and_status() {
    let app = spawn_app().await;
    let cases: Vec<(&str, Value, u16, &str)> = vec![
        (
            "/signup",
            json!({"email": "a@example.com"}),
            400,
            "validation_failed",
        ),
        ("/signup", json!({"password": PASSWORD}), 400, "validation_failed"),
        (
            "/signup",
            json!({"email": "a@example.com", "password": "short"}),
            422,
            "weak_password",
        ),
        (
            "/signup",
            json!({"email": "not-an-email", "password": PASSWORD}),
            400,
            "email_address_invalid",
        ),
        (
            "/token?grant_type=password",
            json!({"email": "ghost@example.com", "password": PASSWORD}),
            400,
            "invalid_credentials",
        ),
        (
            "/token?grant_type=password",
            json!({"password": PASSWORD}),
            400,
            "validation_failed",
        ),
        (
            "/token?grant_type=refresh_token",
            json!({"refresh_token": "nope"}),
            400,
            "refresh_token_not_found",
        ),
        ("/token?grant_type=pkce", json!({}), 400, "validation_failed"),
        ("/otp", json!({}), 400, "validation_failed"),
        ("/recover", json!({}), 400, "validation_failed"),
        (
            "/verify",
            json!({"type": "email", "email": "a@example.com", "token": "123456"}),
            403,
            "otp_expired",
        ),
        (
            "/verify",
            json!({"type": "sms", "token": "1"}),
            400,
            "validation_failed",
        ),
    ];
    for (path, body, status, code) in cases {
        let response = app.auth_post(path, body.clone()).await;
        assert_eq!(
            response.headers().get("x-supabase-api-version").unwrap(),
            "2024-01-01"
        );
        let (got_status, got_code, json) = error_of(response).await;
        assert_eq!(
            (got_status, got_code.as_str()),
            (status, code),
            "{path} {body}: {json}"
        );
        assert_eq!(json["error_code"], code);
        assert!(json["msg"].as_str().is_some_and(|m| !m.is_empty()), "{json}");
    }
    let weak = app
        .auth_post("/signup", json!({"email": "a@example.com", "password": "short"}))
        .await;
    assert!(weak.json::<Value>().await.unwrap()["weak_password"]["reasons"].is_array());

    app.sign_up("taken@example.com").await;
    let taken = app
        .auth_post(
            "/signup",
            json!({"email": "taken@example.com", "password": PASSWORD}),
        )
        .await;
    assert_eq!(error_of(taken).await.1, "user_already_exists");
    let wrong = app
        .auth_post(
            "/token?grant_type=password",
            json!({"email": "taken@example.com", "password": "the wrong passphrase 1"}),
        )
        .await;
    let (_, _, wrong) = error_of(wrong).await;
    assert_eq!(wrong["msg"], "Invalid login credentials");

    // /user: no bearer is 401 no_authorization, the anon key is not a session (403 bad_jwt).
    let none = app.client.get(app.url("/auth/v1/user")).send().await.unwrap();
    assert_eq!(error_of(none).await.1, "no_authorization");
    let anon = app.get_bearer("/auth/v1/user", "built-in").await;
    let (status, code, _) = error_of(anon).await;
    assert_eq!((status, code.as_str()), (403, "bad_jwt"));
    let unknown = app
        .client
        .get(app.url("/auth/v1/no-such-endpoint"))
        .send()
        .await
        .unwrap();
    assert_eq!(unknown.status(), StatusCode::NOT_FOUND);
    let bad_json = app
        .client
        .post(app.url("/auth/v1/signup"))
        .header("Content-Type", "application/json")
        .body("{")
        .send()
        .await
        .unwrap();
    assert_eq!(error_of(bad_json).await.1, "bad_json");
    // A body over the limit is too large, not malformed: 413.
    let huge = format!("{{\"email\": \"{}\"}}", "a".repeat(10 * 1024 * 1024));
    let too_large = app
        .client
        .post(app.url("/auth/v1/signup"))
        .header("Content-Type", "application/json")
        .body(huge)
        .send()
        .await
        .unwrap();
    let (status, code, _) = error_of(too_large).await;
    assert_eq!((status, code.as_str()), (413, "request_too_large"));
}

#[tokio::test]
async fn magic_link_and_code_come_from_the_outbox_and_work_once() {
    for backend in BACKENDS {
        let app = spawn_app_on(backend).await;
        app.sign_up("dev@example.com").await;
        let sent = app
            .auth_post(
                "/otp?redirect_to=%2Fdashboard",
                json!({"email": "dev@example.com", "create_user": false}),
            )
            .await;
        assert_eq!(sent.status(), StatusCode::OK);
        assert_eq!(sent.json::<Value>().await.unwrap(), json!({}));
        let (link, body) = app.last_email("dev@example.com");
        assert!(link.contains("/auth/v1/verify?token=") && link.contains("type=magiclink"));

        // The link signs in: a redirect to the page asked for, with the session in the fragment.
        let browser = no_redirects();
        let followed = browser.get(local(&app, &link)).send().await.unwrap();
        assert_eq!(followed.status(), StatusCode::SEE_OTHER);
        let location = followed.headers()["location"].to_str().unwrap().to_owned();
        assert!(
            location.starts_with("http://127.0.0.1:8080/dashboard#"),
            "{location}"
        );
        let fragment = fragment_of(&location);
        // Signing up without SMTP proved nothing: this first proof of the address removed the password
        // set at sign-up, so the browser is asked to choose one (as after a recovery link).
        assert_eq!(fragment["type"], "recovery");
        assert_eq!(fragment["token_type"], "bearer");
        let user = app.get_bearer("/auth/v1/user", &fragment["access_token"]).await;
        assert_eq!(user.status(), StatusCode::OK);

        // Used once: the second visit gets the error in the fragment.
        let again = browser.get(local(&app, &link)).send().await.unwrap();
        let location = again.headers()["location"].to_str().unwrap().to_owned();
        let fragment = fragment_of(&location);
        assert_eq!(fragment["error_code"], "otp_expired");
        assert_eq!(fragment["error"], "access_denied");

        // The code of that e-mail was retired with the link.
        let stale = app
            .auth_post(
                "/verify",
                json!({"type": "email", "email": "dev@example.com", "token": code_in(&body)}),
            )
            .await;
        assert_eq!(error_of(stale).await.1, "otp_expired", "{backend:?}");

        // A new e-mail's code signs in, once.
        app.auth_post("/otp", json!({"email": "dev@example.com"})).await;
        let (_, body) = app.last_email("dev@example.com");
        let code = code_in(&body);
        let verified = app
            .auth_post(
                "/verify",
                json!({"type": "email", "email": "dev@example.com", "token": code}),
            )
            .await;
        assert_eq!(verified.status(), StatusCode::OK, "{backend:?}");
        let session: Value = verified.json().await.unwrap();
        assert!(session["access_token"].is_string() && session["refresh_token"].is_string());
        // The address is proven now: nothing more to choose.
        assert!(session.get("choose_password").is_none(), "{session}");
        let reused = app
            .auth_post(
                "/verify",
                json!({"type": "email", "email": "dev@example.com", "token": code}),
            )
            .await;
        let (status, code, _) = error_of(reused).await;
        assert_eq!((status, code.as_str()), (403, "otp_expired"));
    }
}

#[tokio::test]
async fn unknown_addresses_get_the_same_answer_and_no_email() {
    let app = spawn_app().await;
    let otp = app
        .auth_post(
            "/otp",
            json!({"email": "ghost@example.com", "create_user": false}),
        )
        .await;
    assert_eq!(otp.status(), StatusCode::OK);
    let recover = app
        .auth_post("/recover", json!({"email": "ghost@example.com"}))
        .await;
    assert_eq!(recover.status(), StatusCode::OK);
    assert_eq!(recover.json::<Value>().await.unwrap(), json!({}));
    assert_eq!(app.outbox_count("ghost@example.com"), 0);
}

#[tokio::test]
async fn redirect_targets_stay_on_the_portal_whatever_hides_in_them() {
    let app = spawn_app().await;
    app.sign_up("dev@example.com").await;
    let browser = no_redirects();

    // The e-mail carries the resolved URL, not what was sent.
    app.auth_post(
        "/otp?redirect_to=%2Fa%2F..%2Fdashboard",
        json!({"email": "dev@example.com"}),
    )
    .await;
    let (link, _) = app.last_email("dev@example.com");
    assert!(
        link.contains("redirect_to=http%3A%2F%2F127.0.0.1%3A8080%2Fdashboard"),
        "{link}"
    );

    // A tab (browsers drop it, so `/\t/evil.example` opens `//evil.example`) or a newline refuses the
    // target: the e-mail has none and the link goes home.
    for smuggled in [
        "%2F%09%2Fevil.example",
        "%2F%0A%2Fevil.example",
        "%2F%5C%2Fevil.example",
    ] {
        app.auth_post(
            &format!("/otp?redirect_to={smuggled}"),
            json!({"email": "dev@example.com"}),
        )
        .await;
        let (link, _) = app.last_email("dev@example.com");
        assert!(!link.contains("redirect_to"), "{smuggled}: {link}");
    }

    // `/verify` checks again what it receives: a link edited by hand goes home.
    let (link, _) = app.last_email("dev@example.com");
    let edited = format!("{}&redirect_to=%2F%09%2Fevil.example", local(&app, &link));
    let followed = browser.get(edited).send().await.unwrap();
    assert_eq!(followed.status(), StatusCode::SEE_OTHER);
    let location = followed.headers()["location"].to_str().unwrap();
    assert!(location.starts_with("http://127.0.0.1:8080/#"), "{location}");

    // So does `/authorize`, before anything else.
    let started = browser
        .get(app.url("/auth/v1/authorize?provider=google&redirect_to=%2F%09%2Fevil.example"))
        .send()
        .await
        .unwrap();
    assert_eq!(started.status(), StatusCode::BAD_REQUEST);
    assert!(started.headers().get("location").is_none());
}

#[tokio::test]
async fn a_recovery_link_signs_in_as_recovery_and_lets_the_password_change() {
    let app = spawn_app().await;
    app.sign_up("dev@example.com").await;
    app.auth_post(
        "/recover?redirect_to=%2Fsignin",
        json!({"email": "dev@example.com"}),
    )
    .await;
    let (link, _) = app.last_email("dev@example.com");
    assert!(link.contains("type=recovery"));
    let followed = no_redirects().get(local(&app, &link)).send().await.unwrap();
    let fragment = fragment_of(followed.headers()["location"].to_str().unwrap());
    assert_eq!(fragment["type"], "recovery");
    let changed = app
        .client
        .put(app.url("/auth/v1/user"))
        .bearer_auth(&fragment["access_token"])
        .json(&json!({"password": "another long passphrase 77"}))
        .send()
        .await
        .unwrap();
    assert_eq!(changed.status(), StatusCode::OK);
    let signed_in = app
        .auth_post(
            "/token?grant_type=password",
            json!({"email": "dev@example.com", "password": "another long passphrase 77"}),
        )
        .await;
    assert_eq!(signed_in.status(), StatusCode::OK);
}

#[tokio::test]
async fn sign_in_attempts_over_the_account_limit_get_429_with_retry_after() {
    for backend in BACKENDS {
        let app = spawn_app_on(backend).await;
        app.sign_up("dev@example.com").await;
        let attempt = || {
            app.auth_post(
                "/token?grant_type=password",
                json!({"email": "dev@example.com", "password": "the wrong passphrase 1"}),
            )
        };
        for _ in 0..10 {
            assert_eq!(attempt().await.status(), StatusCode::BAD_REQUEST);
        }
        let limited = attempt().await;
        assert_eq!(limited.status(), StatusCode::TOO_MANY_REQUESTS, "{backend:?}");
        let retry_after: u64 = limited.headers()["retry-after"]
            .to_str()
            .unwrap()
            .parse()
            .unwrap();
        assert!((1..=1800).contains(&retry_after), "{retry_after}");
        let (_, code, body) = error_of(limited).await;
        assert_eq!(code, "over_request_rate_limit", "{body}");
        // Even the right password waits; another account does not.
        let right = app
            .auth_post(
                "/token?grant_type=password",
                json!({"email": "dev@example.com", "password": PASSWORD}),
            )
            .await;
        assert_eq!(right.status(), StatusCode::TOO_MANY_REQUESTS);
        let other = app
            .auth_post(
                "/token?grant_type=password",
                json!({"email": "other@example.com", "password": PASSWORD}),
            )
            .await;
        assert_eq!(other.status(), StatusCode::BAD_REQUEST);
    }
}

#[tokio::test]
async fn otp_e_mails_are_limited_per_address() {
    let app = spawn_app().await;
    app.sign_up("dev@example.com").await;
    for _ in 0..5 {
        let sent = app.auth_post("/otp", json!({"email": "dev@example.com"})).await;
        assert_eq!(sent.status(), StatusCode::OK);
    }
    let limited = app.auth_post("/otp", json!({"email": "dev@example.com"})).await;
    assert!(limited.headers().contains_key("retry-after"));
    let (status, code, _) = error_of(limited).await;
    assert_eq!((status, code.as_str()), (429, "over_email_send_rate_limit"));
    assert_eq!(app.outbox_count("dev@example.com"), 5);
}

#[tokio::test]
async fn each_token_kind_is_accepted_only_where_it_belongs() {
    for backend in BACKENDS {
        let app = spawn_app_on(backend).await;
        app.sign_up("dev@example.com").await;
        let session = app.sign_in("dev@example.com").await;
        let access = session["access_token"].as_str().unwrap();
        let refresh = session["refresh_token"].as_str().unwrap();
        // An unused magic link and code: e-mail secrets are not sessions either.
        app.auth_post("/otp", json!({"email": "dev@example.com"})).await;
        let (link, body) = app.last_email("dev@example.com");
        let link_token = link
            .split("token=")
            .nth(1)
            .unwrap()
            .split('&')
            .next()
            .unwrap()
            .to_owned();
        let code = code_in(&body);

        // The access token is exchanged for a core token that expires no later than itself.
        let exchanged = app.exchange(access).await;
        assert_eq!(exchanged.status(), StatusCode::OK);
        let exchanged: Value = exchanged.json().await.unwrap();
        let core = exchanged["coreToken"].as_str().unwrap();
        assert!(exchanged["expiresAt"].is_string());
        assert_ne!(core, access);

        // The product API takes the core token and, as the fallback, the access token.
        for token in [core, access] {
            let me = app.get_bearer("/api/dev/auth/me", token).await;
            assert_eq!(me.status(), StatusCode::OK, "{backend:?}");
        }
        // Nothing else: refresh token, anon key, e-mail link or code, garbage, no token.
        for token in [refresh, "built-in", &link_token, &code, "a.b.c"] {
            let me = app.get_bearer("/api/dev/auth/me", token).await;
            assert_eq!(me.status(), StatusCode::UNAUTHORIZED, "{token}");
            let body: Value = me.json().await.unwrap();
            assert_eq!(body["code"], "UNAUTHORIZED");
            assert!(body["error"].is_string());
        }
        let anonymous = app.send(app.client.get(app.url("/api/dev/auth/me"))).await;
        assert_eq!(anonymous.status(), StatusCode::UNAUTHORIZED);

        // The identity service takes only the access token as a bearer: not the core token, the refresh
        // token, the anon key or an e-mail secret, for reading, changing or signing out the user.
        for token in [core, refresh, "built-in", &link_token, &code] {
            let user = app.get_bearer("/auth/v1/user", token).await;
            let (status, code, _) = error_of(user).await;
            assert_eq!((status, code.as_str()), (403, "bad_jwt"), "{backend:?} {token}");
            let update = app
                .client
                .put(app.url("/auth/v1/user"))
                .bearer_auth(token)
                .json(&json!({"data": {"full_name": "Mallory"}}))
                .send()
                .await
                .unwrap();
            assert_eq!(error_of(update).await.1, "bad_jwt", "{token}");
            let logout = app
                .client
                .post(app.url("/auth/v1/logout"))
                .bearer_auth(token)
                .send()
                .await
                .unwrap();
            assert_eq!(error_of(logout).await.1, "bad_jwt", "{token}");
        }
        // Only the refresh token refreshes: not the access or core token, not an e-mail secret.
        for token in [access, core, "built-in", &link_token] {
            let refreshed = app
                .auth_post("/token?grant_type=refresh_token", json!({"refresh_token": token}))
                .await;
            let (status, code, _) = error_of(refreshed).await;
            assert_eq!(
                (status, code.as_str()),
                (400, "refresh_token_not_found"),
                "{backend:?} {token}"
            );
        }
        // A token of a session is not an e-mail link.
        for token in [access, refresh, core] {
            let verified = app
                .auth_post("/verify", json!({"type": "magiclink", "token_hash": token}))
                .await;
            let (status, code, _) = error_of(verified).await;
            assert_eq!((status, code.as_str()), (403, "otp_expired"), "{token}");
        }
        // Only an identity access token is exchanged: not a core, refresh, anon or e-mail token.
        for token in [core, refresh, "built-in", &link_token] {
            assert_eq!(
                app.exchange(token).await.status(),
                StatusCode::UNAUTHORIZED,
                "{token}"
            );
        }
        let missing = app
            .send(
                app.client
                    .post(app.url("/api/auth/exchange-token"))
                    .json(&json!({})),
            )
            .await;
        assert_eq!(missing.status(), StatusCode::BAD_REQUEST);

        // None of the refused attempts spent or ended anything: the session, its profile and the e-mail
        // link are as they were.
        let user: Value = app
            .get_bearer("/auth/v1/user", access)
            .await
            .json()
            .await
            .unwrap();
        assert_eq!(user["user_metadata"]["full_name"], "Ada", "{backend:?}");
        let refreshed = app
            .auth_post(
                "/token?grant_type=refresh_token",
                json!({"refresh_token": refresh}),
            )
            .await;
        assert_eq!(refreshed.status(), StatusCode::OK, "{backend:?}");
        let followed = no_redirects().get(local(&app, &link)).send().await.unwrap();
        let fragment = fragment_of(followed.headers()["location"].to_str().unwrap());
        assert!(fragment.contains_key("access_token"), "{backend:?}");
    }
}

#[tokio::test]
async fn me_profile_and_admin_check() {
    for backend in BACKENDS {
        let app = spawn_app_with(backend, &[("PORTAL_ADMIN_EMAILS", "boss@example.com")]).await;
        app.sign_up("boss@example.com").await;
        // No SMTP: signing up proves nothing, so the listed role waits until the operator gives it.
        let db = Db::connect(&app.database_url, 2).unwrap();
        let grant = app_server::admin_cli::AdminCommand::Grant {
            email: "boss@example.com".into(),
            role: "admin".into(),
        };
        app_server::admin_cli::run(&db, grant).await.unwrap();
        let session = app.sign_in("boss@example.com").await;
        let core: Value = app
            .exchange(session["access_token"].as_str().unwrap())
            .await
            .json()
            .await
            .unwrap();
        let core = core["coreToken"].as_str().unwrap();
        let me: Value = app
            .get_bearer("/api/dev/auth/me", core)
            .await
            .json()
            .await
            .unwrap();
        assert_eq!(me["email"], "boss@example.com");
        assert_eq!(me["id"], session["user"]["id"]);
        assert_eq!(me["displayName"], "Ada");
        assert_eq!(me["emailConfirmed"], true);
        assert_eq!(me["providers"], json!(["email"]));
        assert_eq!(
            (me["isAdmin"].clone(), me["platformRole"].clone()),
            (json!(true), json!("admin"))
        );

        let updated = app
            .send(
                app.client
                    .put(app.url("/api/dev/auth/profile"))
                    .bearer_auth(core)
                    .json(&json!({"displayName": "The Boss", "profile": {"company": "Acme"}})),
            )
            .await;
        assert_eq!(updated.status(), StatusCode::OK, "{backend:?}");
        let updated: Value = updated.json().await.unwrap();
        assert_eq!(updated["displayName"], "The Boss");
        assert_eq!(updated["profile"]["company"], "Acme");
        let bad = app
            .send(
                app.client
                    .put(app.url("/api/dev/auth/profile"))
                    .bearer_auth(core)
                    .json(&json!({"displayName": 5, "role": "admin"})),
            )
            .await;
        assert_eq!(bad.status(), StatusCode::BAD_REQUEST);

        let check: Value = app
            .get_bearer("/api/admin/check", core)
            .await
            .json()
            .await
            .unwrap();
        assert_eq!(
            check,
            json!({"isAdmin": true, "role": "admin", "roleAwaitsProof": false})
        );
        app.sign_up("dev@example.com").await;
        let dev = app.sign_in("dev@example.com").await;
        let check: Value = app
            .get_bearer("/api/admin/check", dev["access_token"].as_str().unwrap())
            .await
            .json()
            .await
            .unwrap();
        assert_eq!(
            check,
            json!({"isAdmin": false, "role": null, "roleAwaitsProof": false})
        );
    }
}

#[tokio::test]
async fn browsers_may_call_the_identity_service_across_origins() {
    let app = spawn_app().await;
    let preflight = app
        .client
        .request(
            reqwest::Method::OPTIONS,
            app.url("/auth/v1/token?grant_type=password"),
        )
        .header("Origin", "http://localhost:5173")
        .header("Access-Control-Request-Method", "POST")
        .header(
            "Access-Control-Request-Headers",
            "authorization,apikey,content-type,x-client-info,x-supabase-api-version",
        )
        .send()
        .await
        .unwrap();
    assert!(preflight.status().is_success());
    assert_eq!(
        preflight.headers()["access-control-allow-origin"],
        "http://localhost:5173"
    );
    let settings = app
        .client
        .get(app.url("/auth/v1/settings"))
        .header("Origin", "http://localhost:5173")
        .send()
        .await
        .unwrap();
    let exposed = settings.headers()["access-control-expose-headers"]
        .to_str()
        .unwrap()
        .to_owned();
    assert!(exposed.contains("x-supabase-api-version"), "{exposed}");
    let settings: Value = settings.json().await.unwrap();
    assert_eq!(settings["external"]["email"], true);
    assert_eq!(settings["mailer_autoconfirm"], true);
}

#[tokio::test]
async fn public_config_names_the_built_in_identity_service() {
    let app = spawn_app_with(
        Backend::Sqlite,
        &[("PORTAL_PUBLIC_URL", "https://portal.example.com/")],
    )
    .await;
    let config = app.get_json("/api/public-config").await;
    assert_eq!(
        config["identity"],
        json!({
            "kind": "builtin",
            "url": "https://portal.example.com",
            "authUrl": "https://portal.example.com/auth/v1",
            "anonKey": "built-in"
        })
    );
    // No SMTP_URL: no e-mail goes out, and the sign-in forms say where the links are (issue 48 item 3).
    assert_eq!(config["mailSent"], false);
    let with_mail = spawn_app_with(Backend::Sqlite, &[("SMTP_URL", "smtp://127.0.0.1:2525")]).await;
    assert_eq!(with_mail.get_json("/api/public-config").await["mailSent"], true);
}

/// A server that requires e-mail confirmation (SMTP configured; the delivery worker stays off, so the
/// e-mails wait in the outbox for the test to read).
async fn confirming_app(backend: Backend) -> TestApp {
    spawn_app_with(backend, &[("SMTP_URL", "smtp://127.0.0.1:9")]).await
}

/// The value of the sign-up cookie a response sets, with the whole `Set-Cookie` line.
fn signup_cookie(response: &reqwest::Response) -> (String, String) {
    let line = response
        .headers()
        .get_all("set-cookie")
        .iter()
        .filter_map(|v| v.to_str().ok())
        .find(|v| v.starts_with("portal-signup-browser="))
        .expect("a sign-up cookie")
        .to_owned();
    let value = line["portal-signup-browser=".len()..]
        .split(';')
        .next()
        .unwrap()
        .to_owned();
    (value, line)
}

impl TestApp {
    /// Signs up with SMTP configured; answers the body and the sign-up cookie's value.
    async fn sign_up_awaiting(&self, email: &str, password: &str) -> (Value, String) {
        let response = self
            .auth_post("/signup", json!({"email": email, "password": password}))
            .await;
        assert_eq!(response.status(), StatusCode::OK);
        let (cookie, line) = signup_cookie(&response);
        for attribute in ["HttpOnly", "SameSite=Lax", "Path=/auth/v1", "Max-Age=900"] {
            assert!(line.contains(attribute), "{line}");
        }
        (response.json().await.unwrap(), cookie)
    }

    async fn password_works(&self, email: &str, password: &str) -> bool {
        self.auth_post(
            "/token?grant_type=password",
            json!({"email": email, "password": password}),
        )
        .await
        .status()
            == StatusCode::OK
    }

    /// Follows the newest e-mail link to `to`, from a browser holding the sign-up cookie `cookie` (or none).
    async fn follow_link(&self, to: &str, cookie: Option<&str>) -> std::collections::HashMap<String, String> {
        let (link, _) = self.last_email(to);
        let mut request = no_redirects().get(local(self, &link));
        if let Some(value) = cookie {
            request = request.header("Cookie", format!("portal-signup-browser={value}"));
        }
        let followed = request.send().await.unwrap();
        assert_eq!(followed.status(), StatusCode::SEE_OTHER);
        fragment_of(followed.headers()["location"].to_str().unwrap())
    }
}

#[tokio::test]
async fn a_second_code_request_retires_the_first() {
    for backend in BACKENDS {
        let app = spawn_app_on(backend).await;
        app.sign_up("dev@example.com").await;
        app.auth_post("/otp", json!({"email": "dev@example.com"})).await;
        let (first_link, first) = app.last_email("dev@example.com");
        app.auth_post("/otp", json!({"email": "dev@example.com"})).await;
        let (_, second) = app.last_email("dev@example.com");
        let verify = |code: String| {
            app.auth_post(
                "/verify",
                json!({"type": "email", "email": "dev@example.com", "token": code}),
            )
        };
        let (status, code, _) = error_of(verify(code_in(&first)).await).await;
        assert_eq!((status, code.as_str()), (403, "otp_expired"), "{backend:?}");
        let stale_link = no_redirects().get(local(&app, &first_link)).send().await.unwrap();
        let fragment = fragment_of(stale_link.headers()["location"].to_str().unwrap());
        assert_eq!(fragment["error_code"], "otp_expired", "{backend:?}");
        assert_eq!(
            verify(code_in(&second)).await.status(),
            StatusCode::OK,
            "{backend:?}"
        );
    }
}

#[tokio::test]
async fn five_wrong_codes_use_up_the_right_one() {
    for backend in BACKENDS {
        let app = spawn_app_on(backend).await;
        app.sign_up("dev@example.com").await;
        app.auth_post("/otp", json!({"email": "dev@example.com"})).await;
        let (_, body) = app.last_email("dev@example.com");
        let right = code_in(&body);
        let wrong = format!("{:06}", (right.parse::<u32>().unwrap() + 1) % 1_000_000);
        let verify = |code: String| {
            app.auth_post(
                "/verify",
                json!({"type": "email", "email": "dev@example.com", "token": code}),
            )
        };
        for _ in 0..5 {
            assert_eq!(error_of(verify(wrong.clone()).await).await.1, "otp_expired");
        }
        let (status, code, _) = error_of(verify(right).await).await;
        assert_eq!((status, code.as_str()), (403, "otp_expired"), "{backend:?}");
        // A new e-mail's code works again.
        app.auth_post("/otp", json!({"email": "dev@example.com"})).await;
        let (_, body) = app.last_email("dev@example.com");
        assert_eq!(
            verify(code_in(&body)).await.status(),
            StatusCode::OK,
            "{backend:?}"
        );
    }
}

#[tokio::test]
async fn confirming_a_sign_up_installs_its_password_only_in_the_browser_that_signed_up() {
    for backend in BACKENDS {
        let app = confirming_app(backend).await;
        // Someone signs up with another person's address; the owner confirms from their own browser.
        let (answer, _attacker_cookie) = app
            .sign_up_awaiting("victim@example.com", "the attackers passphrase 1")
            .await;
        assert!(answer.get("access_token").is_none());
        // Before confirmation, the sign-up's own password learns only that the address waits.
        let early = app
            .auth_post(
                "/token?grant_type=password",
                json!({"email": "victim@example.com", "password": "the attackers passphrase 1"}),
            )
            .await;
        assert_eq!(error_of(early).await.1, "email_not_confirmed", "{backend:?}");
        let fragment = app.follow_link("victim@example.com", None).await;
        assert_eq!(fragment["type"], "signup", "{backend:?}");
        let user: Value = app
            .get_bearer("/auth/v1/user", &fragment["access_token"])
            .await
            .json()
            .await
            .unwrap();
        assert!(user["email_confirmed_at"].is_string(), "{user}");
        assert!(
            !app.password_works("victim@example.com", "the attackers passphrase 1")
                .await,
            "{backend:?}: the stranger's password was installed"
        );

        // The same browser that signed up (its cookie comes back with the link): the password is set.
        let (_, cookie) = app.sign_up_awaiting("ada@example.com", PASSWORD).await;
        let fragment = app.follow_link("ada@example.com", Some(&cookie)).await;
        assert!(fragment.contains_key("access_token"));
        assert!(
            app.password_works("ada@example.com", PASSWORD).await,
            "{backend:?}"
        );

        // A typed code with the cookie installs it too; the same code without it would not.
        let (_, cookie) = app.sign_up_awaiting("grace@example.com", PASSWORD).await;
        let (_, body) = app.last_email("grace@example.com");
        let verified = app
            .client
            .post(app.url("/auth/v1/verify"))
            .header("apikey", "built-in")
            .header("Cookie", format!("portal-signup-browser={cookie}"))
            .json(&json!({"type": "email", "email": "grace@example.com", "token": code_in(&body)}))
            .send()
            .await
            .unwrap();
        assert_eq!(verified.status(), StatusCode::OK);
        assert!(
            app.password_works("grace@example.com", PASSWORD).await,
            "{backend:?}"
        );
    }
}

#[tokio::test]
async fn sign_up_answers_for_a_confirmed_address_are_identical_and_shaped_as_for_a_new_one() {
    for backend in BACKENDS {
        let app = confirming_app(backend).await;
        let (_, cookie) = app.sign_up_awaiting("taken@example.com", PASSWORD).await;
        app.follow_link("taken@example.com", Some(&cookie)).await;
        let (first, _) = app
            .sign_up_awaiting("taken@example.com", "another passphrase 123")
            .await;
        let (second, _) = app
            .sign_up_awaiting("taken@example.com", "another passphrase 123")
            .await;
        let (fresh, _) = app
            .sign_up_awaiting("fresh@example.com", "another passphrase 123")
            .await;
        let (fresh_again, _) = app
            .sign_up_awaiting("fresh@example.com", "another passphrase 123")
            .await;
        assert_eq!(
            first["id"], second["id"],
            "{backend:?}: the id of a confirmed address is stable"
        );
        assert_eq!(fresh["id"], fresh_again["id"]);
        let confirmed_id = app.sign_in("taken@example.com").await["user"]["id"].clone();
        assert_ne!(first["id"], confirmed_id, "the real id is not revealed");
        // Every field: the same keys and, but for the id, address and instants, the same values.
        let normalised = |answer: &Value| {
            let mut answer = answer.clone();
            for key in ["id", "email", "confirmation_sent_at", "created_at", "updated_at"] {
                assert!(answer[key].is_string(), "{key}: {answer}");
                answer[key] = json!("…");
            }
            answer
        };
        assert_eq!(normalised(&first), normalised(&fresh), "{backend:?}");
        assert_eq!(normalised(&first), normalised(&second));
        assert_eq!(
            first["id"].as_str().unwrap().len(),
            fresh["id"].as_str().unwrap().len()
        );
        assert_eq!(
            &first["id"].as_str().unwrap()[14..15],
            "4",
            "a version-4 id like any other"
        );
    }
}

#[tokio::test]
async fn rate_limits_count_ipv6_clients_by_their_slash_64() {
    let app = spawn_app_with(Backend::Sqlite, &[("PORTAL_TRUSTED_PROXIES", "127.0.0.1")]).await;
    let otp = |client: &'static str, email: String| {
        app.client
            .post(app.url("/auth/v1/otp"))
            .header("apikey", "built-in")
            .header("X-Forwarded-For", client)
            .json(&json!({"email": email, "create_user": false}))
            .send()
    };
    // Ten e-mail requests an hour per client address: spread over one /64, they are one client.
    let hosts = ["2001:db8:1:2::1", "2001:db8:1:2::2", "2001:db8:1:2:ffff::9"];
    for i in 0..10 {
        let sent = otp(hosts[i % 3], format!("u{i}@example.com")).await.unwrap();
        assert_eq!(sent.status(), StatusCode::OK);
    }
    let limited = otp("2001:db8:1:2:abcd::7", "late@example.com".into())
        .await
        .unwrap();
    assert_eq!(limited.status(), StatusCode::TOO_MANY_REQUESTS);
    let next_network = otp("2001:db8:1:3::1", "late@example.com".into()).await.unwrap();
    assert_eq!(next_network.status(), StatusCode::OK);
    // IPv4 clients are counted one address at a time.
    for host in ["198.51.100.1", "198.51.100.2"] {
        assert_eq!(
            otp(host, "v4@example.com".into()).await.unwrap().status(),
            StatusCode::OK
        );
    }
}

#[tokio::test]
async fn a_weak_password_of_twelve_characters_or_more_is_refused() {
    let app = spawn_app().await;
    for (password, message) in [
        ("elizabeth1234", "Password is too weak: "),
        ("sunshine2024!", "This password is too common."),
    ] {
        let response = app
            .auth_post("/signup", json!({"email": "a@example.com", "password": password}))
            .await;
        let (status, code, body) = error_of(response).await;
        assert_eq!(
            (status, code.as_str()),
            (422, "weak_password"),
            "{password}: {body}"
        );
        assert_eq!(body["error_code"], "weak_password");
        assert!(body["weak_password"]["reasons"].is_array(), "{body}");
        assert!(body["msg"].as_str().unwrap().starts_with(message), "{body}");
    }
    // Changing the password checks it the same way.
    let session = app.sign_up("a@example.com").await;
    let changed = app
        .client
        .put(app.url("/auth/v1/user"))
        .bearer_auth(session["access_token"].as_str().unwrap())
        .json(&json!({"password": "Qwertyuiop!2030"}))
        .send()
        .await
        .unwrap();
    assert_eq!(error_of(changed).await.1, "weak_password");
}
