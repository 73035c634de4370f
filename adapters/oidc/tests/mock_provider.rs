//! The adapter against a real OpenID Connect provider on loopback (oauth2-mock-server): discovery, the
//! authorization URL, the code exchange with PKCE, and every ID-token check.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use adapter_oidc::{OidcClient, OidcClientConfig, http_client};
use domain::identity::oauth::{AuthorizationRequest, CodeExchange, OidcError, OidcProvider};
use oidc_mock::MockProvider;

const CALLBACK: &str = "http://127.0.0.1:9/auth/v1/callback";
const VERIFIER: &str = "provider-verifier-provider-verifier-provider-verifier";

fn client(mock: &MockProvider, provider: &str) -> OidcClient {
    OidcClient::new(
        OidcClientConfig {
            provider: provider.into(),
            issuer: mock.issuer.clone(),
            client_id: "portal-client".into(),
            client_secret: "not-a-real-secret".into(),
        },
        http_client().unwrap(),
    )
    .unwrap()
}

/// Builds the authorization URL, lets the provider approve `hint`, and answers the query of its redirect.
async fn approve(client: &OidcClient, hint: &str) -> Vec<(String, String)> {
    let url = client
        .authorization_url(&AuthorizationRequest {
            state: "state-1".into(),
            nonce: "nonce-1".into(),
            pkce_verifier: VERIFIER.into(),
            redirect_uri: CALLBACK.into(),
        })
        .await
        .unwrap();
    let parsed = url::Url::parse(&url).unwrap();
    let query: Vec<(String, String)> = parsed.query_pairs().into_owned().collect();
    let get = |k: &str| query.iter().find(|(key, _)| key == k).map(|(_, v)| v.clone());
    assert_eq!(get("response_type").as_deref(), Some("code"));
    assert_eq!(get("client_id").as_deref(), Some("portal-client"));
    assert_eq!(get("redirect_uri").as_deref(), Some(CALLBACK));
    assert_eq!(get("state").as_deref(), Some("state-1"));
    assert_eq!(get("nonce").as_deref(), Some("nonce-1"));
    assert_eq!(get("code_challenge_method").as_deref(), Some("S256"));
    let http = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    let response = http
        .get(format!("{url}&login_hint={}", urlencode(hint)))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status().as_u16(), 302);
    let location = response.headers()["location"].to_str().unwrap().to_owned();
    assert!(location.starts_with(CALLBACK), "{location}");
    url::Url::parse(&location)
        .unwrap()
        .query_pairs()
        .into_owned()
        .collect()
}

fn urlencode(text: &str) -> String {
    url::form_urlencoded::byte_serialize(text.as_bytes()).collect()
}

async fn sign_in(client: &OidcClient, hint: &str) -> Result<domain::identity::ProviderProfile, OidcError> {
    let back = approve(client, hint).await;
    let code = back.iter().find(|(k, _)| k == "code").unwrap().1.clone();
    client
        .exchange(&CodeExchange {
            code,
            pkce_verifier: VERIFIER.into(),
            nonce: "nonce-1".into(),
            redirect_uri: CALLBACK.into(),
            user_hint: None,
        })
        .await
}

#[tokio::test]
async fn a_verified_rs256_id_token_gives_the_profile() {
    let mock = MockProvider::start("RS256");
    let client = client(&mock, "google");
    let profile = sign_in(&client, "ada-1|ada@example.com|true|").await.unwrap();
    assert_eq!(profile.issuer, mock.issuer);
    assert_eq!(profile.subject, "ada-1");
    assert_eq!(profile.provider, "google");
    assert_eq!(profile.email.as_deref(), Some("ada@example.com"));
    assert!(profile.email_verified);
    assert_eq!(profile.claims, serde_json::json!({"name": "User ada-1"}));
}

#[tokio::test]
async fn an_es256_provider_and_string_booleans_work_too() {
    let mock = MockProvider::start("ES256");
    let client = client(&mock, "apple");
    let profile = sign_in(&client, "apple-1|a@example.com|\"true\"|").await.unwrap();
    assert!(profile.email_verified);
    let unverified = sign_in(&client, "apple-2|b@example.com|false|").await.unwrap();
    assert!(!unverified.email_verified);
}

#[tokio::test]
async fn apple_is_asked_to_post_the_answer() {
    let mock = MockProvider::start("RS256");
    let url = client(&mock, "apple")
        .authorization_url(&AuthorizationRequest {
            state: "s".into(),
            nonce: "n".into(),
            pkce_verifier: VERIFIER.into(),
            redirect_uri: CALLBACK.into(),
        })
        .await
        .unwrap();
    assert!(url.contains("response_mode=form_post"), "{url}");
    assert!(url.contains("scope=openid+email+name"), "{url}");
}

#[tokio::test]
async fn every_spoiled_id_token_is_refused() {
    let mock = MockProvider::start("RS256");
    let client = client(&mock, "google");
    for (twist, reason) in [
        ("nonce", "the nonce is not the one this sign-in sent"),
        ("aud", "InvalidAudience"),
        ("iss", "InvalidIssuer"),
        ("expired", "ExpiredSignature"),
        ("unsigned", "signed with a key the provider does not publish"),
    ] {
        let error = sign_in(&client, &format!("u|u@example.com|true|{twist}"))
            .await
            .unwrap_err();
        assert!(
            matches!(error, OidcError::InvalidIdToken(ref m) if m == reason),
            "{twist}: {error:?}"
        );
    }
}

#[tokio::test]
async fn a_wrong_provider_verifier_or_a_reused_code_is_rejected_by_the_provider() {
    let mock = MockProvider::start("RS256");
    let client = client(&mock, "google");
    let back = approve(&client, "u|u@example.com|true|").await;
    let code = back.iter().find(|(k, _)| k == "code").unwrap().1.clone();
    let error = client
        .exchange(&CodeExchange {
            code,
            pkce_verifier: "another-verifier-another-verifier-another-verifier".into(),
            nonce: "nonce-1".into(),
            redirect_uri: CALLBACK.into(),
            user_hint: None,
        })
        .await
        .unwrap_err();
    assert!(matches!(error, OidcError::Rejected(_)), "{error:?}");
}

#[tokio::test]
async fn an_issuer_that_names_another_issuer_is_refused() {
    let mock = MockProvider::start("RS256");
    // The same server under another name: its discovery document says 127.0.0.1.
    let other = mock.issuer.replace("127.0.0.1", "localhost");
    let client = OidcClient::new(
        OidcClientConfig {
            provider: "google".into(),
            issuer: other,
            client_id: "c".into(),
            client_secret: "s".into(),
        },
        http_client().unwrap(),
    )
    .unwrap();
    let error = client
        .authorization_url(&AuthorizationRequest {
            state: "s".into(),
            nonce: "n".into(),
            pkce_verifier: VERIFIER.into(),
            redirect_uri: CALLBACK.into(),
        })
        .await
        .unwrap_err();
    assert!(
        matches!(error, OidcError::Unavailable(ref m) if m.contains("names the issuer")),
        "{error:?}"
    );
}
