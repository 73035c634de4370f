//! Sign-in with an OpenID Connect provider through the built-in identity service, in the Supabase Auth
//! (GoTrue) PKCE flow that `@supabase/supabase-js` drives (PRODUCT.md §1):
//!
//! 1. `GET /auth/v1/authorize?provider=google&redirect_to=…&code_challenge=…&code_challenge_method=s256`:
//!    [`OAuthService::authorize`] keeps a *flow* (the browser's PKCE challenge, where to return, and our own
//!    state, nonce and PKCE verifier towards the provider) and answers the provider's authorization URL.
//! 2. The provider sends the browser to `GET|POST /auth/v1/callback?state=…&code=…` (Apple posts a form):
//!    [`OAuthService::callback`] takes the flow (single use, 10 minutes), has the [`OidcProvider`] exchange
//!    the code and verify the ID token, and issues an *auth code* (single use, 5 minutes, stored as a
//!    digest, bound to the browser's challenge), which the browser receives as `redirect_to?code=…`.
//! 3. `POST /auth/v1/token?grant_type=pkce {auth_code, code_verifier}`: [`OAuthService::exchange_pkce`]
//!    takes the auth code, checks the verifier against the challenge and signs in with
//!    [`IdentityService::sign_in_with_provider`] (the linking rule lives there).
//!
//! The provider's verified profile waits with the auth code; the account is joined or created when the code
//! is exchanged, so a linking refusal is the answer of step 3.

pub mod external;
mod pkce;
mod ports;

use pkce::base64url;
pub use pkce::*;
pub use ports::*;

use chrono::Duration;
use std::collections::BTreeMap;
use std::sync::Arc;

use super::errors::IdentityError;
use crate::common::secrets::digest_secret;
use crate::common::{Clock, RepoError, SecretGenerator};
use crate::identity::codes::emails::resolve_redirect;
use crate::identity::sessions::{IdentityService, Session};

/// How long the provider may take to send the browser back.
pub const FLOW_TTL_MINUTES: i64 = 10;
/// How long the browser may take to exchange the auth code.
pub const AUTH_CODE_TTL_MINUTES: i64 = 5;
/// The providers the sign-in widget knows.
pub const KNOWN_PROVIDERS: [&str; 4] = ["google", "apple", "github", "azure"];
const SECRET_BYTES: usize = 32;

/// The name shown to people, e.g. `Google`.
#[must_use]
pub fn provider_label(name: &str) -> &str {
    match name {
        "google" => "Google",
        "apple" => "Apple",
        "github" => "GitHub",
        "azure" => "Microsoft (Azure)",
        other => other,
    }
}

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
    /// 400 `bad_oauth_state`: the flow is older than [`FLOW_TTL_MINUTES`].
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
    /// 422 `flow_state_expired`: the auth code is older than [`AUTH_CODE_TTL_MINUTES`].
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

/// Parameters of `GET /authorize`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AuthorizeRequest<'a> {
    pub provider: Option<&'a str>,
    pub redirect_to: Option<&'a str>,
    pub code_challenge: Option<&'a str>,
    pub code_challenge_method: Option<&'a str>,
}

/// Parameters of `GET|POST /callback`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CallbackRequest<'a> {
    pub state: Option<&'a str>,
    pub code: Option<&'a str>,
    /// The provider's error (`access_denied`, …) and its description.
    pub error: Option<&'a str>,
    pub error_description: Option<&'a str>,
    /// Apple's `user` form field.
    pub user: Option<&'a str>,
}

/// Where the callback sends the browser, and with what.
#[derive(Debug)]
pub struct CallbackOutcome {
    /// The flow's `redirect_to`, or the portal's home when the flow is unknown.
    pub redirect_to: String,
    /// The auth code for `?code=`, or the error.
    pub result: Result<String, OAuthError>,
}

/// Settings of the OAuth flow.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OAuthConfig {
    /// `PORTAL_PUBLIC_URL`: `redirect_to` must stay on its origin.
    pub public_url: String,
}

impl OAuthConfig {
    /// This service's callback, registered with every provider: `<public_url>/auth/v1/callback`.
    #[must_use]
    pub fn callback_url(&self) -> String {
        format!("{}/auth/v1/callback", self.public_url.trim_end_matches('/'))
    }
}

/// The use cases of the OAuth flow.
pub struct OAuthService {
    identity: Arc<IdentityService>,
    flows: Arc<dyn OAuthFlowRepository>,
    providers: BTreeMap<String, Arc<dyn OidcProvider>>,
    clock: Arc<dyn Clock>,
    secrets: Arc<dyn SecretGenerator>,
    config: OAuthConfig,
}

impl OAuthService {
    /// `providers` maps a name of [`KNOWN_PROVIDERS`] to its configured adapter; other names are ignored.
    #[must_use]
    pub fn new(
        identity: Arc<IdentityService>,
        flows: Arc<dyn OAuthFlowRepository>,
        providers: BTreeMap<String, Arc<dyn OidcProvider>>,
        clock: Arc<dyn Clock>,
        secrets: Arc<dyn SecretGenerator>,
        config: OAuthConfig,
    ) -> Self {
        let providers = providers
            .into_iter()
            .filter(|(name, _)| KNOWN_PROVIDERS.contains(&name.as_str()))
            .collect();
        Self {
            identity,
            flows,
            providers,
            clock,
            secrets,
            config,
        }
    }

    /// Whether the provider is configured here (`GET /settings`'s `external` map).
    #[must_use]
    pub fn is_configured(&self, provider: &str) -> bool {
        self.providers.contains_key(provider)
    }

    /// The configured providers, by name.
    #[must_use]
    pub fn configured(&self) -> Vec<&str> {
        self.providers.keys().map(String::as_str).collect()
    }

    /// Where a refused request goes when it named no usable `redirect_to`: the portal's home.
    #[must_use]
    pub fn home(&self) -> String {
        format!("{}/", self.config.public_url.trim_end_matches('/'))
    }

    /// `redirect_to` as an absolute URL of this portal (a path is joined to the public URL; a fragment is
    /// dropped); the portal's home when absent.
    ///
    /// # Errors
    /// [`OAuthError::RedirectNotAllowed`] for another origin or anything that is not a URL or a path.
    pub fn redirect_target(&self, redirect_to: Option<&str>) -> Result<String, OAuthError> {
        let Some(requested) = redirect_to.filter(|t| !t.is_empty()) else {
            return Ok(self.home());
        };
        resolve_redirect(&self.config.public_url, requested).ok_or(OAuthError::RedirectNotAllowed)
    }

    /// `GET /authorize`: starts a flow and answers the provider's authorization URL.
    ///
    /// # Errors
    /// [`OAuthError::UnknownProvider`], [`OAuthError::ProviderNotConfigured`], [`OAuthError::PkceRequired`],
    /// [`OAuthError::InvalidChallenge`], [`OAuthError::RedirectNotAllowed`], an unavailable provider, or a
    /// failing store.
    pub async fn authorize(&self, request: AuthorizeRequest<'_>) -> Result<String, OAuthError> {
        let name = request
            .provider
            .map(str::trim)
            .unwrap_or_default()
            .to_ascii_lowercase();
        let provider = self.provider(&name)?;
        let redirect_to = self.redirect_target(request.redirect_to)?;
        let challenge = CodeChallenge::parse(request.code_challenge, request.code_challenge_method)?;
        let now = self.clock.now();
        let state = self.secrets.token_hex(SECRET_BYTES);
        let flow = OAuthFlow {
            state_hash: digest_secret(&state),
            provider: name,
            challenge,
            redirect_to,
            nonce: self.secrets.token_hex(SECRET_BYTES),
            provider_verifier: base64url(&self.secrets.random_bytes(SECRET_BYTES)),
            created_at: now,
            expires_at: now + Duration::minutes(FLOW_TTL_MINUTES),
        };
        let url = provider
            .authorization_url(&AuthorizationRequest {
                state,
                nonce: flow.nonce.clone(),
                pkce_verifier: flow.provider_verifier.clone(),
                redirect_uri: self.config.callback_url(),
            })
            .await?;
        self.flows.insert_flow(&flow).await?;
        Ok(url)
    }

    /// `GET|POST /callback`: takes the flow named by `state`, exchanges the provider's code, and issues the
    /// auth code for the flow's `redirect_to`.
    pub async fn callback(&self, request: CallbackRequest<'_>) -> CallbackOutcome {
        let Some(state) = request.state.map(str::trim).filter(|s| !s.is_empty()) else {
            return self.refused(OAuthError::StateMissing);
        };
        let flow = match self.flows.take_flow(&digest_secret(state)).await {
            Ok(Some(flow)) => flow,
            Ok(None) => return self.refused(OAuthError::StateUnknown),
            Err(error) => return self.refused(error.into()),
        };
        let result = self.finish_callback(&flow, &request).await;
        CallbackOutcome {
            redirect_to: flow.redirect_to,
            result,
        }
    }

    fn refused(&self, error: OAuthError) -> CallbackOutcome {
        CallbackOutcome {
            redirect_to: self.home(),
            result: Err(error),
        }
    }

    async fn finish_callback(
        &self,
        flow: &OAuthFlow,
        request: &CallbackRequest<'_>,
    ) -> Result<String, OAuthError> {
        let now = self.clock.now();
        if now >= flow.expires_at {
            return Err(OAuthError::StateExpired);
        }
        if let Some(error) = request.error.map(str::trim).filter(|e| !e.is_empty()) {
            return Err(OAuthError::ProviderDenied {
                error: oauth_error_name(error),
                description: request
                    .error_description
                    .map(str::trim)
                    .filter(|d| !d.is_empty())
                    .unwrap_or("The sign-in provider did not complete the sign-in")
                    .chars()
                    .take(200)
                    .collect(),
            });
        }
        let code = request
            .code
            .map(str::trim)
            .filter(|c| !c.is_empty())
            .ok_or(OAuthError::CodeMissing)?;
        let provider = self.provider(&flow.provider)?;
        let profile = provider
            .exchange(&CodeExchange {
                code: code.to_owned(),
                pkce_verifier: flow.provider_verifier.clone(),
                nonce: flow.nonce.clone(),
                redirect_uri: self.config.callback_url(),
                user_hint: request.user.map(str::to_owned),
            })
            .await?;
        let auth_code = self.secrets.token_hex(SECRET_BYTES);
        let now = self.clock.now();
        self.flows
            .insert_code(&AuthCode {
                code_hash: digest_secret(&auth_code),
                challenge: flow.challenge.clone(),
                profile,
                created_at: now,
                expires_at: now + Duration::minutes(AUTH_CODE_TTL_MINUTES),
            })
            .await?;
        Ok(auth_code)
    }

    /// `POST /token?grant_type=pkce`: exchanges the auth code, with the verifier of its challenge, for a
    /// session. The code is spent by the first attempt, right or wrong.
    ///
    /// # Errors
    /// [`OAuthError::ExchangeIncomplete`], [`OAuthError::FlowNotFound`], [`OAuthError::FlowExpired`],
    /// [`OAuthError::BadCodeVerifier`], the linking rule's [`IdentityError`]s, or a failing store.
    pub async fn exchange_pkce(&self, auth_code: &str, code_verifier: &str) -> Result<Session, OAuthError> {
        let (auth_code, code_verifier) = (auth_code.trim(), code_verifier.trim());
        if auth_code.is_empty() || code_verifier.is_empty() {
            return Err(OAuthError::ExchangeIncomplete);
        }
        let code = self
            .flows
            .take_code(&digest_secret(auth_code))
            .await?
            .ok_or(OAuthError::FlowNotFound)?;
        if self.clock.now() >= code.expires_at {
            return Err(OAuthError::FlowExpired);
        }
        if !code.challenge.matches(code_verifier) {
            return Err(OAuthError::BadCodeVerifier);
        }
        Ok(self.identity.sign_in_with_provider(code.profile).await?)
    }

    fn provider(&self, name: &str) -> Result<&Arc<dyn OidcProvider>, OAuthError> {
        if !KNOWN_PROVIDERS.contains(&name) {
            let shown: String = name.chars().take(40).collect();
            return Err(OAuthError::UnknownProvider(shown));
        }
        self.providers
            .get(name)
            .ok_or_else(|| OAuthError::ProviderNotConfigured(name.to_owned()))
    }

    /// Deletes flows and auth codes that have expired; answers how many rows went.
    ///
    /// # Errors
    /// A failing store.
    pub async fn prune_expired(&self) -> Result<u64, RepoError> {
        self.flows.prune_expired(self.clock.now()).await
    }
}

/// The provider's `error` reduced to an OAuth error name (`[a-z_]`, at most 40 characters).
fn oauth_error_name(error: &str) -> String {
    let name: String = error
        .chars()
        .filter(|c| c.is_ascii_lowercase() || *c == '_')
        .take(40)
        .collect();
    if name.is_empty() {
        "access_denied".to_owned()
    } else {
        name
    }
}

#[cfg(test)]
mod oauth_tests;
