//! The errors of the OAuth flow, with the GoTrue error codes they answer.

use super::providers::provider_label;
use crate::common::RepoError;
use crate::identity::errors::IdentityError;

/// The errors of the OAuth flow. Each variant's doc names its HTTP status (as GoTrue answers it); on the
/// callback they travel as `error`, `error_code` and `error_description` query parameters instead.
#[derive(Debug, thiserror::Error)]
pub enum OAuthError {
    /// 400 `validation_failed`: a provider this service does not know.
    #[error("Unsupported provider: Provider {0} could not be found")]
    UnknownProvider(String),
    /// 400 `provider_disabled`: a known provider without configuration on this server.
    #[error("Sign-in with {} is not configured on this server", provider_label(.0))]
    ProviderNotConfigured(String),
    /// 400 `validation_failed`: `code_challenge` and `code_challenge_method` are required.
    #[error("PKCE flow requires code_challenge_method and code_challenge")]
    PkceRequired,
    /// 400 `validation_failed`: a malformed challenge or an unknown method.
    #[error("{0}")]
    InvalidChallenge(&'static str),
    /// 400 `validation_failed`: `redirect_to` is not a page of this portal.
    #[error("redirect_to must be a page of this portal")]
    RedirectNotAllowed,
    /// 400 `bad_oauth_callback`: the callback carries no `state`.
    #[error("OAuth state parameter missing")]
    StateMissing,
    /// 400 `bad_oauth_state`: no flow has this state (unknown, or already used).
    #[error("OAuth state not found or expired")]
    StateUnknown,
    /// 400 `bad_oauth_state`: the flow is older than [`FLOW_TTL_MINUTES`](super::FLOW_TTL_MINUTES).
    #[error("OAuth state has expired")]
    StateExpired,
    /// 400 `bad_oauth_callback`: the callback carries no authorization code.
    #[error("OAuth callback with missing authorization code")]
    CodeMissing,
    /// 403 (`error` is the provider's): the provider answered an error, e.g. the user declined.
    #[error("{description}")]
    ProviderDenied { error: String, description: String },
    /// 400 `bad_oauth_callback` (rejected code, invalid ID token) or 503 (unavailable provider).
    #[error(transparent)]
    Provider(#[from] OidcError),
    /// 400 `validation_failed`: `auth_code` or `code_verifier` is missing.
    #[error("invalid request: both auth code and code verifier should be non-empty")]
    ExchangeIncomplete,
    /// 404 `flow_state_not_found`: no such auth code (unknown, or already exchanged).
    #[error("invalid flow state, no valid flow state found")]
    FlowNotFound,
    /// 422 `flow_state_expired`: the auth code is older than [`AUTH_CODE_TTL_MINUTES`](super::AUTH_CODE_TTL_MINUTES).
    #[error("invalid flow state, flow state has expired")]
    FlowExpired,
    /// 400 `bad_code_verifier`: the verifier does not match the challenge (the code is spent).
    #[error("code challenge does not match previously saved code verifier")]
    BadCodeVerifier,
    /// As the identity error says (the linking rule, disabled sign-ups, a failing store).
    #[error(transparent)]
    Identity(#[from] IdentityError),
    /// 500: the store failed.
    #[error(transparent)]
    Repo(#[from] RepoError),
}

impl OAuthError {
    /// The Supabase Auth `error_code`.
    #[must_use]
    pub fn error_code(&self) -> &'static str {
        match self {
            Self::UnknownProvider(_)
            | Self::PkceRequired
            | Self::InvalidChallenge(_)
            | Self::RedirectNotAllowed
            | Self::ExchangeIncomplete => "validation_failed",
            Self::ProviderNotConfigured(_) => "provider_disabled",
            Self::StateMissing | Self::CodeMissing | Self::ProviderDenied { .. } => "bad_oauth_callback",
            Self::Provider(OidcError::Unavailable(_)) | Self::Repo(_) => "unexpected_failure",
            Self::Provider(_) => "bad_oauth_callback",
            Self::StateUnknown | Self::StateExpired => "bad_oauth_state",
            Self::FlowNotFound => "flow_state_not_found",
            Self::FlowExpired => "flow_state_expired",
            Self::BadCodeVerifier => "bad_code_verifier",
            Self::Identity(inner) => inner.error_code(),
        }
    }
}

/// Why a provider adapter failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum OidcError {
    /// The provider could not be reached or answered something unreadable (discovery, keys, token).
    #[error("the sign-in provider is unavailable: {0}")]
    Unavailable(String),
    /// The provider refused the authorization code.
    #[error("the sign-in provider refused the authorization code: {0}")]
    Rejected(String),
    /// The ID token failed a check: signature, `iss`, `aud`, `nonce`, `exp`, or a missing claim.
    #[error("the ID token could not be verified: {0}")]
    InvalidIdToken(String),
}
