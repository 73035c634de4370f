//! OpenID Connect sign-in providers (google, apple, github, azure) for the domain's [`OidcProvider`] port,
//! implemented over our own `reqwest` client and `jsonwebtoken`:
//!
//! - **Discovery** from `<issuer>/.well-known/openid-configuration`, cached for an hour; the document's
//!   `issuer` must equal the configured one, and every endpoint must be HTTPS (plain HTTP only on a
//!   loopback host, for local test providers).
//! - **Authorization URL**: `response_type=code`, `scope=openid email profile` (Apple: `openid email name`
//!   with `response_mode=form_post`), `state`, `nonce`, and an S256 PKCE challenge when the provider lists
//!   `S256` in `code_challenge_methods_supported`.
//! - **Code exchange** at the token endpoint with the client secret (`client_secret_basic`, or
//!   `client_secret_post` when the provider lists only that, as Apple does).
//! - **ID token** verification in [`id_token`]: signature with the provider's JWKS (RS256/384/512,
//!   PS256/384/512, ES256/384, EdDSA; never HMAC or `none`), `iss`, `aud` (and `azp` with several
//!   audiences), `exp`/`nbf` with a minute of leeway, and `nonce`.
//!
//! Client secrets: the configured secret is sent as is. For Apple that is the client-secret JWT that Apple
//! asks for (signed with the team's key, valid up to six months), generated outside this server, as with
//! Supabase; generating it from the `.p8` key is not supported.

mod discovery;
pub mod id_token;

use discovery::{Cache, Metadata, read_limited};

use async_trait::async_trait;
use domain::identity::ProviderProfile;
use domain::identity::oauth::{AuthorizationRequest, CodeExchange, OidcError, OidcProvider, s256_challenge};
use serde::Deserialize;
use std::time::Duration;
use tokio::sync::Mutex;

use crate::id_token::IdTokenCheck;

/// How long a discovery document and key set are trusted before they are fetched again.
const CACHE_FOR: Duration = Duration::from_secs(3600);
/// A key set is fetched again for an unknown `kid` (key rotation) at most this often.
const REFETCH_KEYS_AFTER: Duration = Duration::from_secs(60);
/// The largest provider answer read.
const MAX_BODY_BYTES: usize = 512 * 1024;
const TIMEOUT: Duration = Duration::from_secs(10);

/// One provider's client configuration (`PORTAL_OAUTH_<P>_ISSUER`, `_CLIENT_ID`, `_CLIENT_SECRET`).
#[derive(Clone, PartialEq, Eq)]
pub struct OidcClientConfig {
    /// `google`, `apple`, `github` or `azure`.
    pub provider: String,
    pub issuer: String,
    pub client_id: String,
    pub client_secret: String,
}

impl std::fmt::Debug for OidcClientConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OidcClientConfig")
            .field("provider", &self.provider)
            .field("issuer", &self.issuer)
            .field("client_id", &self.client_id)
            .finish_non_exhaustive()
    }
}

/// A configuration this adapter refuses.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct ConfigError(pub String);

/// The HTTP client every provider shares: no redirects, a 10-second timeout, rustls.
///
/// # Errors
/// When the TLS backend cannot start.
pub fn http_client() -> Result<reqwest::Client, ConfigError> {
    reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .timeout(TIMEOUT)
        .user_agent("developer-portal-oidc")
        .build()
        .map_err(|e| ConfigError(format!("could not build the HTTP client: {e}")))
}

/// Whether the URL may be called: HTTPS, or plain HTTP to a loopback host (local test providers).
#[must_use]
pub fn is_allowed_endpoint(url: &url::Url) -> bool {
    match url.scheme() {
        "https" => url.host().is_some(),
        "http" => match url.host() {
            Some(url::Host::Domain(domain)) => domain.eq_ignore_ascii_case("localhost"),
            Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
            Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
            None => false,
        },
        _ => false,
    }
}

/// One configured provider.
pub struct OidcClient {
    config: OidcClientConfig,
    issuer: url::Url,
    http: reqwest::Client,
    cache: Mutex<Cache>,
}

impl std::fmt::Debug for OidcClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OidcClient")
            .field("config", &self.config)
            .finish_non_exhaustive()
    }
}

impl OidcClient {
    /// A client for the provider; nothing is fetched until the first sign-in.
    ///
    /// # Errors
    /// [`ConfigError`] when the issuer is not an HTTPS URL (or HTTP on a loopback host), or the client id is
    /// empty.
    pub fn new(config: OidcClientConfig, http: reqwest::Client) -> Result<Self, ConfigError> {
        let issuer = url::Url::parse(config.issuer.trim())
            .map_err(|e| ConfigError(format!("{}: the issuer is not a URL ({e})", config.provider)))?;
        if !is_allowed_endpoint(&issuer) || issuer.query().is_some() || issuer.fragment().is_some() {
            return Err(ConfigError(format!(
                "{}: the issuer must be an https:// URL without query or fragment (http:// only on a loopback host)",
                config.provider
            )));
        }
        if config.client_id.trim().is_empty() {
            return Err(ConfigError(format!(
                "{}: the client id is empty",
                config.provider
            )));
        }
        Ok(Self {
            config,
            issuer,
            http,
            cache: Mutex::new(Cache::default()),
        })
    }

    fn is_apple(&self) -> bool {
        self.config.provider == "apple"
    }

    async fn redeem(&self, metadata: &Metadata, exchange: &CodeExchange) -> Result<String, OidcError> {
        let mut form = vec![
            ("grant_type", "authorization_code"),
            ("code", exchange.code.as_str()),
            ("redirect_uri", exchange.redirect_uri.as_str()),
        ];
        if metadata.supports_pkce() {
            form.push(("code_verifier", exchange.pkce_verifier.as_str()));
        }
        let mut request = self
            .http
            .post(&metadata.token_endpoint)
            .header(reqwest::header::ACCEPT, "application/json");
        if metadata.posts_secret() {
            form.push(("client_id", self.config.client_id.as_str()));
            form.push(("client_secret", self.config.client_secret.as_str()));
        } else {
            // RFC 6749 §2.3.1: both parts form-encoded before the Basic encoding.
            request = request.basic_auth(
                form_encode(&self.config.client_id),
                Some(form_encode(&self.config.client_secret)),
            );
        }
        let response = request
            .form(&form)
            .send()
            .await
            .map_err(|e| OidcError::Unavailable(format!("token endpoint: {e}")))?;
        let status = response.status();
        let body = read_limited(response).await?;
        if status.is_client_error() {
            let reason = serde_json::from_slice::<TokenError>(&body)
                .map(|e| e.error)
                .unwrap_or_else(|_| status.to_string());
            return Err(OidcError::Rejected(reason));
        }
        if !status.is_success() {
            return Err(OidcError::Unavailable(format!(
                "token endpoint answered {status}"
            )));
        }
        let tokens: TokenResponse = serde_json::from_slice(&body)
            .map_err(|e| OidcError::Unavailable(format!("unreadable token response: {e}")))?;
        tokens
            .id_token
            .ok_or_else(|| OidcError::InvalidIdToken("the token response has no id_token".into()))
    }
}

#[derive(Deserialize)]
struct TokenResponse {
    id_token: Option<String>,
}

#[derive(Deserialize)]
struct TokenError {
    error: String,
}

fn form_encode(text: &str) -> String {
    url::form_urlencoded::byte_serialize(text.as_bytes()).collect()
}

#[async_trait]
impl OidcProvider for OidcClient {
    async fn authorization_url(&self, request: &AuthorizationRequest) -> Result<String, OidcError> {
        let metadata = self.metadata().await?;
        let mut url = url::Url::parse(&metadata.authorization_endpoint)
            .map_err(|e| OidcError::Unavailable(format!("authorization endpoint: {e}")))?;
        {
            let mut query = url.query_pairs_mut();
            query
                .append_pair("response_type", "code")
                .append_pair("client_id", &self.config.client_id)
                .append_pair("redirect_uri", &request.redirect_uri)
                .append_pair(
                    "scope",
                    if self.is_apple() {
                        "openid email name"
                    } else {
                        "openid email profile"
                    },
                )
                .append_pair("state", &request.state)
                .append_pair("nonce", &request.nonce);
            if self.is_apple() {
                query.append_pair("response_mode", "form_post");
            }
            if metadata.supports_pkce() {
                query
                    .append_pair("code_challenge", &s256_challenge(&request.pkce_verifier))
                    .append_pair("code_challenge_method", "S256");
            }
        }
        Ok(url.into())
    }

    async fn exchange(&self, exchange: &CodeExchange) -> Result<ProviderProfile, OidcError> {
        let metadata = self.metadata().await?;
        let token = self.redeem(&metadata, exchange).await?;
        let check = IdTokenCheck {
            issuer: &metadata.issuer,
            client_id: &self.config.client_id,
            nonce: &exchange.nonce,
        };
        let mut keys = self.keys(&metadata, false).await?;
        if id_token::needs_other_keys(&token, &keys) {
            keys = self.keys(&metadata, true).await?;
        }
        let claims = id_token::verify(&token, &keys, &check)?;
        Ok(id_token::profile(
            &self.config.provider,
            &metadata.issuer,
            claims,
            exchange.user_hint.as_deref(),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(issuer: &str) -> OidcClientConfig {
        OidcClientConfig {
            provider: "google".into(),
            issuer: issuer.into(),
            client_id: "client".into(),
            client_secret: "secret".into(),
        }
    }

    #[test]
    fn only_https_or_loopback_http_issuers_are_accepted() {
        let http = http_client().unwrap();
        for good in [
            "https://accounts.google.com",
            "http://127.0.0.1:9000",
            "http://localhost:9000/realm",
            "http://[::1]:8080",
        ] {
            assert!(OidcClient::new(config(good), http.clone()).is_ok(), "{good}");
        }
        for bad in [
            "http://accounts.example.com",
            "http://10.0.0.1",
            "ftp://127.0.0.1",
            "https://idp.test/?x=1",
            "not a url",
        ] {
            assert!(OidcClient::new(config(bad), http.clone()).is_err(), "{bad}");
        }
    }

    #[test]
    fn the_secret_is_posted_only_to_providers_that_take_nothing_else() {
        let metadata = |methods: &[&str]| Metadata {
            issuer: String::new(),
            authorization_endpoint: String::new(),
            token_endpoint: String::new(),
            jwks_uri: String::new(),
            code_challenge_methods_supported: vec!["S256".into()],
            token_endpoint_auth_methods_supported: methods.iter().map(|m| (*m).to_owned()).collect(),
        };
        assert!(metadata(&["client_secret_post"]).posts_secret());
        assert!(!metadata(&["client_secret_post", "client_secret_basic"]).posts_secret());
        assert!(!metadata(&[]).posts_secret());
        assert!(metadata(&[]).supports_pkce());
    }

    #[test]
    fn the_debug_output_hides_the_secret() {
        assert!(!format!("{:?}", config("https://a.test")).contains("secret"));
    }
}
