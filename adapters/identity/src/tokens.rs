//! [`TokenSigner`] with HS256 JWTs: identity access tokens (Supabase's shape, `aud` `authenticated`, `iss`
//! `<public url>/auth/v1`) and core tokens (`aud` `devportal-core`, `typ` `core`, `iss` `<public url>`),
//! each kind with its own key. The algorithm is pinned: a token whose header names another (`none`, RS256…)
//! is refused before its signature is looked at. Expiry is checked against the domain's clock (the `now`
//! given), not the system time.

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use domain::identity::ports::TokenSigner;
use domain::identity::sessions::tokens::{
    ACCESS_AUDIENCE, AccessTokenClaims, CORE_AUDIENCE, CoreTokenClaims, TokenError,
};
use jsonwebtoken::{Algorithm, DecodingKey, EncodingKey, Header, Validation};
use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::keys::SigningKeys;

const ALGORITHM: Algorithm = Algorithm::HS256;

pub(crate) struct Kind {
    encoding: EncodingKey,
    decoding: DecodingKey,
    validation: Validation,
}

impl Kind {
    pub(crate) fn new(key: &[u8], audience: &str, issuer: &str) -> Self {
        let mut validation = Validation::new(ALGORITHM);
        validation.algorithms = vec![ALGORITHM];
        validation.set_audience(&[audience]);
        validation.set_issuer(&[issuer]);
        validation.set_required_spec_claims(&["exp", "aud", "iss", "sub"]);
        // Expiry is the domain's check, at the domain clock's `now`.
        validation.validate_exp = false;
        validation.validate_nbf = false;
        validation.leeway = 0;
        Self {
            encoding: EncodingKey::from_secret(key),
            decoding: DecodingKey::from_secret(key),
            validation,
        }
    }

    pub(crate) fn sign<T: Serialize>(&self, claims: &T) -> Result<String, TokenError> {
        jsonwebtoken::encode(&Header::new(ALGORITHM), claims, &self.encoding)
            .map_err(|e| TokenError::Signing(e.to_string()))
    }

    pub(crate) fn verify<T: DeserializeOwned>(&self, token: &str) -> Result<T, TokenError> {
        jsonwebtoken::decode::<T>(token.trim(), &self.decoding, &self.validation)
            .map(|data| data.claims)
            .map_err(|_| TokenError::Invalid)
    }
}

/// Tokens whose signature and claims were checked, with the claims read: a client presents the same token
/// at every request until it refreshes it, and checking the signature (an HMAC over the token, and reading
/// its JSON) was a fifth of the work of a product request. Only the very same bytes are answered from here;
/// expiry is checked again at every use, by the caller. Bounded: when full, everything goes.
struct Verified<T> {
    by_token: std::sync::Mutex<std::collections::HashMap<Box<str>, T>>,
}

/// Most tokens kept per kind (a few hundred bytes each).
const MAX_VERIFIED: usize = 4096;

impl<T: Clone> Verified<T> {
    fn new() -> Self {
        Self {
            by_token: std::sync::Mutex::new(std::collections::HashMap::new()),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, std::collections::HashMap<Box<str>, T>> {
        self.by_token
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The claims of `token`, checked once by `verify` and then kept.
    fn claims(
        &self,
        token: &str,
        verify: impl FnOnce(&str) -> Result<T, TokenError>,
    ) -> Result<T, TokenError> {
        let token = token.trim();
        if let Some(claims) = self.lock().get(token) {
            return Ok(claims.clone());
        }
        let claims = verify(token)?;
        let mut kept = self.lock();
        if kept.len() >= MAX_VERIFIED {
            kept.clear();
        }
        kept.insert(token.into(), claims.clone());
        Ok(claims)
    }
}

/// Signs and verifies both token kinds of the built-in identity service.
pub struct JwtSigner {
    access: Kind,
    core: Kind,
    verified_access: Verified<AccessTokenClaims>,
    verified_core: Verified<CoreTokenClaims>,
}

impl std::fmt::Debug for JwtSigner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("JwtSigner(<keys redacted>)")
    }
}

impl JwtSigner {
    /// `access_issuer` is the `iss` of access tokens (`<public url>/auth/v1`, as [`IdentityConfig::issuer`]),
    /// `core_issuer` that of core tokens (`<public url>`, as given to `CoreTokenService::new`).
    ///
    /// [`IdentityConfig::issuer`]: domain::identity::IdentityConfig
    #[must_use]
    pub fn new(keys: &SigningKeys, access_issuer: &str, core_issuer: &str) -> Self {
        Self {
            access: Kind::new(&keys.access, ACCESS_AUDIENCE, access_issuer),
            core: Kind::new(&keys.core, CORE_AUDIENCE, core_issuer),
            verified_access: Verified::new(),
            verified_core: Verified::new(),
        }
    }
}

#[async_trait]
impl TokenSigner for JwtSigner {
    async fn sign_core(&self, claims: &CoreTokenClaims) -> Result<String, TokenError> {
        self.core.sign(claims)
    }

    async fn verify_core(&self, token: &str, now: DateTime<Utc>) -> Result<CoreTokenClaims, TokenError> {
        let claims = self
            .verified_core
            .claims(token, |token| self.core.verify(token))?;
        claims.check(now)?;
        Ok(claims)
    }

    async fn sign_access(&self, claims: &AccessTokenClaims) -> Result<String, TokenError> {
        self.access.sign(claims)
    }

    async fn verify_access(&self, token: &str, now: DateTime<Utc>) -> Result<AccessTokenClaims, TokenError> {
        let claims = self
            .verified_access
            .claims(token, |token| self.access.verify(token))?;
        claims.check(now)?;
        Ok(claims)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::{Duration, TimeZone};
    use domain::common::{EmailAddress, UserId};
    use domain::identity::AuthMethod;
    use domain::identity::sessions::tokens::AccessGrant;

    const ACCESS_ISS: &str = "https://portal.test/auth/v1";
    const CORE_ISS: &str = "https://portal.test";

    fn now() -> DateTime<Utc> {
        Utc.with_ymd_and_hms(2026, 3, 1, 12, 0, 0).unwrap()
    }

    fn signer() -> JwtSigner {
        let keys = SigningKeys::derive_from_master("a master secret of at least 32 chars").unwrap();
        JwtSigner::new(&keys, ACCESS_ISS, CORE_ISS)
    }

    fn email() -> EmailAddress {
        EmailAddress::parse("dev@example.com").unwrap()
    }

    fn access_claims(at: DateTime<Utc>) -> AccessTokenClaims {
        let address = email();
        AccessTokenClaims::issue(
            AccessGrant {
                user_id: UserId::new(),
                email: &address,
                session_id: uuid::Uuid::new_v4(),
                method: AuthMethod::Password,
                authenticated_at: at,
                providers: vec!["email".into()],
                user_metadata: serde_json::json!({}),
                second_step: None,
            },
            ACCESS_ISS,
            at,
        )
    }

    fn core_claims(at: DateTime<Utc>) -> CoreTokenClaims {
        CoreTokenClaims::issue(UserId::new(), email(), CORE_ISS, at)
    }

    #[tokio::test]
    async fn each_kind_verifies_with_its_own_key() {
        let signer = signer();
        let access = access_claims(now());
        let token = signer.sign_access(&access).await.unwrap();
        assert_eq!(signer.verify_access(&token, now()).await.unwrap(), access);
        let core = core_claims(now());
        let token = signer.sign_core(&core).await.unwrap();
        assert_eq!(signer.verify_core(&token, now()).await.unwrap(), core);
    }

    #[tokio::test]
    async fn an_access_token_presented_as_a_core_token_is_refused() {
        let signer = signer();
        let token = signer.sign_access(&access_claims(now())).await.unwrap();
        assert_eq!(signer.verify_core(&token, now()).await, Err(TokenError::Invalid));
    }

    #[tokio::test]
    async fn a_core_token_presented_as_an_access_token_is_refused() {
        let signer = signer();
        let token = signer.sign_core(&core_claims(now())).await.unwrap();
        assert_eq!(
            signer.verify_access(&token, now()).await,
            Err(TokenError::Invalid)
        );
    }

    #[tokio::test]
    async fn claims_of_one_kind_signed_with_the_other_key_are_refused() {
        // Even with the right audience, a token made with the wrong key does not verify.
        let signer = signer();
        let forged = signer.core.sign(&access_claims(now())).unwrap();
        assert_eq!(
            signer.verify_access(&forged, now()).await,
            Err(TokenError::Invalid)
        );
        let forged = signer.access.sign(&core_claims(now())).unwrap();
        assert_eq!(signer.verify_core(&forged, now()).await, Err(TokenError::Invalid));
    }

    #[tokio::test]
    async fn an_expired_token_of_either_kind_is_refused_as_expired() {
        let signer = signer();
        let later = now() + Duration::hours(1);
        let access = signer.sign_access(&access_claims(now())).await.unwrap();
        assert_eq!(
            signer.verify_access(&access, later).await,
            Err(TokenError::Expired)
        );
        let core = signer.sign_core(&core_claims(now())).await.unwrap();
        assert_eq!(signer.verify_core(&core, later).await, Err(TokenError::Expired));
    }

    #[tokio::test]
    async fn a_token_checked_once_still_expires_and_only_its_very_bytes_are_taken_as_checked() {
        let signer = signer();
        let later = now() + Duration::hours(1);
        let core = signer.sign_core(&core_claims(now())).await.unwrap();
        let access = signer.sign_access(&access_claims(now())).await.unwrap();
        // Checked (and kept) while valid…
        assert!(signer.verify_core(&core, now()).await.is_ok());
        assert!(signer.verify_access(&access, now()).await.is_ok());
        // …and still refused once expired.
        assert_eq!(signer.verify_core(&core, later).await, Err(TokenError::Expired));
        assert_eq!(
            signer.verify_access(&access, later).await,
            Err(TokenError::Expired)
        );
        // A kept token with its signature altered, or as the other kind, is not the kept token.
        let (body, signature) = core.rsplit_once('.').unwrap();
        let flipped = if signature.starts_with('A') { 'B' } else { 'A' };
        let forged = format!("{body}.{flipped}{}", &signature[1..]);
        assert_eq!(signer.verify_core(&forged, now()).await, Err(TokenError::Invalid));
        assert_eq!(signer.verify_access(&core, now()).await, Err(TokenError::Invalid));
        assert_eq!(signer.verify_core(&access, now()).await, Err(TokenError::Invalid));
        // Surrounding spaces are the same token, as before.
        assert!(signer.verify_core(&format!(" {core} "), now()).await.is_ok());
    }

    #[tokio::test]
    async fn another_algorithm_is_refused_even_with_the_right_key() {
        let keys = SigningKeys::derive_from_master("a master secret of at least 32 chars").unwrap();
        let signer = JwtSigner::new(&keys, ACCESS_ISS, CORE_ISS);
        let hs512 = jsonwebtoken::encode(
            &Header::new(Algorithm::HS512),
            &access_claims(now()),
            &EncodingKey::from_secret(&keys.access),
        )
        .unwrap();
        assert_eq!(
            signer.verify_access(&hs512, now()).await,
            Err(TokenError::Invalid)
        );
        // An unsigned token (`alg: none`) is refused too.
        let header = base64url(br#"{"alg":"none","typ":"JWT"}"#);
        let body = base64url(serde_json::to_string(&access_claims(now())).unwrap().as_bytes());
        let unsigned = format!("{header}.{body}.");
        assert_eq!(
            signer.verify_access(&unsigned, now()).await,
            Err(TokenError::Invalid)
        );
    }

    #[tokio::test]
    async fn another_issuer_or_audience_is_refused() {
        let signer = signer();
        let mut claims = access_claims(now());
        claims.iss = "https://elsewhere.test/auth/v1".into();
        let token = signer.sign_access(&claims).await.unwrap();
        assert_eq!(
            signer.verify_access(&token, now()).await,
            Err(TokenError::Invalid)
        );
        let mut claims = access_claims(now());
        claims.aud = "service".into();
        let token = signer.sign_access(&claims).await.unwrap();
        assert_eq!(
            signer.verify_access(&token, now()).await,
            Err(TokenError::Invalid)
        );
    }

    #[tokio::test]
    async fn garbage_and_opaque_tokens_are_refused() {
        let signer = signer();
        for token in ["", "abc", "a.b.c", &"ab".repeat(32)] {
            assert_eq!(signer.verify_access(token, now()).await, Err(TokenError::Invalid));
            assert_eq!(signer.verify_core(token, now()).await, Err(TokenError::Invalid));
        }
    }

    /// Unpadded URL-safe base64, written out so that the test needs no extra crate.
    fn base64url(input: &[u8]) -> String {
        const TABLE: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
        let mut out = String::new();
        for chunk in input.chunks(3) {
            let b = [chunk[0], *chunk.get(1).unwrap_or(&0), *chunk.get(2).unwrap_or(&0)];
            let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
            let chars = chunk.len() + 1;
            for i in 0..chars {
                out.push(TABLE[((n >> (18 - 6 * i)) & 63) as usize] as char);
            }
        }
        out
    }
}
