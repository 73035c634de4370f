//! A proof by e-mail weighs what a proof by a provider weighs (PRODUCT.md §1): whoever signed up first with
//! someone else's address keeps nothing once the mailbox owner proves it by a magic link, a typed code or a
//! recovery link. Without SMTP (links read from the outbox, as the server logs them) and with SMTP
//! configured after the squat; on both databases. The provider door is in `oauth.rs`.

use crate::helpers::{TestApp, spawn_app_with};
use crate::identity::{BACKENDS, PASSWORD, code_in, fragment_of, local, no_redirects};
use reqwest::StatusCode;
use serde_json::{Value, json};

const OWNER: &str = "owner@example.com";

/// What the squatter holds after signing up with the owner's address.
struct Squat {
    access: String,
    refresh: String,
    core: String,
}

async fn squat(app: &TestApp) -> Squat {
    app.sign_up(OWNER).await;
    let session = app.sign_in(OWNER).await;
    let access = session["access_token"].as_str().unwrap().to_owned();
    let core: Value = app.exchange(&access).await.json().await.unwrap();
    let squat = Squat {
        access,
        refresh: session["refresh_token"].as_str().unwrap().to_owned(),
        core: core["coreToken"].as_str().unwrap().to_owned(),
    };
    // Signing up without SMTP proves nothing: the listed role waits.
    assert_eq!(me(app, &squat.core).await["isAdmin"], json!(false));
    squat
}

async fn me(app: &TestApp, core: &str) -> Value {
    let response = app.get_bearer("/api/dev/auth/me", core).await;
    assert_eq!(response.status(), StatusCode::OK);
    response.json().await.unwrap()
}

#[derive(Debug, Clone, Copy)]
enum Proof {
    MagicLink,
    TypedCode,
    Recovery,
}

/// The owner proves the address; answers the owner's access token and whether the server asked the owner
/// to choose a password.
async fn prove(app: &TestApp, proof: Proof) -> (String, bool) {
    let request = match proof {
        Proof::MagicLink | Proof::TypedCode => "/otp",
        Proof::Recovery => "/recover",
    };
    let sent = app.auth_post(request, json!({"email": OWNER})).await;
    assert_eq!(sent.status(), StatusCode::OK, "{proof:?}");
    let (link, body) = app.last_email(OWNER);
    if let Proof::TypedCode = proof {
        let verified = app
            .auth_post(
                "/verify",
                json!({"type": "email", "email": OWNER, "token": code_in(&body)}),
            )
            .await;
        assert_eq!(verified.status(), StatusCode::OK);
        let session: Value = verified.json().await.unwrap();
        let asked = session["choose_password"] == json!(true);
        return (session["access_token"].as_str().unwrap().to_owned(), asked);
    }
    let followed = no_redirects().get(local(app, &link)).send().await.unwrap();
    let fragment = fragment_of(followed.headers()["location"].to_str().unwrap());
    (fragment["access_token"].clone(), fragment["type"] == "recovery")
}

async fn assert_squatter_holds_nothing(app: &TestApp, squat: &Squat, context: &str) {
    let password = app
        .auth_post(
            "/token?grant_type=password",
            json!({"email": OWNER, "password": PASSWORD}),
        )
        .await;
    assert_eq!(password.status(), StatusCode::BAD_REQUEST, "password {context}");
    let refresh = app
        .auth_post(
            "/token?grant_type=refresh_token",
            json!({"refresh_token": squat.refresh}),
        )
        .await;
    assert!(refresh.status().is_client_error(), "refresh {context}");
    let core = app.get_bearer("/api/dev/auth/me", &squat.core).await;
    assert_eq!(core.status(), StatusCode::UNAUTHORIZED, "core token {context}");
    let user = app.get_bearer("/auth/v1/user", &squat.access).await;
    assert!(user.status().is_client_error(), "access token {context}");
    let exchange = app.exchange(&squat.access).await;
    assert_eq!(exchange.status(), StatusCode::UNAUTHORIZED, "exchange {context}");
}

#[tokio::test]
async fn an_e_mail_proof_ends_everything_a_squatter_planted_and_binds_the_waiting_role_to_the_owner() {
    for backend in BACKENDS {
        for proof in [Proof::MagicLink, Proof::TypedCode, Proof::Recovery] {
            let context = format!("{backend:?} {proof:?}");
            let app = spawn_app_with(backend, &[("PORTAL_ADMIN_EMAILS", OWNER)]).await;
            let squat = squat(&app).await;

            let (owner_access, asked) = prove(&app, proof).await;
            assert!(asked, "the owner is asked to choose a password ({context})");
            assert_squatter_holds_nothing(&app, &squat, &context).await;

            // The owner holds the account, with the role that waited for the proven address.
            let core: Value = app.exchange(&owner_access).await.json().await.unwrap();
            let owner = me(&app, core["coreToken"].as_str().unwrap()).await;
            assert_eq!(owner["platformRole"], json!("admin"), "{context}");
            let chosen = app
                .client
                .put(app.url("/auth/v1/user"))
                .bearer_auth(&owner_access)
                .json(&json!({"password": "the owner's own long passphrase"}))
                .send()
                .await
                .unwrap();
            assert_eq!(chosen.status(), StatusCode::OK, "{context}");
            let signed_in = app
                .auth_post(
                    "/token?grant_type=password",
                    json!({"email": OWNER, "password": "the owner's own long passphrase"}),
                )
                .await;
            assert_eq!(signed_in.status(), StatusCode::OK, "{context}");
        }
    }
}

#[tokio::test]
async fn a_squat_made_before_smtp_was_configured_ends_when_the_owner_follows_a_mailed_link() {
    for backend in BACKENDS {
        let app = spawn_app_with(backend, &[("PORTAL_ADMIN_EMAILS", OWNER)]).await;
        let squat = squat(&app).await;
        // The operator configures SMTP later: a second instance on the same database sends real mail
        // (the worker stays off: the test reads the link from the outbox).
        let data = tempfile::TempDir::new().unwrap();
        let with_smtp = app
            .second_instance(
                &data,
                &[("PORTAL_ADMIN_EMAILS", OWNER), ("SMTP_URL", "smtp://127.0.0.1:9")],
            )
            .await;
        let mailed = app.view_at(with_smtp);
        let (owner_access, asked) = prove(&mailed, Proof::MagicLink).await;
        assert!(asked, "{backend:?}");
        assert_squatter_holds_nothing(&mailed, &squat, &format!("{backend:?} with SMTP")).await;
        let core: Value = mailed.exchange(&owner_access).await.json().await.unwrap();
        let owner = me(&mailed, core["coreToken"].as_str().unwrap()).await;
        assert_eq!(owner["platformRole"], json!("admin"), "{backend:?}");
    }
}

#[tokio::test]
async fn without_smtp_an_e_mail_link_request_creates_no_account_that_would_stop_the_owner_signing_up() {
    for backend in BACKENDS {
        let app = spawn_app_with(backend, &[]).await;
        let asked = app
            .auth_post("/otp", json!({"email": OWNER, "create_user": true}))
            .await;
        assert_eq!(asked.status(), StatusCode::OK, "{backend:?}");
        assert_eq!(app.outbox_count(OWNER), 0, "{backend:?}");
        // The owner signs up and in as if nobody had asked.
        app.sign_up(OWNER).await;
        let session = app.sign_in(OWNER).await;
        assert_eq!(session["user"]["email"], OWNER, "{backend:?}");
    }
}
