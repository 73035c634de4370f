//! Nobody can lock another person out (PRODUCT.md §1): an attacker at one client address hammering an
//! account (wrong passwords, wrong typed codes, e-mail requests) is refused at that address, while the owner
//! at another signs in, uses a link just sent, and asks for a reset. On both databases.

use crate::helpers::{TestApp, spawn_app_with};
use crate::identity::{BACKENDS, PASSWORD, code_in, fragment_of, local, no_redirects};
use reqwest::StatusCode;
use serde_json::{Value, json};

const OWNER: &str = "owner@example.com";
const OWNER_AT: &str = "192.0.2.7";
const ATTACKER_AT: &str = "203.0.113.9";

/// `POST /auth/v1{path}` from the client address `client` (the test server trusts the loopback proxy).
async fn from(app: &TestApp, client: &str, path: &str, body: Value) -> reqwest::Response {
    app.client
        .post(app.url(&format!("/auth/v1{path}")))
        .header("apikey", "built-in")
        .header("X-Forwarded-For", client)
        .json(&body)
        .send()
        .await
        .unwrap()
}

async fn sign_in(app: &TestApp, client: &str, password: &str) -> StatusCode {
    from(
        app,
        client,
        "/token?grant_type=password",
        json!({"email": OWNER, "password": password}),
    )
    .await
    .status()
}

#[tokio::test]
async fn an_attacker_at_one_address_locks_nobody_out_at_another() {
    for backend in BACKENDS {
        let app = spawn_app_with(backend, &[("PORTAL_TRUSTED_PROXIES", "127.0.0.1")]).await;
        app.sign_up(OWNER).await;
        assert_eq!(sign_in(&app, OWNER_AT, PASSWORD).await, StatusCode::OK);
        // Ten wrong passwords, then the attacker's address is refused, whatever it sends.
        for _ in 0..10 {
            let status = sign_in(&app, ATTACKER_AT, "a wrong guess of a passphrase").await;
            assert_eq!(status, StatusCode::BAD_REQUEST, "{backend:?}");
        }
        let refused = sign_in(&app, ATTACKER_AT, PASSWORD).await;
        assert_eq!(refused, StatusCode::TOO_MANY_REQUESTS, "{backend:?}");
        // E-mail requests: five per address and client, then refused.
        for path in ["/otp", "/recover"] {
            for _ in 0..5 {
                let asked = from(&app, ATTACKER_AT, path, json!({"email": OWNER})).await;
                assert_eq!(asked.status(), StatusCode::OK, "{backend:?} {path}");
            }
            let asked = from(&app, ATTACKER_AT, path, json!({"email": OWNER})).await;
            assert_eq!(
                asked.status(),
                StatusCode::TOO_MANY_REQUESTS,
                "{backend:?} {path}"
            );
        }
        // While the attacker goes on, the owner asks for a magic link: the attacker's requests did not use
        // up the owner's own.
        let sent = from(&app, OWNER_AT, "/otp", json!({"email": OWNER})).await;
        assert_eq!(sent.status(), StatusCode::OK, "{backend:?}");
        let (owner_link, body) = app.last_email(OWNER);
        // Five wrong typed codes for the owner's address retire its typed codes, not the link.
        let right = code_in(&body);
        let wrong = format!("{:06}", (right.parse::<u32>().unwrap() + 1) % 1_000_000);
        for _ in 0..5 {
            let guessed = from(
                &app,
                ATTACKER_AT,
                "/verify",
                json!({"type": "email", "email": OWNER, "token": wrong}),
            )
            .await;
            assert_eq!(guessed.status(), StatusCode::FORBIDDEN, "{backend:?}");
        }

        // The owner, elsewhere: the right password signs in, the link just sent works, and a reset can be
        // asked for.
        assert_eq!(
            sign_in(&app, OWNER_AT, PASSWORD).await,
            StatusCode::OK,
            "{backend:?}"
        );
        let followed = no_redirects()
            .get(local(&app, &owner_link))
            .header("X-Forwarded-For", OWNER_AT)
            .send()
            .await
            .unwrap();
        let fragment = fragment_of(followed.headers()["location"].to_str().unwrap());
        assert!(fragment.contains_key("access_token"), "{backend:?}: {fragment:?}");
        let reset = from(&app, OWNER_AT, "/recover", json!({"email": OWNER})).await;
        assert_eq!(reset.status(), StatusCode::OK, "{backend:?}");
    }
}

#[tokio::test]
async fn the_e_mail_ceiling_of_an_address_holds_new_clients_but_not_one_that_signed_in_before() {
    let app = spawn_app_with(
        adapter_db::Backend::Sqlite,
        &[("PORTAL_TRUSTED_PROXIES", "127.0.0.1")],
    )
    .await;
    app.sign_up(OWNER).await;
    assert_eq!(sign_in(&app, OWNER_AT, PASSWORD).await, StatusCode::OK);
    // Four clients ask for five resets each: the address's ceiling (20 an hour) is reached.
    for client in ["198.51.100.1", "198.51.100.2", "198.51.100.3", "198.51.100.4"] {
        for _ in 0..5 {
            let asked = from(&app, client, "/recover", json!({"email": OWNER})).await;
            assert_eq!(asked.status(), StatusCode::OK, "{client}");
        }
    }
    let stranger = from(&app, "198.51.100.5", "/recover", json!({"email": OWNER})).await;
    assert_eq!(stranger.status(), StatusCode::TOO_MANY_REQUESTS);
    let owner = from(&app, OWNER_AT, "/recover", json!({"email": OWNER})).await;
    assert_eq!(owner.status(), StatusCode::OK);
}
