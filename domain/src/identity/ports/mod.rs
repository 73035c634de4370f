//! Ports of the identity context: token signing, password hashing and the stores of accounts, provider
//! links, refresh tokens, e-mail codes and platform admins.
//!
//! The signing and hashing ports are here; the stores are one file per concept, re-exported.

mod accounts;
mod admins;
mod codes;
mod factors;
mod passkeys;
mod recovery_codes;
mod session_list;
mod sessions;

pub use accounts::{AccountRepository, IdentityLinkRepository};
pub use admins::PlatformAdminRepository;
pub use codes::OneTimeCodeRepository;
pub use factors::FactorRepository;
pub use passkeys::{
    AssertionClaim, CeremonyError, CeremonyStart, PasskeyRepository, RegisteredCredential, RelyingPartyInfo,
    VerifiedAssertion, WebAuthnCeremony,
};
pub use recovery_codes::{RecoveryCodeCounts, RecoveryCodeRepository};
pub use session_list::{ListedSession, SessionListRepository};
pub use sessions::RefreshTokenRepository;

#[cfg(any(test, feature = "mock"))]
pub use self::{
    accounts::{MockAccountRepository, MockIdentityLinkRepository},
    admins::MockPlatformAdminRepository,
    codes::MockOneTimeCodeRepository,
    factors::MockFactorRepository,
    passkeys::{MockPasskeyRepository, MockWebAuthnCeremony},
    recovery_codes::MockRecoveryCodeRepository,
    session_list::MockSessionListRepository,
    sessions::MockRefreshTokenRepository,
};

use async_trait::async_trait;
use chrono::{DateTime, Utc};

use crate::identity::sessions::tokens::{AccessTokenClaims, CoreTokenClaims, TokenError};

/// Signs and verifies the two token kinds, each with its own key.
#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
#[async_trait]
pub trait TokenSigner: Send + Sync {
    /// Signs a core token with the core key.
    ///
    /// # Errors
    /// [`TokenError::Signing`] when no core key is available.
    async fn sign_core(&self, claims: &CoreTokenClaims) -> Result<String, TokenError>;

    /// Verifies a core token's signature with the core key and its claims with
    /// [`CoreTokenClaims::check`] at `now`.
    ///
    /// # Errors
    /// [`TokenError::Expired`] when well signed but expired; [`TokenError::Invalid`] for anything else
    /// (malformed, another key — an access token —, another audience or `typ`).
    async fn verify_core(&self, token: &str, now: DateTime<Utc>) -> Result<CoreTokenClaims, TokenError>;

    /// Signs an identity access token with the identity key.
    ///
    /// # Errors
    /// [`TokenError::Signing`] when this adapter cannot sign (a hosted identity service signs its own).
    async fn sign_access(&self, claims: &AccessTokenClaims) -> Result<String, TokenError>;

    /// Verifies an identity access token (the built-in service's key, or the hosted service's secret or
    /// JWKS) and its claims with [`AccessTokenClaims::check`] at `now`.
    ///
    /// # Errors
    /// [`TokenError::Expired`] when well signed but expired; [`TokenError::Invalid`] for anything else
    /// (malformed, the core key — a core token —, another audience or role).
    async fn verify_access(&self, token: &str, now: DateTime<Utc>) -> Result<AccessTokenClaims, TokenError>;
}

/// The password hasher failed (not: the password was wrong).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("password hashing failed: {0}")]
pub struct PasswordHashError(pub String);

/// Slow, salted password hashing (argon2id in production, tiny parameters in tests).
#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
#[async_trait]
pub trait PasswordHasher: Send + Sync {
    /// A self-describing hash (PHC string) of the password with a fresh salt.
    ///
    /// # Errors
    /// [`PasswordHashError`] when the hasher fails.
    async fn hash(&self, password: &str) -> Result<String, PasswordHashError>;

    /// Whether the password matches the hash: `Ok(false)` for a wrong password.
    ///
    /// # Errors
    /// [`PasswordHashError`] only when the stored hash cannot be read or the hasher fails.
    async fn verify(&self, password: &str, hash: &str) -> Result<bool, PasswordHashError>;

    /// Spends the time of one [`PasswordHasher::verify`] against a real hash and discards the result. Called
    /// when the e-mail has no account (or no password), so that the answer's timing does not tell.
    async fn waste_verify(&self, password: &str);
}
