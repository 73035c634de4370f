//! A personal access token carries the proof of the session that made it (issue 47), on both databases:
//! a token made by a password-only session stays out of where two factors are required even after its
//! owner adds one; a token made by a session ends when a recovery ends that session (sign out the others,
//! sign out everywhere); removing the factor its session passed lowers it for good (a factor added again
//! does not raise it); and the cap on active tokens holds under a burst of concurrent creations.

use crate::helpers::TestApp;
use crate::mfa::access_of;
use crate::org_fixtures::{BACKENDS, User, add_member, call, code, create_org, send};
use crate::org_two_factor::without_totp;
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

/// Makes a token as `user`: status and body.
pub(crate) async fn make_token(app: &TestApp, user: &User, org: Option<&str>) -> (u16, Value) {
    let body = json!({"name": "CI", "orgId": org, "scopes": ["apps:read", "apps:write"]});
    call(
        app,
        Method::POST,
        "/api/dev/tokens",
        Some(&user.token),
        None,
        Some(&body),
    )
    .await
}

/// The secret of a token `user` makes, which must be made.
pub(crate) async fn token_of(app: &TestApp, user: &User, org: Option<&str>) -> String {
    let (status, made) = make_token(app, user, org).await;
    assert_eq!(status, 201, "{made}");
    made["token"].as_str().unwrap().to_owned()
}

/// The apps list of `org` read with a bearer: status and body.
pub(crate) async fn apps_of(app: &TestApp, bearer: &str, org: &str) -> (u16, Value) {
    let response = app
        .client
        .get(app.url("/api/dev/apps"))
        .bearer_auth(bearer)
        .header("x-org-id", org)
        .send()
        .await
        .unwrap();
    let status = response.status().as_u16();
    (status, response.json().await.unwrap_or(Value::Null))
}

/// A user of the session `session` (an `/auth/v1` answer), with a core token exchanged from `access`.
pub(crate) async fn user_of(app: &TestApp, session: &Value, access: &str) -> User {
    User {
        id: session["user"]["id"].as_str().unwrap().to_owned(),
        email: session["user"]["email"].as_str().unwrap().to_owned(),
        token: app.core_token(access).await,
    }
}

pub(crate) async fn require_two_factors(app: &TestApp, admin: &User, org: &str) {
    let (status, body) = send(
        app,
        Method::PUT,
        &format!("/api/orgs/{org}/two-factor"),
        admin,
        json!({"requireTwoFactor": true}),
    )
    .await;
    assert_eq!(status, 200, "{body}");
}

/// An admin with a verified TOTP factor: the user (aal2 core token), the factor and the aal2 access token.
pub(crate) async fn admin_with_totp(app: &TestApp, address: &str) -> (User, String, String) {
    let (_, session) = without_totp(app, address).await;
    let (factor, _, aal2) = app.enrolled_totp(access_of(&session)).await;
    (user_of(app, &session, &aal2).await, factor, aal2)
}

#[tokio::test]
async fn a_password_only_token_stays_out_of_a_two_factor_organization_after_its_owner_adds_a_factor() {
    for backend in BACKENDS {
        let app = crate::org_fixtures::spawn(backend).await;
        let (admin, _, _) = admin_with_totp(&app, "admin@example.com").await;
        let (member, member_session) = without_totp(&app, "member@example.com").await;
        let org = create_org(&app, &admin, "Guarded").await;
        add_member(&app, &admin, &org, &member, "member").await;

        // Made by a password-only session while the organization asked for nothing more: it works there.
        let every = token_of(&app, &member, None).await;
        assert_eq!(apps_of(&app, &every, &org).await.0, 200, "{backend:?}");

        require_two_factors(&app, &admin, &org).await;
        let (status, body) = apps_of(&app, &every, &org).await;
        assert_eq!(
            (status, code(&body)),
            (403, "ORG_MFA_REQUIRED"),
            "{backend:?}: {body}"
        );
        // The same session cannot make a token that could act there, for every organization or named.
        let (status, refused) = make_token(&app, &member, None).await;
        assert_eq!(status, 400, "{backend:?}: {refused}");
        assert!(
            refused["fields"]["orgId"]
                .as_str()
                .unwrap_or_default()
                .contains("“Guarded” requires a second factor"),
            "{backend:?}: {refused}"
        );
        let (status, refused) = make_token(&app, &member, Some(&org)).await;
        assert_eq!(
            (status, code(&refused)),
            (403, "ORG_MFA_REQUIRED"),
            "{backend:?}: {refused}"
        );

        // The owner adds a second factor, as the organization asks: the old token does not ride on it.
        let (_, _, aal2) = app.enrolled_totp(access_of(&member_session)).await;
        let (status, body) = apps_of(&app, &every, &org).await;
        assert_eq!(
            status, 401,
            "{backend:?}: the password-only token must stay out: {body}"
        );
        assert!(
            body["error"]
                .as_str()
                .unwrap_or_default()
                .contains("second factor"),
            "{backend:?}: {body}"
        );
        let (status, _) = call(&app, Method::GET, "/api/orgs", Some(&every), None, None).await;
        assert_eq!(
            status, 401,
            "{backend:?}: held back everywhere, as its session would be"
        );

        // A token made by the raised session acts there.
        let raised = user_of(&app, &member_session, &aal2).await;
        let guarded = token_of(&app, &raised, Some(&org)).await;
        assert_eq!(apps_of(&app, &guarded, &org).await.0, 200, "{backend:?}");
    }
}

#[tokio::test]
async fn removing_the_factor_a_token_was_made_with_lowers_it_for_good() {
    for backend in BACKENDS {
        let app = crate::org_fixtures::spawn(backend).await;
        let (admin, factor, aal2) = admin_with_totp(&app, "owner@example.com").await;
        let org = create_org(&app, &admin, "Guarded").await;
        require_two_factors(&app, &admin, &org).await;
        let token = token_of(&app, &admin, Some(&org)).await;
        assert_eq!(apps_of(&app, &token, &org).await.0, 200, "{backend:?}");

        let removed = app
            .client
            .delete(app.url(&format!("/auth/v1/factors/{factor}")))
            .header("apikey", "built-in")
            .bearer_auth(&aal2)
            .send()
            .await
            .unwrap();
        assert_eq!(removed.status(), StatusCode::OK, "{backend:?}");
        let (status, body) = apps_of(&app, &token, &org).await;
        assert_eq!(
            (status, code(&body)),
            (403, "ORG_MFA_REQUIRED"),
            "{backend:?}: {body}"
        );

        // A new factor on the account raises the session that passes it, not the token made before.
        let again = app.sign_in("owner@example.com").await;
        let (_, _, raised) = app.enrolled_totp(access_of(&again)).await;
        let (status, body) = apps_of(&app, &token, &org).await;
        assert_eq!(status, 401, "{backend:?}: {body}");
        let fresh = user_of(&app, &again, &raised).await;
        let made_now = token_of(&app, &fresh, Some(&org)).await;
        assert_eq!(apps_of(&app, &made_now, &org).await.0, 200, "{backend:?}");
    }
}

pub(crate) async fn sign_out(app: &TestApp, access: &str, scope: &str) {
    let response = app
        .client
        .post(app.url(&format!("/auth/v1/logout?scope={scope}")))
        .header("apikey", "built-in")
        .bearer_auth(access)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::NO_CONTENT);
}

/// The statuses of `user`'s tokens by name.
pub(crate) async fn statuses(app: &TestApp, user: &User) -> Vec<(String, String)> {
    let (status, list) = call(app, Method::GET, "/api/dev/tokens", Some(&user.token), None, None).await;
    assert_eq!(status, 200, "{list}");
    let mut found: Vec<_> = list["tokens"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            (
                t["name"].as_str().unwrap().to_owned(),
                t["status"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    found.sort();
    found
}

#[tokio::test]
async fn an_intruders_token_ends_when_the_owner_signs_the_other_sessions_out() {
    for backend in BACKENDS {
        let app = crate::org_fixtures::spawn(backend).await;
        let (owner, owner_session) = without_totp(&app, "victim@example.com").await;
        // The intruder holds another session of the account (a stolen one) and makes a token from it.
        let stolen = app.sign_in("victim@example.com").await;
        let intruder = user_of(&app, &stolen, access_of(&stolen)).await;
        let rename = |name: &str| json!({"name": name, "scopes": ["apps:read"]});
        let (status, made) = call(
            &app,
            Method::POST,
            "/api/dev/tokens",
            Some(&intruder.token),
            None,
            Some(&rename("intruder")),
        )
        .await;
        assert_eq!(status, 201, "{made}");
        let planted = made["token"].as_str().unwrap().to_owned();
        let (status, made) = call(
            &app,
            Method::POST,
            "/api/dev/tokens",
            Some(&owner.token),
            None,
            Some(&rename("owner")),
        )
        .await;
        assert_eq!(status, 201, "{made}");
        let own = made["token"].as_str().unwrap().to_owned();
        for token in [&planted, &own] {
            let (status, _) = call(&app, Method::GET, "/api/orgs", Some(token), None, None).await;
            assert_eq!(status, 200, "{backend:?}");
        }

        sign_out(&app, access_of(&owner_session), "others").await;
        let (status, body) = call(&app, Method::GET, "/api/orgs", Some(&planted), None, None).await;
        assert_eq!(
            status, 401,
            "{backend:?}: the intruder's token outlived the session that made it: {body}"
        );
        let (status, _) = call(&app, Method::GET, "/api/orgs", Some(&own), None, None).await;
        assert_eq!(status, 200, "{backend:?}: the owner's own session made this one");
        assert_eq!(
            statuses(&app, &owner).await,
            [
                ("intruder".to_owned(), "revoked".to_owned()),
                ("owner".to_owned(), "active".to_owned())
            ],
            "{backend:?}"
        );

        // Everywhere: the owner's own session ends too, and the token it made with it.
        sign_out(&app, access_of(&owner_session), "global").await;
        let (status, _) = call(&app, Method::GET, "/api/orgs", Some(&own), None, None).await;
        assert_eq!(status, 401, "{backend:?}");
    }
}

#[tokio::test]
async fn fifty_concurrent_creations_never_pass_the_cap_of_active_tokens() {
    for backend in BACKENDS {
        let app = crate::org_fixtures::spawn(backend).await;
        let (ada, _) = without_totp(&app, "burst@example.com").await;
        for _ in 0..45 {
            token_of(&app, &ada, None).await;
        }
        let mut burst = tokio::task::JoinSet::new();
        for n in 0..50 {
            let request = app
                .client
                .post(app.url("/api/dev/tokens"))
                .bearer_auth(&ada.token)
                .json(&json!({"name": format!("burst {n}"), "scopes": ["apps:read"]}));
            burst.spawn(async move { request.send().await.unwrap().status().as_u16() });
        }
        let mut made = 0;
        while let Some(status) = burst.join_next().await {
            match status.unwrap() {
                201 => made += 1,
                400 => {}
                other => panic!("{backend:?}: {other}"),
            }
        }
        assert_eq!(made, 5, "{backend:?}: the burst passed the cap");
        let active = statuses(&app, &ada)
            .await
            .iter()
            .filter(|(_, s)| s == "active")
            .count();
        assert_eq!(active, 50, "{backend:?}");
    }
}

pub(crate) async fn set_password(app: &TestApp, access: &str, password: &str) {
    let changed = app
        .client
        .put(app.url("/auth/v1/user"))
        .header("apikey", "built-in")
        .bearer_auth(access)
        .json(&json!({ "password": password }))
        .send()
        .await
        .unwrap();
    assert_eq!(changed.status(), StatusCode::OK);
}

/// Follows a recovery e-mail to `address`: the access token of the session it starts.
pub(crate) async fn recovered_session(app: &TestApp, address: &str) -> String {
    app.auth_post("/recover", json!({"email": address})).await;
    let (link, _) = app.last_email(address);
    let hash = link.split("token=").nth(1).unwrap().split('&').next().unwrap();
    let verified = app
        .auth_post("/verify", json!({"type": "recovery", "token_hash": hash}))
        .await;
    assert_eq!(verified.status(), StatusCode::OK);
    let recovered: Value = verified.json().await.unwrap();
    recovered["access_token"].as_str().unwrap().to_owned()
}

#[tokio::test]
async fn a_password_reset_ends_the_intruders_token_names_the_ones_left_and_revoke_all_ends_them() {
    for backend in BACKENDS {
        let app = crate::org_fixtures::spawn(backend).await;
        let address = "reset@example.com";
        let (owner, _) = without_totp(&app, address).await;
        // The address is proven first (the first proof ends every earlier token and the password set
        // before it, PRODUCT.md §1): the owner chooses the password again.
        let proving = recovered_session(&app, address).await;
        set_password(&app, &proving, crate::identity::PASSWORD).await;
        let named = |name: &str| json!({"name": name, "scopes": ["apps:read"]});
        // A token made by a session its owner signed out of the usual way: it outlives that session.
        let earlier = app.sign_in(address).await;
        let laptop = user_of(&app, &earlier, access_of(&earlier)).await;
        let (status, made) = call(
            &app,
            Method::POST,
            "/api/dev/tokens",
            Some(&laptop.token),
            None,
            Some(&named("laptop")),
        )
        .await;
        assert_eq!(status, 201, "{made}");
        let kept = made["token"].as_str().unwrap().to_owned();
        sign_out(&app, access_of(&earlier), "local").await;
        // ... and is older than the sessions on record (their rows are pruned after 30 days).
        let family = crate::mfa::claims_of(access_of(&earlier))["session_id"]
            .as_str()
            .unwrap()
            .to_owned();
        {
            use adapter_db::schema::refresh_tokens::dsl;
            use diesel::prelude::*;
            let db = adapter_db::Db::connect(&app.database_url, 1).unwrap();
            let mut conn = db.connection().unwrap();
            diesel::delete(dsl::refresh_tokens.filter(dsl::family_id.eq(&family)))
                .execute(&mut *conn)
                .unwrap();
        }
        // An intruder's live session and the token it made.
        let stolen = app.sign_in(address).await;
        let intruder = user_of(&app, &stolen, access_of(&stolen)).await;
        let (status, made) = call(
            &app,
            Method::POST,
            "/api/dev/tokens",
            Some(&intruder.token),
            None,
            Some(&named("intruder")),
        )
        .await;
        assert_eq!(status, 201, "{made}");
        let planted = made["token"].as_str().unwrap().to_owned();

        // The owner resets the password by e-mail.
        let access = recovered_session(&app, address).await;
        set_password(&app, &access, "a brand new passphrase 93").await;

        let (status, _) = call(&app, Method::GET, "/api/orgs", Some(&planted), None, None).await;
        assert_eq!(
            status, 401,
            "{backend:?}: the intruder's token survived the reset"
        );
        let (status, _) = call(&app, Method::GET, "/api/orgs", Some(&kept), None, None).await;
        assert_eq!(status, 200, "{backend:?}");
        let (_, notice) = app.last_email(address);
        assert!(
            notice.contains("\"laptop\"") && !notice.contains("\"intruder\""),
            "{backend:?}: {notice}"
        );
        assert!(notice.contains("Revoke all"), "{notice}");

        // "Revoke all" from the recovered session; a token cannot press it.
        let (status, refused) = call(
            &app,
            Method::POST,
            "/api/dev/tokens/revoke-all",
            Some(&kept),
            None,
            None,
        )
        .await;
        assert_eq!(
            (status, code(&refused)),
            (403, "TOKEN_NOT_ALLOWED"),
            "{backend:?}: {refused}"
        );
        let now = User {
            token: app.core_token(&access).await,
            ..owner
        };
        let (status, answer) = call(
            &app,
            Method::POST,
            "/api/dev/tokens/revoke-all",
            Some(&now.token),
            None,
            None,
        )
        .await;
        assert_eq!(
            (status, answer["revoked"].as_u64()),
            (200, Some(1)),
            "{backend:?}: {answer}"
        );
        let (status, _) = call(&app, Method::GET, "/api/orgs", Some(&kept), None, None).await;
        assert_eq!(status, 401, "{backend:?}");
        let (status, answer) = call(
            &app,
            Method::POST,
            "/api/dev/tokens/revoke-all",
            Some(&now.token),
            None,
            None,
        )
        .await;
        assert_eq!(
            (status, answer["revoked"].as_u64()),
            (200, Some(0)),
            "{backend:?}"
        );
    }
}
