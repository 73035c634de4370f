//! An organization that requires a second factor (PRODUCT.md §1a), on both databases: turning it on needs
//! the admin's own session to have passed a factor and is recorded; a member whose session has not passed
//! one is refused on every kind of org-scoped call (403 `ORG_MFA_REQUIRED`) and may still leave; after
//! adding a TOTP factor the member acts again, and the members list shows who has a factor. Every product
//! answer read through `TestApp::send` is checked against the served OpenAPI document.

use crate::helpers::TestApp;
use crate::mfa::access_of;
use crate::org_fixtures::{BACKENDS, User, add_member, call, code, create_org, get, send, spawn};
use domain::identity::factors::totp::TotpSecret;
use reqwest::Method;
use serde_json::{Value, json};

/// A signed-up user who enrolled and verified a TOTP factor: an aal2 core token, and the factor to
/// challenge again.
pub(crate) struct WithTotp {
    pub(crate) user: User,
    pub(crate) factor: String,
    pub(crate) secret: TotpSecret,
}

/// A user of [`User`]'s shape from a session of `/auth/v1`.
async fn user_of(app: &TestApp, session: &Value, access: &str) -> User {
    User {
        id: session["user"]["id"].as_str().unwrap().to_owned(),
        email: session["user"]["email"].as_str().unwrap().to_owned(),
        token: app.core_token(access).await,
    }
}

/// Signs `address` up and in (aal1), without a factor.
pub(crate) async fn without_totp(app: &TestApp, address: &str) -> (User, Value) {
    app.sign_up(address).await;
    let session = app.sign_in(address).await;
    let user = user_of(app, &session, access_of(&session)).await;
    (user, session)
}

/// Signs `address` up and enrols a TOTP factor: the user with an aal2 core token.
pub(crate) async fn with_totp(app: &TestApp, address: &str) -> WithTotp {
    let (_, session) = without_totp(app, address).await;
    let (factor, secret, aal2) = app.enrolled_totp(access_of(&session)).await;
    WithTotp {
        user: user_of(app, &session, &aal2).await,
        factor,
        secret,
    }
}

fn app_registration(package: &str) -> Value {
    json!({
        "packageName": package, "name": "Guarded", "description": "An app of a guarded organization",
        "publicUrl": "https://guarded.example.com", "logoURL": "https://cdn.example.com/logo.png",
    })
}

/// The org-scoped calls a member makes, one of each kind: the organization itself (with its members),
/// the apps list and an app update (`x-org-id`), and the audit log's neighbour, an invitation.
async fn member_calls(app: &TestApp, member: &User, org: &str, package: &str) -> Vec<(String, u16, Value)> {
    let mut answers = Vec::new();
    let (status, body) = get(app, &format!("/api/orgs/{org}"), member).await;
    answers.push(("the organization and its members".to_owned(), status, body));
    let (status, body) = call(
        app,
        Method::GET,
        "/api/dev/apps",
        Some(&member.token),
        Some(org),
        None,
    )
    .await;
    answers.push(("the apps list".to_owned(), status, body));
    let path = format!("/api/dev/apps/{package}");
    let update = json!({"name": "Renamed by the member"});
    let (status, body) = call(
        app,
        Method::PUT,
        &path,
        Some(&member.token),
        Some(org),
        Some(&update),
    )
    .await;
    answers.push(("an app update".to_owned(), status, body));
    answers
}

#[tokio::test]
async fn an_organization_requiring_a_second_factor_is_closed_to_members_without_one_until_they_add_one() {
    for backend in BACKENDS {
        let app = spawn(backend).await;
        let (plain_admin, _) = without_totp(&app, "plain-admin@example.com").await;
        let admin = with_totp(&app, "admin@example.com").await;
        let (member, member_session) = without_totp(&app, "member@example.com").await;
        let org = create_org(&app, &admin.user, "Guarded").await;
        add_member(&app, &admin.user, &org, &member, "member").await;
        add_member(&app, &admin.user, &org, &plain_admin, "admin").await;
        let (status, body) = call(
            &app,
            Method::POST,
            "/api/dev/apps/register",
            Some(&admin.user.token),
            Some(&org),
            Some(&app_registration("com.example.guarded")),
        )
        .await;
        assert_eq!(status, 201, "{backend:?}: {body}");
        let switch = format!("/api/orgs/{org}/two-factor");

        // An admin whose session has not passed a second factor cannot turn it on (nor lock themself out).
        let (status, body) = send(
            &app,
            Method::PUT,
            &switch,
            &plain_admin,
            json!({"requireTwoFactor": true}),
        )
        .await;
        assert_eq!(
            (status, code(&body)),
            (403, "OWN_MFA_REQUIRED"),
            "{backend:?}: {body}"
        );
        // A member cannot change it at all.
        let (status, body) = send(
            &app,
            Method::PUT,
            &switch,
            &member,
            json!({"requireTwoFactor": true}),
        )
        .await;
        assert_eq!((status, code(&body)), (403, "FORBIDDEN"), "{backend:?}: {body}");
        // Not a boolean: refused, nothing changes.
        let (status, _) = send(
            &app,
            Method::PUT,
            &switch,
            &admin.user,
            json!({"requireTwoFactor": "yes"}),
        )
        .await;
        assert_eq!(status, 400, "{backend:?}");
        let (_, details) = get(&app, &format!("/api/orgs/{org}"), &admin.user).await;
        assert_eq!(
            details["data"]["requireTwoFactor"], false,
            "{backend:?}: {details}"
        );

        // The admin with a factor turns it on; the change is recorded with the field changed.
        let (status, body) = send(
            &app,
            Method::PUT,
            &switch,
            &admin.user,
            json!({"requireTwoFactor": true}),
        )
        .await;
        assert_eq!(status, 200, "{backend:?}: {body}");
        assert_eq!(body["data"]["requireTwoFactor"], true, "{backend:?}: {body}");
        let (status, log) = get(&app, &format!("/api/orgs/{org}/audit-log"), &admin.user).await;
        assert_eq!(status, 200, "{backend:?}: {log}");
        let newest = &log["data"]["entries"][0];
        assert_eq!(newest["action"], "org.updated", "{backend:?}: {log}");
        assert_eq!(newest["actor"]["email"], "admin@example.com");
        assert_eq!(newest["target"]["kind"], "organization");
        assert_eq!(
            newest["changes"],
            json!([{"field": "requireTwoFactor", "old": false, "new": true}]),
            "{backend:?}"
        );

        // The member without a factor: every kind of org-scoped call is refused, with the way out.
        for (what, status, body) in member_calls(&app, &member, &org, "com.example.guarded").await {
            assert_eq!(
                (status, code(&body)),
                (403, "ORG_MFA_REQUIRED"),
                "{backend:?} {what}: {body}"
            );
            assert!(
                body["error"].as_str().unwrap().contains("Account Security"),
                "{backend:?} {what}: {body}"
            );
        }
        // So is the admin without one (the organization's admins too), even to turn it off again.
        let (status, body) = send(
            &app,
            Method::PUT,
            &switch,
            &plain_admin,
            json!({"requireTwoFactor": false}),
        )
        .await;
        assert_eq!(
            (status, code(&body)),
            (403, "ORG_MFA_REQUIRED"),
            "{backend:?}: {body}"
        );
        // The list of the member's organizations stays open and says which one requires a factor.
        let (status, mine) = get(&app, "/api/orgs", &member).await;
        assert_eq!(status, 200, "{backend:?}: {mine}");
        let listed = mine["data"]
            .as_array()
            .unwrap()
            .iter()
            .find(|o| o["id"] == org.as_str())
            .unwrap();
        assert_eq!(listed["requireTwoFactor"], true, "{backend:?}: {mine}");
        // Nothing was changed by the refused update.
        let (_, apps) = call(
            &app,
            Method::GET,
            "/api/dev/apps",
            Some(&admin.user.token),
            Some(&org),
            None,
        )
        .await;
        assert_eq!(apps[0]["name"], "Guarded", "{backend:?}: {apps}");

        // The member adds a TOTP factor: the aal2 session acts again, and the members list shows it.
        let (_, _, aal2) = app.enrolled_totp(access_of(&member_session)).await;
        let raised = User {
            token: app.core_token(&aal2).await,
            ..member.clone()
        };
        for (what, status, body) in member_calls(&app, &raised, &org, "com.example.guarded").await {
            assert_eq!(status, 200, "{backend:?} {what}: {body}");
        }
        let (_, details) = get(&app, &format!("/api/orgs/{org}"), &admin.user).await;
        let has_factor = |email: &str| {
            details["data"]["members"]
                .as_array()
                .unwrap()
                .iter()
                .find(|m| m["user"]["email"] == email)
                .map(|m| m["hasTwoFactor"].clone())
        };
        assert_eq!(
            has_factor("member@example.com"),
            Some(json!(true)),
            "{backend:?}: {details}"
        );
        assert_eq!(has_factor("admin@example.com"), Some(json!(true)), "{backend:?}");
        assert_eq!(
            has_factor("plain-admin@example.com"),
            Some(json!(false)),
            "{backend:?}"
        );

        // Turning it off needs no factor of its own, but an admin who may act: the admin with one.
        let (status, body) = send(
            &app,
            Method::PUT,
            &switch,
            &admin.user,
            json!({"requireTwoFactor": false}),
        )
        .await;
        assert_eq!(
            (status, body["data"]["requireTwoFactor"].clone()),
            (200, json!(false)),
            "{backend:?}: {body}"
        );
        let (status, _) = get(&app, &format!("/api/orgs/{org}"), &plain_admin).await;
        assert_eq!(status, 200, "{backend:?}");
    }
}

#[tokio::test]
async fn a_member_without_the_required_second_factor_may_still_leave_and_nothing_else() {
    for backend in BACKENDS {
        let app = spawn(backend).await;
        let admin = with_totp(&app, "admin@example.com").await;
        let (member, _) = without_totp(&app, "member@example.com").await;
        let (other, _) = without_totp(&app, "other@example.com").await;
        let org = create_org(&app, &admin.user, "Guarded").await;
        add_member(&app, &admin.user, &org, &member, "admin").await;
        add_member(&app, &admin.user, &org, &other, "member").await;
        let (status, body) = send(
            &app,
            Method::PUT,
            &format!("/api/orgs/{org}/two-factor"),
            &admin.user,
            json!({"requireTwoFactor": true}),
        )
        .await;
        assert_eq!(status, 200, "{backend:?}: {body}");
        // Removing someone else is acting in the organization: refused.
        let (status, body) = call(
            &app,
            Method::DELETE,
            &format!("/api/orgs/{org}/members/{}", other.id),
            Some(&member.token),
            None,
            None,
        )
        .await;
        assert_eq!(
            (status, code(&body)),
            (403, "ORG_MFA_REQUIRED"),
            "{backend:?}: {body}"
        );
        // Leaving is not.
        let (status, body) = call(
            &app,
            Method::DELETE,
            &format!("/api/orgs/{org}/members/{}", member.id),
            Some(&member.token),
            None,
            None,
        )
        .await;
        assert_eq!(status, 200, "{backend:?}: {body}");
        let (_, details) = get(&app, &format!("/api/orgs/{org}"), &admin.user).await;
        let emails: Vec<&str> = details["data"]["members"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["user"]["email"].as_str().unwrap())
            .collect();
        assert_eq!(emails, ["admin@example.com", "other@example.com"], "{backend:?}");
    }
}

#[tokio::test]
async fn an_aal1_session_of_an_account_with_a_factor_is_asked_for_it_before_the_organization_requirement() {
    for backend in BACKENDS {
        let app = spawn(backend).await;
        let admin = with_totp(&app, "admin@example.com").await;
        let org = create_org(&app, &admin.user, "Guarded").await;
        let (status, _) = send(
            &app,
            Method::PUT,
            &format!("/api/orgs/{org}/two-factor"),
            &admin.user,
            json!({"requireTwoFactor": true}),
        )
        .await;
        assert_eq!(status, 200, "{backend:?}");
        // A new sign-in with the password alone: the account's own factor is asked for first (the client
        // challenges it), whatever the organization says.
        let session = app.sign_in("admin@example.com").await;
        let core = app.core_token(access_of(&session)).await;
        let aal1 = User {
            token: core,
            ..admin.user.clone()
        };
        let (status, body) = get(&app, &format!("/api/orgs/{org}"), &aal1).await;
        assert_eq!(
            (status, code(&body)),
            (403, "MFA_REQUIRED"),
            "{backend:?}: {body}"
        );
        let raised = app
            .verified(
                &admin.factor,
                &admin.secret,
                access_of(&session),
                crate::mfa::now_secs() + 30,
            )
            .await;
        let raised = User {
            token: app.core_token(&raised).await,
            ..admin.user.clone()
        };
        let (status, body) = get(&app, &format!("/api/orgs/{org}"), &raised).await;
        assert_eq!(status, 200, "{backend:?}: {body}");
    }
}

#[tokio::test]
async fn an_app_cannot_be_moved_into_an_organization_requiring_a_second_factor_without_one() {
    for backend in BACKENDS {
        let app = spawn(backend).await;
        let admin = with_totp(&app, "admin@example.com").await;
        let (mover, _) = without_totp(&app, "mover@example.com").await;
        let guarded = create_org(&app, &admin.user, "Guarded").await;
        add_member(&app, &admin.user, &guarded, &mover, "member").await;
        let (status, _) = send(
            &app,
            Method::PUT,
            &format!("/api/orgs/{guarded}/two-factor"),
            &admin.user,
            json!({"requireTwoFactor": true}),
        )
        .await;
        assert_eq!(status, 200, "{backend:?}");
        // The mover's own organization requires nothing: the source lets them in, the target does not.
        let own = create_org(&app, &mover, "Own").await;
        let (status, body) = call(
            &app,
            Method::POST,
            "/api/dev/apps/register",
            Some(&mover.token),
            Some(&own),
            Some(&app_registration("com.example.moving")),
        )
        .await;
        assert_eq!(status, 201, "{backend:?}: {body}");
        let (status, body) = call(
            &app,
            Method::POST,
            "/api/dev/apps/com.example.moving/move-org",
            Some(&mover.token),
            Some(&own),
            Some(&json!({"targetOrgId": guarded})),
        )
        .await;
        assert_eq!(
            (status, code(&body)),
            (403, "ORG_MFA_REQUIRED"),
            "{backend:?}: {body}"
        );
        let (_, apps) = call(
            &app,
            Method::GET,
            "/api/dev/apps",
            Some(&mover.token),
            Some(&own),
            None,
        )
        .await;
        assert_eq!(
            apps[0]["packageName"], "com.example.moving",
            "{backend:?}: the app stayed"
        );
    }
}
