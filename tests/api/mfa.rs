//! Second factors across the two APIs (PRODUCT.md §1a): a TOTP factor enrolled and verified on `/auth/v1`,
//! then the product API's answer to each assurance level — 403 `MFA_REQUIRED` to an `aal1` session of an
//! account with a factor, and to platform staff without `aal2` when `PORTAL_STAFF_MFA=required`. Every
//! product answer is checked against the served OpenAPI document (`TestApp::send`).

use crate::helpers::{TestApp, spawn_app_with};
use crate::identity::BACKENDS;
use adapter_db::Db;
use app_server::admin_cli::{self, AdminCommand};
use diesel::prelude::*;
use domain::identity::factors::totp::TotpSecret;
use reqwest::StatusCode;
use serde_json::{Value, json};

/// RFC 4648 base32 without padding, as the enrolment answer gives the secret.
pub(crate) fn base32_decode(text: &str) -> Vec<u8> {
    const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
    let mut bits = 0u64;
    let mut count = 0;
    let mut bytes = Vec::new();
    for c in text.bytes() {
        let value = ALPHABET.iter().position(|&a| a == c).expect("a base32 digit");
        bits = (bits << 5) | value as u64;
        count += 5;
        if count >= 8 {
            count -= 8;
            bytes.push(((bits >> count) & 0xff) as u8);
        }
    }
    bytes
}

pub(crate) fn now_secs() -> i64 {
    chrono::Utc::now().timestamp()
}

impl TestApp {
    /// A call to `/auth/v1` with a user's access token.
    pub(crate) async fn auth_with(&self, path: &str, access: &str, body: Value) -> reqwest::Response {
        self.client
            .post(self.url(&format!("/auth/v1{path}")))
            .header("apikey", "built-in")
            .bearer_auth(access)
            .json(&body)
            .send()
            .await
            .unwrap()
    }

    /// Enrols a TOTP factor and verifies it with a computed code: `(factor id, secret, aal2 access token)`.
    pub(crate) async fn enrolled_totp(&self, access: &str) -> (String, TotpSecret, String) {
        let enrolled = self
            .auth_with(
                "/factors",
                access,
                json!({"factor_type": "totp", "friendly_name": "Phone"}),
            )
            .await;
        assert_eq!(enrolled.status(), StatusCode::OK);
        let enrolled: Value = enrolled.json().await.unwrap();
        let id = enrolled["id"].as_str().unwrap().to_owned();
        let secret = TotpSecret::new(base32_decode(enrolled["totp"]["secret"].as_str().unwrap()));
        let access = self.verified(&id, &secret, access, now_secs()).await;
        (id, secret, access)
    }

    /// Challenges a factor and verifies it with the code of `at`: the new (aal2) access token.
    pub(crate) async fn verified(&self, factor: &str, secret: &TotpSecret, access: &str, at: i64) -> String {
        let challenge = self
            .auth_with(&format!("/factors/{factor}/challenge"), access, json!({}))
            .await;
        assert_eq!(challenge.status(), StatusCode::OK);
        let challenge: Value = challenge.json().await.unwrap();
        let verified = self
            .auth_with(
                &format!("/factors/{factor}/verify"),
                access,
                json!({"challenge_id": challenge["id"], "code": secret.code_at(at).unwrap()}),
            )
            .await;
        assert_eq!(verified.status(), StatusCode::OK);
        let session: Value = verified.json().await.unwrap();
        session["access_token"].as_str().unwrap().to_owned()
    }

    /// The product API's core token for an identity access token.
    pub(crate) async fn core_token(&self, access: &str) -> String {
        let exchanged = self.exchange(access).await;
        assert_eq!(exchanged.status(), StatusCode::OK);
        let body: Value = exchanged.json().await.unwrap();
        body["coreToken"].as_str().unwrap().to_owned()
    }

    pub(crate) async fn product_get(&self, path: &str, core: &str) -> (StatusCode, Value) {
        let response = self.send(self.client.get(self.url(path)).bearer_auth(core)).await;
        let status = response.status();
        (status, response.json().await.unwrap())
    }
}
/// The claims of an access token (not verified: the server made it).
pub(crate) fn claims_of(access: &str) -> Value {
    use base64::Engine;
    let payload = access.split('.').nth(1).unwrap();
    serde_json::from_slice(
        &base64::engine::general_purpose::URL_SAFE_NO_PAD
            .decode(payload)
            .unwrap(),
    )
    .unwrap()
}

/// A response's status and JSON body (`null` when it has none).
pub(crate) async fn answer(response: reqwest::Response) -> (StatusCode, Value) {
    let status = response.status();
    (status, response.json().await.unwrap_or(Value::Null))
}

pub(crate) fn access_of(session: &Value) -> &str {
    session["access_token"].as_str().unwrap()
}

#[tokio::test]
async fn an_account_with_a_factor_needs_it_for_the_product_api() {
    for backend in BACKENDS {
        let app = spawn_app_with(backend, &[]).await;
        app.sign_up("ada@example.com").await;
        let first = app.sign_in("ada@example.com").await;
        // Without a factor, a password is enough.
        let core = app.core_token(access_of(&first)).await;
        assert_eq!(
            app.product_get("/api/orgs", &core).await.0,
            StatusCode::OK,
            "{backend:?}"
        );

        let (factor, secret, aal2) = app.enrolled_totp(access_of(&first)).await;
        let core = app.core_token(&aal2).await;
        assert_eq!(
            app.product_get("/api/orgs", &core).await.0,
            StatusCode::OK,
            "{backend:?}"
        );

        // A new sign-in with the password alone is aal1: the product API asks for the factor.
        let second = app.sign_in("ada@example.com").await;
        let core = app.core_token(access_of(&second)).await;
        let (status, body) = app.product_get("/api/orgs", &core).await;
        assert_eq!(status, StatusCode::FORBIDDEN, "{backend:?}: {body}");
        assert_eq!(body["code"], "MFA_REQUIRED", "{backend:?}: {body}");

        // The challenge of that session raises it to aal2 (the next step's code: the first was used).
        let raised = app
            .verified(&factor, &secret, access_of(&second), now_secs() + 30)
            .await;
        let core = app.core_token(&raised).await;
        assert_eq!(
            app.product_get("/api/orgs", &core).await.0,
            StatusCode::OK,
            "{backend:?}"
        );
    }
}

#[tokio::test]
async fn platform_staff_need_a_second_factor_when_it_is_required() {
    for backend in BACKENDS {
        let app = spawn_app_with(backend, &[("PORTAL_STAFF_MFA", "required")]).await;
        app.sign_up("boss@example.com").await;
        let db = Db::connect(&app.database_url, 2).unwrap();
        admin_cli::run(
            &db,
            AdminCommand::Grant {
                email: "boss@example.com".into(),
                role: "admin".into(),
            },
        )
        .await
        .unwrap();
        let session = app.sign_in("boss@example.com").await;
        let core = app.core_token(access_of(&session)).await;
        // A member's own pages stay open (the account has no factor), the staff pages do not.
        assert_eq!(
            app.product_get("/api/orgs", &core).await.0,
            StatusCode::OK,
            "{backend:?}"
        );
        let (status, body) = app.product_get("/api/admin/apps/submitted", &core).await;
        assert_eq!(status, StatusCode::FORBIDDEN, "{backend:?}: {body}");
        assert_eq!(body["code"], "MFA_REQUIRED", "{backend:?}: {body}");

        let (_, _, aal2) = app.enrolled_totp(access_of(&session)).await;
        let core = app.core_token(&aal2).await;
        let (status, body) = app.product_get("/api/admin/apps/submitted", &core).await;
        assert_eq!(status, StatusCode::OK, "{backend:?}: {body}");
    }
}

/// The subjects of the security e-mails to `to` in the outbox, oldest first.
pub(crate) fn security_notices(app: &TestApp, to: &str) -> Vec<String> {
    use adapter_db::schema::email_outbox::dsl;
    let db = Db::connect(&app.database_url, 1).unwrap();
    let mut conn = db.connection().unwrap();
    dsl::email_outbox
        .filter(dsl::recipient.eq(to))
        .filter(dsl::kind.eq("security_notice"))
        .order(dsl::created_at.asc())
        .select(dsl::subject)
        .load(&mut *conn)
        .unwrap()
}

#[tokio::test]
async fn every_change_to_how_an_account_signs_in_is_emailed_to_its_owner() {
    for backend in BACKENDS {
        let app = spawn_app_with(backend, &[]).await;
        app.sign_up("eve@example.com").await;
        let first = app.sign_in("eve@example.com").await;
        app.sign_in("eve@example.com").await;
        assert!(
            security_notices(&app, "eve@example.com").is_empty(),
            "{backend:?}: signing in is no change"
        );

        let (factor, _, aal2) = app.enrolled_totp(access_of(&first)).await;
        let changed = app
            .client
            .put(app.url("/auth/v1/user"))
            .header("apikey", "built-in")
            .bearer_auth(&aal2)
            .json(&json!({"password": "another long passphrase 43", "current_password": crate::identity::PASSWORD}))
            .send()
            .await
            .unwrap();
        assert_eq!(changed.status(), StatusCode::OK, "{backend:?}");
        // The password change ended the other session already; a third one is ended from this one.
        let third = app
            .auth_post(
                "/token?grant_type=password",
                json!({"email": "eve@example.com", "password": "another long passphrase 43"}),
            )
            .await;
        assert_eq!(third.status(), StatusCode::OK);
        let signed_out = app
            .client
            .post(app.url("/auth/v1/logout?scope=others"))
            .header("apikey", "built-in")
            .bearer_auth(&aal2)
            .send()
            .await
            .unwrap();
        assert_eq!(signed_out.status(), StatusCode::NO_CONTENT, "{backend:?}");
        let removed = app
            .client
            .delete(app.url(&format!("/auth/v1/factors/{factor}")))
            .header("apikey", "built-in")
            .bearer_auth(&aal2)
            .send()
            .await
            .unwrap();
        assert_eq!(removed.status(), StatusCode::OK, "{backend:?}");
        // Sorted: two e-mails may be written in the same millisecond.
        let mut notices = security_notices(&app, "eve@example.com");
        notices.sort();
        assert_eq!(
            notices,
            [
                "A second factor was added to your account (Developer Portal)",
                "A second factor was removed from your account (Developer Portal)",
                "Your other sessions were signed out (Developer Portal)",
                "Your password was changed (Developer Portal)",
            ],
            "{backend:?}"
        );
    }
}

#[path = "mfa/recovery.rs"]
mod recovery;
#[path = "mfa/webauthn.rs"]
pub(crate) mod webauthn;
