//! Discovery: the provider's configuration document and key set, fetched with a size limit and kept for an
//! hour (the keys are fetched again sooner when a token names a key the set does not have).

use domain::identity::oauth::OidcError;
use serde::Deserialize;
use std::sync::Arc;
use std::time::Instant;

use crate::id_token::Jwks;
use crate::{CACHE_FOR, MAX_BODY_BYTES, OidcClient, REFETCH_KEYS_AFTER, is_allowed_endpoint};

/// The part of the discovery document this client uses.
#[derive(Debug, Clone, Deserialize)]
pub(crate) struct Metadata {
    pub(crate) issuer: String,
    pub(crate) authorization_endpoint: String,
    pub(crate) token_endpoint: String,
    pub(crate) jwks_uri: String,
    #[serde(default)]
    pub(crate) code_challenge_methods_supported: Vec<String>,
    #[serde(default)]
    pub(crate) token_endpoint_auth_methods_supported: Vec<String>,
}

impl Metadata {
    pub(crate) fn supports_pkce(&self) -> bool {
        self.code_challenge_methods_supported.iter().any(|m| m == "S256")
    }

    /// `client_secret_post` only when the provider does not take `client_secret_basic` (the default).
    pub(crate) fn posts_secret(&self) -> bool {
        let methods = &self.token_endpoint_auth_methods_supported;
        !methods.iter().any(|m| m == "client_secret_basic")
            && methods.iter().any(|m| m == "client_secret_post")
    }
}

#[derive(Default)]
pub(crate) struct Cache {
    metadata: Option<(Instant, Arc<Metadata>)>,
    keys: Option<(Instant, Arc<Jwks>)>,
}

impl OidcClient {
    fn discovery_url(&self) -> String {
        format!(
            "{}/.well-known/openid-configuration",
            self.issuer.as_str().trim_end_matches('/')
        )
    }

    pub(crate) async fn metadata(&self) -> Result<Arc<Metadata>, OidcError> {
        let mut cache = self.cache.lock().await;
        if let Some((at, metadata)) = &cache.metadata
            && at.elapsed() < CACHE_FOR
        {
            return Ok(metadata.clone());
        }
        let metadata: Metadata = serde_json::from_slice(&self.get(&self.discovery_url()).await?)
            .map_err(|e| OidcError::Unavailable(format!("unreadable discovery document: {e}")))?;
        if metadata.issuer.trim_end_matches('/') != self.config.issuer.trim().trim_end_matches('/') {
            return Err(OidcError::Unavailable(format!(
                "the discovery document names the issuer {}, not {}",
                metadata.issuer, self.config.issuer
            )));
        }
        for endpoint in [
            &metadata.authorization_endpoint,
            &metadata.token_endpoint,
            &metadata.jwks_uri,
        ] {
            let allowed = url::Url::parse(endpoint).is_ok_and(|u| is_allowed_endpoint(&u));
            if !allowed {
                return Err(OidcError::Unavailable(format!(
                    "the discovery document names an endpoint that is not HTTPS: {endpoint}"
                )));
            }
        }
        let metadata = Arc::new(metadata);
        cache.metadata = Some((Instant::now(), metadata.clone()));
        Ok(metadata)
    }

    /// The key set, fetched again when `refresh` asks for it (an unknown `kid`) and the cached one is older
    /// than a minute.
    pub(crate) async fn keys(&self, metadata: &Metadata, refresh: bool) -> Result<Arc<Jwks>, OidcError> {
        let mut cache = self.cache.lock().await;
        if let Some((at, keys)) = &cache.keys {
            let fresh = if refresh {
                at.elapsed() < REFETCH_KEYS_AFTER
            } else {
                at.elapsed() < CACHE_FOR
            };
            if fresh {
                return Ok(keys.clone());
            }
        }
        let keys = Arc::new(Jwks::parse(&self.get(&metadata.jwks_uri).await?)?);
        cache.keys = Some((Instant::now(), keys.clone()));
        Ok(keys)
    }

    async fn get(&self, url: &str) -> Result<Vec<u8>, OidcError> {
        let response = self
            .http
            .get(url)
            .header(reqwest::header::ACCEPT, "application/json")
            .send()
            .await
            .map_err(|e| OidcError::Unavailable(format!("GET {url}: {e}")))?;
        let status = response.status();
        let body = read_limited(response).await?;
        if !status.is_success() {
            return Err(OidcError::Unavailable(format!("GET {url} answered {status}")));
        }
        Ok(body)
    }
}

pub(crate) async fn read_limited(mut response: reqwest::Response) -> Result<Vec<u8>, OidcError> {
    let mut body = Vec::new();
    while let Some(chunk) = response
        .chunk()
        .await
        .map_err(|e| OidcError::Unavailable(format!("reading the answer: {e}")))?
    {
        if body.len() + chunk.len() > MAX_BODY_BYTES {
            return Err(OidcError::Unavailable("the answer is too large".into()));
        }
        body.extend_from_slice(&chunk);
    }
    Ok(body)
}
