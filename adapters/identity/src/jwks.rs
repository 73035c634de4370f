//! The public keys of a hosted Supabase project, read from its JWKS document
//! (`<SUPABASE_URL>/auth/v1/.well-known/jwks.json`), for access tokens signed with RS256 or ES256.
//!
//! The document is fetched on first use (so that the server starts while the project is unreachable),
//! kept for [`JwksSettings::max_age`], and fetched again when a token names a key id it does not list (a
//! rotated key), at most once per [`JwksSettings::min_refresh`] so that tokens with made-up key ids cannot
//! make the server hammer the project. A failed fetch keeps the keys already known.
//!
//! Only RSA keys (RS256) and P-256 keys (ES256) meant for signatures are taken; symmetric (`oct`) keys in
//! the document are ignored, so a token cannot make the server treat a public key as an HMAC secret.

use jsonwebtoken::Algorithm;
use jsonwebtoken::DecodingKey;
use jsonwebtoken::jwk::{AlgorithmParameters, EllipticCurve, Jwk, KeyAlgorithm, PublicKeyUse};
use std::collections::HashMap;
use std::time::{Duration, Instant};
use tokio::sync::{Mutex, RwLock};

/// The largest JWKS document read (bytes).
const MAX_DOCUMENT_BYTES: usize = 256 * 1024;

/// How the keys are fetched and kept.
#[derive(Debug, Clone)]
pub struct JwksSettings {
    pub url: String,
    /// Keys older than this are fetched again before use.
    pub max_age: Duration,
    /// An unknown key id fetches the document again only when the last fetch is at least this old.
    pub min_refresh: Duration,
    /// Timeout of one fetch.
    pub timeout: Duration,
}

impl JwksSettings {
    /// Ten minutes of caching, at most one refetch per 30 seconds, a 10-second timeout.
    #[must_use]
    pub fn new(url: impl Into<String>) -> Self {
        Self {
            url: url.into(),
            max_age: Duration::from_secs(600),
            min_refresh: Duration::from_secs(30),
            timeout: Duration::from_secs(10),
        }
    }
}

/// Why a JWKS key could not be found.
#[derive(Debug, thiserror::Error)]
pub enum JwksError {
    #[error("the JWKS could not be fetched: {0}")]
    Fetch(String),
    #[error("the JWKS has no usable key `{0}`")]
    UnknownKey(String),
}

struct CachedKey {
    key: DecodingKey,
    algorithm: Algorithm,
}

#[derive(Default)]
struct State {
    keys: HashMap<String, CachedKey>,
    fetched_at: Option<Instant>,
}

/// A cached JWKS.
pub struct JwksCache {
    settings: JwksSettings,
    client: reqwest::Client,
    state: RwLock<State>,
    /// One fetch at a time.
    fetching: Mutex<()>,
}

impl std::fmt::Debug for JwksCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("JwksCache")
            .field("url", &self.settings.url)
            .finish_non_exhaustive()
    }
}

impl JwksCache {
    /// # Errors
    /// When the HTTP client cannot be built.
    pub fn new(settings: JwksSettings) -> Result<Self, JwksError> {
        let client = reqwest::Client::builder()
            .timeout(settings.timeout)
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .map_err(|e| JwksError::Fetch(e.to_string()))?;
        Ok(Self {
            settings,
            client,
            state: RwLock::new(State::default()),
            fetching: Mutex::new(()),
        })
    }

    /// The key `kid` for a token signed with `algorithm` (RS256 or ES256).
    ///
    /// # Errors
    /// [`JwksError::UnknownKey`] when the document has no such key for that algorithm (after a refetch
    /// when allowed); [`JwksError::Fetch`] when it could not be read and no key is known.
    pub async fn key(&self, kid: &str, algorithm: Algorithm) -> Result<DecodingKey, JwksError> {
        let (known, refetch) = {
            let state = self.state.read().await;
            let fresh = state
                .fetched_at
                .is_some_and(|at| at.elapsed() < self.settings.max_age);
            let may_refresh = state
                .fetched_at
                .is_none_or(|at| at.elapsed() >= self.settings.min_refresh);
            let known = state.keys.get(kid).map(|k| (k.key.clone(), k.algorithm));
            let refetch = !fresh || (known.is_none() && may_refresh);
            (known, refetch)
        };
        let found = if refetch {
            match self.refresh().await {
                Ok(()) => self.lookup(kid).await,
                // Keep serving the keys already known.
                Err(error) if known.is_none() => return Err(error),
                Err(error) => {
                    tracing::warn!(%error, url = %self.settings.url, "could not refresh the hosted JWKS");
                    known
                }
            }
        } else {
            known
        };
        match found {
            Some((key, alg)) if alg == algorithm => Ok(key),
            _ => Err(JwksError::UnknownKey(kid.to_owned())),
        }
    }

    async fn lookup(&self, kid: &str) -> Option<(DecodingKey, Algorithm)> {
        self.state
            .read()
            .await
            .keys
            .get(kid)
            .map(|k| (k.key.clone(), k.algorithm))
    }

    async fn refresh(&self) -> Result<(), JwksError> {
        let started = Instant::now();
        let _one_at_a_time = self.fetching.lock().await;
        if self.state.read().await.fetched_at.is_some_and(|at| at >= started) {
            // Another request fetched meanwhile.
            return Ok(());
        }
        let result = self.fetch().await;
        let mut state = self.state.write().await;
        match result {
            Ok(keys) => {
                tracing::debug!(keys = keys.len(), url = %self.settings.url, "read the hosted JWKS");
                state.keys = keys;
                state.fetched_at = Some(Instant::now());
                Ok(())
            }
            Err(error) => {
                // Counts as an attempt, so that the next one waits `min_refresh` (the keys stay as they were).
                if !state.keys.is_empty() {
                    state.fetched_at = Some(Instant::now());
                }
                Err(error)
            }
        }
    }

    async fn fetch(&self) -> Result<HashMap<String, CachedKey>, JwksError> {
        let fail = |e: &dyn std::fmt::Display| JwksError::Fetch(e.to_string());
        let response = self
            .client
            .get(&self.settings.url)
            .header("Accept", "application/json")
            .send()
            .await
            .map_err(|e| fail(&e))?;
        if !response.status().is_success() {
            return Err(JwksError::Fetch(format!("status {}", response.status())));
        }
        if response
            .content_length()
            .is_some_and(|n| n > MAX_DOCUMENT_BYTES as u64)
        {
            return Err(JwksError::Fetch("the document is too large".into()));
        }
        let body = response.bytes().await.map_err(|e| fail(&e))?;
        if body.len() > MAX_DOCUMENT_BYTES {
            return Err(JwksError::Fetch("the document is too large".into()));
        }
        parse_document(&body)
    }
}

/// The usable signature keys of a JWKS document, by key id.
fn parse_document(body: &[u8]) -> Result<HashMap<String, CachedKey>, JwksError> {
    #[derive(serde::Deserialize)]
    struct Document {
        keys: Vec<serde_json::Value>,
    }
    let document: Document =
        serde_json::from_slice(body).map_err(|e| JwksError::Fetch(format!("not a JWKS document: {e}")))?;
    Ok(document
        .keys
        .into_iter()
        .filter_map(|value| serde_json::from_value::<Jwk>(value).ok())
        .filter_map(|jwk| usable_key(&jwk))
        .collect())
}

fn usable_key(jwk: &Jwk) -> Option<(String, CachedKey)> {
    let kid = jwk.common.key_id.clone()?;
    if matches!(&jwk.common.public_key_use, Some(u) if *u != PublicKeyUse::Signature) {
        return None;
    }
    let algorithm = match (&jwk.algorithm, jwk.common.key_algorithm) {
        (AlgorithmParameters::RSA(_), None | Some(KeyAlgorithm::RS256)) => Algorithm::RS256,
        (AlgorithmParameters::EllipticCurve(p), None | Some(KeyAlgorithm::ES256))
            if p.curve == EllipticCurve::P256 =>
        {
            Algorithm::ES256
        }
        _ => return None,
    };
    let key = DecodingKey::from_jwk(jwk).ok()?;
    Some((kid, CachedKey { key, algorithm }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn symmetric_encryption_and_other_curve_keys_are_ignored() {
        let document = serde_json::json!({"keys": [
            {"kty": "oct", "kid": "hmac", "k": "c2VjcmV0"},
            {"kty": "EC", "kid": "p384", "crv": "P-384", "x": "AA", "y": "AA"},
            {"kty": "RSA", "kid": "enc", "use": "enc", "n": "AQAB", "e": "AQAB"},
            {"kty": "RSA", "kid": "ps", "alg": "PS256", "n": "AQAB", "e": "AQAB"},
            {"kty": "RSA", "n": "AQAB", "e": "AQAB"},
            {"kty": "weird", "kid": "w"},
            {"kty": "RSA", "kid": "good", "use": "sig", "alg": "RS256", "n": "AQAB", "e": "AQAB"}
        ]});
        let keys = parse_document(document.to_string().as_bytes()).unwrap();
        assert_eq!(keys.keys().collect::<Vec<_>>(), ["good"]);
        assert_eq!(keys["good"].algorithm, Algorithm::RS256);
    }

    #[test]
    fn a_document_without_keys_is_an_error() {
        assert!(parse_document(b"<html>").is_err());
        assert!(parse_document(b"{}").is_err());
        assert!(parse_document(br#"{"keys": []}"#).unwrap().is_empty());
    }
}
