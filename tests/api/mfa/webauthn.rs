//! `webauthn` second factors (Supabase Auth's WebAuthn MFA, auth-js `mfa.webauthn.register` and
//! `mfa.webauthn.authenticate`) with a software authenticator standing in for the browser's, on both
//! databases: enroll → challenge (`create`) → verify at `aal2`; a password session at `aal1` → challenge
//! (`request`, the factor's one credential) → verify at `aal2` (`amr` `mfa/webauthn`); a used challenge, a
//! foreign relying party, a foreign credential and a counter that stands still are refused; the factor counts
//! for `MFA_REQUIRED`, is listed by `GET /user`, removed with `DELETE /factors/{id}` and by the operator's
//! reset.

use super::{access_of, answer, claims_of, security_notices};
use crate::helpers::{TestApp, spawn_app_with};
use crate::identity::BACKENDS;
use adapter_identity::webauthn::soft::SoftAuthenticator;
use reqwest::StatusCode;
use serde_json::{Value, json};

/// The relying party of these servers (a host name: browsers refuse an IP address).
const ORIGIN: &str = "http://localhost:8080";

/// What auth-js sends as `webauthn` on a page at [`ORIGIN`].
pub(crate) fn ours() -> Value {
    json!({"rpId": "localhost", "rpOrigins": [ORIGIN]})
}

impl TestApp {
    async fn factor_post(&self, path: &str, access: &str, body: Value) -> (StatusCode, Value) {
        answer(self.auth_with(path, access, body).await).await
    }

    /// `mfa.challenge({factorId, webauthn})`.
    pub(crate) async fn webauthn_challenge(
        &self,
        factor: &str,
        access: &str,
        webauthn: Value,
    ) -> (StatusCode, Value) {
        self.factor_post(
            &format!("/factors/{factor}/challenge"),
            access,
            json!({"factorId": factor, "webauthn": webauthn}),
        )
        .await
    }

    /// `mfa.verify({factorId, challengeId, webauthn: {type, rpId, rpOrigins, credential_response}})`.
    pub(crate) async fn webauthn_verify(
        &self,
        factor: &str,
        access: &str,
        challenge: &Value,
        credential: &Value,
    ) -> (StatusCode, Value) {
        let mut webauthn = ours();
        webauthn["type"] = challenge["webauthn"]["type"].clone();
        webauthn["credential_response"] = credential.clone();
        self.factor_post(
            &format!("/factors/{factor}/verify"),
            access,
            json!({"challenge_id": challenge["id"], "webauthn": webauthn}),
        )
        .await
    }

    pub(crate) async fn user_factors(&self, access: &str) -> Value {
        let (status, user) = answer(
            self.client
                .get(self.url("/auth/v1/user"))
                .header("apikey", "built-in")
                .bearer_auth(access)
                .send()
                .await
                .unwrap(),
        )
        .await;
        assert_eq!(status, StatusCode::OK);
        user["factors"].clone()
    }

    /// The status and error code of `GET /api/orgs` with the core token of an identity access token.
    async fn orgs_with(&self, access: &str) -> (StatusCode, Value) {
        let core = self.core_token(access).await;
        self.product_get("/api/orgs", &core).await
    }
}

#[tokio::test]
async fn a_security_key_is_registered_then_asserted_at_aal2_as_auth_js_does() {
    for backend in BACKENDS {
        let app = spawn_app_with(backend, &[("PORTAL_PUBLIC_URL", ORIGIN)]).await;
        app.sign_up("ada@example.com").await;
        let first = app.sign_in("ada@example.com").await;
        let mut key = SoftAuthenticator::new(ORIGIN);

        // mfa.webauthn.register({friendlyName}): enroll, challenge (create), verify.
        let (status, enrolled) = app
            .factor_post(
                "/factors",
                access_of(&first),
                json!({"friendly_name": "YubiKey", "factor_type": "webauthn"}),
            )
            .await;
        assert_eq!(status, StatusCode::OK, "{backend:?}: {enrolled}");
        assert_eq!(enrolled["type"], "webauthn");
        assert_eq!(enrolled["friendly_name"], "YubiKey");
        assert!(enrolled.get("totp").is_none(), "{enrolled}");
        let factor = enrolled["id"].as_str().unwrap().to_owned();

        let (status, challenge) = app.webauthn_challenge(&factor, access_of(&first), ours()).await;
        assert_eq!(status, StatusCode::OK, "{backend:?}: {challenge}");
        assert_eq!(challenge["type"], "webauthn");
        assert!(challenge["expires_at"].is_i64(), "{challenge}");
        assert_eq!(challenge["webauthn"]["type"], "create");
        let creation = &challenge["webauthn"]["credential_options"]["publicKey"];
        assert_eq!(creation["rp"]["id"], "localhost");
        assert_eq!(creation["user"]["name"], "ada@example.com");
        let registration = key.register(creation);
        let (status, session) = app
            .webauthn_verify(&factor, access_of(&first), &challenge, &registration)
            .await;
        assert_eq!(status, StatusCode::OK, "{backend:?}: {session}");
        let claims = claims_of(access_of(&session));
        assert_eq!(claims["aal"], "aal2");
        assert_eq!(claims["amr"][0]["method"], "mfa/webauthn", "{claims}");
        // The challenge worked once.
        let (status, again) = app
            .webauthn_verify(&factor, access_of(&first), &challenge, &registration)
            .await;
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{backend:?}: {again}");
        assert_eq!(again["error_code"], "mfa_factor_not_found");

        // listFactors().webauthn, and the owner is told.
        let factors = app.user_factors(access_of(&session)).await;
        assert_eq!(factors.as_array().unwrap().len(), 1, "{factors}");
        assert_eq!(factors[0]["factor_type"], "webauthn");
        assert_eq!(factors[0]["status"], "verified");
        assert_eq!(
            security_notices(&app, "ada@example.com"),
            ["A second factor was added to your account (Developer Portal)"],
            "{backend:?}"
        );

        // A password alone is aal1 now: the product API asks for the factor.
        let password = app.sign_in("ada@example.com").await;
        let (status, body) = app.orgs_with(access_of(&password)).await;
        assert_eq!(status, StatusCode::FORBIDDEN, "{backend:?}: {body}");
        assert_eq!(body["code"], "MFA_REQUIRED");

        // mfa.webauthn.authenticate({factorId}) from a page of another site is refused.
        let foreign = json!({"rpId": "evil.example", "rpOrigins": ["https://evil.example"]});
        let (status, refused) = app
            .webauthn_challenge(&factor, access_of(&password), foreign)
            .await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{backend:?}: {refused}");
        assert_eq!(refused["error_code"], "validation_failed");

        // An assertion with another authenticator's credential does not verify.
        let (status, challenge) = app
            .webauthn_challenge(&factor, access_of(&password), ours())
            .await;
        assert_eq!(status, StatusCode::OK, "{backend:?}: {challenge}");
        assert_eq!(challenge["webauthn"]["type"], "request");
        let request = &challenge["webauthn"]["credential_options"]["publicKey"];
        assert_eq!(request["allowCredentials"][0]["id"], registration["id"]);
        let mut stranger = SoftAuthenticator::new(ORIGIN);
        stranger.register(&json!({"rp": {"id": "localhost"}, "user": {"id": "AAAA"}, "challenge": "AAAA"}));
        let forged = stranger.authenticate(request, 0);
        let (status, refused) = app
            .webauthn_verify(&factor, access_of(&password), &challenge, &forged)
            .await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{backend:?}: {refused}");
        assert_eq!(refused["error_code"], "webauthn_verification_failed");

        // The key's own assertion raises the session.
        let (_, challenge) = app
            .webauthn_challenge(&factor, access_of(&password), ours())
            .await;
        let assertion = key.authenticate(&challenge["webauthn"]["credential_options"]["publicKey"], 0);
        let (status, raised) = app
            .webauthn_verify(&factor, access_of(&password), &challenge, &assertion)
            .await;
        assert_eq!(status, StatusCode::OK, "{backend:?}: {raised}");
        let claims = claims_of(access_of(&raised));
        assert_eq!(claims["aal"], "aal2");
        assert_eq!(claims["amr"][0]["method"], "mfa/webauthn", "{claims}");
        assert_eq!(claims["amr"][1]["method"], "password", "{claims}");
        assert_eq!(
            app.orgs_with(access_of(&raised)).await.0,
            StatusCode::OK,
            "{backend:?}"
        );

        // A counter that stands still (a possible clone) is refused.
        key.counter_step = 0;
        let (_, challenge) = app.webauthn_challenge(&factor, access_of(&raised), ours()).await;
        let cloned = key.authenticate(&challenge["webauthn"]["credential_options"]["publicKey"], 0);
        let (status, refused) = app
            .webauthn_verify(&factor, access_of(&raised), &challenge, &cloned)
            .await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{backend:?}: {refused}");
        assert_eq!(refused["error_code"], "webauthn_verification_failed");

        // Removing it needs aal2, as a TOTP factor.
        let delete = |access: String| {
            let app = &app;
            let factor = factor.clone();
            async move {
                answer(
                    app.client
                        .delete(app.url(&format!("/auth/v1/factors/{factor}")))
                        .header("apikey", "built-in")
                        .bearer_auth(access)
                        .send()
                        .await
                        .unwrap(),
                )
                .await
            }
        };
        let aal1 = app.sign_in("ada@example.com").await;
        let (status, refused) = delete(access_of(&aal1).to_owned()).await;
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{backend:?}: {refused}");
        assert_eq!(refused["error_code"], "insufficient_aal");
        let (status, removed) = delete(access_of(&raised).to_owned()).await;
        assert_eq!(status, StatusCode::OK, "{backend:?}: {removed}");
        assert_eq!(removed["id"], factor.as_str());
        let left = app.user_factors(access_of(&aal1)).await;
        assert!(left.as_array().is_none_or(Vec::is_empty), "{backend:?}: {left}");
        assert_eq!(
            app.orgs_with(access_of(&aal1)).await.0,
            StatusCode::OK,
            "{backend:?}"
        );
    }
}

#[tokio::test]
async fn the_operators_reset_removes_a_security_key_and_without_a_relying_party_none_is_enrolled() {
    for backend in BACKENDS {
        let app = spawn_app_with(backend, &[("PORTAL_PUBLIC_URL", ORIGIN)]).await;
        app.sign_up("ada@example.com").await;
        let first = app.sign_in("ada@example.com").await;
        let (_, enrolled) = app
            .factor_post(
                "/factors",
                access_of(&first),
                json!({"factor_type": "webauthn", "friendly_name": "YubiKey"}),
            )
            .await;
        let factor = enrolled["id"].as_str().unwrap().to_owned();
        let (_, challenge) = app.webauthn_challenge(&factor, access_of(&first), ours()).await;
        let mut key = SoftAuthenticator::new(ORIGIN);
        let registration = key.register(&challenge["webauthn"]["credential_options"]["publicKey"]);
        let (status, _) = app
            .webauthn_verify(&factor, access_of(&first), &challenge, &registration)
            .await;
        assert_eq!(status, StatusCode::OK, "{backend:?}");
        let password = app.sign_in("ada@example.com").await;
        assert_eq!(app.orgs_with(access_of(&password)).await.0, StatusCode::FORBIDDEN);

        let db = adapter_db::Db::connect(&app.database_url, 1).unwrap();
        let command = app_server::factors_cli::FactorsCommand::Reset {
            email: "ada@example.com".into(),
        };
        let said = app_server::factors_cli::run(&db, ORIGIN, command).await.unwrap();
        assert!(said.starts_with("removed 1 second factor"), "{said}");
        // The reset ends every session (the old password session with it, and the tokens they made); a
        // new sign-in with the password alone reaches the product.
        assert_eq!(
            app.exchange(access_of(&password)).await.status(),
            StatusCode::UNAUTHORIZED,
            "{backend:?}"
        );
        let again = app.sign_in("ada@example.com").await;
        assert_eq!(
            app.orgs_with(access_of(&again)).await.0,
            StatusCode::OK,
            "{backend:?}"
        );

        // A public URL that cannot be a relying party serves no webauthn factor.
        let ip = spawn_app_with(backend, &[("PORTAL_PUBLIC_URL", "http://192.0.2.10:8080")]).await;
        ip.sign_up("bob@example.com").await;
        let session = ip.sign_in("bob@example.com").await;
        let (status, refused) = ip
            .factor_post(
                "/factors",
                access_of(&session),
                json!({"factor_type": "webauthn"}),
            )
            .await;
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{backend:?}: {refused}");
        assert_eq!(refused["error_code"], "mfa_webauthn_enroll_not_enabled");
    }
}
