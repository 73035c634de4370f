//! What the `/auth/v1` handlers share ([`IdentityApi`]), with the rate limits they apply: per client
//! address and e-mail, and the sign-in gate that slows down and refuses password guessing.

use actix_web::{HttpRequest, HttpResponse};
use domain::common::Clock;
use domain::identity::{
    Attempt, AttemptGuard, Guarded, IdentityError, IdentityServices, Pause, Proof, RateLimiter, Session,
};
use std::future::Future;
use std::sync::Arc;
use std::sync::atomic::{AtomicI64, Ordering};

use super::AuthApiError;
use super::dto::SessionDto;
use crate::client_ip::{TrustedProxies, rate_limit_subject};

const PRUNE_EVERY_SECS: i64 = 600;

/// The runtime's timer, for the attempt guard's delays.
struct RuntimePause;

#[async_trait::async_trait]
impl Pause for RuntimePause {
    async fn pause(&self, delay: std::time::Duration) {
        actix_web::rt::time::sleep(delay).await;
    }
}

/// What the `/auth/v1` handlers share.
#[derive(Clone)]
pub struct IdentityApi {
    /// The identity services (sessions, factors, account, e-mail sign-in, provider sign-in).
    pub services: IdentityServices,
    pub limiter: Arc<RateLimiter>,
    /// Every answer to "prove it's you" goes through it (limits, delay, attempt, failure or success).
    pub guard: Arc<AttemptGuard>,
    pub proxies: TrustedProxies,
    pub clock: Arc<dyn Clock>,
    /// Sign-in providers configured (`google`, `apple`, `github`, `azure`), for `GET /settings`.
    pub providers: Vec<String>,
    /// Sign-in with OpenID Connect providers (`/authorize`, `/callback`, `grant_type=pkce`).
    pub oauth: Option<crate::oauth::OAuthApi>,
    /// Passkeys (`/passkeys/...`); `None` answers 422 `passkey_disabled`.
    pub passkeys: Option<Arc<domain::identity::passkeys::PasskeyService>>,
    last_prune: Arc<AtomicI64>,
}

impl std::fmt::Debug for IdentityApi {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("IdentityApi")
            .field("providers", &self.providers)
            .finish_non_exhaustive()
    }
}

impl IdentityApi {
    #[must_use]
    pub fn new(
        services: IdentityServices,
        limiter: Arc<RateLimiter>,
        proxies: TrustedProxies,
        clock: Arc<dyn Clock>,
        providers: Vec<String>,
    ) -> Self {
        let guard = AttemptGuard::new(
            limiter.clone(),
            Arc::new(RuntimePause),
            services.sessions.clone(),
            services.factors.clone(),
        );
        Self {
            services,
            limiter,
            guard: Arc::new(guard),
            proxies,
            clock,
            providers,
            oauth: None,
            passkeys: None,
            last_prune: Arc::new(AtomicI64::new(0)),
        }
    }

    /// Adds provider sign-in; `GET /settings` then lists the providers that started.
    #[must_use]
    pub fn with_oauth(mut self, oauth: crate::oauth::OAuthApi) -> Self {
        self.providers = oauth.providers();
        self.oauth = Some(oauth);
        self
    }

    /// Adds passkeys (`None`: the relying party could not be set up).
    #[must_use]
    pub fn with_passkeys(
        mut self,
        passkeys: Option<Arc<domain::identity::passkeys::PasskeyService>>,
    ) -> Self {
        self.passkeys = passkeys;
        self
    }

    /// The client address as rate limits count it (an IPv6 address by its /64).
    pub(crate) fn client_subject(&self, request: &HttpRequest) -> String {
        self.proxies
            .client_address(request)
            .map_or_else(|| "unknown".to_owned(), rate_limit_subject)
    }

    /// A password sign-in to `email`, through the attempt guard (see `domain::identity::attempts`).
    pub(crate) async fn sign_in_with_password(
        &self,
        request: &HttpRequest,
        email: &str,
        password: &str,
    ) -> Result<Session, AuthApiError> {
        self.prune_now_and_then().await;
        let sessions = &self.services.sessions;
        self.first_factor(request, email, |guarded| {
            sessions.sign_in_with_password(guarded, email, password)
        })
        .await
    }

    /// Runs an answer of a first factor of the account of `email` (a password, a passkey) through the
    /// attempt guard, as a password sign-in is; `step` is handed the guard's leave to check it.
    pub(crate) async fn first_factor<T, Step>(
        &self,
        request: &HttpRequest,
        email: &str,
        step: impl FnOnce(Guarded) -> Step + Send,
    ) -> Result<T, AuthApiError>
    where
        Step: Future<Output = Result<T, IdentityError>> + Send,
    {
        self.attempt(request, email, Proof::FirstFactor, step).await
    }

    /// Runs a step of a second factor of the account of `email` (starting a challenge, or an answer)
    /// through the attempt guard.
    pub(crate) async fn second_factor<T, Step>(
        &self,
        request: &HttpRequest,
        email: &str,
        proof: Proof,
        step: impl FnOnce(Guarded) -> Step + Send,
    ) -> Result<T, AuthApiError>
    where
        Step: Future<Output = Result<T, IdentityError>> + Send,
    {
        self.attempt(request, email, proof, step).await
    }

    /// Runs `step`, a `proof` of the account of `email` from this client, through the attempt guard.
    async fn attempt<T, Step>(
        &self,
        request: &HttpRequest,
        email: &str,
        proof: Proof,
        step: impl FnOnce(Guarded) -> Step + Send,
    ) -> Result<T, AuthApiError>
    where
        Step: Future<Output = Result<T, IdentityError>> + Send,
    {
        let client = self.client_subject(request);
        let attempt = Attempt {
            proof,
            client: &client,
            account: email,
        };
        Ok(self.guard.attempt(attempt, step).await?)
    }

    /// Records the client a session is answered to (user agent, address through the trusted proxies, now),
    /// for the account's sessions list. A failure is only logged: the session itself is good.
    pub(crate) async fn note_client(&self, request: &HttpRequest, session: &Session) {
        let user_agent = request
            .headers()
            .get(actix_web::http::header::USER_AGENT)
            .and_then(|value| value.to_str().ok());
        let ip = self.proxies.client_address(request).map(|ip| ip.to_string());
        if let Err(error) = self
            .services
            .sessions
            .note_session_client(session, user_agent, ip)
            .await
        {
            tracing::warn!(%error, "could not record the client of a session");
        }
    }

    /// Notes the client of `session` and answers the session (200, Supabase's token response).
    pub(crate) async fn answer_session(&self, request: &HttpRequest, session: &Session) -> HttpResponse {
        self.note_client(request, session).await;
        HttpResponse::Ok().json(SessionDto::from(session))
    }

    /// After a proof of the address (an e-mailed code or link) answered `session`: remembers that this
    /// client signed in to its account and notes the client.
    pub(crate) async fn proved(&self, request: &HttpRequest, session: &Session) {
        self.signed_in(request, session.user.account.email.as_str()).await;
        self.note_client(request, session).await;
    }

    /// Remembers that this client signed in to the account of `email` (a failure is only logged: the
    /// sign-in itself succeeded).
    pub(crate) async fn signed_in(&self, request: &HttpRequest, email: &str) {
        let subject = self.client_subject(request);
        if let Err(error) = self.limiter.signed_in(&subject, email).await {
            tracing::warn!(%error, "could not remember the client of a sign-in");
        }
    }

    /// The client of `request` as the volume limits and the attempt guard count it (its rate-limit
    /// subject); stale counters are pruned now and then on the way.
    pub(crate) async fn client(&self, request: &HttpRequest) -> String {
        self.prune_now_and_then().await;
        self.client_subject(request)
    }

    /// Deletes stale counters at most every ten minutes per instance.
    async fn prune_now_and_then(&self) {
        let now = self.clock.now().timestamp();
        let last = self.last_prune.load(Ordering::Relaxed);
        if now - last < PRUNE_EVERY_SECS
            || self
                .last_prune
                .compare_exchange(last, now, Ordering::Relaxed, Ordering::Relaxed)
                .is_err()
        {
            return;
        }
        if let Err(error) = self.limiter.prune().await {
            tracing::warn!(%error, "could not prune rate-limit counters");
        }
    }
}
