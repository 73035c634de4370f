//! A hosted Supabase for identity (`SUPABASE_*`): the built-in `/auth/v1` is off, the browser is told to use
//! the project, the project's access tokens (here HS256 with its secret, made by the test as Supabase makes
//! them) are exchanged for core tokens and accepted directly, and the local account a hosted user needs is
//! made once, on first use, with the hosted user's id. RS256/ES256 through the project's JWKS are covered by
//! `adapters/identity` (`hosted_tests.rs`, against a local JWKS server).

use crate::helpers::{TestApp, spawn_app, spawn_app_with};
use adapter_db::{Backend, Db};
use diesel::prelude::*;
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use reqwest::StatusCode;
use serde_json::{Value, json};

const BACKENDS: [Backend; 2] = [Backend::Sqlite, Backend::Postgres];
const PROJECT: &str = "https://project.supabase.test";
pub(crate) const SECRET: &str = "super-secret-jwt-token-with-at-least-32-characters-long";

pub(crate) async fn spawn_hosted(backend: Backend) -> TestApp {
    spawn_app_with(
        backend,
        &[
            ("SUPABASE_URL", PROJECT),
            ("SUPABASE_ANON_KEY", "the-project-anon-key"),
            ("SUPABASE_JWT_SECRET", SECRET),
        ],
    )
    .await
}

fn unix_now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs()
        .try_into()
        .unwrap()
}

/// Claims in the shape a hosted Supabase issues, for a session started with a password.
pub(crate) fn claims(sub: &str, email: &str) -> Value {
    let now = unix_now();
    json!({
        "iss": format!("{PROJECT}/auth/v1"),
        "sub": sub,
        "aud": "authenticated",
        "exp": now + 3600,
        "iat": now,
        "email": email,
        "phone": "",
        "app_metadata": {"provider": "email", "providers": ["email"]},
        "user_metadata": {"email": email, "email_verified": true, "phone_verified": false, "sub": sub},
        "role": "authenticated",
        "aal": "aal1",
        "amr": [{"method": "password", "timestamp": now}],
        "session_id": uuid::Uuid::new_v4(),
        "is_anonymous": false
    })
}

pub(crate) fn sign(claims: &Value, secret: &str) -> String {
    jsonwebtoken::encode(
        &Header::new(Algorithm::HS256),
        claims,
        &EncodingKey::from_secret(secret.as_bytes()),
    )
    .unwrap()
}

pub(crate) fn new_user() -> String {
    uuid::Uuid::new_v4().to_string()
}

impl TestApp {
    async fn exchange_hosted(&self, token: &str) -> reqwest::Response {
        self.send(
            self.client
                .post(self.url("/api/auth/exchange-token"))
                .json(&json!({"supabaseToken": token})),
        )
        .await
    }

    async fn me(&self, token: &str) -> reqwest::Response {
        self.send(self.client.get(self.url("/api/dev/auth/me")).bearer_auth(token))
            .await
    }

    /// `(email, email_confirmed_at)` of every `accounts` row with this id.
    fn account_rows(&self, id: &str) -> Vec<(String, Option<i64>)> {
        use adapter_db::schema::accounts::dsl;
        let db = Db::connect(&self.database_url, 1).unwrap();
        let mut conn = db.connection().unwrap();
        dsl::accounts
            .filter(dsl::id.eq(id))
            .select((dsl::email, dsl::email_confirmed_at))
            .load(&mut *conn)
            .unwrap()
    }

    /// A local account made outside the hosted service (for example while the built-in one was in use).
    fn insert_local_account(&self, id: &str, email: &str) {
        use adapter_db::schema::accounts::dsl;
        let db = Db::connect(&self.database_url, 1).unwrap();
        let mut conn = db.connection().unwrap();
        diesel::insert_into(dsl::accounts)
            .values((
                dsl::id.eq(id),
                dsl::email.eq(email),
                dsl::email_confirmed_at.eq(Some(1_700_000_000_000_i64)),
                dsl::created_at.eq(1_700_000_000_000_i64),
                dsl::updated_at.eq(1_700_000_000_000_i64),
                dsl::profile.eq("{}"),
            ))
            .execute(&mut *conn)
            .unwrap();
    }

    /// Makes the user a member of a new organization (foreign keys to `accounts` and `organizations`).
    fn add_membership(&self, user: &str) {
        use adapter_db::schema::{org_members, organizations};
        let db = Db::connect(&self.database_url, 1).unwrap();
        let mut conn = db.connection().unwrap();
        let org = uuid::Uuid::new_v4().to_string();
        diesel::insert_into(organizations::table)
            .values((
                organizations::id.eq(&org),
                organizations::name.eq("Hosted org"),
                organizations::created_at.eq(1_700_000_000_000_i64),
                organizations::updated_at.eq(1_700_000_000_000_i64),
            ))
            .execute(&mut *conn)
            .unwrap();
        diesel::insert_into(org_members::table)
            .values((
                org_members::org_id.eq(&org),
                org_members::user_id.eq(user),
                org_members::role.eq("admin"),
                org_members::joined_at.eq(1_700_000_000_000_i64),
            ))
            .execute(&mut *conn)
            .unwrap();
    }
}

async fn error_of(response: reqwest::Response) -> (StatusCode, Value) {
    let status = response.status();
    (status, response.json().await.unwrap())
}

#[tokio::test]
async fn a_hosted_token_is_exchanged_and_its_local_account_made_once() {
    for backend in BACKENDS {
        let app = spawn_hosted(backend).await;
        let sub = new_user();
        let token = sign(&claims(&sub, "Hosted.User@Example.com"), SECRET);
        let response = app.exchange_hosted(&token).await;
        assert_eq!(response.status(), StatusCode::OK, "{backend:?}");
        let body: Value = response.json().await.unwrap();
        let core = body["coreToken"].as_str().unwrap().to_owned();
        assert_ne!(core, token);

        let me = app.me(&core).await;
        assert_eq!(me.status(), StatusCode::OK);
        let me: Value = me.json().await.unwrap();
        assert_eq!(me["id"], sub.as_str());
        assert_eq!(me["email"], "hosted.user@example.com");

        // The row exists with the hosted id; a password session proves nothing, and `user_metadata` (the
        // user's own) is not taken as proof.
        assert_eq!(
            app.account_rows(&sub),
            vec![("hosted.user@example.com".to_owned(), None)]
        );
        // Memberships and other foreign keys to `accounts` work for the hosted user.
        app.add_membership(&sub);

        // A second exchange, and the access token used directly, make no second row.
        assert_eq!(app.exchange_hosted(&token).await.status(), StatusCode::OK);
        let direct = app.me(&token).await;
        assert_eq!(direct.status(), StatusCode::OK);
        assert_eq!(app.account_rows(&sub).len(), 1);
    }
}

#[tokio::test]
async fn concurrent_first_exchanges_make_one_account() {
    for backend in BACKENDS {
        let app = spawn_hosted(backend).await;
        let sub = new_user();
        let token = sign(&claims(&sub, "race@example.com"), SECRET);
        let tasks: Vec<_> = (0..8)
            .map(|i| {
                let (client, token) = (app.client.clone(), token.clone());
                let (exchange, me) = (app.url("/api/auth/exchange-token"), app.url("/api/dev/auth/me"));
                tokio::spawn(async move {
                    let request = if i % 2 == 0 {
                        client.post(exchange).json(&json!({"supabaseToken": token}))
                    } else {
                        client.get(me).bearer_auth(token)
                    };
                    request.send().await.unwrap().status()
                })
            })
            .collect();
        let mut statuses = Vec::new();
        for task in tasks {
            statuses.push(task.await.unwrap());
        }
        assert!(
            statuses.iter().all(|s| *s == StatusCode::OK),
            "{backend:?}: {statuses:?}"
        );
        assert_eq!(app.account_rows(&sub).len(), 1);
    }
}

#[tokio::test]
async fn an_email_of_another_local_account_is_not_captured() {
    for backend in BACKENDS {
        let app = spawn_hosted(backend).await;
        let local = new_user();
        app.insert_local_account(&local, "owner@example.com");
        let intruder = new_user();
        let token = sign(&claims(&intruder, "OWNER@example.com"), SECRET);
        let (status, body) = error_of(app.exchange_hosted(&token).await).await;
        assert_eq!(status, StatusCode::CONFLICT, "{backend:?}");
        assert_eq!(body["code"], "EMAIL_IN_USE");
        assert!(body["error"].as_str().unwrap().contains("another account"));
        // The access token used directly is refused alike, and nothing was stored for the intruder.
        assert_eq!(app.me(&token).await.status(), StatusCode::CONFLICT);
        assert!(app.account_rows(&intruder).is_empty());
        assert_eq!(
            app.account_rows(&local),
            vec![("owner@example.com".to_owned(), Some(1_700_000_000_000))]
        );
    }
}

#[tokio::test]
async fn a_session_from_an_emailed_link_makes_a_confirmed_account() {
    let app = spawn_hosted(Backend::Sqlite).await;
    let sub = new_user();
    let mut proven = claims(&sub, "linked@example.com");
    proven["amr"] = json!([{"method": "magiclink", "timestamp": unix_now()}]);
    let response = app.exchange_hosted(&sign(&proven, SECRET)).await;
    assert_eq!(response.status(), StatusCode::OK);
    let rows = app.account_rows(&sub);
    assert_eq!(rows.len(), 1);
    assert!(rows[0].1.is_some(), "confirmed");
}

#[tokio::test]
async fn tokens_the_project_did_not_issue_are_refused() {
    let app = spawn_hosted(Backend::Sqlite).await;
    let sub = new_user();
    let good = claims(&sub, "dev@example.com");
    let wrong_secret = sign(&good, "another-secret-of-at-least-thirty-two-characters");
    let mut other_audience = good.clone();
    other_audience["aud"] = json!("service");
    let mut other_issuer = good.clone();
    other_issuer["iss"] = json!("https://elsewhere.supabase.test/auth/v1");
    let mut service_role = good.clone();
    service_role["role"] = json!("service_role");
    for token in [
        wrong_secret,
        sign(&other_audience, SECRET),
        sign(&other_issuer, SECRET),
        sign(&service_role, SECRET),
        "an-opaque-refresh-token".to_owned(),
    ] {
        let (status, body) = error_of(app.exchange_hosted(&token).await).await;
        assert_eq!(status, StatusCode::UNAUTHORIZED, "{token}");
        assert_eq!(body["code"], "UNAUTHORIZED");
        assert_eq!(app.me(&token).await.status(), StatusCode::UNAUTHORIZED);
    }
    let mut expired = good.clone();
    expired["exp"] = json!(unix_now() - 10);
    let (status, body) = error_of(app.exchange_hosted(&sign(&expired, SECRET)).await).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    assert!(body["error"].as_str().unwrap().contains("expired"));
    assert!(app.account_rows(&sub).is_empty());

    // A core token is not exchanged again.
    let core: Value = app
        .exchange_hosted(&sign(&good, SECRET))
        .await
        .json()
        .await
        .unwrap();
    let core = core["coreToken"].as_str().unwrap();
    assert_eq!(app.exchange_hosted(core).await.status(), StatusCode::UNAUTHORIZED);
}

#[tokio::test]
async fn the_built_in_service_refuses_hosted_tokens() {
    let app = spawn_app().await;
    let token = sign(&claims(&new_user(), "dev@example.com"), SECRET);
    assert_eq!(
        app.exchange_hosted(&token).await.status(),
        StatusCode::UNAUTHORIZED
    );
    assert_eq!(app.me(&token).await.status(), StatusCode::UNAUTHORIZED);
}

#[tokio::test]
async fn in_hosted_mode_auth_v1_is_off_and_the_browser_is_sent_to_the_project() {
    let app = spawn_hosted(Backend::Sqlite).await;
    for (method, path) in [
        ("GET", "/auth/v1/settings"),
        ("POST", "/auth/v1/signup"),
        ("POST", "/auth/v1/token?grant_type=password"),
        ("GET", "/auth/v1/user"),
    ] {
        let request = match method {
            "GET" => app.client.get(app.url(path)),
            _ => app
                .client
                .post(app.url(path))
                .json(&json!({"email": "a@b.co", "password": "a sufficiently long passphrase 42"})),
        };
        let response = request.send().await.unwrap();
        assert_eq!(response.status(), StatusCode::NOT_FOUND, "{method} {path}");
    }
    let response = app.send(app.client.get(app.url("/api/public-config"))).await;
    let csp = response
        .headers()
        .get("content-security-policy")
        .unwrap()
        .to_str()
        .unwrap()
        .to_owned();
    assert!(csp.contains(&format!("connect-src 'self' {PROJECT}")), "{csp}");
    let config: Value = response.json().await.unwrap();
    assert_eq!(
        config["identity"],
        json!({
            "kind": "hosted",
            "url": PROJECT,
            "authUrl": format!("{PROJECT}/auth/v1"),
            "anonKey": "the-project-anon-key"
        })
    );
}

#[tokio::test]
async fn a_hosted_configuration_without_its_anon_key_does_not_start() {
    let vars: std::collections::HashMap<String, String> =
        [("SUPABASE_URL", PROJECT), ("SUPABASE_JWT_SECRET", SECRET)]
            .into_iter()
            .map(|(k, v)| (k.to_owned(), v.to_owned()))
            .collect();
    let error = app_server::Config::from_vars(&vars).unwrap_err();
    assert_eq!(error.variable, "SUPABASE_*");
}

#[tokio::test]
async fn without_a_secret_the_server_starts_on_the_projects_jwks_and_refuses_hs256() {
    // The project is unreachable: the keys are read on first use, so the server starts, and a token it
    // cannot check is refused (never accepted, never a server error).
    let unreachable = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", unreachable.local_addr().unwrap());
    drop(unreachable);
    let app = spawn_app_with(
        Backend::Sqlite,
        &[("SUPABASE_URL", url.as_str()), ("SUPABASE_ANON_KEY", "anon")],
    )
    .await;
    let token = sign(&claims(&new_user(), "dev@example.com"), SECRET);
    assert_eq!(
        app.exchange_hosted(&token).await.status(),
        StatusCode::UNAUTHORIZED
    );
    let health = app.client.get(app.url("/healthz")).send().await.unwrap();
    assert_eq!(health.status(), StatusCode::OK);
}

/// The claims of a hosted session that passed a TOTP challenge: `aal2`, `amr` naming the factor first (as
/// Supabase Auth issues them after `/factors/{id}/verify`).
pub(crate) fn raised(claims: &Value) -> Value {
    let mut claims = claims.clone();
    let now = unix_now();
    claims["aal"] = json!("aal2");
    claims["amr"] = json!([{"method": "totp", "timestamp": now}, {"method": "password", "timestamp": now}]);
    claims
}

impl TestApp {
    /// A product call with `token` (a hosted access token or a core token): status and JSON body.
    pub(crate) async fn hosted_call(
        &self,
        method: reqwest::Method,
        path: &str,
        token: &str,
        body: Option<Value>,
    ) -> (StatusCode, Value) {
        let mut request = self.client.request(method, self.url(path)).bearer_auth(token);
        if let Some(body) = body {
            request = request.json(&body);
        }
        let response = self.send(request).await;
        let status = response.status();
        (status, response.json().await.unwrap_or(Value::Null))
    }

    /// The core token of a hosted access token.
    pub(crate) async fn hosted_core(&self, token: &str) -> String {
        let response = self.exchange_hosted(token).await;
        assert_eq!(response.status(), StatusCode::OK);
        let body: Value = response.json().await.unwrap();
        body["coreToken"].as_str().unwrap().to_owned()
    }
}

#[tokio::test]
async fn the_projects_aal_is_carried_into_the_core_token_and_staff_need_aal2() {
    for backend in BACKENDS {
        let app = spawn_app_with(
            backend,
            &[
                ("SUPABASE_URL", PROJECT),
                ("SUPABASE_ANON_KEY", "the-project-anon-key"),
                ("SUPABASE_JWT_SECRET", SECRET),
                ("PORTAL_STAFF_MFA", "required"),
            ],
        )
        .await;
        let sub = new_user();
        let password = claims(&sub, "staff@example.com");
        let aal1 = sign(&password, SECRET);
        let aal2 = sign(&raised(&password), SECRET);
        // The first use makes the local account; then the operator grants it a platform role.
        let aal1_core = app.hosted_core(&aal1).await;
        let db = Db::connect(&app.database_url, 1).unwrap();
        app_server::admin_cli::run(
            &db,
            app_server::admin_cli::AdminCommand::Grant {
                email: "staff@example.com".into(),
                role: "reviewer".into(),
            },
        )
        .await
        .unwrap();
        let aal2_core = app.hosted_core(&aal2).await;
        let staff = "/api/admin/apps/submitted";
        // aal1, used directly or exchanged: the staff API asks for the second factor.
        for token in [&aal1, &aal1_core] {
            let (status, body) = app.hosted_call(reqwest::Method::GET, staff, token, None).await;
            assert_eq!(status, StatusCode::FORBIDDEN, "{backend:?}: {body}");
            assert_eq!(body["code"], "MFA_REQUIRED", "{backend:?}: {body}");
        }
        // aal2, used directly or exchanged (the exchange carried the level into the core token).
        for token in [&aal2, &aal2_core] {
            let (status, body) = app.hosted_call(reqwest::Method::GET, staff, token, None).await;
            assert_eq!(status, StatusCode::OK, "{backend:?}: {body}");
        }
        // A member's own pages need no second factor: the server cannot know a hosted user's factors
        // but by the token's level, and an aal1 token says nothing of them.
        let (status, _) = app
            .hosted_call(reqwest::Method::GET, "/api/orgs", &aal1_core, None)
            .await;
        assert_eq!(status, StatusCode::OK, "{backend:?}");
    }
}

#[tokio::test]
async fn an_organization_requiring_a_second_factor_honours_the_projects_aal() {
    for backend in BACKENDS {
        let app = spawn_hosted(backend).await;
        let sub = new_user();
        let password = claims(&sub, "owner@example.com");
        let aal1 = sign(&password, SECRET);
        let aal2 = sign(&raised(&password), SECRET);
        let (aal1_core, aal2_core) = (app.hosted_core(&aal1).await, app.hosted_core(&aal2).await);
        let (status, created) = app
            .hosted_call(
                reqwest::Method::POST,
                "/api/orgs",
                &aal1_core,
                Some(json!({"name": "Hosted Guarded"})),
            )
            .await;
        assert_eq!(status, StatusCode::CREATED, "{backend:?}: {created}");
        let org = created["data"]["id"].as_str().unwrap().to_owned();
        let switch = format!("/api/orgs/{org}/two-factor");
        let on = || Some(json!({"requireTwoFactor": true}));

        // An aal1 session cannot turn it on; the project's aal2 can.
        let (status, body) = app
            .hosted_call(reqwest::Method::PUT, &switch, &aal1_core, on())
            .await;
        assert_eq!(
            (status, body["code"].clone()),
            (StatusCode::FORBIDDEN, json!("OWN_MFA_REQUIRED")),
            "{backend:?}"
        );
        let (status, body) = app
            .hosted_call(reqwest::Method::PUT, &switch, &aal2_core, on())
            .await;
        assert_eq!(status, StatusCode::OK, "{backend:?}: {body}");
        assert_eq!(body["data"]["requireTwoFactor"], true);

        // Then aal1 tokens, direct or exchanged, cannot act in it; aal2 ones can.
        let path = format!("/api/orgs/{org}");
        for token in [&aal1, &aal1_core] {
            let (status, body) = app.hosted_call(reqwest::Method::GET, &path, token, None).await;
            assert_eq!(
                (status, body["code"].clone()),
                (StatusCode::FORBIDDEN, json!("ORG_MFA_REQUIRED")),
                "{backend:?}: {body}"
            );
        }
        for token in [&aal2, &aal2_core] {
            let (status, body) = app.hosted_call(reqwest::Method::GET, &path, token, None).await;
            assert_eq!(status, StatusCode::OK, "{backend:?}: {body}");
        }
        // The same holds for calls scoped by x-org-id.
        let apps = |token: &str| {
            app.client
                .get(app.url("/api/dev/apps"))
                .bearer_auth(token)
                .header("x-org-id", &org)
        };
        assert_eq!(
            app.send(apps(&aal1_core)).await.status(),
            StatusCode::FORBIDDEN,
            "{backend:?}"
        );
        assert_eq!(
            app.send(apps(&aal2_core)).await.status(),
            StatusCode::OK,
            "{backend:?}"
        );
    }
}

/// With a hosted Supabase, its sessions are its own: the Account Security page's sessions list and sign-out
/// answer 409 `SESSIONS_MANAGED_ELSEWHERE` (with the core token of an exchange, and with the hosted token).
#[tokio::test]
async fn the_sessions_list_and_sign_out_are_the_hosted_services() {
    for backend in BACKENDS {
        let app = spawn_hosted(backend).await;
        let sub = new_user();
        let token = sign(&claims(&sub, "sessions@example.com"), SECRET);
        let exchanged = app.exchange_hosted(&token).await;
        assert_eq!(exchanged.status(), StatusCode::OK, "{backend:?}");
        let core = exchanged.json::<Value>().await.unwrap()["coreToken"]
            .as_str()
            .unwrap()
            .to_owned();
        for bearer in [&core, &token] {
            let list = app
                .send(
                    app.client
                        .get(app.url("/api/dev/auth/sessions"))
                        .bearer_auth(bearer),
                )
                .await;
            let (status, body) = error_of(list).await;
            assert_eq!(status, StatusCode::CONFLICT, "{backend:?}");
            assert_eq!(body["code"], "SESSIONS_MANAGED_ELSEWHERE");
            let sign_out = app
                .send(
                    app.client
                        .delete(app.url(&format!("/api/dev/auth/sessions/{}", uuid::Uuid::new_v4())))
                        .bearer_auth(bearer),
                )
                .await;
            let (status, body) = error_of(sign_out).await;
            assert_eq!(status, StatusCode::CONFLICT, "{backend:?}");
            assert_eq!(body["code"], "SESSIONS_MANAGED_ELSEWHERE");
        }
    }
}

#[tokio::test]
async fn a_hosted_session_makes_an_access_token_only_at_aal2_and_from_a_recent_first_factor() {
    for backend in BACKENDS {
        let app = spawn_hosted(backend).await;
        let body = json!({"name": "CI", "scopes": ["apps:read"]});
        let make = |token: String| {
            let app = &app;
            let body = body.clone();
            async move {
                app.hosted_call(reqwest::Method::POST, "/api/dev/tokens", &token, Some(body))
                    .await
            }
        };
        let (sub, email) = (new_user(), "hosted-tokens@example.com");
        // aal1: the project may have a factor this server cannot see (PORTAL_HOSTED_MFA=on by default).
        let plain = sign(&claims(&sub, email), SECRET);
        let (status, refused) = make(plain.clone()).await;
        assert_eq!(
            (status, refused["code"].as_str()),
            (StatusCode::FORBIDDEN, Some("MFA_REQUIRED")),
            "{backend:?}: {refused}"
        );
        let (status, _) = make(app.hosted_core(&plain).await).await;
        assert_eq!(
            status,
            StatusCode::FORBIDDEN,
            "{backend:?}: through a core token too"
        );
        // aal2, but the first factor (the amr's password) was given an hour ago: not recent.
        let mut stale = raised(&claims(&sub, email));
        let hour_ago = unix_now() - 3600;
        stale["amr"] = json!([{"method": "totp", "timestamp": unix_now()}, {"method": "password", "timestamp": hour_ago}]);
        let stale = sign(&stale, SECRET);
        for token in [stale.clone(), app.hosted_core(&stale).await] {
            let (status, refused) = make(token).await;
            assert_eq!(
                (status, refused["code"].as_str()),
                (StatusCode::FORBIDDEN, Some("RECENT_SIGN_IN_NEEDED")),
                "{backend:?}: {refused}"
            );
        }
        // aal2 without any first-factor entry: never recent.
        let mut bare = raised(&claims(&sub, email));
        bare["amr"] = json!([{"method": "totp", "timestamp": unix_now()}]);
        let (status, _) = make(sign(&bare, SECRET)).await;
        assert_eq!(status, StatusCode::FORBIDDEN, "{backend:?}");
        // aal2 with a fresh first factor: made, directly and through a core token.
        let fresh = sign(&raised(&claims(&sub, email)), SECRET);
        let (status, made) = make(fresh.clone()).await;
        assert_eq!(status, StatusCode::CREATED, "{backend:?}: {made}");
        let (status, made) = make(app.hosted_core(&fresh).await).await;
        assert_eq!(status, StatusCode::CREATED, "{backend:?}: {made}");
    }
}

#[tokio::test]
async fn a_project_without_factors_lets_an_aal1_hosted_session_make_an_access_token() {
    for backend in BACKENDS {
        let app = spawn_app_with(
            backend,
            &[
                ("SUPABASE_URL", PROJECT),
                ("SUPABASE_ANON_KEY", "the-project-anon-key"),
                ("SUPABASE_JWT_SECRET", SECRET),
                ("PORTAL_HOSTED_MFA", "off"),
            ],
        )
        .await;
        let plain = sign(&claims(&new_user(), "no-mfa@example.com"), SECRET);
        let body = json!({"name": "CI", "scopes": ["apps:read"]});
        let (status, made) = app
            .hosted_call(reqwest::Method::POST, "/api/dev/tokens", &plain, Some(body))
            .await;
        assert_eq!(status, StatusCode::CREATED, "{backend:?}: {made}");
    }
}
