//! The account's front door under attack (issue "one assurance rule, one attempt guard"): each way in an
//! attacker's review found, tried again through the real HTTP API on both databases. Every test here failed
//! before the assurance rule and the attempt guard existed.
//!
//! The attacker has the password (an `aal1` session of a protected account), or an old stolen session, or
//! many client addresses (`PORTAL_TRUSTED_PROXIES` with `X-Forwarded-For`), or is another account.

use crate::helpers::{TestApp, spawn_app_with};
use crate::identity::BACKENDS;
use crate::mfa::{access_of, answer, claims_of, now_secs, security_notices};
use adapter_db::Db;
use adapter_identity::webauthn::soft::SoftAuthenticator;
use diesel::prelude::*;
use domain::identity::factors::totp::TotpSecret;
use reqwest::StatusCode;
use serde_json::{Value, json};

/// The relying party of passkeys and security keys (a host name: browsers refuse an IP address).
const ORIGIN: &str = "http://localhost:8080";

impl TestApp {
    async fn post_as(&self, path: &str, access: &str, body: Value) -> (StatusCode, Value) {
        answer(self.auth_with(path, access, body).await).await
    }

    async fn put_user(&self, access: &str, body: Value) -> (StatusCode, Value) {
        answer(
            self.client
                .put(self.url("/auth/v1/user"))
                .header("apikey", "built-in")
                .bearer_auth(access)
                .json(&body)
                .send()
                .await
                .unwrap(),
        )
        .await
    }

    async fn get_user(&self, access: &str) -> (StatusCode, Value) {
        answer(
            self.client
                .get(self.url("/auth/v1/user"))
                .header("apikey", "built-in")
                .bearer_auth(access)
                .send()
                .await
                .unwrap(),
        )
        .await
    }

    /// Moves the first-factor sign-in of the session of `access` `minutes` into the past (a session stolen
    /// long after its owner signed in).
    fn age_session(&self, access: &str, minutes: i64) {
        use adapter_db::schema::refresh_tokens::dsl;
        let family = claims_of(access)["session_id"].as_str().unwrap().to_owned();
        let db = Db::connect(&self.database_url, 1).unwrap();
        let mut conn = db.connection().unwrap();
        let earlier = (chrono::Utc::now() - chrono::Duration::minutes(minutes)).timestamp_millis();
        diesel::update(dsl::refresh_tokens.filter(dsl::family_id.eq(family)))
            .set((dsl::family_started_at.eq(earlier), dsl::created_at.eq(earlier)))
            .execute(&mut *conn)
            .unwrap();
    }

    /// Enrols a TOTP factor from the aal1 session of an account without one: `(factor, secret, aal2)`.
    async fn protected_by_totp(&self, email: &str) -> (String, TotpSecret, String) {
        self.sign_up(email).await;
        let first = self.sign_in(email).await;
        self.enrolled_totp(access_of(&first)).await
    }
}

/// Every way a session can add a way in, with its answer.
async fn add_attempts(app: &TestApp, access: &str) -> Vec<(&'static str, StatusCode, Value)> {
    let mut answers = Vec::new();
    for (name, path, body) in [
        (
            "totp",
            "/factors",
            json!({"factor_type": "totp", "friendly_name": "Mine"}),
        ),
        (
            "security key",
            "/factors",
            json!({"factor_type": "webauthn", "friendly_name": "Key"}),
        ),
        ("passkey", "/passkeys/registration/options", json!({})),
        ("recovery codes", "/factors/recovery-codes", json!({})),
    ] {
        let (status, body) = app.post_as(path, access, body).await;
        answers.push((name, status, body));
    }
    answers
}

#[tokio::test]
async fn a_password_alone_adds_no_way_in_to_an_account_protected_only_by_a_passkey() {
    for backend in BACKENDS {
        let app = crate::passkeys::spawn(backend).await;
        app.sign_up("ada@example.com").await;
        let first = app.sign_in("ada@example.com").await;
        let mut authenticator = SoftAuthenticator::new(ORIGIN);
        crate::passkeys::register(&app, &mut authenticator, access_of(&first)).await;

        // The attacker knows the password: an aal1 session of an account whose only factor is a passkey.
        let attacker = app.sign_in("ada@example.com").await;
        for (name, status, body) in add_attempts(&app, access_of(&attacker)).await {
            assert_eq!(status, StatusCode::FORBIDDEN, "{backend:?} {name}: {body}");
            assert_eq!(
                body["error_code"], "insufficient_aal",
                "{backend:?} {name}: {body}"
            );
        }
        // Nothing was added, and the product API still asks for the passkey.
        let (_, user) = app.get_user(access_of(&first)).await;
        let factors = user.get("factors").and_then(Value::as_array).map_or(0, Vec::len);
        assert_eq!(factors, 0, "{backend:?}: {user}");
        let core = app.core_token(access_of(&attacker)).await;
        let (status, body) = app.product_get("/api/orgs", &core).await;
        assert_eq!(
            (status, body["code"].as_str()),
            (StatusCode::FORBIDDEN, Some("MFA_REQUIRED"))
        );
    }
}

#[tokio::test]
async fn a_password_alone_adds_no_way_in_to_an_account_protected_by_totp_or_a_security_key() {
    for backend in BACKENDS {
        let app = spawn_app_with(backend, &[("PORTAL_PUBLIC_URL", ORIGIN)]).await;
        app.protected_by_totp("tia@example.com").await;
        let attacker = app.sign_in("tia@example.com").await;
        for (name, status, body) in add_attempts(&app, access_of(&attacker)).await {
            assert_eq!(status, StatusCode::FORBIDDEN, "{backend:?} {name}: {body}");
            assert_eq!(
                body["error_code"], "insufficient_aal",
                "{backend:?} {name}: {body}"
            );
        }
    }
}

#[tokio::test]
async fn an_unfinished_security_key_is_finished_only_by_a_session_that_passed_the_accounts_factor() {
    for backend in BACKENDS {
        let app = spawn_app_with(backend, &[("PORTAL_PUBLIC_URL", ORIGIN)]).await;
        let (_, _, owner) = app.protected_by_totp("kim@example.com").await;
        // The owner starts adding a security key and leaves it unfinished.
        let (status, enrolled) = app
            .post_as(
                "/factors",
                &owner,
                json!({"factor_type": "webauthn", "friendly_name": "Key"}),
            )
            .await;
        assert_eq!(status, StatusCode::OK, "{backend:?}: {enrolled}");
        let key = enrolled["id"].as_str().unwrap().to_owned();

        // The attacker's password session may not answer its registration with their own authenticator.
        let attacker = app.sign_in("kim@example.com").await;
        let (status, body) = app
            .webauthn_challenge(&key, access_of(&attacker), crate::mfa::webauthn::ours())
            .await;
        assert_eq!(status, StatusCode::FORBIDDEN, "{backend:?}: {body}");
        assert_eq!(body["error_code"], "insufficient_aal", "{backend:?}: {body}");
        // Nor with a challenge the owner started.
        let (status, challenge) = app
            .webauthn_challenge(&key, &owner, crate::mfa::webauthn::ours())
            .await;
        assert_eq!(status, StatusCode::OK, "{backend:?}: {challenge}");
        let mut theirs = SoftAuthenticator::new(ORIGIN);
        let registration = theirs.register(&challenge["webauthn"]["credential_options"]["publicKey"]);
        let (status, body) = app
            .webauthn_verify(&key, access_of(&attacker), &challenge, &registration)
            .await;
        assert_eq!(status, StatusCode::FORBIDDEN, "{backend:?}: {body}");
        let claims = claims_of(access_of(&attacker));
        assert_eq!(claims["aal"], "aal1");

        // Once its challenge has expired, the unfinished factor is gone.
        {
            use adapter_db::schema::factors::dsl;
            let db = Db::connect(&app.database_url, 1).unwrap();
            let mut conn = db.connection().unwrap();
            let long_ago = (chrono::Utc::now() - chrono::Duration::minutes(30)).timestamp_millis();
            diesel::update(dsl::factors.filter(dsl::id.eq(&key)))
                .set((
                    dsl::created_at.eq(long_ago),
                    dsl::last_challenged_at.eq(Some(long_ago)),
                ))
                .execute(&mut *conn)
                .unwrap();
        }
        let (_, user) = app.get_user(&owner).await;
        let kinds: Vec<&str> = user["factors"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f["factor_type"].as_str().unwrap())
            .collect();
        assert_eq!(kinds, ["totp"], "{backend:?}: {user}");
        let (status, _) = app
            .webauthn_challenge(&key, &owner, crate::mfa::webauthn::ours())
            .await;
        assert_eq!(status, StatusCode::NOT_FOUND, "{backend:?}");
    }
}

#[tokio::test]
async fn a_password_alone_changes_neither_the_password_nor_the_email_of_a_protected_account() {
    for backend in BACKENDS {
        let app = spawn_app_with(backend, &[]).await;
        let (factor, secret, owner) = app.protected_by_totp("lea@example.com").await;
        let attacker = app.sign_in("lea@example.com").await;
        for body in [
            json!({"password": "a brand new passphrase 41"}),
            json!({"email": "lea@example.com"}),
            json!({"password": "a brand new passphrase 41", "current_password": crate::identity::PASSWORD}),
        ] {
            let (status, answer) = app.put_user(access_of(&attacker), body.clone()).await;
            assert_eq!(status, StatusCode::FORBIDDEN, "{backend:?} {body}: {answer}");
            assert_eq!(answer["error_code"], "insufficient_aal", "{backend:?}: {answer}");
        }
        // The owner was not signed out.
        assert_eq!(app.get_user(&owner).await.0, StatusCode::OK, "{backend:?}");

        // Recovery stays possible: the recovery link, the factor's challenge, then a new password.
        app.auth_post("/recover", json!({"email": "lea@example.com"}))
            .await;
        let (link, _) = app.last_email("lea@example.com");
        let followed = crate::identity::no_redirects()
            .get(crate::identity::local(&app, &link))
            .send()
            .await
            .unwrap();
        let fragment = crate::identity::fragment_of(followed.headers()["location"].to_str().unwrap());
        let recovery = fragment["access_token"].clone();
        let (status, _) = app
            .put_user(&recovery, json!({"password": "a brand new passphrase 41"}))
            .await;
        assert_eq!(status, StatusCode::FORBIDDEN, "{backend:?}");
        let raised = app.verified(&factor, &secret, &recovery, now_secs() + 30).await;
        let (status, body) = app
            .put_user(&raised, json!({"password": "a brand new passphrase 41"}))
            .await;
        assert_eq!(status, StatusCode::OK, "{backend:?}: {body}");
    }
}

/// `POST` to `/auth/v1{path}` as the client at `ip` (through the trusted proxy).
async fn post_from(app: &TestApp, ip: &str, path: &str, access: &str, body: Value) -> (StatusCode, Value) {
    answer(
        app.client
            .post(app.url(&format!("/auth/v1{path}")))
            .header("apikey", "built-in")
            .header("X-Forwarded-For", ip)
            .bearer_auth(access)
            .json(&body)
            .send()
            .await
            .unwrap(),
    )
    .await
}

#[tokio::test]
async fn wrong_codes_from_many_addresses_meet_one_ceiling_per_account() {
    for backend in BACKENDS {
        let app = spawn_app_with(backend, &[("PORTAL_TRUSTED_PROXIES", "127.0.0.1")]).await;
        let (factor, secret, owner) = app.protected_by_totp("max@example.com").await;
        let wrong = {
            let right = secret.code_at(now_secs()).unwrap();
            if right == "000000" { "111111" } else { "000000" }
        };
        let attacker = app.sign_in("max@example.com").await;
        let addresses: Vec<String> = (1..=6).map(|n| format!("198.51.100.{n}")).collect();
        // Sixty wrong codes from six addresses (ten each, every address within its own limit).
        let mut refused = None;
        for n in 0..60 {
            let ip = &addresses[n % 6];
            let (status, challenge) = post_from(
                &app,
                ip,
                &format!("/factors/{factor}/challenge"),
                access_of(&attacker),
                json!({}),
            )
            .await;
            if status != StatusCode::OK {
                refused = Some((n, status, challenge));
                break;
            }
            let (status, body) = post_from(
                &app,
                ip,
                &format!("/factors/{factor}/verify"),
                access_of(&attacker),
                json!({"challenge_id": challenge["id"], "code": wrong}),
            )
            .await;
            if status != StatusCode::UNPROCESSABLE_ENTITY {
                refused = Some((n, status, body));
                break;
            }
        }
        let (n, status, body) = refused.expect("sixty wrong codes were all answered");
        assert_eq!(
            n, 10,
            "{backend:?}: the eleventh answer is refused ({status}: {body})"
        );
        // The guessing session is over, the owner is told, the owner's own sessions and password work.
        assert_eq!(
            app.get_user(access_of(&attacker)).await.0,
            StatusCode::FORBIDDEN,
            "{backend:?}"
        );
        let notices = security_notices(&app, "max@example.com");
        assert!(
            notices.iter().any(|s| s.contains("wrong second-factor codes")),
            "{backend:?}: {notices:?}"
        );
        assert_eq!(app.get_user(&owner).await.0, StatusCode::OK, "{backend:?}");
        let again = app.sign_in("max@example.com").await;
        // Further answers wait for the hour to pass, whatever the address.
        let (status, body) = post_from(
            &app,
            "203.0.113.9",
            &format!("/factors/{factor}/challenge"),
            access_of(&again),
            json!({}),
        )
        .await;
        assert_eq!(status, StatusCode::TOO_MANY_REQUESTS, "{backend:?}: {body}");
    }
}

#[tokio::test]
async fn a_challenge_dies_after_three_wrong_codes() {
    for backend in BACKENDS {
        let app = spawn_app_with(backend, &[]).await;
        let (factor, secret, _) = app.protected_by_totp("ida@example.com").await;
        let attacker = app.sign_in("ida@example.com").await;
        let (_, challenge) = app
            .post_as(
                &format!("/factors/{factor}/challenge"),
                access_of(&attacker),
                json!({}),
            )
            .await;
        let path = format!("/factors/{factor}/verify");
        let verify = |code: String| {
            app.post_as(
                &path,
                access_of(&attacker),
                json!({"challenge_id": challenge["id"], "code": code}),
            )
        };
        let right = secret.code_at(now_secs() + 30).unwrap();
        let wrong = if right == "000000" { "111111" } else { "000000" };
        for _ in 0..3 {
            assert_eq!(verify(wrong.to_owned()).await.0, StatusCode::UNPROCESSABLE_ENTITY);
        }
        let (status, body) = verify(right).await;
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{backend:?}: {body}");
        assert_eq!(body["error_code"], "mfa_factor_not_found", "{backend:?}: {body}");
    }
}

#[tokio::test]
async fn a_factor_step_is_not_a_fresh_sign_in() {
    for backend in BACKENDS {
        let app = spawn_app_with(backend, &[]).await;
        // A stolen old session of an account without a factor adds none, and sets no password.
        app.sign_up("old@example.com").await;
        let stolen = app.sign_in("old@example.com").await;
        app.age_session(access_of(&stolen), 60);
        let (status, body) = app
            .post_as("/factors", access_of(&stolen), json!({"factor_type": "totp"}))
            .await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{backend:?}: {body}");
        assert_eq!(
            body["error_code"], "reauthentication_needed",
            "{backend:?}: {body}"
        );
        let (status, body) = app
            .put_user(
                access_of(&stolen),
                json!({"password": "a brand new passphrase 41"}),
            )
            .await;
        assert_eq!(
            body["error_code"], "reauthentication_needed",
            "{backend:?}: {status} {body}"
        );

        // An old session that passes the account's factor is at aal2, but still no recent sign-in.
        let (factor, secret, _) = app.protected_by_totp("pia@example.com").await;
        let old = app.sign_in("pia@example.com").await;
        app.age_session(access_of(&old), 60);
        let raised = app
            .verified(&factor, &secret, access_of(&old), now_secs() + 30)
            .await;
        assert_eq!(claims_of(&raised)["aal"], "aal2");
        let (status, body) = app
            .put_user(&raised, json!({"password": "a brand new passphrase 41"}))
            .await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{backend:?}: {body}");
        assert_eq!(
            body["error_code"], "reauthentication_needed",
            "{backend:?}: {body}"
        );
        // With the current password it may.
        let (status, body) = app
            .put_user(
                &raised,
                json!({"password": "a brand new passphrase 41", "current_password": crate::identity::PASSWORD}),
            )
            .await;
        assert_eq!(status, StatusCode::OK, "{backend:?}: {body}");
    }
}

#[tokio::test]
async fn a_password_alone_signs_out_only_itself() {
    for backend in BACKENDS {
        let app = spawn_app_with(backend, &[]).await;
        let (_, _, owner) = app.protected_by_totp("zoe@example.com").await;
        let attacker = app.sign_in("zoe@example.com").await;
        let (status, body) = app
            .post_as("/logout?scope=others", access_of(&attacker), json!({}))
            .await;
        assert_eq!(status, StatusCode::FORBIDDEN, "{backend:?}: {body}");
        assert_eq!(app.get_user(&owner).await.0, StatusCode::OK, "{backend:?}");
        // Signing out "everywhere" ends the attacker's own session only.
        let (status, _) = app.post_as("/logout", access_of(&attacker), json!({})).await;
        assert_eq!(status, StatusCode::NO_CONTENT, "{backend:?}");
        assert_eq!(app.get_user(&owner).await.0, StatusCode::OK, "{backend:?}");
        assert_eq!(
            app.get_user(access_of(&attacker)).await.0,
            StatusCode::FORBIDDEN,
            "{backend:?}"
        );
    }
}

#[tokio::test]
async fn staff_need_a_second_factor_on_every_staff_route() {
    for backend in BACKENDS {
        let app = spawn_app_with(backend, &[("PORTAL_STAFF_MFA", "required")]).await;
        app.sign_up("rev@example.com").await;
        let db = Db::connect(&app.database_url, 1).unwrap();
        app_server::admin_cli::run(
            &db,
            app_server::admin_cli::AdminCommand::Grant {
                email: "rev@example.com".into(),
                role: "reviewer".into(),
            },
        )
        .await
        .unwrap();
        let session = app.sign_in("rev@example.com").await;
        let core = app.core_token(access_of(&session)).await;
        for path in [
            "/api/app-uptime/status",
            "/api/app-uptime/get-app-uptime-days",
            "/api/admin/apps/submitted",
        ] {
            let (status, body) = app.product_get(path, &core).await;
            assert_eq!(status, StatusCode::FORBIDDEN, "{backend:?} {path}: {body}");
            assert_eq!(body["code"], "MFA_REQUIRED", "{backend:?} {path}: {body}");
        }
        let (_, _, aal2) = app.enrolled_totp(access_of(&session)).await;
        let core = app.core_token(&aal2).await;
        assert_eq!(
            app.product_get("/api/app-uptime/status", &core).await.0,
            StatusCode::OK
        );
    }
}

#[tokio::test]
async fn the_current_password_is_guessed_no_more_than_a_sign_in_and_tells_a_held_back_session_nothing() {
    for backend in BACKENDS {
        let app = spawn_app_with(backend, &[]).await;
        // A stolen old session of an account without a factor guesses the current password.
        app.sign_up("gus@example.com").await;
        let stolen = app.sign_in("gus@example.com").await;
        app.age_session(access_of(&stolen), 60);
        let mut refused = None;
        for n in 0..15 {
            let (status, body) = app
                .put_user(
                    access_of(&stolen),
                    json!({"password": "a brand new passphrase 41", "current_password": format!("guess number {n}")}),
                )
                .await;
            if status != StatusCode::BAD_REQUEST {
                refused = Some((n, status, body));
                break;
            }
        }
        let (n, status, body) = refused.expect("fifteen wrong current passwords were all checked");
        assert_eq!(
            (n, status),
            (10, StatusCode::TOO_MANY_REQUESTS),
            "{backend:?}: {body}"
        );

        // A password session of a protected account learns nothing from the current password it gives.
        app.protected_by_totp("hal@example.com").await;
        let held_back = app.sign_in("hal@example.com").await;
        for current in ["not the password at all", crate::identity::PASSWORD] {
            let (status, body) = app
                .put_user(
                    access_of(&held_back),
                    json!({"password": "a brand new passphrase 41", "current_password": current}),
                )
                .await;
            assert_eq!(status, StatusCode::FORBIDDEN, "{backend:?}: {body}");
            assert_eq!(body["error_code"], "insufficient_aal", "{backend:?}: {body}");
        }
    }
}

#[tokio::test]
async fn wrong_codes_sent_at_once_are_held_to_the_accounts_ceiling_and_three_per_challenge() {
    for backend in BACKENDS {
        let app = spawn_app_with(backend, &[("PORTAL_TRUSTED_PROXIES", "127.0.0.1")]).await;
        let (factor, secret, _) = app.protected_by_totp("ray@example.com").await;
        let wrong = {
            let right = secret.code_at(now_secs()).unwrap();
            if right == "000000" { "111111" } else { "000000" }
        };
        let attacker = app.sign_in("ray@example.com").await;
        let access = access_of(&attacker).to_owned();
        let mut challenges = Vec::new();
        for n in 1..=10 {
            let ip = format!("198.51.100.{n}");
            let (status, challenge) = post_from(
                &app,
                &ip,
                &format!("/factors/{factor}/challenge"),
                &access,
                json!({}),
            )
            .await;
            assert_eq!(status, StatusCode::OK, "{backend:?}: {challenge}");
            challenges.push((ip, challenge["id"].as_str().unwrap().to_owned()));
        }
        // Ten answers to each challenge, all at once.
        let mut answers = tokio::task::JoinSet::new();
        for (ip, challenge) in &challenges {
            for _ in 0..10 {
                let (client, url, access, ip, challenge) = (
                    app.client.clone(),
                    app.url(&format!("/auth/v1/factors/{factor}/verify")),
                    access.clone(),
                    ip.clone(),
                    challenge.clone(),
                );
                answers.spawn(async move {
                    let response = client
                        .post(url)
                        .header("apikey", "built-in")
                        .header("X-Forwarded-For", ip)
                        .bearer_auth(access)
                        .json(&json!({"challenge_id": challenge, "code": wrong}))
                        .send()
                        .await
                        .unwrap();
                    let status = response.status();
                    let body: Value = response.json().await.unwrap_or(Value::Null);
                    (
                        challenge,
                        status,
                        body["error_code"].as_str().unwrap_or_default().to_owned(),
                    )
                });
            }
        }
        let mut checked = std::collections::HashMap::<String, usize>::new();
        while let Some(answer) = answers.join_next().await {
            let (challenge, status, code) = answer.unwrap();
            if status == StatusCode::UNPROCESSABLE_ENTITY && code == "mfa_verification_failed" {
                *checked.entry(challenge).or_default() += 1;
            }
        }
        let total: usize = checked.values().sum();
        assert!(
            total <= 10,
            "{backend:?}: {total} wrong codes were checked: {checked:?}"
        );
        assert!(checked.values().all(|n| *n <= 3), "{backend:?}: {checked:?}");
    }
}

#[tokio::test]
async fn a_password_alone_edits_neither_the_profile_nor_an_unfinished_factor_of_a_protected_account() {
    for backend in BACKENDS {
        let app = spawn_app_with(backend, &[]).await;
        let (_, _, owner) = app.protected_by_totp("una@example.com").await;
        // The owner starts adding another authenticator app.
        let (status, unfinished) = app
            .post_as(
                "/factors",
                &owner,
                json!({"factor_type": "totp", "friendly_name": "Tablet"}),
            )
            .await;
        assert_eq!(status, StatusCode::OK, "{backend:?}: {unfinished}");
        let attacker = app.sign_in("una@example.com").await;
        let (status, body) = app
            .put_user(access_of(&attacker), json!({"data": {"full_name": "Not Una"}}))
            .await;
        assert_eq!(
            (status, body["error_code"].as_str()),
            (StatusCode::FORBIDDEN, Some("insufficient_aal"))
        );
        let removal = app
            .client
            .delete(app.url(&format!(
                "/auth/v1/factors/{}",
                unfinished["id"].as_str().unwrap()
            )))
            .header("apikey", "built-in")
            .bearer_auth(access_of(&attacker))
            .send()
            .await
            .unwrap();
        let (status, body) = answer(removal).await;
        assert_eq!(
            body["error_code"], "insufficient_aal",
            "{backend:?}: {status} {body}"
        );
        // The owner's session still may.
        assert_eq!(
            app.put_user(&owner, json!({"data": {"full_name": "Una"}}))
                .await
                .0,
            StatusCode::OK
        );
    }
}

#[tokio::test]
async fn fifty_wrong_codes_at_once_from_twenty_five_addresses_check_no_more_than_the_accounts_ceiling() {
    for backend in BACKENDS {
        let app = spawn_app_with(backend, &[("PORTAL_TRUSTED_PROXIES", "127.0.0.1")]).await;
        let (factor, secret, _) = app.protected_by_totp("zoe@example.com").await;
        let wrong = {
            let right = secret.code_at(now_secs()).unwrap();
            if right == "000000" { "111111" } else { "000000" }
        };
        let attacker = app.sign_in("zoe@example.com").await;
        let access = access_of(&attacker).to_owned();
        let mut challenges = Vec::new();
        for n in 1..=25 {
            let ip = format!("203.0.113.{n}");
            let (status, challenge) = post_from(
                &app,
                &ip,
                &format!("/factors/{factor}/challenge"),
                &access,
                json!({}),
            )
            .await;
            assert_eq!(status, StatusCode::OK, "{backend:?}: {challenge}");
            challenges.push((ip, challenge["id"].as_str().unwrap().to_owned()));
        }
        // Two wrong answers to each challenge, fifty at once.
        let answers = challenges.iter().cycle().take(50).map(|(ip, challenge)| {
            let path = format!("/factors/{factor}/verify");
            let body = json!({"challenge_id": challenge, "code": wrong});
            let (app, access) = (&app, &access);
            async move { post_from(app, ip, &path, access, body).await }
        });
        let answers = futures::future::join_all(answers).await;
        let checked = answers
            .iter()
            .filter(|(status, body)| {
                *status == StatusCode::UNPROCESSABLE_ENTITY && body["error_code"] == "mfa_verification_failed"
            })
            .count();
        let ceiling = domain::identity::rate_limit::SECOND_FACTOR_ACCOUNT_CEILING.max as usize;
        assert!(
            checked <= ceiling,
            "{backend:?}: {checked} of 50 wrong codes were checked"
        );
        assert!(checked > 0, "{backend:?}: {answers:?}");
    }
}

#[tokio::test]
async fn fifty_wrong_passwords_at_once_from_one_address_check_no_more_than_ten() {
    for backend in BACKENDS {
        let app = spawn_app_with(backend, &[]).await;
        app.sign_up("vic@example.com").await;
        let guesses = (0..50).map(|n| {
            let app = &app;
            async move {
                answer(
                    app.auth_post(
                        "/token?grant_type=password",
                        json!({"email": "vic@example.com", "password": format!("wrong guess {n}")}),
                    )
                    .await,
                )
                .await
            }
        });
        let answers = futures::future::join_all(guesses).await;
        let checked = answers
            .iter()
            .filter(|(status, body)| {
                *status == StatusCode::BAD_REQUEST && body["error_code"] == "invalid_credentials"
            })
            .count();
        assert!(
            checked <= 10,
            "{backend:?}: {checked} of 50 wrong passwords were checked"
        );
        assert!(checked > 0, "{backend:?}: {answers:?}");
        assert!(
            answers
                .iter()
                .all(|(status, _)| [StatusCode::BAD_REQUEST, StatusCode::TOO_MANY_REQUESTS].contains(status)),
            "{backend:?}: {answers:?}"
        );
    }
}
