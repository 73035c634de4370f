//! An outsider's attacks on the credential model of issue 47 (a personal access token carries the proof of
//! the session that made it), each kept as a test on both databases: the ways in that are refused stay
//! refused, and the ones that got in (or locked a legitimate user out) fail until they are fixed.

use crate::helpers::TestApp;
use crate::hosted::{SECRET, claims, new_user, raised, sign, spawn_hosted};
use crate::mfa::access_of;
use crate::org_fixtures::{BACKENDS, User, add_member, call, code, create_org};
use crate::org_two_factor::{with_totp, without_totp};
use crate::token_credentials::{
    apps_of, make_token, require_two_factors, sign_out, statuses, token_of, user_of,
};
use diesel::prelude::*;
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

/// Moves the start of every session of `user` back by `minutes` (a session stolen long after its sign-in).
fn age_sessions(app: &TestApp, user: &User, minutes: i64) {
    use adapter_db::schema::refresh_tokens::dsl;
    let then = chrono::Utc::now().timestamp_millis() - minutes * 60 * 1000;
    let db = adapter_db::Db::connect(&app.database_url, 1).unwrap();
    diesel::update(dsl::refresh_tokens.filter(dsl::user_id.eq(&user.id)))
        .set(dsl::family_started_at.eq(then))
        .execute(&mut *db.connection().unwrap())
        .unwrap();
}

/// A product read with `bearer`: its status.
async fn orgs_status(app: &TestApp, bearer: &str) -> u16 {
    call(app, Method::GET, "/api/orgs", Some(bearer), None, None)
        .await
        .0
}

/// Attack: the intruder makes a token from a stolen session, then signs that session out itself. The
/// owner, noticing, signs out everywhere: the token was made by a session that had already ended, so the
/// recovery (which ends only live families) passes it over and it keeps working for a year.
#[tokio::test]
async fn an_intruders_token_ends_with_sign_out_everywhere_even_when_the_intruder_signed_its_session_out_first()
 {
    for backend in BACKENDS {
        let app = crate::org_fixtures::spawn(backend).await;
        let (owner, owner_session) = without_totp(&app, "victim@example.com").await;
        let stolen = app.sign_in("victim@example.com").await;
        let intruder = user_of(&app, &stolen, access_of(&stolen)).await;
        let (status, made) = call(
            &app,
            Method::POST,
            "/api/dev/tokens",
            Some(&intruder.token),
            None,
            Some(&json!({"name": "looks harmless", "scopes": ["apps:read", "apps:write"]})),
        )
        .await;
        assert_eq!(status, 201, "{made}");
        let planted = made["token"].as_str().unwrap().to_owned();
        // The intruder covers its tracks: its session disappears from the owner's sessions list.
        sign_out(&app, access_of(&stolen), "local").await;
        assert_eq!(orgs_status(&app, &planted).await, 200, "{backend:?}");

        sign_out(&app, access_of(&owner_session), "global").await;
        let again = app.sign_in("victim@example.com").await;
        let owner_now = User {
            token: app.core_token(access_of(&again)).await,
            ..owner
        };
        assert_eq!(
            orgs_status(&app, &planted).await,
            401,
            "{backend:?}: the intruder's token survived sign out everywhere ({:?})",
            statuses(&app, &owner_now).await
        );
    }
}

/// Locked out: a hosted Supabase user who passed the project's second factor (`aal2`) makes a token for an
/// organization that requires two factors; the making is allowed (201), but at use the token is judged
/// against the *local* protection of the hosted account (no local factor: unprotected), so it is refused
/// there, while the same user's hosted session is admitted.
#[tokio::test]
async fn a_hosted_aal2_users_token_for_an_organization_requiring_two_factors_acts_there() {
    for backend in BACKENDS {
        let app = spawn_hosted(backend).await;
        let aal2 = sign(&raised(&claims(&new_user(), "hosted-owner@example.com")), SECRET);
        let core = app.hosted_core(&aal2).await;
        let (status, created) = app
            .hosted_call(
                Method::POST,
                "/api/orgs",
                &core,
                Some(json!({"name": "Hosted Guarded"})),
            )
            .await;
        assert_eq!(status, StatusCode::CREATED, "{backend:?}: {created}");
        let org = created["data"]["id"].as_str().unwrap().to_owned();
        let (status, body) = app
            .hosted_call(
                Method::PUT,
                &format!("/api/orgs/{org}/two-factor"),
                &core,
                Some(json!({"requireTwoFactor": true})),
            )
            .await;
        assert_eq!(status, StatusCode::OK, "{backend:?}: {body}");
        assert_eq!(apps_of(&app, &core, &org).await.0, 200, "{backend:?}");

        let (status, made) = app
            .hosted_call(
                Method::POST,
                "/api/dev/tokens",
                &core,
                Some(json!({"name": "CI", "orgId": org, "scopes": ["apps:read"]})),
            )
            .await;
        assert_eq!(status, StatusCode::CREATED, "{backend:?}: {made}");
        let token = made["token"].as_str().unwrap().to_owned();
        let (status, body) = apps_of(&app, &token, &org).await;
        assert_eq!(
            status, 200,
            "{backend:?}: an aal2 hosted user's token is refused where its session is admitted: {body}"
        );
    }
}

/// Refused: a session of a protected account that passed its second factor, but whose sign-in is older
/// than ten minutes (a stolen session, or a laptop left open), makes no token (sudo mode); a fresh
/// sign-in with the factor does.
#[tokio::test]
async fn an_old_aal2_session_makes_no_token_and_a_fresh_one_does() {
    for backend in BACKENDS {
        let app = crate::org_fixtures::spawn(backend).await;
        let owner = with_totp(&app, "old@example.com").await;
        age_sessions(&app, &owner.user, 11);
        let (status, body) = make_token(&app, &owner.user, None).await;
        assert_eq!(
            (status, code(&body)),
            (403, "RECENT_SIGN_IN_NEEDED"),
            "{backend:?}: {body}"
        );
        // The core token exchanged long ago is judged by its live session, not by when it was issued.
        let (status, body) = call(
            &app,
            Method::GET,
            "/api/orgs",
            Some(&owner.user.token),
            None,
            None,
        )
        .await;
        assert_eq!(status, 200, "{backend:?}: {body}");
        // A fresh sign-in that passes the factor again makes one (a legitimate user is not locked out).
        let again = app.sign_in("old@example.com").await;
        let step = crate::mfa::now_secs() + 30;
        let raised = app
            .verified(&owner.factor, &owner.secret, access_of(&again), step)
            .await;
        let fresh = user_of(&app, &again, &raised).await;
        let (status, body) = make_token(&app, &fresh, None).await;
        assert_eq!(status, 201, "{backend:?}: {body}");
    }
}

/// Refused: the identity service's own access token (used directly, without an exchange) of a protected
/// account's password-only session makes no token; its aal2 one does.
#[tokio::test]
async fn an_identity_access_token_used_directly_is_judged_like_its_session() {
    for backend in BACKENDS {
        let app = crate::org_fixtures::spawn(backend).await;
        let owner = with_totp(&app, "direct@example.com").await;
        let plain = app.sign_in("direct@example.com").await;
        let body = json!({"name": "direct", "scopes": ["apps:read"]});
        let (status, refused) = call(
            &app,
            Method::POST,
            "/api/dev/tokens",
            Some(access_of(&plain)),
            None,
            Some(&body),
        )
        .await;
        assert_eq!(
            (status, code(&refused)),
            (403, "MFA_REQUIRED"),
            "{backend:?}: {refused}"
        );
        let step = crate::mfa::now_secs() + 30;
        let raised = app
            .verified(&owner.factor, &owner.secret, access_of(&plain), step)
            .await;
        let (status, made) = call(
            &app,
            Method::POST,
            "/api/dev/tokens",
            Some(&raised),
            None,
            Some(&body),
        )
        .await;
        assert_eq!(status, 201, "{backend:?}: {made}");
    }
}

/// Refused: a personal access token makes no token (even right after it was made, while the session that
/// made it signed in recently), and "Revoke all" of one account never touches another's tokens.
#[tokio::test]
async fn a_token_makes_no_token_and_revoke_all_ends_only_the_callers_tokens() {
    for backend in BACKENDS {
        let app = crate::org_fixtures::spawn(backend).await;
        let (ada, _) = without_totp(&app, "ada@example.com").await;
        let (eve, _) = without_totp(&app, "eve@example.com").await;
        let adas = token_of(&app, &ada, None).await;
        let eves = token_of(&app, &eve, None).await;
        let (status, refused) = call(
            &app,
            Method::POST,
            "/api/dev/tokens",
            Some(&adas),
            None,
            Some(&json!({"name": "child", "scopes": ["apps:read"]})),
        )
        .await;
        assert_eq!(
            (status, code(&refused)),
            (403, "TOKEN_NOT_ALLOWED"),
            "{backend:?}: {refused}"
        );
        let (status, answer) = call(
            &app,
            Method::POST,
            "/api/dev/tokens/revoke-all",
            Some(&eve.token),
            None,
            None,
        )
        .await;
        assert_eq!(
            (status, answer["revoked"].as_u64()),
            (200, Some(1)),
            "{backend:?}: {answer}"
        );
        assert_eq!(orgs_status(&app, &eves).await, 401, "{backend:?}");
        assert_eq!(
            orgs_status(&app, &adas).await,
            200,
            "{backend:?}: another account's token was revoked"
        );
    }
}

/// Refused: a member's token acts in the organization only while its owner is a member: removed, it
/// reaches the organization no more.
#[tokio::test]
async fn a_members_token_reaches_the_organization_no_more_once_the_member_is_removed() {
    for backend in BACKENDS {
        let app = crate::org_fixtures::spawn(backend).await;
        let (admin, _) = without_totp(&app, "admin@example.com").await;
        let (bob, _) = without_totp(&app, "bob@example.com").await;
        let org = create_org(&app, &admin, "Acme").await;
        add_member(&app, &admin, &org, &bob, "member").await;
        let named = token_of(&app, &bob, Some(&org)).await;
        let every = token_of(&app, &bob, None).await;
        for token in [&named, &every] {
            assert_eq!(apps_of(&app, token, &org).await.0, 200, "{backend:?}");
        }
        let member_path = format!("/api/orgs/{org}/members/{}", bob.id);
        let (status, body) = call(&app, Method::DELETE, &member_path, Some(&admin.token), None, None).await;
        assert!(status == 200 || status == 204, "{backend:?}: {status} {body}");
        for token in [&named, &every] {
            let (status, body) = apps_of(&app, token, &org).await;
            assert!(
                (400..500).contains(&status),
                "{backend:?}: a removed member's token still reads: {status} {body}"
            );
        }
    }
}

/// Refused: a token made by an aal2 session whose factor is then removed from *another* session is
/// lowered (not only when the removal comes from the session that made it), and the passkey-less account
/// left with one factor holds it back entirely.
#[tokio::test]
async fn removing_the_factor_from_another_session_lowers_the_token_its_session_made() {
    for backend in BACKENDS {
        let app = crate::org_fixtures::spawn(backend).await;
        let owner = with_totp(&app, "two@example.com").await;
        let token = token_of(&app, &owner.user, None).await;
        assert_eq!(orgs_status(&app, &token).await, 200, "{backend:?}");
        // A second factor is enrolled from another (raised) session, then the first factor is removed
        // from that other session.
        let other = app.sign_in("two@example.com").await;
        let step = crate::mfa::now_secs() + 30;
        let other_aal2 = app
            .verified(&owner.factor, &owner.secret, access_of(&other), step)
            .await;
        let enrolled = app
            .auth_with(
                "/factors",
                &other_aal2,
                json!({"factor_type": "totp", "friendly_name": "Second phone"}),
            )
            .await;
        assert_eq!(enrolled.status(), StatusCode::OK, "{backend:?}");
        let enrolled: Value = enrolled.json().await.unwrap();
        let second = domain::identity::factors::totp::TotpSecret::new(crate::mfa::base32_decode(
            enrolled["totp"]["secret"].as_str().unwrap(),
        ));
        let with_second = app
            .verified(
                enrolled["id"].as_str().unwrap(),
                &second,
                &other_aal2,
                crate::mfa::now_secs(),
            )
            .await;
        let removed = app
            .client
            .delete(app.url(&format!("/auth/v1/factors/{}", owner.factor)))
            .header("apikey", "built-in")
            .bearer_auth(&with_second)
            .send()
            .await
            .unwrap();
        assert_eq!(removed.status(), StatusCode::OK, "{backend:?}");
        let (status, body): (u16, Value) =
            call(&app, Method::GET, "/api/orgs", Some(&token), None, None).await;
        assert_eq!(
            status, 401,
            "{backend:?}: a token raised by a removed factor still acts for an account with another: {body}"
        );
    }
}

/// The statements of the access-token-proof migration that decide the level of a token made before it.
fn legacy_level_statements(database_url: &str) -> Vec<String> {
    // The two databases' files are alike today; each database runs its own.
    let migrations = [
        include_str!("../../migrations/sqlite/2026-12-02-000200_access_token_proof/up.sql"),
        include_str!("../../migrations/postgres/2026-12-02-000200_access_token_proof/up.sql"),
    ];
    let migration = migrations[usize::from(database_url.starts_with("postgres"))];
    let code: Vec<&str> = migration
        .lines()
        .filter(|line| !line.trim_start().starts_with("--"))
        .collect();
    code.join("\n")
        .split(';')
        .map(str::to_owned)
        .filter(|statement| statement.trim_start().starts_with("UPDATE"))
        .collect()
}

/// Locked out: a token made before the upgrade by an aal2 session of a TOTP account. The migration gives
/// it `aal2` only when the factor's `updated_at` is not later than the token — but every verified code
/// moves a factor's `updated_at` (`complete_verification`), so an owner who signed in with the factor
/// since making the token finds it lowered to `aal1` and refused everywhere after the upgrade.
#[tokio::test]
async fn a_token_made_before_the_upgrade_by_a_two_factor_session_still_works_after_its_owner_signed_in_since()
{
    for backend in BACKENDS {
        let app = crate::org_fixtures::spawn(backend).await;
        let owner = with_totp(&app, "legacy@example.com").await;
        let token = token_of(&app, &owner.user, None).await;
        // The owner signs in again the next morning and passes the factor (a later step).
        let next = app.sign_in("legacy@example.com").await;
        app.verified(
            &owner.factor,
            &owner.secret,
            access_of(&next),
            crate::mfa::now_secs() + 30,
        )
        .await;
        // The token as the release before the upgrade stored it (the new columns at their defaults), then
        // the migration's statements that give it its level.
        let db = adapter_db::Db::connect(&app.database_url, 1).unwrap();
        let mut conn = db.connection().unwrap();
        {
            use adapter_db::schema::access_tokens::dsl;
            diesel::update(dsl::access_tokens)
                .set((
                    dsl::made_aal.eq("aal1"),
                    dsl::made_first_factor_at.eq(None::<i64>),
                    dsl::made_by_family.eq(None::<String>),
                    dsl::made_raised_by.eq(None::<String>),
                ))
                .execute(&mut *conn)
                .unwrap();
        }
        let statements = legacy_level_statements(&app.database_url);
        assert_eq!(statements.len(), 2, "{statements:?}");
        for statement in statements {
            diesel::sql_query(statement).execute(&mut *conn).unwrap();
        }
        drop(conn);
        let (status, body) = call(&app, Method::GET, "/api/orgs", Some(&token), None, None).await;
        assert_eq!(
            status, 200,
            "{backend:?}: a two-factor user's pre-upgrade token is locked out: {body}"
        );
    }
}

/// Got in (low): a refresh token replayed (the theft signal) ends its whole session, but not the access
/// token that session made: the thief who made one keeps it.
#[tokio::test]
async fn a_replayed_refresh_token_ends_the_token_its_session_made() {
    for backend in BACKENDS {
        let app = crate::org_fixtures::spawn(backend).await;
        let (_, _) = without_totp(&app, "replay@example.com").await;
        let stolen = app.sign_in("replay@example.com").await;
        let thief = user_of(&app, &stolen, access_of(&stolen)).await;
        let planted = token_of(&app, &thief, None).await;
        let refresh = stolen["refresh_token"].as_str().unwrap();
        let mut answers = Vec::new();
        for _ in 0..3 {
            let response = app
                .auth_post(
                    "/token?grant_type=refresh_token",
                    json!({"refresh_token": refresh}),
                )
                .await;
            answers.push(response.status().as_u16());
        }
        assert_eq!(answers[0], 200, "{backend:?}: {answers:?}");
        let (status, _) = call(
            &app,
            Method::GET,
            "/api/dev/auth/me",
            Some(access_of(&stolen)),
            None,
            None,
        )
        .await;
        assert_eq!(status, 401, "{backend:?}: the replay ended the session");
        assert_eq!(
            orgs_status(&app, &planted).await,
            401,
            "{backend:?}: the token made by the replayed session outlived it"
        );
    }
}

/// Refused correctly / not locked out: a passkey sign-in (aal2) makes a token for an organization that
/// requires two factors and the token acts there; removing the passkey lowers it (the session it was made by
/// was raised by that passkey).
#[tokio::test]
async fn a_passkey_session_makes_a_token_that_acts_where_two_factors_are_required_until_the_passkey_goes() {
    use adapter_identity::webauthn::soft::SoftAuthenticator;
    for backend in BACKENDS {
        let app = crate::passkeys::spawn(backend).await;
        app.sign_up("pk@example.com").await;
        let password = app.sign_in("pk@example.com").await;
        let mut authenticator = SoftAuthenticator::new("http://localhost:8080");
        let passkey = crate::passkeys::register(&app, &mut authenticator, access_of(&password)).await;
        let (options, credential) = crate::passkeys::sign_in_answer(&app, &mut authenticator).await;
        let (status, session) = crate::passkeys::verify_sign_in(&app, &options, &credential).await;
        assert_eq!(status, StatusCode::OK, "{backend:?}: {session}");
        let owner = user_of(&app, &session, access_of(&session)).await;
        let org = create_org(&app, &owner, "Passkey Guarded").await;
        require_two_factors(&app, &owner, &org).await;
        let (status, made) = make_token(&app, &owner, Some(&org)).await;
        assert_eq!(
            status, 201,
            "{backend:?}: an aal2 passkey session is refused a token: {made}"
        );
        let token = made["token"].as_str().unwrap().to_owned();
        assert_eq!(apps_of(&app, &token, &org).await.0, 200, "{backend:?}");

        let removed = app
            .client
            .delete(app.url(&format!("/auth/v1/passkeys/{}", passkey["id"].as_str().unwrap())))
            .header("apikey", "built-in")
            .bearer_auth(access_of(&session))
            .send()
            .await
            .unwrap();
        assert!(removed.status().is_success(), "{backend:?}: {}", removed.status());
        let (status, body) = apps_of(&app, &token, &org).await;
        assert!(
            status == 401 || status == 403,
            "{backend:?}: a token raised by a removed passkey still acts where two factors are required: {status} {body}"
        );
    }
}
