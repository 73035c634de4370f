use super::*;
use crate::jwks::JwksSettings;
use crate::tokens::JwtSigner;
use chrono::{Duration, TimeZone};
use domain::common::{EmailAddress, UserId};
use domain::identity::AuthMethod;
use domain::identity::sessions::tokens::AccessGrant;
use jsonwebtoken::jwk::Jwk;
use jsonwebtoken::{EncodingKey, Header};
use serde_json::{Value, json};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

const ISSUER: &str = "https://project.supabase.test/auth/v1";
const SECRET: &str = "super-secret-jwt-token-with-at-least-32-characters-long";
const PORTAL: &str = "https://portal.test";

fn now() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 3, 1, 12, 0, 0).unwrap()
}

fn keys() -> SigningKeys {
    SigningKeys::derive_from_master("a master secret of at least 32 chars").unwrap()
}

fn hs256_only() -> HostedTokenVerifier {
    HostedTokenVerifier::new(
        &keys(),
        PORTAL,
        HostedVerification {
            issuer: ISSUER.into(),
            jwt_secret: Some(SECRET.into()),
            jwks: None,
        },
    )
    .unwrap()
}

/// Claims as a hosted Supabase issues them.
fn hosted_claims(at: DateTime<Utc>) -> Value {
    let sub = uuid::Uuid::new_v4();
    json!({
        "iss": ISSUER,
        "sub": sub,
        "aud": "authenticated",
        "exp": at.timestamp() + 3600,
        "iat": at.timestamp(),
        "email": "Hosted.User@Example.com",
        "phone": "",
        "app_metadata": {"provider": "email", "providers": ["email"]},
        "user_metadata": {"email": "hosted.user@example.com", "email_verified": true, "phone_verified": false, "sub": sub},
        "role": "authenticated",
        "aal": "aal1",
        "amr": [{"method": "password", "timestamp": at.timestamp()}],
        "session_id": uuid::Uuid::new_v4(),
        "is_anonymous": false
    })
}

fn hs256(claims: &Value, secret: &str) -> String {
    jsonwebtoken::encode(
        &Header::new(Algorithm::HS256),
        claims,
        &EncodingKey::from_secret(secret.as_bytes()),
    )
    .unwrap()
}

#[tokio::test]
async fn a_hosted_hs256_token_verifies_with_the_project_secret() {
    let claims = hosted_claims(now());
    let verified = hs256_only()
        .verify_access(&hs256(&claims, SECRET), now())
        .await
        .unwrap();
    assert_eq!(verified.sub.to_string(), claims["sub"].as_str().unwrap());
    assert_eq!(verified.email.as_str(), "hosted.user@example.com");
    assert_eq!(
        verified.session_id.to_string(),
        claims["session_id"].as_str().unwrap()
    );
    assert_eq!(verified.amr[0].method, "password");
}

#[tokio::test]
async fn a_token_signed_with_another_secret_is_refused() {
    let token = hs256(
        &hosted_claims(now()),
        "another-secret-of-at-least-thirty-two-characters",
    );
    assert_eq!(
        hs256_only().verify_access(&token, now()).await,
        Err(TokenError::Invalid)
    );
}

#[tokio::test]
async fn another_audience_issuer_or_role_is_refused() {
    let verifier = hs256_only();
    for (field, value) in [
        ("aud", json!("service")),
        ("iss", json!("https://other.supabase.test/auth/v1")),
        ("role", json!("service_role")),
        ("role", json!("anon")),
        ("is_anonymous", json!(true)),
        ("sub", json!("not-a-uuid")),
        ("email", json!("")),
    ] {
        let mut claims = hosted_claims(now());
        claims[field] = value;
        assert_eq!(
            verifier.verify_access(&hs256(&claims, SECRET), now()).await,
            Err(TokenError::Invalid),
            "{field}"
        );
    }
    let mut claims = hosted_claims(now());
    claims.as_object_mut().unwrap().remove("exp");
    assert_eq!(
        verifier.verify_access(&hs256(&claims, SECRET), now()).await,
        Err(TokenError::Invalid)
    );
}

#[tokio::test]
async fn an_expired_hosted_token_is_refused_as_expired() {
    let token = hs256(&hosted_claims(now()), SECRET);
    assert_eq!(
        hs256_only()
            .verify_access(&token, now() + Duration::hours(1))
            .await,
        Err(TokenError::Expired)
    );
}

fn built_in_access_token_claims() -> AccessTokenClaims {
    let address = EmailAddress::parse("dev@example.com").unwrap();
    AccessTokenClaims::issue(
        AccessGrant {
            user_id: UserId::new(),
            email: &address,
            session_id: uuid::Uuid::new_v4(),
            method: AuthMethod::Password,
            authenticated_at: now(),
            providers: vec!["email".into()],
            user_metadata: json!({}),
            second_step: None,
        },
        &format!("{PORTAL}/auth/v1"),
        now(),
    )
}

#[tokio::test]
async fn a_built_in_access_token_is_refused_in_hosted_mode() {
    let built_in = JwtSigner::new(&keys(), &format!("{PORTAL}/auth/v1"), PORTAL);
    let token = built_in
        .sign_access(&built_in_access_token_claims())
        .await
        .unwrap();
    assert_eq!(
        hs256_only().verify_access(&token, now()).await,
        Err(TokenError::Invalid)
    );
    // Even with the hosted issuer written into it, the built-in key is not the project's.
    let mut claims = built_in_access_token_claims();
    claims.iss = ISSUER.into();
    let token = built_in.sign_access(&claims).await.unwrap();
    assert_eq!(
        hs256_only().verify_access(&token, now()).await,
        Err(TokenError::Invalid)
    );
}

#[tokio::test]
async fn a_hosted_token_is_refused_by_the_built_in_service() {
    let built_in = JwtSigner::new(&keys(), &format!("{PORTAL}/auth/v1"), PORTAL);
    let token = hs256(&hosted_claims(now()), SECRET);
    assert_eq!(
        built_in.verify_access(&token, now()).await,
        Err(TokenError::Invalid)
    );
    assert_eq!(
        built_in.verify_core(&token, now()).await,
        Err(TokenError::Invalid)
    );
}

#[tokio::test]
async fn core_tokens_are_still_this_servers_and_never_access_tokens() {
    let verifier = hs256_only();
    let core = CoreTokenClaims::issue(
        UserId::new(),
        EmailAddress::parse("a@b.co").unwrap(),
        PORTAL,
        now(),
    );
    let token = verifier.sign_core(&core).await.unwrap();
    assert_eq!(verifier.verify_core(&token, now()).await.unwrap(), core);
    assert_eq!(
        verifier.verify_access(&token, now()).await,
        Err(TokenError::Invalid)
    );
    // A hosted access token is not a core token.
    let access = hs256(&hosted_claims(now()), SECRET);
    assert_eq!(
        verifier.verify_core(&access, now()).await,
        Err(TokenError::Invalid)
    );
    // And this server signs no access tokens.
    assert!(matches!(
        verifier.sign_access(&built_in_access_token_claims()).await,
        Err(TokenError::Signing(_))
    ));
}

#[test]
fn a_short_secret_or_no_key_at_all_is_a_configuration_error() {
    let short = HostedTokenVerifier::new(
        &keys(),
        PORTAL,
        HostedVerification {
            issuer: ISSUER.into(),
            jwt_secret: Some("short".into()),
            jwks: None,
        },
    );
    assert_eq!(short.unwrap_err(), HostedConfigError::SecretTooShort);
    let none = HostedTokenVerifier::new(
        &keys(),
        PORTAL,
        HostedVerification {
            issuer: ISSUER.into(),
            jwt_secret: None,
            jwks: None,
        },
    );
    assert_eq!(none.unwrap_err(), HostedConfigError::NoKeys);
}

// --- JWKS, against a tiny local HTTP server serving keys generated here ---

/// A P-256 key made now, as the signing key and as the public JWK with `kid`.
fn ec_key(kid: &str) -> (EncodingKey, Value) {
    use p256::pkcs8::EncodePrivateKey;
    let secret = loop {
        let mut bytes = [0u8; 32];
        crate::random::fill(&mut bytes);
        if let Ok(secret) = p256::SecretKey::from_slice(&bytes) {
            break secret;
        }
    };
    let der = secret.to_pkcs8_der().unwrap();
    let key = EncodingKey::from_ec_der(der.as_bytes());
    let mut jwk = Jwk::from_encoding_key(&key, Algorithm::ES256).unwrap();
    jwk.common.key_id = Some(kid.into());
    let mut value = serde_json::to_value(&jwk).unwrap();
    value["use"] = json!("sig");
    (key, value)
}

fn es256(claims: &Value, key: &EncodingKey, kid: &str) -> String {
    let mut header = Header::new(Algorithm::ES256);
    header.kid = Some(kid.into());
    jsonwebtoken::encode(&header, claims, key).unwrap()
}

/// Serves `document` at any path on 127.0.0.1; counts the requests.
struct JwksServer {
    url: String,
    document: Arc<Mutex<String>>,
    hits: Arc<AtomicUsize>,
}

async fn jwks_server(keys: &[Value]) -> JwksServer {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!(
        "http://{}/auth/v1/.well-known/jwks.json",
        listener.local_addr().unwrap()
    );
    let document = Arc::new(Mutex::new(json!({ "keys": keys }).to_string()));
    let hits = Arc::new(AtomicUsize::new(0));
    let (served, counted) = (document.clone(), hits.clone());
    tokio::spawn(async move {
        loop {
            let Ok((mut socket, _)) = listener.accept().await else {
                return;
            };
            let body = served.lock().unwrap().clone();
            counted.fetch_add(1, Ordering::SeqCst);
            tokio::spawn(async move {
                let mut request = Vec::new();
                let mut buffer = [0u8; 1024];
                while !request.windows(4).any(|w| w == b"\r\n\r\n") {
                    match socket.read(&mut buffer).await {
                        Ok(0) | Err(_) => return,
                        Ok(n) => request.extend_from_slice(&buffer[..n]),
                    }
                }
                let response = format!(
                    "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                    body.len()
                );
                let _ = socket.write_all(response.as_bytes()).await;
                let _ = socket.shutdown().await;
            });
        }
    });
    JwksServer { url, document, hits }
}

fn jwks_verifier(url: &str, secret: Option<&str>, min_refresh: std::time::Duration) -> HostedTokenVerifier {
    let mut settings = JwksSettings::new(url);
    settings.min_refresh = min_refresh;
    HostedTokenVerifier::new(
        &keys(),
        PORTAL,
        HostedVerification {
            issuer: ISSUER.into(),
            jwt_secret: secret.map(str::to_owned),
            jwks: Some(JwksCache::new(settings).unwrap()),
        },
    )
    .unwrap()
}

#[tokio::test]
async fn an_es256_token_verifies_with_the_projects_jwks_fetched_once() {
    let (key, jwk) = ec_key("key-1");
    let server = jwks_server(&[jwk]).await;
    let verifier = jwks_verifier(&server.url, None, std::time::Duration::ZERO);
    let claims = hosted_claims(now());
    for _ in 0..3 {
        let verified = verifier
            .verify_access(&es256(&claims, &key, "key-1"), now())
            .await
            .unwrap();
        assert_eq!(verified.sub.to_string(), claims["sub"].as_str().unwrap());
    }
    assert_eq!(server.hits.load(Ordering::SeqCst), 1, "the document is cached");
    // Without a secret, an HS256 token is refused (no key to check it with).
    assert_eq!(
        verifier.verify_access(&hs256(&claims, SECRET), now()).await,
        Err(TokenError::Invalid)
    );
}

#[tokio::test]
async fn a_rotated_key_is_found_by_fetching_the_jwks_again() {
    let (old_key, old_jwk) = ec_key("old");
    let server = jwks_server(std::slice::from_ref(&old_jwk)).await;
    let verifier = jwks_verifier(&server.url, None, std::time::Duration::ZERO);
    let claims = hosted_claims(now());
    verifier
        .verify_access(&es256(&claims, &old_key, "old"), now())
        .await
        .unwrap();
    let (new_key, new_jwk) = ec_key("new");
    *server.document.lock().unwrap() = json!({ "keys": [old_jwk, new_jwk] }).to_string();
    verifier
        .verify_access(&es256(&claims, &new_key, "new"), now())
        .await
        .unwrap();
    assert_eq!(server.hits.load(Ordering::SeqCst), 2);
}

#[tokio::test]
async fn unknown_key_ids_do_not_refetch_more_than_the_minimum_interval_allows() {
    let (key, jwk) = ec_key("known");
    let server = jwks_server(&[jwk]).await;
    let verifier = jwks_verifier(&server.url, None, std::time::Duration::from_secs(3600));
    let claims = hosted_claims(now());
    verifier
        .verify_access(&es256(&claims, &key, "known"), now())
        .await
        .unwrap();
    for kid in ["made-up-1", "made-up-2", "made-up-3"] {
        assert_eq!(
            verifier.verify_access(&es256(&claims, &key, kid), now()).await,
            Err(TokenError::Invalid)
        );
    }
    assert_eq!(server.hits.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn a_jwks_token_signed_by_another_key_or_with_a_forged_header_is_refused() {
    let (_, jwk) = ec_key("key-1");
    let server = jwks_server(std::slice::from_ref(&jwk)).await;
    let verifier = jwks_verifier(&server.url, Some(SECRET), std::time::Duration::ZERO);
    let claims = hosted_claims(now());
    // Another private key under the published key id.
    let (intruder, _) = ec_key("key-1");
    assert_eq!(
        verifier
            .verify_access(&es256(&claims, &intruder, "key-1"), now())
            .await,
        Err(TokenError::Invalid)
    );
    // No key id.
    let mut header = Header::new(Algorithm::ES256);
    header.kid = None;
    let token = jsonwebtoken::encode(&header, &claims, &intruder).unwrap();
    assert_eq!(
        verifier.verify_access(&token, now()).await,
        Err(TokenError::Invalid)
    );
    // The public key's text used as an HMAC secret (algorithm confusion).
    let mut header = Header::new(Algorithm::HS256);
    header.kid = Some("key-1".into());
    let public_text = jwk.to_string();
    let token = jsonwebtoken::encode(
        &header,
        &claims,
        &EncodingKey::from_secret(public_text.as_bytes()),
    )
    .unwrap();
    assert_eq!(
        verifier.verify_access(&token, now()).await,
        Err(TokenError::Invalid)
    );
    // With both configured, the shared secret still verifies HS256 tokens.
    assert!(
        verifier
            .verify_access(&hs256(&claims, SECRET), now())
            .await
            .is_ok()
    );
}

#[tokio::test]
async fn an_unreachable_jwks_refuses_tokens_without_failing_the_server() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/jwks.json", listener.local_addr().unwrap());
    drop(listener);
    let verifier = jwks_verifier(&url, None, std::time::Duration::ZERO);
    let (key, _) = ec_key("key-1");
    assert_eq!(
        verifier
            .verify_access(&es256(&hosted_claims(now()), &key, "key-1"), now())
            .await,
        Err(TokenError::Invalid)
    );
}
