//! Passkeys on `/auth/v1` (PRODUCT.md §1a) as auth-js calls them, with a software authenticator standing in
//! for the browser's: registration, a discoverable sign-in at `aal2` (`amr` `passkey`), the ceremony's
//! single use and expiry, the signature counter, management, the owner's security e-mails, and the product
//! API's `MFA_REQUIRED` for an `aal1` session of an account with a passkey. Both databases.

use crate::helpers::{TestApp, spawn_app_with};
use crate::identity::BACKENDS;
use crate::mfa::claims_of;
use adapter_identity::webauthn::soft::SoftAuthenticator;
use diesel::prelude::*;
use reqwest::StatusCode;
use serde_json::{Value, json};

/// The relying party of these servers: browsers refuse an IP address, so a host name.
const ORIGIN: &str = "http://localhost:8080";

pub(crate) async fn spawn(backend: adapter_db::Backend) -> TestApp {
    spawn_app_with(backend, &[("PORTAL_PUBLIC_URL", ORIGIN)]).await
}

/// A call to `/auth/v1` as auth-js makes it, with the user's access token when given.
async fn call(
    app: &TestApp,
    method: reqwest::Method,
    path: &str,
    access: Option<&str>,
    body: Option<Value>,
) -> (StatusCode, Value) {
    let mut request = app
        .client
        .request(method, app.url(&format!("/auth/v1{path}")))
        .header("apikey", "built-in")
        .header("x-supabase-api-version", "2024-01-01");
    if let Some(access) = access {
        request = request.bearer_auth(access);
    }
    if let Some(body) = body {
        request = request.json(&body);
    }
    let response = request.send().await.unwrap();
    let status = response.status();
    let text = response.text().await.unwrap();
    (status, serde_json::from_str(&text).unwrap_or(Value::Null))
}

pub(crate) async fn post(
    app: &TestApp,
    path: &str,
    access: Option<&str>,
    body: Value,
) -> (StatusCode, Value) {
    call(app, reqwest::Method::POST, path, access, Some(body)).await
}

fn access_of(session: &Value) -> &str {
    session["access_token"].as_str().unwrap()
}

/// Registers a passkey of `authenticator` on the account of `access`: the verify answer.
pub(crate) async fn register(app: &TestApp, authenticator: &mut SoftAuthenticator, access: &str) -> Value {
    let (status, options) = post(app, "/passkeys/registration/options", Some(access), json!({})).await;
    assert_eq!(status, StatusCode::OK, "{options}");
    let credential = authenticator.register(&options["options"]);
    let (status, passkey) = post(
        app,
        "/passkeys/registration/verify",
        Some(access),
        json!({"challenge_id": options["challenge_id"], "credential": credential}),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{passkey}");
    passkey
}

/// The options of a passkey sign-in and the authenticator's answer to them with its first credential.
pub(crate) async fn sign_in_answer(app: &TestApp, authenticator: &mut SoftAuthenticator) -> (Value, Value) {
    let (status, options) = post(
        app,
        "/passkeys/authentication/options",
        None,
        json!({"gotrue_meta_security": {}}),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{options}");
    let credential = authenticator.authenticate(&options["options"], 0);
    (options, credential)
}

pub(crate) async fn verify_sign_in(
    app: &TestApp,
    options: &Value,
    credential: &Value,
) -> (StatusCode, Value) {
    post(
        app,
        "/passkeys/authentication/verify",
        None,
        json!({"challenge_id": options["challenge_id"], "credential": credential}),
    )
    .await
}

/// The status of `GET /api/orgs` with the core token of an identity access token.
async fn orgs_status(app: &TestApp, access: &str) -> (StatusCode, Value) {
    let exchanged = app.exchange(access).await;
    assert_eq!(exchanged.status(), StatusCode::OK);
    let core: Value = exchanged.json().await.unwrap();
    let response = app
        .send(
            app.client
                .get(app.url("/api/orgs"))
                .bearer_auth(core["coreToken"].as_str().unwrap()),
        )
        .await;
    let status = response.status();
    (status, response.json().await.unwrap())
}

#[tokio::test]
async fn a_passkey_signs_in_at_aal2_and_counts_as_the_accounts_second_factor() {
    for backend in BACKENDS {
        let app = spawn(backend).await;
        app.sign_up("ada@example.com").await;
        let password = app.sign_in("ada@example.com").await;
        let mut authenticator = SoftAuthenticator::new(ORIGIN);

        let (status, options) = post(
            &app,
            "/passkeys/registration/options",
            Some(access_of(&password)),
            json!({}),
        )
        .await;
        assert_eq!(status, StatusCode::OK);
        assert!(
            options["challenge_id"].is_string() && options["expires_at"].is_i64(),
            "{options}"
        );
        assert_eq!(options["options"]["rp"]["id"], "localhost");
        assert_eq!(
            options["options"]["authenticatorSelection"]["residentKey"],
            "required"
        );
        assert_eq!(
            options["options"]["authenticatorSelection"]["userVerification"],
            "required"
        );

        let before = app.outbox_count("ada@example.com");
        let passkey = register(&app, &mut authenticator, access_of(&password)).await;
        assert_eq!(passkey["friendly_name"], "Passkey", "{backend:?}");
        assert!(passkey["id"].is_string() && passkey["created_at"].is_string());
        assert_eq!(
            app.outbox_count("ada@example.com"),
            before + 1,
            "the owner is told"
        );
        assert!(
            app.last_email("ada@example.com").1.contains("passkey"),
            "{backend:?}"
        );

        // The password session is aal1 now that the account has a passkey: the product API asks for it.
        let (status, body) = orgs_status(&app, access_of(&password)).await;
        assert_eq!(
            (status, body["code"].as_str()),
            (StatusCode::FORBIDDEN, Some("MFA_REQUIRED")),
            "{backend:?}"
        );

        // The passkey signs in on its own, at aal2, without naming the account.
        let (options, credential) = sign_in_answer(&app, &mut authenticator).await;
        assert!(
            options["options"]
                .get("allowCredentials")
                .is_none_or(|a| a.as_array().is_some_and(Vec::is_empty))
        );
        let (status, session) = verify_sign_in(&app, &options, &credential).await;
        assert_eq!(status, StatusCode::OK, "{backend:?}: {session}");
        assert_eq!(session["user"]["email"], "ada@example.com");
        assert!(session["refresh_token"].is_string());
        let claims = claims_of(access_of(&session));
        assert_eq!(claims["aal"], "aal2", "{backend:?}");
        assert_eq!(claims["amr"][0]["method"], "passkey", "{backend:?}");
        assert_eq!(
            orgs_status(&app, access_of(&session)).await.0,
            StatusCode::OK,
            "{backend:?}"
        );

        // Refreshing keeps the level.
        let (status, refreshed) = post(
            &app,
            "/token?grant_type=refresh_token",
            None,
            json!({"refresh_token": session["refresh_token"]}),
        )
        .await;
        assert_eq!(status, StatusCode::OK);
        assert_eq!(claims_of(access_of(&refreshed))["aal"], "aal2");

        let (status, list) = call(
            &app,
            reqwest::Method::GET,
            "/passkeys",
            Some(access_of(&session)),
            None,
        )
        .await;
        assert_eq!(status, StatusCode::OK);
        assert_eq!(list.as_array().unwrap().len(), 1);
        assert_eq!(list[0]["id"], passkey["id"]);
        assert!(list[0]["last_used_at"].is_string(), "{backend:?}: {list}");

        // A user who lost the passkey: the operator's reset removes it with the authenticator apps.
        let db = adapter_db::Db::connect(&app.database_url, 1).unwrap();
        let command = app_server::factors_cli::FactorsCommand::Reset {
            email: "ada@example.com".into(),
        };
        let said = app_server::factors_cli::run(&db, ORIGIN, command).await.unwrap();
        assert!(said.starts_with("removed 1 second factor"), "{said}");
        // The reset ended every session: the owner signs in again with the password alone.
        assert_eq!(
            app.exchange(access_of(&password)).await.status(),
            StatusCode::UNAUTHORIZED,
            "{backend:?}"
        );
        let again = app.sign_in("ada@example.com").await;
        assert_eq!(
            orgs_status(&app, access_of(&again)).await.0,
            StatusCode::OK,
            "{backend:?}"
        );
        let (_, list) = call(
            &app,
            reqwest::Method::GET,
            "/passkeys",
            Some(access_of(&again)),
            None,
        )
        .await;
        assert_eq!(list, json!([]));
    }
}

#[tokio::test]
async fn a_ceremony_works_once_and_for_five_minutes_and_the_sign_count_must_grow() {
    for backend in BACKENDS {
        let app = spawn(backend).await;
        app.sign_up("ada@example.com").await;
        let password = app.sign_in("ada@example.com").await;
        let mut authenticator = SoftAuthenticator::new(ORIGIN);
        register(&app, &mut authenticator, access_of(&password)).await;

        let (options, credential) = sign_in_answer(&app, &mut authenticator).await;
        assert_eq!(
            verify_sign_in(&app, &options, &credential).await.0,
            StatusCode::OK
        );
        let (status, body) = verify_sign_in(&app, &options, &credential).await;
        assert_eq!(
            (status, body["code"].as_str()),
            (StatusCode::BAD_REQUEST, Some("webauthn_challenge_not_found")),
            "{backend:?}"
        );

        // An answer to a challenge older than five minutes.
        let (options, credential) = sign_in_answer(&app, &mut authenticator).await;
        {
            use adapter_db::schema::webauthn_challenges::dsl;
            let db = adapter_db::Db::connect(&app.database_url, 1).unwrap();
            let mut conn = db.connection().unwrap();
            let old = chrono::Utc::now().timestamp_millis() - 301_000;
            diesel::update(dsl::webauthn_challenges.find(options["challenge_id"].as_str().unwrap()))
                .set(dsl::created_at.eq(old))
                .execute(&mut *conn)
                .unwrap();
        }
        let (status, body) = verify_sign_in(&app, &options, &credential).await;
        assert_eq!(
            (status, body["code"].as_str()),
            (StatusCode::BAD_REQUEST, Some("webauthn_challenge_expired")),
            "{backend:?}"
        );

        // A copy of the authenticator whose counter stayed behind (it signs with 1, as the first
        // sign-in did): a possible clone.
        authenticator.credentials[0].counter = 0;
        let (options, credential) = sign_in_answer(&app, &mut authenticator).await;
        let (status, body) = verify_sign_in(&app, &options, &credential).await;
        assert_eq!(
            (status, body["code"].as_str()),
            (StatusCode::BAD_REQUEST, Some("webauthn_verification_failed")),
            "{backend:?}"
        );
        // The counter moved on: the next sign-in works.
        authenticator.credentials[0].counter = 5;
        let (options, credential) = sign_in_answer(&app, &mut authenticator).await;
        assert_eq!(
            verify_sign_in(&app, &options, &credential).await.0,
            StatusCode::OK,
            "{backend:?}"
        );

        // An answer that another authenticator signed for the same credential id does not verify.
        let mut forger = SoftAuthenticator::new(ORIGIN);
        let mut throwaway = SoftAuthenticator::new(ORIGIN);
        let other = app.sign_up("eve@example.com").await;
        register(&app, &mut throwaway, access_of(&other)).await;
        let (options, _) = sign_in_answer(&app, &mut authenticator).await;
        forger.credentials = throwaway.credentials.clone();
        forger.credentials[0].id = authenticator.credentials[0].id.clone();
        forger.credentials[0].user_handle = authenticator.credentials[0].user_handle.clone();
        forger.credentials[0].counter = 100;
        let forged = forger.authenticate(&options["options"], 0);
        let (status, body) = verify_sign_in(&app, &options, &forged).await;
        assert_eq!(
            (status, body["code"].as_str()),
            (StatusCode::BAD_REQUEST, Some("webauthn_verification_failed")),
            "{backend:?}"
        );
    }
}

#[tokio::test]
async fn managing_passkeys_needs_the_owner_and_removal_needs_aal2() {
    for backend in BACKENDS {
        let app = spawn(backend).await;
        app.sign_up("ada@example.com").await;
        let password = app.sign_in("ada@example.com").await;
        let mut authenticator = SoftAuthenticator::new(ORIGIN);
        let passkey = register(&app, &mut authenticator, access_of(&password)).await;
        let id = passkey["id"].as_str().unwrap();
        let path = format!("/passkeys/{id}");

        // A second passkey from the aal1 password session is refused: a password alone adds no way in.
        let (status, body) = post(
            &app,
            "/passkeys/registration/options",
            Some(access_of(&password)),
            json!({}),
        )
        .await;
        assert_eq!(
            (status, body["code"].as_str()),
            (StatusCode::FORBIDDEN, Some("insufficient_aal")),
            "{backend:?}"
        );

        // A name is not a way in: the session that added the passkey names it.
        let editing = password.clone();
        let (status, renamed) = call(
            &app,
            reqwest::Method::PATCH,
            &path,
            Some(access_of(&editing)),
            Some(json!({"friendly_name": " Laptop "})),
        )
        .await;
        assert_eq!(
            (status, renamed["friendly_name"].as_str()),
            (StatusCode::OK, Some("Laptop")),
            "{backend:?}"
        );
        let (status, body) = call(
            &app,
            reqwest::Method::PATCH,
            &path,
            Some(access_of(&editing)),
            Some(json!({"friendly_name": ""})),
        )
        .await;
        assert_eq!(
            (status, body["code"].as_str()),
            (StatusCode::BAD_REQUEST, Some("validation_failed"))
        );

        let other = app.sign_up("eve@example.com").await;
        let (status, _) = call(
            &app,
            reqwest::Method::PATCH,
            &path,
            Some(access_of(&other)),
            Some(json!({"friendly_name": "Mine"})),
        )
        .await;
        assert_eq!(status, StatusCode::NOT_FOUND, "another account's passkey");
        let (status, list) = call(
            &app,
            reqwest::Method::GET,
            "/passkeys",
            Some(access_of(&other)),
            None,
        )
        .await;
        assert_eq!((status, list), (StatusCode::OK, json!([])));

        let (status, body) = call(
            &app,
            reqwest::Method::DELETE,
            &path,
            Some(access_of(&password)),
            None,
        )
        .await;
        assert_eq!(
            (status, body["code"].as_str()),
            (StatusCode::FORBIDDEN, Some("insufficient_aal")),
            "{backend:?}"
        );

        let (options, credential) = sign_in_answer(&app, &mut authenticator).await;
        let (_, session) = verify_sign_in(&app, &options, &credential).await;
        let before = app.outbox_count("ada@example.com");
        let (status, _) = call(
            &app,
            reqwest::Method::DELETE,
            &path,
            Some(access_of(&session)),
            None,
        )
        .await;
        assert_eq!(status, StatusCode::NO_CONTENT, "{backend:?}");
        assert_eq!(
            app.outbox_count("ada@example.com"),
            before + 1,
            "the owner is told"
        );
        let (status, _) = call(
            &app,
            reqwest::Method::DELETE,
            &path,
            Some(access_of(&session)),
            None,
        )
        .await;
        assert_eq!(status, StatusCode::NOT_FOUND);

        // The passkey's own session dropped to aal1 with it; the account has no second factor left.
        let (status, refreshed) = post(
            &app,
            "/token?grant_type=refresh_token",
            None,
            json!({"refresh_token": session["refresh_token"]}),
        )
        .await;
        assert_eq!(status, StatusCode::OK);
        assert_eq!(claims_of(access_of(&refreshed))["aal"], "aal1", "{backend:?}");
        assert_eq!(
            orgs_status(&app, access_of(&password)).await.0,
            StatusCode::OK,
            "{backend:?}"
        );

        // The removed credential signs in no more.
        let (options, credential) = sign_in_answer(&app, &mut authenticator).await;
        assert_eq!(
            verify_sign_in(&app, &options, &credential).await.0,
            StatusCode::BAD_REQUEST
        );
    }
}

#[tokio::test]
async fn bad_passkey_requests_get_supabase_errors_and_a_public_ip_address_turns_passkeys_off() {
    let app = spawn(adapter_db::Backend::Sqlite).await;
    app.sign_up("ada@example.com").await;
    let password = app.sign_in("ada@example.com").await;
    let cases = [
        (json!({}), "challenge_id is required"),
        (
            json!({"challenge_id": "nope", "credential": {}}),
            "challenge_id must be a valid UUID",
        ),
        (
            json!({"challenge_id": uuid::Uuid::new_v4()}),
            "credential is required",
        ),
    ];
    for (body, msg) in cases {
        let (status, answer) = post(&app, "/passkeys/authentication/verify", None, body).await;
        assert_eq!(
            (status, answer["code"].as_str(), answer["msg"].as_str()),
            (StatusCode::BAD_REQUEST, Some("validation_failed"), Some(msg))
        );
    }
    let (options, _) = sign_in_answer(&app, &mut SoftAuthenticator::new(ORIGIN)).await;
    let (status, answer) = verify_sign_in(
        &app,
        &options,
        &json!({"id": "AAAA", "rawId": "AAAA", "type": "public-key", "response": {}}),
    )
    .await;
    assert_eq!(
        (status, answer["code"].as_str()),
        (StatusCode::BAD_REQUEST, Some("webauthn_verification_failed"))
    );
    let (status, answer) = post(
        &app,
        "/passkeys/registration/verify",
        Some(access_of(&password)),
        json!({"challenge_id": options["challenge_id"], "credential": {"id": "x"}}),
    )
    .await;
    assert_eq!(
        (status, answer["code"].as_str()),
        (StatusCode::BAD_REQUEST, Some("webauthn_challenge_not_found")),
        "a sign-in's challenge registers nothing"
    );
    let (status, answer) = post(&app, "/passkeys/registration/options", None, json!({})).await;
    assert_eq!(
        (status, answer["code"].as_str()),
        (StatusCode::UNAUTHORIZED, Some("no_authorization"))
    );
    let (status, _) = call(
        &app,
        reqwest::Method::PATCH,
        "/passkeys/nope",
        Some(access_of(&password)),
        Some(json!({"friendly_name": "x"})),
    )
    .await;
    assert_eq!(status, StatusCode::NOT_FOUND);

    // An IP address that is not a loopback one has no name a browser accepts for passkeys.
    let ip = spawn_app_with(
        adapter_db::Backend::Sqlite,
        &[("PORTAL_PUBLIC_URL", "http://192.0.2.10:8080")],
    )
    .await;
    let (status, answer) = post(&ip, "/passkeys/authentication/options", None, json!({})).await;
    assert_eq!(
        (status, answer["code"].as_str()),
        (StatusCode::UNPROCESSABLE_ENTITY, Some("passkey_disabled"))
    );
    assert_eq!(public_config(&ip).await["passkeyOrigin"], Value::Null);
}

async fn public_config(app: &TestApp) -> Value {
    let response = app.send(app.client.get(app.url("/api/public-config"))).await;
    assert_eq!(response.status(), StatusCode::OK);
    response.json().await.unwrap()
}

/// `make run`'s default public URL is `http://127.0.0.1:8080`, an IP address browsers refuse as a passkey's
/// site: the same server serves passkeys as `localhost` on the same port, and says where.
#[tokio::test]
async fn a_loopback_public_url_serves_passkeys_at_localhost() {
    for backend in BACKENDS {
        let app = spawn_app_with(backend, &[("PORTAL_PUBLIC_URL", "http://127.0.0.1:8080")]).await;
        assert_eq!(
            public_config(&app).await["passkeyOrigin"],
            "http://localhost:8080"
        );
        app.sign_up("ada@example.com").await;
        let password = app.sign_in("ada@example.com").await;
        let mut authenticator = SoftAuthenticator::new(ORIGIN);
        let passkey = register(&app, &mut authenticator, access_of(&password)).await;
        assert!(passkey["id"].is_string(), "{passkey}");
        let (options, credential) = sign_in_answer(&app, &mut authenticator).await;
        assert_eq!(options["options"]["rpId"], "localhost", "{options}");
        let (status, session) = verify_sign_in(&app, &options, &credential).await;
        assert_eq!(status, StatusCode::OK, "{session}");
        assert_eq!(claims_of(access_of(&session))["aal"], "aal2");

        // A page at the IP address itself cannot make a passkey of `localhost`: its answer is refused.
        let mut at_ip = SoftAuthenticator::new("http://127.0.0.1:8080");
        let (status, options_ip) = post(
            &app,
            "/passkeys/registration/options",
            Some(access_of(&session)),
            json!({}),
        )
        .await;
        assert_eq!(status, StatusCode::OK, "{options_ip}");
        let credential = at_ip.register(&options_ip["options"]);
        let (status, answer) = post(
            &app,
            "/passkeys/registration/verify",
            Some(access_of(&session)),
            json!({"challenge_id": options_ip["challenge_id"], "credential": credential}),
        )
        .await;
        assert_eq!(
            (status, answer["code"].as_str()),
            (StatusCode::BAD_REQUEST, Some("webauthn_verification_failed")),
            "{answer}"
        );
    }
}
