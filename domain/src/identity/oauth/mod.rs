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
//!    [`ProviderSignIn::sign_in_with_provider`] (the linking rule lives there).
//!
//! The provider's verified profile waits with the auth code; the account is joined or created when the code
//! is exchanged, so a linking refusal is the answer of step 3.

mod callback;
mod error;
pub mod external;
mod pkce;
mod ports;
mod providers;

pub use callback::{CallbackOutcome, CallbackRequest};
pub use error::{OAuthError, OidcError};

use pkce::base64url;
pub use pkce::*;
pub use ports::*;
pub use providers::{KNOWN_PROVIDERS, provider_label};

use chrono::Duration;
use std::collections::BTreeMap;
use std::sync::Arc;

use crate::common::secrets::digest_secret;
use crate::common::{Clock, RepoError, SecretGenerator};
use crate::identity::codes::emails::resolve_redirect;
use crate::identity::oauth::external::ProviderSignIn;
use crate::identity::rate_limit::{AuthAction, VolumeLimits};
use crate::identity::sessions::Session;

/// How long the provider may take to send the browser back.
pub const FLOW_TTL_MINUTES: i64 = 10;
/// How long the browser may take to exchange the auth code.
pub const AUTH_CODE_TTL_MINUTES: i64 = 5;
const SECRET_BYTES: usize = 32;

/// Parameters of `GET /authorize`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AuthorizeRequest<'a> {
    /// The client's rate-limit subject (its address, IPv6 by /64).
    pub client: &'a str,
    pub provider: Option<&'a str>,
    pub redirect_to: Option<&'a str>,
    pub code_challenge: Option<&'a str>,
    pub code_challenge_method: Option<&'a str>,
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
    identity: Arc<ProviderSignIn>,
    flows: Arc<dyn OAuthFlowRepository>,
    providers: BTreeMap<String, Arc<dyn OidcProvider>>,
    clock: Arc<dyn Clock>,
    secrets: Arc<dyn SecretGenerator>,
    config: OAuthConfig,
    /// Starting and finishing a provider sign-in admit the client's request first.
    limits: VolumeLimits,
}

impl OAuthService {
    /// `providers` maps a name of [`KNOWN_PROVIDERS`] to its configured adapter; other names are ignored.
    #[must_use]
    pub fn new(
        identity: Arc<ProviderSignIn>,
        flows: Arc<dyn OAuthFlowRepository>,
        providers: BTreeMap<String, Arc<dyn OidcProvider>>,
        clock: Arc<dyn Clock>,
        secrets: Arc<dyn SecretGenerator>,
        config: OAuthConfig,
        limits: VolumeLimits,
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
            limits,
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
    /// [`OAuthError::InvalidChallenge`], [`OAuthError::RedirectNotAllowed`], an unavailable provider, the sign-in
    /// volume of the client ([`IdentityError::RateLimited`](crate::identity::IdentityError::RateLimited)), or a
    /// failing store.
    pub async fn authorize(&self, request: AuthorizeRequest<'_>) -> Result<String, OAuthError> {
        self.limits
            .admit(AuthAction::SignIn, request.client, None)
            .await?;
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

    /// `POST /token?grant_type=pkce`: exchanges the auth code, with the verifier of its challenge, for a
    /// session. The code is spent by the first attempt, right or wrong.
    ///
    /// # Errors
    /// [`OAuthError::ExchangeIncomplete`], [`OAuthError::FlowNotFound`], [`OAuthError::FlowExpired`],
    /// [`OAuthError::BadCodeVerifier`], the linking rule's [`IdentityError`](crate::identity::IdentityError)s, or a failing store.
    pub async fn exchange_pkce(
        &self,
        client: &str,
        auth_code: &str,
        code_verifier: &str,
    ) -> Result<Session, OAuthError> {
        self.limits.admit(AuthAction::SignIn, client, None).await?;
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

#[cfg(test)]
mod oauth_tests;
