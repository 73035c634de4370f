//! OAuth sign-in end to end against a real OpenID Connect provider on loopback (oauth2-mock-server): the
//! `/auth/v1` OAuth handlers, the OIDC adapter, the domain flow and the SQLite store, wired as
//! `app_server::oauth::wire` wires them, driven as `@supabase/supabase-js` drives them (authorize →
//! provider → callback → `?code=` → `POST /token?grant_type=pkce`).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use actix_web::{App, HttpResponse, HttpServer, web};
use adapter_db::Backend;
use adapter_db::testing::TestDb;
use adapter_http::identity::dto::SessionDto;
use adapter_http::identity::{AuthApiError, IdentityApi};
use adapter_http::oauth::OAuthApi;
use adapter_identity::HashCost;
use chrono::{DateTime, Duration, Utc};
use domain::common::Clock;
use domain::identity::oauth::s256_challenge;
use oidc_mock::MockProvider;
use serde_json::{Value, json};
use std::collections::HashMap;
use std::net::TcpListener;
use std::sync::{Arc, Mutex};

const VERIFIER: &str = "the-browsers-pkce-verifier-the-browsers-pkce-verifier";

/// A clock the test moves forward (the flow's and the auth code's expiry).
struct TestClock(Mutex<DateTime<Utc>>);

impl Clock for TestClock {
    fn now(&self) -> DateTime<Utc> {
        *self.0.lock().unwrap()
    }
}

impl TestClock {
    fn advance(&self, by: Duration) {
        *self.0.lock().unwrap() += by;
    }
}

struct Portal {
    base: String,
    http: reqwest::Client,
    clock: Arc<TestClock>,
    _db: TestDb,
}

/// The token endpoint's `pkce` arm as the hook-in documents it (a stand-in route of this test's own server,
/// so actix's extractor reads its body).
#[allow(clippy::disallowed_types)]
async fn token(
    oauth: web::Data<OAuthApi>,
    query: web::Query<HashMap<String, String>>,
    body: web::Json<Value>,
) -> Result<HttpResponse, AuthApiError> {
    assert_eq!(query.get("grant_type").map(String::as_str), Some("pkce"));
    let session = adapter_http::oauth::exchange_pkce(
        &oauth,
        "127.0.0.1",
        body.get("auth_code").and_then(Value::as_str),
        body.get("code_verifier").and_then(Value::as_str),
    )
    .await?;
    Ok(HttpResponse::Ok().json(SessionDto::from(&session)))
}

async fn portal(providers: &[(&str, &MockProvider)]) -> Portal {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://127.0.0.1:{}", listener.local_addr().unwrap().port());
    let mut vars = HashMap::from([("PORTAL_PUBLIC_URL".to_owned(), base.clone())]);
    for (name, mock) in providers {
        let upper = name.to_ascii_uppercase();
        vars.insert(format!("PORTAL_OAUTH_{upper}_ISSUER"), mock.issuer.clone());
        vars.insert(format!("PORTAL_OAUTH_{upper}_CLIENT_ID"), "portal-client".into());
        vars.insert(
            format!("PORTAL_OAUTH_{upper}_CLIENT_SECRET"),
            "test-only-secret".into(),
        );
    }
    let mut config = app_server::Config::from_vars(&vars).unwrap();
    config.password_hashing = HashCost::TestsOnly;
    let test_db = adapter_db::testing::fresh(Backend::Sqlite);
    let wiring = app_server::identity::wire(&config, &test_db.db).await.unwrap();
    // The server's own wiring (system clock) is replaced here by one on the test's clock.
    let identity: IdentityApi = wiring.identity.expect("the built-in identity service");
    let clock = Arc::new(TestClock(Mutex::new(Utc::now())));
    let oauth = app_server::oauth::wire(&config, &test_db.db, &identity.services, clock.clone()).unwrap();
    let server = HttpServer::new(move || {
        App::new().service(
            web::scope("/auth/v1")
                .app_data(web::Data::new(identity.clone()))
                .configure(adapter_http::oauth::configure(oauth.clone()))
                .route("/token", web::post().to(token)),
        )
    })
    .workers(1)
    .listen(listener)
    .unwrap()
    .run();
    tokio::spawn(server);
    Portal {
        base,
        http: reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .unwrap(),
        clock,
        _db: test_db,
    }
}

fn query_of(location: &str) -> HashMap<String, String> {
    url::Url::parse(location)
        .unwrap()
        .query_pairs()
        .into_owned()
        .collect()
}

fn location(response: &reqwest::Response) -> String {
    response.headers()["location"].to_str().unwrap().to_owned()
}

fn urlencode(text: &str) -> String {
    url::form_urlencoded::byte_serialize(text.as_bytes()).collect()
}

impl Portal {
    /// `GET /authorize` as supabase-js builds it.
    async fn authorize(&self, provider: &str, redirect_to: &str) -> reqwest::Response {
        let url = format!(
            "{}/auth/v1/authorize?provider={provider}&redirect_to={}&code_challenge={}&code_challenge_method=s256",
            self.base,
            urlencode(redirect_to),
            s256_challenge(VERIFIER)
        );
        self.http.get(url).send().await.unwrap()
    }

    /// Authorize, let the provider approve `hint`, and answer the URL the provider sends the browser to.
    async fn through_provider(&self, provider: &str, redirect_to: &str, hint: &str) -> String {
        let started = self.authorize(provider, redirect_to).await;
        assert_eq!(started.status().as_u16(), 302);
        let at_provider = location(&started);
        let back = self
            .http
            .get(format!("{at_provider}&login_hint={}", urlencode(hint)))
            .send()
            .await
            .unwrap();
        assert_eq!(back.status().as_u16(), 302);
        let callback = location(&back);
        assert!(
            callback.starts_with(&format!("{}/auth/v1/callback?", self.base)),
            "{callback}"
        );
        callback
    }

    /// The whole way to the page, answering where the callback sends the browser.
    async fn sign_in(&self, provider: &str, redirect_to: &str, hint: &str) -> String {
        let callback = self.through_provider(provider, redirect_to, hint).await;
        let landed = self.http.get(callback).send().await.unwrap();
        assert_eq!(landed.status().as_u16(), 302);
        location(&landed)
    }

    async fn exchange(&self, auth_code: &str, verifier: &str) -> (u16, Value) {
        let response = self
            .http
            .post(format!("{}/auth/v1/token?grant_type=pkce", self.base))
            .json(&json!({"auth_code": auth_code, "code_verifier": verifier}))
            .send()
            .await
            .unwrap();
        (response.status().as_u16(), response.json().await.unwrap())
    }
}

#[tokio::test]
async fn the_whole_flow_gives_a_session_once() {
    let google = MockProvider::start("RS256");
    let portal = portal(&[("google", &google)]).await;
    let page = format!("{}/signin?next=%2Fapps", portal.base);
    let landed = portal
        .sign_in("google", &page, "g-ada|ada@example.com|true|")
        .await;
    assert!(landed.starts_with(&format!("{page}&code=")), "{landed}");
    let code = query_of(&landed)["code"].clone();
    let (status, session) = portal.exchange(&code, VERIFIER).await;
    assert_eq!(status, 200, "{session}");
    assert_eq!(session["token_type"], "bearer");
    assert!(session["access_token"].as_str().is_some_and(|t| t.len() > 20));
    assert!(session["refresh_token"].as_str().is_some());
    assert_eq!(session["user"]["email"], "ada@example.com");
    let (status, again) = portal.exchange(&code, VERIFIER).await;
    assert_eq!(
        (status, again["code"].as_str()),
        (404, Some("flow_state_not_found"))
    );
    // Signing in again finds the same account through the linked identity.
    let second = portal
        .sign_in("google", &page, "g-ada|ada@example.com|true|")
        .await;
    let (_, session2) = portal.exchange(&query_of(&second)["code"], VERIFIER).await;
    assert_eq!(session2["user"]["id"], session["user"]["id"]);
}

#[tokio::test]
async fn a_wrong_verifier_is_refused_and_spends_the_code() {
    let google = MockProvider::start("RS256");
    let portal = portal(&[("google", &google)]).await;
    let landed = portal
        .sign_in("google", "/signin", "g-1|one@example.com|true|")
        .await;
    assert!(
        landed.starts_with(&format!("{}/signin?code=", portal.base)),
        "{landed}"
    );
    let code = query_of(&landed)["code"].clone();
    let (status, body) = portal
        .exchange(&code, "another-verifier-another-verifier-another-verifier")
        .await;
    assert_eq!((status, body["code"].as_str()), (400, Some("bad_code_verifier")));
    assert_eq!(
        body["msg"],
        "code challenge does not match previously saved code verifier"
    );
    let (status, body) = portal.exchange(&code, VERIFIER).await;
    assert_eq!(
        (status, body["code"].as_str()),
        (404, Some("flow_state_not_found"))
    );
    let (status, body) = portal.exchange("", VERIFIER).await;
    assert_eq!((status, body["code"].as_str()), (400, Some("validation_failed")));
}

#[tokio::test]
async fn an_expired_flow_returns_to_the_page_with_the_error() {
    let google = MockProvider::start("RS256");
    let portal = portal(&[("google", &google)]).await;
    let callback = portal
        .through_provider("google", "/signin", "g-1|one@example.com|true|")
        .await;
    portal.clock.advance(Duration::minutes(11));
    let landed = portal.http.get(callback.clone()).send().await.unwrap();
    let query = query_of(&location(&landed));
    assert!(location(&landed).starts_with(&format!("{}/signin?", portal.base)));
    assert_eq!(query["error"], "invalid_request");
    assert_eq!(query["error_code"], "bad_oauth_state");
    assert_eq!(query["error_description"], "OAuth state has expired");
    assert!(!query.contains_key("code"));
    // The flow is spent: the same callback again is unknown, and goes to the portal's home.
    let replay = portal.http.get(callback).send().await.unwrap();
    let replay_location = location(&replay);
    assert!(
        replay_location.starts_with(&format!("{}/?", portal.base)),
        "{replay_location}"
    );
    assert_eq!(query_of(&replay_location)["error_code"], "bad_oauth_state");
}

#[tokio::test]
async fn an_expired_auth_code_is_refused() {
    let google = MockProvider::start("RS256");
    let portal = portal(&[("google", &google)]).await;
    let landed = portal
        .sign_in("google", "/signin", "g-1|one@example.com|true|")
        .await;
    portal.clock.advance(Duration::minutes(6));
    let (status, body) = portal.exchange(&query_of(&landed)["code"], VERIFIER).await;
    assert_eq!((status, body["code"].as_str()), (422, Some("flow_state_expired")));
}

#[tokio::test]
async fn unknown_and_unconfigured_providers_return_to_the_page_with_a_clear_message() {
    let google = MockProvider::start("RS256");
    let portal = portal(&[("google", &google)]).await;
    let page = format!("{}/signin", portal.base);
    let unknown = portal.authorize("myspace", &page).await;
    assert_eq!(unknown.status().as_u16(), 302);
    let query = query_of(&location(&unknown));
    assert!(location(&unknown).starts_with(&page));
    assert_eq!(query["error_code"], "validation_failed");
    assert_eq!(
        query["error_description"],
        "Unsupported provider: Provider myspace could not be found"
    );
    let apple = portal.authorize("apple", &page).await;
    let query = query_of(&location(&apple));
    assert_eq!(query["error"], "invalid_request");
    assert_eq!(query["error_code"], "provider_disabled");
    assert_eq!(
        query["error_description"],
        "Sign-in with Apple is not configured on this server"
    );
}

#[tokio::test]
async fn a_server_without_providers_says_so_too() {
    let portal = portal(&[]).await;
    let github = portal.authorize("github", "/signin").await;
    assert_eq!(
        query_of(&location(&github))["error_description"],
        "Sign-in with GitHub is not configured on this server"
    );
}

#[tokio::test]
async fn a_redirect_to_another_origin_is_refused_without_any_redirect() {
    let google = MockProvider::start("RS256");
    let portal = portal(&[("google", &google)]).await;
    for target in [
        "https://evil.example/steal",
        "//evil.example/steal",
        "http://127.0.0.2:1/elsewhere",
    ] {
        let refused = portal.authorize("google", target).await;
        assert_eq!(refused.status().as_u16(), 400, "{target}");
        assert!(refused.headers().get("location").is_none());
        let body: Value = refused.json().await.unwrap();
        assert_eq!(body["code"], "validation_failed");
        assert_eq!(body["msg"], "redirect_to must be a page of this portal");
    }
}

#[tokio::test]
async fn apples_posted_callback_signs_in() {
    let apple = MockProvider::start("ES256");
    let portal = portal(&[("apple", &apple)]).await;
    let started = portal.authorize("apple", "/signin").await;
    assert!(location(&started).contains("response_mode=form_post"));
    // The mock provider answers with a query; Apple posts the same values as a form.
    let callback = portal
        .through_provider("apple", "/signin", "apple-7|seven@example.com|\"true\"|")
        .await;
    let mut form = query_of(&callback);
    form.insert(
        "user".into(),
        r#"{"name":{"firstName":"Ada","lastName":"L"}}"#.into(),
    );
    let landed = portal
        .http
        .post(format!("{}/auth/v1/callback", portal.base))
        .form(&form)
        .send()
        .await
        .unwrap();
    assert_eq!(landed.status().as_u16(), 303);
    let (status, session) = portal
        .exchange(&query_of(&location(&landed))["code"], VERIFIER)
        .await;
    assert_eq!(status, 200, "{session}");
    assert_eq!(session["user"]["email"], "seven@example.com");
}

#[tokio::test]
async fn the_providers_refusal_an_unverified_email_and_a_spoiled_token_are_reported() {
    let google = MockProvider::start("RS256");
    let portal = portal(&[("google", &google)]).await;
    let started = portal.authorize("google", "/signin").await;
    let state = query_of(&location(&started))["state"].clone();
    let declined = portal
        .http
        .get(format!(
            "{}/auth/v1/callback?state={state}&error=access_denied&error_description=The+user+declined",
            portal.base
        ))
        .send()
        .await
        .unwrap();
    let query = query_of(&location(&declined));
    assert_eq!(query["error"], "access_denied");
    assert_eq!(query["error_description"], "The user declined");
    let landed = portal
        .sign_in("google", "/signin", "g-2|new@example.com|false|")
        .await;
    let (status, body) = portal.exchange(&query_of(&landed)["code"], VERIFIER).await;
    assert_eq!(
        (status, body["code"].as_str()),
        (422, Some("provider_email_needs_verification"))
    );
    let spoiled = portal
        .sign_in("google", "/signin", "g-3|x@example.com|true|nonce")
        .await;
    assert_eq!(query_of(&spoiled)["error_code"], "bad_oauth_callback");
}
