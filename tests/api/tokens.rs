//! Personal access tokens (`dpt_…`) through the real HTTP API on both databases: made once from a session
//! at the level of a security change, e-mailed and audited; a token reaches exactly the routes its scopes
//! cover, through the same membership door as its owner now (a removed member's token stops at once, an
//! organization that requires two factors takes it only while the owner has one, a token bound to one
//! organization acts in no other); revoked, expired and mistyped tokens are refused with a message that
//! says which (a mistyped one before any database read); uses are recorded; organization admins see and
//! revoke the tokens that act in their organization. Every answer is checked against the OpenAPI document.

use crate::helpers::TestApp;
use crate::mfa::security_notices;
use crate::org_fixtures::{BACKENDS, User, add_member, create_org, sign_up, spawn};
use adapter_db::Db;
use diesel::prelude::*;
use reqwest::Method;
use serde_json::{Value, json};

const PKG: &str = "com.acme.notes";

/// One checked call: `bearer` (a core token or an access token), an optional `x-org-id` and JSON body.
async fn call(
    app: &TestApp,
    method: Method,
    path: &str,
    bearer: &str,
    org: Option<&str>,
    body: Option<Value>,
) -> (u16, Value) {
    let mut request = app.client.request(method, app.url(path)).bearer_auth(bearer);
    if let Some(org) = org {
        request = request.header("x-org-id", org);
    }
    if let Some(body) = body {
        request = request.json(&body);
    }
    let response = app.send(request).await;
    let status = response.status().as_u16();
    (status, response.json().await.unwrap_or(Value::Null))
}

/// Makes a token as `user`: the answer's status and body.
async fn make_token(app: &TestApp, user: &User, body: Value) -> (u16, Value) {
    call(
        app,
        Method::POST,
        "/api/dev/tokens",
        &user.token,
        None,
        Some(body),
    )
    .await
}

/// Makes a token that must succeed; answers `dpt_…`.
async fn token_for(app: &TestApp, user: &User, org: Option<&str>, scopes: &[&str]) -> String {
    let (status, body) = make_token(
        app,
        user,
        json!({"name": format!("CI {}", scopes.join(" ")), "orgId": org, "scopes": scopes}),
    )
    .await;
    assert_eq!(status, 201, "{body}");
    body["token"].as_str().unwrap().to_owned()
}

fn registration(package: &str) -> Value {
    json!({
        "packageName": package, "name": "Notes", "description": "Takes notes",
        "publicUrl": "https://notes.example.com", "logoURL": "https://cdn.example.com/logo.png",
    })
}

fn db(app: &TestApp) -> Db {
    Db::connect(&app.database_url, 1).unwrap()
}

fn code(body: &Value) -> &str {
    body["code"].as_str().unwrap_or_default()
}

#[tokio::test]
async fn a_token_is_shown_once_listed_without_its_secret_emailed_and_audited() {
    for backend in BACKENDS {
        let app = spawn(backend).await;
        let ada = sign_up(&app, "ada@example.com").await;
        let org = create_org(&app, &ada, "Acme").await;
        let (status, made) = make_token(
            &app,
            &ada,
            json!({"name": "GitHub deploy", "orgId": org, "scopes": ["apps:write", "apps:read"], "expiresInDays": 30}),
        )
        .await;
        assert_eq!(status, 201, "{made}");
        let secret = made["token"].as_str().unwrap();
        assert!(secret.starts_with("dpt_") && secret.len() == 64, "{secret}");
        assert_eq!(made["scopes"], json!(["apps:read", "apps:write"]));
        assert_eq!(made["status"], "active");
        assert_eq!(made["orgId"], json!(org));

        let (status, listed) = call(&app, Method::GET, "/api/dev/tokens", &ada.token, None, None).await;
        assert_eq!(status, 200);
        assert_eq!(listed["tokens"].as_array().unwrap().len(), 1);
        assert_eq!(listed["tokens"][0]["name"], "GitHub deploy");
        assert!(
            !listed.to_string().contains(&secret[4..30]),
            "the secret is never listed"
        );
        // Only a keyed digest is stored.
        let stored: Vec<String> = adapter_db::schema::access_tokens::table
            .select(adapter_db::schema::access_tokens::secret_digest)
            .load(&mut *db(&app).connection().unwrap())
            .unwrap();
        assert!(!stored[0].contains(&secret[4..]), "{backend:?}");

        assert!(
            security_notices(&app, "ada@example.com")
                .iter()
                .any(|subject| subject.contains("An access token was created")),
            "{backend:?}"
        );
        let (_, log) = call(
            &app,
            Method::GET,
            &format!("/api/orgs/{org}/audit-log"),
            &ada.token,
            None,
            None,
        )
        .await;
        let newest = &log["data"]["entries"][0];
        assert_eq!(newest["action"], "token.created", "{log}");
        assert_eq!(newest["target"]["label"], "GitHub deploy");

        // Bad input is refused field by field and makes nothing.
        let (status, refused) = make_token(
            &app,
            &ada,
            json!({"name": " ", "scopes": ["apps:everything"], "expiresInDays": 0}),
        )
        .await;
        assert_eq!(status, 400, "{refused}");
        for field in ["name", "scopes", "expiresInDays"] {
            assert!(refused["fields"][field].is_string(), "{field}: {refused}");
        }
        let (status, refused) = make_token(
            &app,
            &ada,
            json!({"name": "x", "scopes": ["apps:read"], "expiresInDays": 366}),
        )
        .await;
        assert_eq!(status, 400, "{refused}");
        let stranger = sign_up(&app, "eve@example.com").await;
        let (status, refused) = make_token(
            &app,
            &stranger,
            json!({"name": "x", "orgId": org, "scopes": ["apps:read"]}),
        )
        .await;
        assert_eq!(status, 400, "{refused}");
        assert!(refused["fields"]["orgId"].is_string());
        let (_, listed) = call(&app, Method::GET, "/api/dev/tokens", &ada.token, None, None).await;
        assert_eq!(listed["tokens"].as_array().unwrap().len(), 1, "{backend:?}");
    }
}

#[tokio::test]
async fn a_token_reaches_exactly_what_its_scopes_cover_and_never_token_member_staff_or_identity_routes() {
    for backend in BACKENDS {
        let app = spawn(backend).await;
        let ada = sign_up(&app, "ada@example.com").await;
        let org = create_org(&app, &ada, "Acme").await;
        let read = token_for(&app, &ada, Some(&org), &["apps:read"]).await;
        let write = token_for(&app, &ada, Some(&org), &["apps:write"]).await;
        let publish = token_for(&app, &ada, Some(&org), &["apps:publish"]).await;
        let keys = token_for(&app, &ada, Some(&org), &["apps:keys"]).await;

        let register = |token: String| {
            let app = &app;
            let org = org.clone();
            async move {
                call(
                    app,
                    Method::POST,
                    "/api/dev/apps/register",
                    &token,
                    Some(&org),
                    Some(registration(PKG)),
                )
                .await
            }
        };
        let (status, body) = register(read.clone()).await;
        assert_eq!((status, code(&body)), (403, "TOKEN_SCOPE_MISSING"), "{body}");
        assert!(body["error"].as_str().unwrap().contains("apps:write"));
        let (status, body) = register(write.clone()).await;
        assert_eq!(status, 201, "{body}");

        let app_path = format!("/api/dev/apps/{PKG}");
        let (status, _) = call(&app, Method::GET, "/api/dev/apps", &read, Some(&org), None).await;
        assert_eq!(status, 200);
        let (status, _) = call(&app, Method::GET, &app_path, &read, Some(&org), None).await;
        assert_eq!(status, 200);
        let (status, _) = call(&app, Method::GET, &app_path, &publish, Some(&org), None).await;
        assert_eq!(status, 403, "apps:publish does not read");
        let (status, body) = call(
            &app,
            Method::PUT,
            &app_path,
            &write,
            Some(&org),
            Some(json!({"description": "Takes better notes"})),
        )
        .await;
        assert_eq!(status, 200, "{body}");
        let key_path = format!("{app_path}/api-key");
        let (status, _) = call(&app, Method::POST, &key_path, &write, Some(&org), None).await;
        assert_eq!(status, 403, "apps:write makes no key");
        let (status, body) = call(&app, Method::POST, &key_path, &keys, Some(&org), None).await;
        assert_eq!(status, 200, "{body}");
        let publish_path = format!("{app_path}/publish");
        let (status, _) = call(&app, Method::POST, &publish_path, &keys, Some(&org), None).await;
        assert_eq!(status, 403);
        let (status, body) = call(&app, Method::POST, &publish_path, &publish, Some(&org), None).await;
        assert!(status == 200 || status == 400, "{status} {body}");
        assert_ne!(code(&body), "TOKEN_SCOPE_MISSING", "{body}");

        // Who am I, and which organizations: any scope.
        let (status, me) = call(&app, Method::GET, "/api/dev/auth/me", &read, None, None).await;
        assert_eq!((status, me["email"].as_str()), (200, Some("ada@example.com")));

        // Never: token management, members, organization settings, staff, sessions.
        for (method, path) in [
            (Method::POST, "/api/dev/tokens".to_owned()),
            (Method::GET, "/api/dev/tokens".to_owned()),
            (Method::GET, format!("/api/orgs/{org}/tokens")),
            (Method::POST, format!("/api/orgs/{org}/members")),
            (Method::PUT, format!("/api/orgs/{org}")),
            (Method::DELETE, format!("/api/orgs/{org}")),
            (Method::PUT, format!("/api/orgs/{org}/two-factor")),
            (Method::GET, "/api/admin/apps/submitted".to_owned()),
            (Method::GET, "/api/dev/auth/sessions".to_owned()),
            (Method::POST, "/api/orgs".to_owned()),
        ] {
            let (status, body) = call(&app, method.clone(), &path, &write, Some(&org), Some(json!({}))).await;
            assert_eq!(
                (status, code(&body)),
                (403, "TOKEN_NOT_ALLOWED"),
                "{method} {path}: {body}"
            );
        }
        // The identity service does not know it.
        let response = app
            .client
            .get(app.url("/auth/v1/user"))
            .header("apikey", "built-in")
            .bearer_auth(&write)
            .send()
            .await
            .unwrap();
        // Supabase Auth's answer to a bearer that is not one of its JWTs.
        assert_eq!(response.status(), 403, "{backend:?}");
        let refused: Value = response.json().await.unwrap();
        assert_eq!(refused["error_code"], "bad_jwt", "{refused}");

        // A change made through a token says so in the audit log.
        let (_, log) = call(
            &app,
            Method::GET,
            &format!("/api/orgs/{org}/audit-log"),
            &ada.token,
            None,
            None,
        )
        .await;
        let updated = log["data"]["entries"]
            .as_array()
            .unwrap()
            .iter()
            .find(|e| e["action"] == "app.updated")
            .expect("the update is recorded")
            .clone();
        assert_eq!(updated["viaToken"], "CI apps:write", "{updated}");
        assert_eq!(updated["actor"]["email"], "ada@example.com");
    }
}

#[tokio::test]
async fn a_token_acts_as_its_owner_now_in_its_own_organization_only() {
    for backend in BACKENDS {
        let app = spawn(backend).await;
        let ada = sign_up(&app, "ada@example.com").await;
        let mia = sign_up(&app, "mia@example.com").await;
        let acme = create_org(&app, &ada, "Acme").await;
        let other = create_org(&app, &ada, "Other").await;
        add_member(&app, &ada, &acme, &mia, "member").await;
        let mias = token_for(&app, &mia, Some(&acme), &["apps:read", "apps:write"]).await;
        let everywhere = token_for(&app, &ada, None, &["apps:read"]).await;
        let (status, _) = call(&app, Method::GET, "/api/dev/apps", &mias, Some(&acme), None).await;
        assert_eq!(status, 200);

        // Bound to Acme: nothing elsewhere, and only Acme is listed.
        let (status, body) = call(&app, Method::GET, "/api/dev/apps", &mias, Some(&other), None).await;
        assert_eq!((status, code(&body)), (403, "TOKEN_OUTSIDE_ITS_ORG"), "{body}");
        let (status, body) = call(
            &app,
            Method::GET,
            &format!("/api/orgs/{other}"),
            &mias,
            None,
            None,
        )
        .await;
        assert_eq!(status, 403, "{body}");
        let (_, listed) = call(&app, Method::GET, "/api/orgs", &mias, None, None).await;
        let ids: Vec<&str> = listed["data"]
            .as_array()
            .unwrap()
            .iter()
            .map(|o| o["id"].as_str().unwrap())
            .collect();
        assert!(
            ids.contains(&acme.as_str()) && !ids.contains(&other.as_str()),
            "{listed}"
        );
        // A token of every organization acts in each of its owner's.
        for org in [&acme, &other] {
            let (status, _) = call(&app, Method::GET, "/api/dev/apps", &everywhere, Some(org), None).await;
            assert_eq!(status, 200);
        }

        // Removed from Acme: the token stops at once.
        let (status, _) = call(
            &app,
            Method::DELETE,
            &format!("/api/orgs/{acme}/members/{}", mia.id),
            &ada.token,
            None,
            None,
        )
        .await;
        assert_eq!(status, 200);
        let (status, body) = call(&app, Method::GET, "/api/dev/apps", &mias, Some(&acme), None).await;
        assert_eq!(status, 403, "{backend:?}: {body}");
    }
}

#[tokio::test]
async fn an_organization_that_requires_two_factors_takes_a_token_only_while_its_owner_has_one() {
    for backend in BACKENDS {
        let app = spawn(backend).await;
        let ada = crate::org_two_factor::with_totp(&app, "ada@example.com").await;
        let org = create_org(&app, &ada.user, "Guarded").await;
        let bob = sign_up(&app, "bob@example.com").await;
        add_member(&app, &ada.user, &org, &bob, "member").await;
        let adas = token_for(&app, &ada.user, Some(&org), &["apps:read"]).await;
        let bobs = token_for(&app, &bob, Some(&org), &["apps:read"]).await;
        let (status, body) = call(
            &app,
            Method::PUT,
            &format!("/api/orgs/{org}/two-factor"),
            &ada.user.token,
            None,
            Some(json!({"requireTwoFactor": true})),
        )
        .await;
        assert_eq!(status, 200, "{body}");
        let (status, _) = call(&app, Method::GET, "/api/dev/apps", &adas, Some(&org), None).await;
        assert_eq!(status, 200, "the owner has a second factor");
        let (status, body) = call(&app, Method::GET, "/api/dev/apps", &bobs, Some(&org), None).await;
        assert_eq!(
            (status, code(&body)),
            (403, "ORG_MFA_REQUIRED"),
            "{backend:?}: {body}"
        );
    }
}

#[tokio::test]
async fn revoked_expired_and_mistyped_tokens_are_refused_saying_which() {
    for backend in BACKENDS {
        let app = spawn(backend).await;
        let ada = sign_up(&app, "ada@example.com").await;
        let org = create_org(&app, &ada, "Acme").await;
        let token = token_for(&app, &ada, Some(&org), &["apps:read"]).await;
        let list = |bearer: String| {
            let (app, org) = (&app, org.clone());
            async move { call(app, Method::GET, "/api/dev/apps", &bearer, Some(&org), None).await }
        };

        // One character off: refused by the checksum, before any database read.
        let mut typo = token.clone().into_bytes();
        typo[20] = if typo[20] == b'a' { b'b' } else { b'a' };
        let typo = String::from_utf8(typo).unwrap();
        let server_db = app.server_db.as_ref().unwrap();
        let before = server_db.pool_stats().calls;
        let (status, body) = list(typo).await;
        assert_eq!(status, 401);
        assert!(body["error"].as_str().unwrap().contains("mistyped"), "{body}");
        assert_eq!(
            server_db.pool_stats().calls,
            before,
            "{backend:?}: no read for a mistyped token"
        );

        // Last use recorded, with the client's address.
        let (status, _) = list(token.clone()).await;
        assert_eq!(status, 200);
        let (_, listed) = call(&app, Method::GET, "/api/dev/tokens", &ada.token, None, None).await;
        assert!(listed["tokens"][0]["lastUsedAt"].is_string(), "{listed}");
        assert_eq!(listed["tokens"][0]["lastUsedIp"], "127.0.0.1");

        // Expired.
        let id = listed["tokens"][0]["id"].as_str().unwrap().to_owned();
        let expired = token_for(&app, &ada, Some(&org), &["apps:read"]).await;
        {
            use adapter_db::schema::access_tokens::dsl;
            diesel::update(dsl::access_tokens.filter(dsl::id.ne(&id)))
                .set(dsl::expires_at.eq(chrono::Utc::now().timestamp_millis() - 1_000))
                .execute(&mut *db(&app).connection().unwrap())
                .unwrap();
        }
        let (status, body) = list(expired).await;
        assert_eq!(status, 401);
        assert!(body["error"].as_str().unwrap().contains("expired"), "{body}");

        // Revoked: at once.
        let (status, revoked) = call(
            &app,
            Method::DELETE,
            &format!("/api/dev/tokens/{id}"),
            &ada.token,
            None,
            None,
        )
        .await;
        assert_eq!(
            (status, revoked["status"].as_str()),
            (200, Some("revoked")),
            "{revoked}"
        );
        let (status, body) = list(token.clone()).await;
        assert_eq!(status, 401);
        assert!(
            body["error"].as_str().unwrap().contains("revoked"),
            "{backend:?}: {body}"
        );
        let (status, body) = call(
            &app,
            Method::DELETE,
            &format!("/api/dev/tokens/{id}"),
            &ada.token,
            None,
            None,
        )
        .await;
        assert_eq!((status, code(&body)), (409, "ALREADY_REVOKED"));

        // Another account cannot revoke it (nor learn it exists).
        let eve = sign_up(&app, "eve@example.com").await;
        let other = token_for(&app, &ada, Some(&org), &["apps:read"]).await;
        let (_, listed) = call(&app, Method::GET, "/api/dev/tokens", &ada.token, None, None).await;
        let other_id = listed["tokens"][0]["id"].as_str().unwrap().to_owned();
        let (status, _) = call(
            &app,
            Method::DELETE,
            &format!("/api/dev/tokens/{other_id}"),
            &eve.token,
            None,
            None,
        )
        .await;
        assert_eq!(status, 404);
        let (status, _) = list(other).await;
        assert_eq!(status, 200, "{backend:?}");
    }
}

#[tokio::test]
async fn organization_admins_see_and_revoke_the_tokens_that_act_in_their_organization() {
    for backend in BACKENDS {
        let app = spawn(backend).await;
        let ada = sign_up(&app, "ada@example.com").await;
        let mia = sign_up(&app, "mia@example.com").await;
        let acme = create_org(&app, &ada, "Acme").await;
        add_member(&app, &ada, &acme, &mia, "member").await;
        let mine_elsewhere = create_org(&app, &mia, "Mia's").await;
        let bound = token_for(&app, &mia, Some(&acme), &["apps:read"]).await;
        let everywhere = token_for(&app, &mia, None, &["apps:read"]).await;
        let _elsewhere = token_for(&app, &mia, Some(&mine_elsewhere), &["apps:read"]).await;

        let path = format!("/api/orgs/{acme}/tokens");
        let (status, listed) = call(&app, Method::GET, &path, &ada.token, None, None).await;
        assert_eq!(status, 200, "{listed}");
        let tokens = listed["tokens"].as_array().unwrap();
        assert_eq!(tokens.len(), 2, "bound to Acme and every organization: {listed}");
        assert!(tokens.iter().all(|t| t["ownerEmail"] == "mia@example.com"));
        let (status, _) = call(&app, Method::GET, &path, &mia.token, None, None).await;
        assert_eq!(status, 403, "members do not see them");

        // Ada revokes Mia's token of every organization: it stops everywhere.
        let id = tokens.iter().find(|t| t["orgId"].is_null()).unwrap()["id"]
            .as_str()
            .unwrap()
            .to_owned();
        let (status, body) = call(
            &app,
            Method::DELETE,
            &format!("{path}/{id}"),
            &ada.token,
            None,
            None,
        )
        .await;
        assert_eq!(status, 200, "{body}");
        let (status, _) = call(
            &app,
            Method::GET,
            "/api/dev/apps",
            &everywhere,
            Some(&mine_elsewhere),
            None,
        )
        .await;
        assert_eq!(status, 401);
        let (status, _) = call(&app, Method::GET, "/api/dev/apps", &bound, Some(&acme), None).await;
        assert_eq!(status, 200);
        // A token that does not act in Acme is not Ada's to see or revoke.
        let (_, mias) = call(&app, Method::GET, "/api/dev/tokens", &mia.token, None, None).await;
        let elsewhere_id = mias["tokens"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["orgId"] == json!(mine_elsewhere))
            .unwrap()["id"]
            .as_str()
            .unwrap()
            .to_owned();
        let (status, _) = call(
            &app,
            Method::DELETE,
            &format!("{path}/{elsewhere_id}"),
            &ada.token,
            None,
            None,
        )
        .await;
        assert_eq!(status, 404, "{backend:?}");
        let (_, log) = call(
            &app,
            Method::GET,
            &format!("/api/orgs/{acme}/audit-log"),
            &ada.token,
            None,
            None,
        )
        .await;
        assert_eq!(log["data"]["entries"][0]["action"], "token.revoked", "{log}");
    }
}

#[tokio::test]
async fn making_a_token_needs_a_recent_sign_in_or_a_second_factor_and_a_token_makes_none() {
    for backend in BACKENDS {
        let app = spawn(backend).await;
        let ada = sign_up(&app, "ada@example.com").await;
        // A sign-in older than ten minutes makes no token.
        {
            use adapter_db::schema::refresh_tokens::dsl;
            let eleven_minutes_ago = chrono::Utc::now().timestamp_millis() - 11 * 60 * 1000;
            diesel::update(dsl::refresh_tokens.filter(dsl::user_id.eq(&ada.id)))
                .set(dsl::family_started_at.eq(eleven_minutes_ago))
                .execute(&mut *db(&app).connection().unwrap())
                .unwrap();
        }
        let (status, body) = make_token(&app, &ada, json!({"name": "old", "scopes": ["apps:read"]})).await;
        assert_eq!(
            (status, code(&body)),
            (403, "RECENT_SIGN_IN_NEEDED"),
            "{backend:?}: {body}"
        );
        // A fresh sign-in does.
        let again = crate::org_fixtures::sign_in(&app, "ada@example.com").await;
        let token = token_for(
            &app,
            &again,
            None,
            &["apps:read", "apps:write", "apps:publish", "apps:keys"],
        )
        .await;
        // An account with a second factor makes one from its aal2 session, never from aal1.
        let bob = crate::org_two_factor::with_totp(&app, "bob@example.com").await;
        let (status, _) = make_token(&app, &bob.user, json!({"name": "aal2", "scopes": ["apps:read"]})).await;
        assert_eq!(status, 201);
        let aal1 = crate::org_fixtures::sign_in(&app, "bob@example.com").await;
        let (status, body) = make_token(&app, &aal1, json!({"name": "aal1", "scopes": ["apps:read"]})).await;
        assert_eq!((status, code(&body)), (403, "MFA_REQUIRED"), "{body}");
        // A token with every scope still makes no token.
        let (status, body) = call(
            &app,
            Method::POST,
            "/api/dev/tokens",
            &token,
            None,
            Some(json!({"name": "child", "scopes": ["apps:read"]})),
        )
        .await;
        assert_eq!((status, code(&body)), (403, "TOKEN_NOT_ALLOWED"), "{backend:?}");
    }
}

/// How many apps `token` lists in `org`.
async fn listed(app: &TestApp, token: &str, org: &str) -> usize {
    let (status, apps) = call(app, Method::GET, "/api/dev/apps", token, Some(org), None).await;
    assert_eq!(status, 200, "{apps}");
    apps.as_array().map_or(0, Vec::len)
}

/// A token's app list is kept like a session's (by the organization's apps revision): a write made on
/// another instance, by another caller, is in the token's very next list there, on both databases.
#[tokio::test]
async fn a_write_on_another_instance_is_in_a_tokens_very_next_list() {
    for backend in BACKENDS {
        let first = spawn(backend).await;
        let data = tempfile::tempdir().unwrap();
        let second = first.view_at(
            first
                .second_instance(&data, &[("PORTAL_PUBLIC_URL", crate::org_fixtures::PUBLIC_URL)])
                .await,
        );
        let ada = sign_up(&first, "ada@example.com").await;
        let org = create_org(&first, &ada, "Acme").await;
        let token = token_for(&second, &ada, Some(&org), &["apps:read"]).await;
        for (n, package) in ["com.acme.one", "com.acme.two"].into_iter().enumerate() {
            // The token's list is kept on the second instance; the write goes through the first.
            assert_eq!(listed(&second, &token, &org).await, n, "{backend:?}");
            assert_eq!(listed(&second, &token, &org).await, n, "{backend:?}");
            let (status, body) = call(
                &first,
                Method::POST,
                "/api/dev/apps/register",
                &ada.token,
                Some(&org),
                Some(registration(package)),
            )
            .await;
            assert_eq!(status, 201, "{backend:?}: {body}");
            assert_eq!(
                listed(&second, &token, &org).await,
                n + 1,
                "{backend:?}: {package}"
            );
        }
    }
}
