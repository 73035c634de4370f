//! What the OAuth flow keeps (flows and auth codes) and the OpenID Connect providers it talks to.

use async_trait::async_trait;
use chrono::{DateTime, Utc};

use super::error::OidcError;
use super::pkce::CodeChallenge;
use crate::common::RepoError;
use crate::identity::oauth::external::ProviderProfile;

/// A sign-in in progress between `/authorize` and `/callback`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OAuthFlow {
    /// SHA-256 of the `state` sent to the provider (the key of the flow).
    pub state_hash: String,
    pub provider: String,
    /// The browser's challenge, handed on to the auth code.
    pub challenge: CodeChallenge,
    /// Absolute URL of a page of this portal.
    pub redirect_to: String,
    /// The `nonce` the provider must put in its ID token.
    pub nonce: String,
    /// Our PKCE verifier towards the provider.
    pub provider_verifier: String,
    pub created_at: DateTime<Utc>,
    pub expires_at: DateTime<Utc>,
}

/// The single-use code the browser exchanges for a session, with the verified provider profile.
#[derive(Debug, Clone, PartialEq)]
pub struct AuthCode {
    /// SHA-256 of the code.
    pub code_hash: String,
    pub challenge: CodeChallenge,
    pub profile: ProviderProfile,
    pub created_at: DateTime<Utc>,
    pub expires_at: DateTime<Utc>,
}

/// Flows and auth codes, each taken (read and deleted) once.
#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
#[async_trait]
pub trait OAuthFlowRepository: Send + Sync {
    /// Stores a flow.
    ///
    /// # Errors
    /// [`RepoError::Duplicate`]`("oauth_flow")` when the state digest exists; [`RepoError::Backend`] when
    /// the store fails.
    async fn insert_flow(&self, flow: &OAuthFlow) -> Result<(), RepoError>;

    /// Deletes the flow with this state digest and answers it, expired or not; `None` when there is none
    /// (never stored, or already taken: of concurrent callers exactly one gets it).
    ///
    /// # Errors
    /// [`RepoError::Backend`] when the store fails.
    async fn take_flow(&self, state_hash: &str) -> Result<Option<OAuthFlow>, RepoError>;

    /// Stores an auth code.
    ///
    /// # Errors
    /// [`RepoError::Duplicate`]`("oauth_auth_code")` when the digest exists; [`RepoError::Backend`] when the
    /// store fails.
    async fn insert_code(&self, code: &AuthCode) -> Result<(), RepoError>;

    /// Deletes the auth code with this digest and answers it, expired or not; `None` when there is none
    /// (of concurrent callers exactly one gets it).
    ///
    /// # Errors
    /// [`RepoError::Backend`] when the store fails.
    async fn take_code(&self, code_hash: &str) -> Result<Option<AuthCode>, RepoError>;

    /// Deletes flows and codes that expired before `cutoff`; answers how many rows went.
    ///
    /// # Errors
    /// [`RepoError::Backend`] when the store fails.
    async fn prune_expired(&self, cutoff: DateTime<Utc>) -> Result<u64, RepoError>;
}

/// What the provider adapter needs to build the authorization URL.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuthorizationRequest {
    pub state: String,
    pub nonce: String,
    /// Our PKCE verifier; the adapter sends its S256 challenge when the provider supports PKCE.
    pub pkce_verifier: String,
    /// This service's `/auth/v1/callback`.
    pub redirect_uri: String,
}

/// What came back to `/callback`, for the code exchange.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CodeExchange {
    pub code: String,
    pub pkce_verifier: String,
    /// The ID token's `nonce` must equal it.
    pub nonce: String,
    pub redirect_uri: String,
    /// Apple's `user` form field (JSON with the name, sent on the first sign-in only), if any.
    pub user_hint: Option<String>,
}

/// One configured OpenID Connect provider.
#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
#[async_trait]
pub trait OidcProvider: Send + Sync {
    /// The provider's authorization URL for this request (`response_type=code`, `scope=openid email
    /// profile`, `state`, `nonce`, PKCE when supported; Apple's `response_mode=form_post`).
    ///
    /// # Errors
    /// [`OidcError::Unavailable`] when the provider's configuration cannot be discovered.
    async fn authorization_url(&self, request: &AuthorizationRequest) -> Result<String, OidcError>;

    /// Exchanges the code at the token endpoint and answers the profile of the verified ID token (signature
    /// with the provider's published keys, `iss`, `aud`, `nonce`, `exp`).
    ///
    /// # Errors
    /// [`OidcError::Rejected`] when the provider refuses the code; [`OidcError::InvalidIdToken`] when the ID
    /// token fails a check; [`OidcError::Unavailable`] otherwise.
    async fn exchange(&self, exchange: &CodeExchange) -> Result<ProviderProfile, OidcError>;
}
