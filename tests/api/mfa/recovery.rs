//! Recovery codes (auth-js `mfa.recoveryCodes`) and the sessions list (`/api/dev/auth/sessions`), on both
//! databases: a code works once, regenerating retires the old set, failures are limited per client (the
//! owner elsewhere is not locked out), a session signed out from the list is refused at once, and a factor's
//! first verification ends the account's other `aal1` sessions.

use super::{access_of, claims_of, now_secs, security_notices};
use crate::helpers::{TestApp, spawn_app_with};
use crate::identity::BACKENDS;
use reqwest::StatusCode;
use serde_json::{Value, json};

const CHROME_ON_LINUX: &str =
    "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36";

/// A code as a person might type it: upper case, in dashed groups of four.
fn typed(code: &str) -> String {
    code.to_uppercase()
        .as_bytes()
        .chunks(4)
        .map(|c| String::from_utf8_lossy(c).into_owned())
        .collect::<Vec<_>>()
        .join("-")
}

impl TestApp {
    async fn recovery_call(
        &self,
        method: reqwest::Method,
        path: &str,
        access: &str,
        body: Option<Value>,
    ) -> (StatusCode, Value) {
        let mut request = self
            .client
            .request(
                method,
                self.url(&format!("/auth/v1/factors/recovery-codes{path}")),
            )
            .header("apikey", "built-in")
            .bearer_auth(access);
        if let Some(body) = body {
            request = request.json(&body);
        }
        let response = request.send().await.unwrap();
        let status = response.status();
        (status, response.json().await.unwrap_or(Value::Null))
    }

    async fn refresh(&self, session: &Value) -> StatusCode {
        self.auth_post(
            "/token?grant_type=refresh_token",
            json!({"refresh_token": session["refresh_token"]}),
        )
        .await
        .status()
    }

    async fn sign_in_as(&self, email: &str, user_agent: &str) -> Value {
        let response = self
            .client
            .post(self.url("/auth/v1/token?grant_type=password"))
            .header("apikey", "built-in")
            .header("User-Agent", user_agent)
            .json(&json!({"email": email, "password": crate::identity::PASSWORD}))
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), StatusCode::OK);
        response.json().await.unwrap()
    }
}

fn codes_of(set: &Value) -> Vec<String> {
    set["codes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c.as_str().unwrap().to_owned())
        .collect()
}

#[tokio::test]
async fn a_recovery_code_works_once_raises_the_session_and_regenerating_retires_the_old_set() {
    use reqwest::Method;
    for backend in BACKENDS {
        let app = spawn_app_with(backend, &[]).await;
        app.sign_up("rae@example.com").await;
        let first = app.sign_in("rae@example.com").await;
        let (none, body) = app.recovery_call(Method::GET, "", access_of(&first), None).await;
        assert_eq!(
            (none, body["code"].as_str()),
            (StatusCode::NOT_FOUND, Some("mfa_factor_not_found"))
        );
        // Recovery codes are never an account's only factor.
        let (alone, body) = app.recovery_call(Method::POST, "", access_of(&first), None).await;
        assert_eq!(
            alone,
            StatusCode::UNPROCESSABLE_ENTITY,
            "{backend:?}: no factor first: {body}"
        );
        assert_eq!(
            body["code"], "mfa_recovery_codes_sole_factor",
            "{backend:?}: {body}"
        );

        let (_, _, aal2) = app.enrolled_totp(access_of(&first)).await;
        let (made, set) = app.recovery_call(Method::POST, "", &aal2, None).await;
        assert_eq!(made, StatusCode::OK, "{backend:?}: {set}");
        assert_eq!(set["type"], "recovery_code");
        assert_eq!(set["total"], 10);
        let codes = codes_of(&set);
        assert_eq!(codes.len(), 10);
        let (twice, body) = app.recovery_call(Method::POST, "", &aal2, None).await;
        assert_eq!(twice, StatusCode::UNPROCESSABLE_ENTITY);
        assert_eq!(body["code"], "mfa_verified_factor_exists");
        let (_, status) = app.recovery_call(Method::GET, "", &aal2, None).await;
        assert_eq!(
            (status["total"].as_u64(), status["remaining"].as_u64()),
            (Some(10), Some(10))
        );

        // A password sign-in is aal1; a recovery code (as typed) raises it.
        let second = app.sign_in("rae@example.com").await;
        let (ok, raised) = app
            .recovery_call(
                Method::POST,
                "/verify",
                access_of(&second),
                Some(json!({"code": typed(&codes[0])})),
            )
            .await;
        assert_eq!(ok, StatusCode::OK, "{backend:?}: {raised}");
        let claims = claims_of(access_of(&raised));
        assert_eq!(claims["aal"], "aal2");
        assert_eq!(claims["amr"][0]["method"], "mfa/recovery_code");
        assert!(
            raised["user"]["factors"]
                .as_array()
                .unwrap()
                .iter()
                .any(|f| f["factor_type"] == "recovery_code" && f["status"] == "verified")
        );
        let core = app.core_token(access_of(&raised)).await;
        assert_eq!(
            app.product_get("/api/orgs", &core).await.0,
            StatusCode::OK,
            "{backend:?}"
        );

        // The same code again is refused.
        let third = app.sign_in("rae@example.com").await;
        let (used, body) = app
            .recovery_call(
                Method::POST,
                "/verify",
                access_of(&third),
                Some(json!({"code": codes[0]})),
            )
            .await;
        assert_eq!(
            (used, body["code"].as_str()),
            (StatusCode::UNPROCESSABLE_ENTITY, Some("mfa_verification_failed"))
        );

        // Regenerating needs aal2 and retires every old code.
        let (low, _) = app
            .recovery_call(Method::POST, "/regenerate", access_of(&third), None)
            .await;
        assert_eq!(low, StatusCode::FORBIDDEN, "{backend:?}");
        let (again, renewed) = app
            .recovery_call(Method::POST, "/regenerate", access_of(&raised), None)
            .await;
        assert_eq!(again, StatusCode::OK, "{backend:?}: {renewed}");
        assert_eq!(renewed["id"], set["id"], "the set keeps its id");
        let new_codes = codes_of(&renewed);
        let (retired, _) = app
            .recovery_call(
                Method::POST,
                "/verify",
                access_of(&third),
                Some(json!({"code": codes[1]})),
            )
            .await;
        assert_eq!(retired, StatusCode::UNPROCESSABLE_ENTITY, "{backend:?}");
        let (fresh, _) = app
            .recovery_call(
                Method::POST,
                "/verify",
                access_of(&third),
                Some(json!({"code": new_codes[0]})),
            )
            .await;
        assert_eq!(fresh, StatusCode::OK, "{backend:?}");
        let (_, status) = app.recovery_call(Method::GET, "", access_of(&raised), None).await;
        assert_eq!(
            (status["total"].as_u64(), status["remaining"].as_u64()),
            (Some(10), Some(9))
        );

        let notices = security_notices(&app, "rae@example.com");
        assert!(
            notices
                .iter()
                .any(|s| s.starts_with("New recovery codes were made")),
            "{notices:?}"
        );
        assert!(
            notices.iter().any(|s| s.starts_with("A recovery code was used")),
            "{notices:?}"
        );
    }
}

#[tokio::test]
async fn recovery_code_failures_meet_the_accounts_ceiling_and_the_owner_still_signs_in_with_the_password() {
    use reqwest::Method;
    for backend in BACKENDS {
        let app = spawn_app_with(backend, &[("PORTAL_TRUSTED_PROXIES", "127.0.0.1")]).await;
        app.sign_up("rex@example.com").await;
        let first = app.sign_in("rex@example.com").await;
        let (_, _, aal2) = app.enrolled_totp(access_of(&first)).await;
        let (_, set) = app.recovery_call(Method::POST, "", &aal2, None).await;
        let codes = codes_of(&set);
        let guesser = app.sign_in("rex@example.com").await;
        let guess = |code: String| {
            let app = &app;
            let access = access_of(&guesser).to_owned();
            async move {
                app.client
                    .post(app.url("/auth/v1/factors/recovery-codes/verify"))
                    .header("apikey", "built-in")
                    .header("X-Forwarded-For", "198.51.100.7")
                    .bearer_auth(access)
                    .json(&json!({"code": code}))
                    .send()
                    .await
                    .unwrap()
                    .status()
            }
        };
        for _ in 0..10 {
            assert_eq!(
                guess("0000-0000-0000-0000".into()).await,
                StatusCode::UNPROCESSABLE_ENTITY
            );
        }
        // The tenth wrong answer reached the account's ceiling: the guessing session is over.
        assert_eq!(
            guess(codes[0].clone()).await,
            StatusCode::FORBIDDEN,
            "{backend:?}: even a right code"
        );
        // The owner's password still signs in from anywhere; the account's second-factor answers wait
        // for the hour to pass (the owner was e-mailed).
        let owner = app.sign_in("rex@example.com").await;
        let answer = app
            .client
            .post(app.url("/auth/v1/factors/recovery-codes/verify"))
            .header("apikey", "built-in")
            .header("X-Forwarded-For", "203.0.113.20")
            .bearer_auth(access_of(&owner))
            .json(&json!({"code": codes[0]}))
            .send()
            .await
            .unwrap();
        assert_eq!(answer.status(), StatusCode::TOO_MANY_REQUESTS, "{backend:?}");
        assert!(answer.headers().contains_key("retry-after"), "{backend:?}");
    }
}

#[tokio::test]
async fn a_session_signed_out_from_the_list_is_refused_at_once_and_the_owner_is_told() {
    for backend in BACKENDS {
        let app = spawn_app_with(backend, &[]).await;
        app.sign_up("sam@example.com").await;
        let here = app.sign_in_as("sam@example.com", CHROME_ON_LINUX).await;
        let there = app
            .sign_in_as("sam@example.com", "Mozilla/5.0 (iPhone) Safari/604.1")
            .await;
        let core_here = app.core_token(access_of(&here)).await;
        let core_there = app.core_token(access_of(&there)).await;

        let (status, list) = app.product_get("/api/dev/auth/sessions", &core_here).await;
        assert_eq!(status, StatusCode::OK, "{backend:?}: {list}");
        let sessions = list["sessions"].as_array().unwrap();
        // Sign-up signed in too (no mailer): three sessions, this one first.
        assert_eq!(sessions.len(), 3, "{backend:?}: {list}");
        assert_eq!(sessions[0]["current"], true);
        assert_eq!(sessions[0]["userAgent"], CHROME_ON_LINUX);
        assert_eq!(sessions[0]["ipAddress"], "127.0.0.1");
        let other = claims_of(access_of(&there))["session_id"]
            .as_str()
            .unwrap()
            .to_owned();
        let listed = sessions.iter().find(|s| s["id"] == other.as_str()).unwrap();
        assert_eq!(listed["current"], false);
        assert_eq!(listed["userAgent"], "Mozilla/5.0 (iPhone) Safari/604.1");

        // Another account cannot end it.
        app.sign_up("mallory@example.com").await;
        let mallory = app.sign_in("mallory@example.com").await;
        let core_mallory = app.core_token(access_of(&mallory)).await;
        let path = format!("/api/dev/auth/sessions/{other}");
        let refused = app
            .send(app.client.delete(app.url(&path)).bearer_auth(&core_mallory))
            .await;
        assert_eq!(refused.status(), StatusCode::NOT_FOUND, "{backend:?}");

        let ended = app
            .send(app.client.delete(app.url(&path)).bearer_auth(&core_here))
            .await;
        assert_eq!(ended.status(), StatusCode::NO_CONTENT, "{backend:?}");
        // At once: its refresh token, its access token and its core token are refused.
        assert_eq!(app.refresh(&there).await, StatusCode::BAD_REQUEST, "{backend:?}");
        assert_eq!(
            app.product_get("/api/orgs", &core_there).await.0,
            StatusCode::UNAUTHORIZED
        );
        assert_eq!(
            app.exchange(access_of(&there)).await.status(),
            StatusCode::UNAUTHORIZED
        );
        // The session that asked lives on.
        assert_eq!(app.product_get("/api/orgs", &core_here).await.0, StatusCode::OK);
        let again = app
            .send(app.client.delete(app.url(&path)).bearer_auth(&core_here))
            .await;
        assert_eq!(again.status(), StatusCode::NOT_FOUND, "{backend:?}");
        let (_, list) = app.product_get("/api/dev/auth/sessions", &core_here).await;
        assert_eq!(list["sessions"].as_array().map(Vec::len), Some(2), "{backend:?}");
        assert!(
            !list["sessions"]
                .as_array()
                .unwrap()
                .iter()
                .any(|s| s["id"] == other.as_str())
        );
        assert_eq!(
            security_notices(&app, "sam@example.com"),
            ["Your other sessions were signed out (Developer Portal)"],
            "{backend:?}"
        );

        // Signing out every other session (auth-js `signOut({ scope: 'others' })`) leaves this one alone.
        app.sign_in("sam@example.com").await;
        app.sign_in("sam@example.com").await;
        let out = app
            .client
            .post(app.url("/auth/v1/logout?scope=others"))
            .header("apikey", "built-in")
            .bearer_auth(access_of(&here))
            .send()
            .await
            .unwrap();
        assert_eq!(out.status(), StatusCode::NO_CONTENT);
        let (_, list) = app.product_get("/api/dev/auth/sessions", &core_here).await;
        assert_eq!(
            list["sessions"].as_array().map(Vec::len),
            Some(1),
            "{backend:?}: {list}"
        );
        assert_eq!(list["sessions"][0]["current"], true);
    }
}

#[tokio::test]
async fn confirming_a_first_factor_ends_the_other_password_only_sessions() {
    for backend in BACKENDS {
        let app = spawn_app_with(backend, &[]).await;
        app.sign_up("tia@example.com").await;
        let mine = app.sign_in("tia@example.com").await;
        let intruder = app.sign_in("tia@example.com").await;
        let (factor, secret, aal2) = app.enrolled_totp(access_of(&mine)).await;
        assert_eq!(
            app.refresh(&intruder).await,
            StatusCode::BAD_REQUEST,
            "{backend:?}"
        );
        assert_eq!(
            app.exchange(access_of(&intruder)).await.status(),
            StatusCode::UNAUTHORIZED
        );
        // The session that confirmed it lives on, raised.
        let core = app.core_token(&aal2).await;
        assert_eq!(
            app.product_get("/api/orgs", &core).await.0,
            StatusCode::OK,
            "{backend:?}"
        );
        // A later challenge passed by a new sign-in is no first verification: the raised session stays.
        let later = app.sign_in("tia@example.com").await;
        app.verified(&factor, &secret, access_of(&later), now_secs() + 30)
            .await;
        assert_eq!(
            app.product_get("/api/orgs", &core).await.0,
            StatusCode::OK,
            "{backend:?}"
        );
    }
}
