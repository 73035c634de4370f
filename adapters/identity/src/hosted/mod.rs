//! [`TokenSigner`] for a hosted Supabase (PRODUCT.md §1, second adapter): this server signs and verifies
//! its own core tokens as with the built-in service, and only **verifies** the hosted project's access
//! tokens:
//!
//! - HS256 with the project's JWT secret (`SUPABASE_JWT_SECRET`), and/or
//! - RS256 / ES256 with the project's public keys from its JWKS ([`JwksCache`]).
//!
//! The header's algorithm picks the key: HS256 only with a configured secret, RS256/ES256 only with a
//! configured JWKS and only with a key of that id and algorithm. `aud` must be `authenticated`, `iss` the
//! project's auth URL (`<SUPABASE_URL>/auth/v1`), and `sub`, `exp` present; expiry, `role` and anonymous
//! users are checked by the domain ([`AccessTokenClaims::check`]). A built-in access token (another key,
//! another issuer) is refused, as is a core token.
//!
//! Hosted sessions are not visible here: a hosted access token is trusted until its `exp`, even if the
//! user signed out at the hosted service in the meantime.

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use domain::identity::ports::TokenSigner;
use domain::identity::sessions::tokens::{
    ACCESS_AUDIENCE, AccessTokenClaims, CORE_AUDIENCE, CoreTokenClaims, TokenError,
};
use jsonwebtoken::{Algorithm, DecodingKey, Validation};

use crate::jwks::{JwksCache, JwksError};
use crate::keys::SigningKeys;
use crate::tokens::Kind;

/// The shortest `SUPABASE_JWT_SECRET` accepted, in characters (Supabase's own minimum).
pub const MIN_HOSTED_SECRET_CHARS: usize = 32;

/// How a hosted project's access tokens are verified.
pub struct HostedVerification {
    /// `iss` of its access tokens: `<SUPABASE_URL>/auth/v1`.
    pub issuer: String,
    /// The legacy shared secret (HS256).
    pub jwt_secret: Option<String>,
    /// The project's public keys (RS256, ES256).
    pub jwks: Option<JwksCache>,
}

/// Unusable hosted settings.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum HostedConfigError {
    #[error("SUPABASE_JWT_SECRET must be at least {MIN_HOSTED_SECRET_CHARS} characters long")]
    SecretTooShort,
    #[error("a hosted Supabase needs SUPABASE_JWT_SECRET or a JWKS to verify its tokens")]
    NoKeys,
}

/// Core tokens with this server's core key; access tokens of a hosted Supabase verified only.
pub struct HostedTokenVerifier {
    core: Kind,
    issuer: String,
    secret: Option<DecodingKey>,
    jwks: Option<JwksCache>,
}

impl std::fmt::Debug for HostedTokenVerifier {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HostedTokenVerifier")
            .field("issuer", &self.issuer)
            .field("hs256", &self.secret.is_some())
            .field("jwks", &self.jwks)
            .finish_non_exhaustive()
    }
}

impl HostedTokenVerifier {
    /// `core_issuer` is the `iss` of core tokens (`<public url>`, as given to `CoreTokenService::new`).
    ///
    /// # Errors
    /// [`HostedConfigError::SecretTooShort`]; [`HostedConfigError::NoKeys`] without a secret and a JWKS.
    pub fn new(
        keys: &SigningKeys,
        core_issuer: &str,
        hosted: HostedVerification,
    ) -> Result<Self, HostedConfigError> {
        let secret = match hosted.jwt_secret {
            Some(secret) if secret.chars().count() < MIN_HOSTED_SECRET_CHARS => {
                return Err(HostedConfigError::SecretTooShort);
            }
            Some(secret) => Some(DecodingKey::from_secret(secret.as_bytes())),
            None => None,
        };
        if secret.is_none() && hosted.jwks.is_none() {
            return Err(HostedConfigError::NoKeys);
        }
        Ok(Self {
            core: Kind::new(&keys.core, CORE_AUDIENCE, core_issuer),
            issuer: hosted.issuer.trim_end_matches('/').to_owned(),
            secret,
            jwks: hosted.jwks,
        })
    }

    fn validation(&self, algorithm: Algorithm) -> Validation {
        let mut validation = Validation::new(algorithm);
        validation.algorithms = vec![algorithm];
        validation.set_audience(&[ACCESS_AUDIENCE]);
        validation.set_issuer(&[&self.issuer]);
        validation.set_required_spec_claims(&["exp", "aud", "iss", "sub"]);
        // Expiry is the domain's check, at the domain clock's `now`.
        validation.validate_exp = false;
        validation.validate_nbf = false;
        validation.leeway = 0;
        validation
    }

    async fn decode_access(&self, token: &str) -> Result<AccessTokenClaims, TokenError> {
        let header = jsonwebtoken::decode_header(token).map_err(|_| TokenError::Invalid)?;
        let key = match header.alg {
            Algorithm::HS256 => self.secret.clone().ok_or(TokenError::Invalid)?,
            Algorithm::RS256 | Algorithm::ES256 => {
                let (Some(jwks), Some(kid)) = (&self.jwks, header.kid.as_deref()) else {
                    return Err(TokenError::Invalid);
                };
                match jwks.key(kid, header.alg).await {
                    Ok(key) => key,
                    Err(JwksError::UnknownKey(_)) => return Err(TokenError::Invalid),
                    Err(error @ JwksError::Fetch(_)) => {
                        tracing::warn!(%error, "a hosted access token could not be checked: no JWKS");
                        return Err(TokenError::Invalid);
                    }
                }
            }
            _ => return Err(TokenError::Invalid),
        };
        jsonwebtoken::decode::<AccessTokenClaims>(token, &key, &self.validation(header.alg))
            .map(|data| data.claims)
            .map_err(|_| TokenError::Invalid)
    }
}

#[async_trait]
impl TokenSigner for HostedTokenVerifier {
    async fn sign_core(&self, claims: &CoreTokenClaims) -> Result<String, TokenError> {
        self.core.sign(claims)
    }

    async fn verify_core(&self, token: &str, now: DateTime<Utc>) -> Result<CoreTokenClaims, TokenError> {
        let claims: CoreTokenClaims = self.core.verify(token)?;
        claims.check(now)?;
        Ok(claims)
    }

    async fn sign_access(&self, _claims: &AccessTokenClaims) -> Result<String, TokenError> {
        Err(TokenError::Signing(
            "access tokens are issued by the hosted Supabase, not by this server".into(),
        ))
    }

    async fn verify_access(&self, token: &str, now: DateTime<Utc>) -> Result<AccessTokenClaims, TokenError> {
        let claims = self.decode_access(token.trim()).await?;
        claims.check(now)?;
        Ok(claims)
    }
}

#[cfg(test)]
mod hosted_tests;
