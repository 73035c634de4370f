//! The built-in identity service under `/auth/v1`: the subset of the Supabase Auth (GoTrue) REST API that
//! `@supabase/supabase-js` calls (PRODUCT.md §1), with its request and response shapes, error bodies and
//! status codes. One module per resource; the JSON shapes are in [`dto`], the errors in [`error`].
//!
//! Not here yet, and where it goes: OAuth (`GET /authorize`, `GET|POST /callback`) gets its own module
//! registered in [`configure`]; `grant_type=pkce` is one more arm in [`token::token`] (and a `code_challenge`
//! kept with the e-mail codes); a hosted Supabase replaces this whole scope (the server then registers no
//! `/auth/v1` and public-config points the browser at the hosted URL).

pub mod dto;
pub mod error;
pub mod factors;
pub mod logout;
pub mod otp;
pub mod recover;
pub mod settings;
pub mod signup;
pub mod token;
pub mod user;
pub mod verify;

use actix_web::http::header;
use actix_web::middleware::DefaultHeaders;
use actix_web::{HttpRequest, web};
use domain::common::Clock;
use domain::identity::{AuthAction, IdentityError, IdentityService, RateDecision, RateLimiter, SignInGate};
use serde::Deserialize;
use std::sync::Arc;
use std::sync::atomic::{AtomicI64, Ordering};

use crate::client_ip::{TrustedProxies, rate_limit_subject};
pub use error::AuthApiError;

/// The API version whose error shape this service answers (auth-js reads `code` from it on).
pub const API_VERSION: &str = "2024-01-01";
const PRUNE_EVERY_SECS: i64 = 600;

/// What the `/auth/v1` handlers share.
#[derive(Clone)]
pub struct IdentityApi {
    pub service: Arc<IdentityService>,
    pub limiter: Arc<RateLimiter>,
    pub proxies: TrustedProxies,
    pub clock: Arc<dyn Clock>,
    /// Sign-in providers configured (`google`, `apple`, `github`, `azure`), for `GET /settings`.
    pub providers: Vec<String>,
    /// Sign-in with OpenID Connect providers (`/authorize`, `/callback`, `grant_type=pkce`).
    pub oauth: Option<crate::oauth::OAuthApi>,
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
        service: Arc<IdentityService>,
        limiter: Arc<RateLimiter>,
        proxies: TrustedProxies,
        clock: Arc<dyn Clock>,
        providers: Vec<String>,
    ) -> Self {
        Self {
            service,
            limiter,
            proxies,
            clock,
            providers,
            oauth: None,
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

    /// The client address as rate limits count it (an IPv6 address by its /64).
    pub(crate) fn client_subject(&self, request: &HttpRequest) -> String {
        self.proxies
            .client_address(request)
            .map_or_else(|| "unknown".to_owned(), rate_limit_subject)
    }

    /// A password sign-in to `email`: refused (429) when this client address tried too often or failed
    /// too often on this account; otherwise waits the delay that the account's failures from every client
    /// together impose, then signs in and counts a failure or remembers the client.
    pub(crate) async fn sign_in_with_password(
        &self,
        request: &HttpRequest,
        email: &str,
        password: &str,
    ) -> Result<domain::identity::Session, AuthApiError> {
        let subject = self.client_subject(request);
        let gate = self
            .limiter
            .check_sign_in(&subject, email)
            .await
            .map_err(AuthApiError::from)?;
        self.prune_now_and_then().await;
        match gate {
            SignInGate::Limited { retry_after_secs } => {
                tracing::warn!(action = "sign_in", "identity rate limit reached");
                return Err(AuthApiError::rate_limited(false, retry_after_secs));
            }
            SignInGate::Go { delay } if !delay.is_zero() => {
                tracing::info!(delay_ms = delay.as_millis(), "sign-in slowed down after failures");
                actix_web::rt::time::sleep(delay).await;
            }
            SignInGate::Go { .. } => {}
        }
        match self.service.sign_in_with_password(email, password).await {
            Ok(session) => {
                self.remember_client(&subject, email).await;
                Ok(session)
            }
            Err(error @ IdentityError::InvalidCredentials) => {
                self.limiter
                    .sign_in_failed(&subject, email)
                    .await
                    .map_err(AuthApiError::from)?;
                Err(error.into())
            }
            Err(other) => Err(other.into()),
        }
    }

    /// Remembers that this client signed in to the account of `email` (a failure is only logged: the
    /// sign-in itself succeeded).
    pub(crate) async fn signed_in(&self, request: &HttpRequest, email: &str) {
        let subject = self.client_subject(request);
        self.remember_client(&subject, email).await;
    }

    async fn remember_client(&self, subject: &str, email: &str) {
        if let Err(error) = self.limiter.signed_in(subject, email).await {
            tracing::warn!(%error, "could not remember the client of a sign-in");
        }
    }

    /// Counts the attempt against the client address's and the e-mail's limits; 429 when over either.
    pub(crate) async fn limit(
        &self,
        request: &HttpRequest,
        action: AuthAction,
        email: Option<&str>,
    ) -> Result<(), AuthApiError> {
        let subject = self.client_subject(request);
        let decision = self
            .limiter
            .check(action, &subject, email)
            .await
            .map_err(AuthApiError::from)?;
        self.prune_now_and_then().await;
        match decision {
            RateDecision::Allowed { .. } => Ok(()),
            RateDecision::Limited { retry_after_secs } => {
                tracing::warn!(action = action.as_str(), "identity rate limit reached");
                let sends_email = matches!(action, AuthAction::Otp | AuthAction::Recover);
                Err(AuthApiError::rate_limited(sends_email, retry_after_secs))
            }
        }
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

/// The cookie a sign-up answer leaves in the browser that signed up: a code of that sign-up installs the
/// chosen password only when it comes back with it (see `domain::identity::codes`). HttpOnly, SameSite=Lax
/// (the e-mail link is a top-level navigation, which still carries it), only for `/auth/v1`, and as
/// short-lived as the codes. supabase-js calls `/auth/v1` with `fetch` from the same origin, whose default
/// credentials mode keeps and sends it.
pub const SIGNUP_BROWSER_COOKIE: &str = "portal-signup-browser";

/// The sign-up cookie carrying `value` (an empty value with no lifetime removes it).
pub(crate) fn signup_browser_cookie(public_url: &str, value: &str) -> actix_web::cookie::Cookie<'static> {
    let lifetime = if value.is_empty() {
        0
    } else {
        domain::identity::models::ONE_TIME_CODE_TTL_MINUTES * 60
    };
    actix_web::cookie::Cookie::build(SIGNUP_BROWSER_COOKIE, value.to_owned())
        .path("/auth/v1")
        .http_only(true)
        .same_site(actix_web::cookie::SameSite::Lax)
        .secure(public_url.starts_with("https://"))
        .max_age(actix_web::cookie::time::Duration::seconds(lifetime))
        .finish()
}

/// The value of the sign-up cookie the request carries, if any.
pub(crate) fn signup_browser(request: &HttpRequest) -> Option<String> {
    request
        .cookie(SIGNUP_BROWSER_COOKIE)
        .map(|cookie| cookie.value().to_owned())
        .filter(|value| !value.is_empty())
}

/// `?redirect_to=` of the e-mail-sending endpoints (supabase-js's `emailRedirectTo`, `redirectTo`).
#[derive(Debug, Deserialize)]
pub struct RedirectQuery {
    pub redirect_to: Option<String>,
}

/// The token of `Authorization: Bearer <token>` (scheme case-insensitive), if any.
#[must_use]
pub fn bearer_token(request: &HttpRequest) -> Option<&str> {
    let value = request.headers().get(header::AUTHORIZATION)?.to_str().ok()?;
    let (scheme, token) = value.trim().split_once(' ')?;
    let token = token.trim();
    (scheme.eq_ignore_ascii_case("bearer") && !token.is_empty()).then_some(token)
}

/// The bearer of an endpoint that needs a signed-in user: an identity access token, nothing else.
pub(crate) async fn access_claims(
    api: &IdentityApi,
    request: &HttpRequest,
) -> Result<domain::identity::AccessTokenClaims, AuthApiError> {
    let token = bearer_token(request).ok_or_else(AuthApiError::no_authorization)?;
    Ok(api.service.authenticate_access(token).await?)
}

/// A non-empty trimmed text.
pub(crate) fn present(value: Option<&String>) -> Option<&str> {
    value.map(|v| v.trim()).filter(|v| !v.is_empty())
}

/// A JSON object body of `/auth/v1`, refused in this service's own shape ([`crate::json`]).
pub type AuthJson<T> = crate::json::Json<T, AuthApiError>;

/// `bad_json` for a body that is not an object or not of the route's shape; `email_address_invalid` (an
/// address) or `validation_failed` (anything else) for a text with a control character.
impl crate::json::BodyRefusal for AuthApiError {
    fn not_an_object(found: &str) -> Self {
        Self::new(
            actix_web::http::StatusCode::BAD_REQUEST,
            "bad_json",
            format!("Could not parse request body as JSON: {found}, expected a JSON object"),
        )
    }

    fn control_characters(fields: domain::common::FieldErrors) -> Self {
        let code = if fields.contains("email") {
            "email_address_invalid"
        } else {
            "validation_failed"
        };
        let field = fields.fields().next().unwrap_or("body").to_owned();
        Self::new(
            actix_web::http::StatusCode::BAD_REQUEST,
            code,
            format!("{field}: {}", fields.first_message()),
        )
    }

    fn wrong_shape(cause: &serde_json::Error) -> Self {
        Self::new(
            actix_web::http::StatusCode::BAD_REQUEST,
            "bad_json",
            format!("Could not parse request body as JSON: {cause}"),
        )
    }
}

fn json_config() -> web::JsonConfig {
    web::JsonConfig::default()
        .limit(64 * 1024)
        .error_handler(|err, _req| json_refusal(&err).into())
}

/// A body that could not be read: 413 `request_too_large` over the limit (not a JSON error: the body was
/// never read whole), 400 `bad_json` otherwise.
fn json_refusal(err: &actix_web::error::JsonPayloadError) -> AuthApiError {
    use actix_web::error::JsonPayloadError;
    match err {
        JsonPayloadError::Overflow { .. } | JsonPayloadError::OverflowKnownLength { .. } => {
            AuthApiError::new(
                actix_web::http::StatusCode::PAYLOAD_TOO_LARGE,
                "request_too_large",
                "Request body is larger than 64 KB",
            )
        }
        other => AuthApiError::new(
            actix_web::http::StatusCode::BAD_REQUEST,
            "bad_json",
            format!("Could not parse request body as JSON: {other}"),
        ),
    }
}

fn query_config() -> web::QueryConfig {
    web::QueryConfig::default().error_handler(|err, _req| {
        AuthApiError::validation(format!("Invalid query parameters: {err}")).into()
    })
}

/// Browsers call this service from any origin with bearer tokens (no cookies), as Supabase allows.
fn cors() -> actix_cors::Cors {
    actix_cors::Cors::default()
        .allow_any_origin()
        .allowed_methods(["GET", "POST", "PUT", "DELETE", "OPTIONS"])
        .allow_any_header()
        .expose_headers(["x-supabase-api-version", "x-sb-error-code", "retry-after"])
        .max_age(3600)
}

/// Registers `/auth/v1`.
pub fn configure(api: IdentityApi) -> impl FnOnce(&mut web::ServiceConfig) {
    move |cfg| {
        let oauth = api.oauth.clone();
        cfg.service(
            web::scope("/auth/v1")
                .app_data(web::Data::new(api))
                .app_data(json_config())
                .app_data(query_config())
                .wrap(
                    DefaultHeaders::new()
                        .add(("x-supabase-api-version", API_VERSION))
                        .add((header::CACHE_CONTROL, "no-store")),
                )
                .wrap(cors())
                .route("/signup", web::post().to(signup::sign_up))
                .route("/token", web::post().to(token::token))
                .route("/otp", web::post().to(otp::otp))
                .route("/verify", web::get().to(verify::verify_link))
                .route("/verify", web::post().to(verify::verify))
                .route("/recover", web::post().to(recover::recover))
                .route("/user", web::get().to(user::get_user))
                .route("/user", web::put().to(user::update_user))
                .route("/logout", web::post().to(logout::logout))
                .route("/settings", web::get().to(settings::settings))
                .route("/factors", web::post().to(factors::enroll))
                .route(
                    "/factors/{factor_id}/challenge",
                    web::post().to(factors::challenge),
                )
                .route("/factors/{factor_id}/verify", web::post().to(factors::verify))
                .route("/factors/{factor_id}", web::delete().to(factors::unenroll))
                .configure(|scope| {
                    if let Some(oauth) = oauth {
                        crate::oauth::configure(oauth)(scope);
                    }
                })
                .default_service(web::to(not_found)),
        );
    }
}

/// Each path of this scope (after `/auth/v1`) with the methods it answers, for `Allow` (the provider routes
/// only when providers are configured).
const METHODS: [(&str, &str); 11] = [
    ("/signup", "POST"),
    ("/token", "POST"),
    ("/otp", "POST"),
    ("/verify", "GET, POST"),
    ("/recover", "POST"),
    ("/user", "GET, PUT"),
    ("/logout", "POST"),
    ("/settings", "GET"),
    ("/factors", "POST"),
    ("/authorize", "GET"),
    ("/callback", "GET, POST"),
];

/// A path this scope does not serve: 404 `not_found`; a path it serves, asked with a method it does not
/// answer: 405 `method_not_allowed` with `Allow` (actix gives a scope's routes the scope's default).
async fn not_found(request: HttpRequest) -> Result<actix_web::HttpResponse, AuthApiError> {
    use actix_web::ResponseError;
    let path = request.path().strip_prefix("/auth/v1").unwrap_or_default();
    let oauth = request
        .app_data::<web::Data<IdentityApi>>()
        .is_some_and(|api| api.oauth.is_some());
    let allow = METHODS
        .iter()
        .filter(|(p, _)| oauth || !matches!(*p, "/authorize" | "/callback"))
        .find(|(p, _)| *p == path)
        .map(|(_, methods)| *methods);
    let Some(allow) = allow else {
        return Err(AuthApiError::new(
            actix_web::http::StatusCode::NOT_FOUND,
            "not_found",
            "Not Found",
        ));
    };
    let mut answer = AuthApiError::new(
        actix_web::http::StatusCode::METHOD_NOT_ALLOWED,
        "method_not_allowed",
        format!("This endpoint does not answer {}.", request.method()),
    )
    .error_response();
    answer
        .headers_mut()
        .insert(header::ALLOW, header::HeaderValue::from_static(allow));
    Ok(answer)
}

#[cfg(test)]
mod tests {
    use super::*;
    use actix_web::test::TestRequest;

    #[test]
    fn the_sign_up_cookie_is_http_only_lax_for_the_auth_api_and_short_lived() {
        let cookie = signup_browser_cookie("http://127.0.0.1:8080", "v").to_string();
        assert_eq!(
            cookie,
            "portal-signup-browser=v; HttpOnly; SameSite=Lax; Path=/auth/v1; Max-Age=900"
        );
        let secure = signup_browser_cookie("https://portal.example.com", "v").to_string();
        assert!(secure.contains("; Secure"), "{secure}");
        let removal = signup_browser_cookie("http://127.0.0.1:8080", "").to_string();
        assert!(removal.contains("Max-Age=0"), "{removal}");
        let request = TestRequest::default()
            .insert_header(("Cookie", "other=1; portal-signup-browser=abc"))
            .to_http_request();
        assert_eq!(signup_browser(&request).as_deref(), Some("abc"));
        assert_eq!(signup_browser(&TestRequest::default().to_http_request()), None);
    }

    #[test]
    fn the_bearer_token_is_read_case_insensitively_and_empty_is_none() {
        let request = TestRequest::default()
            .insert_header(("Authorization", "bearer abc.def"))
            .to_http_request();
        assert_eq!(bearer_token(&request), Some("abc.def"));
        let empty = TestRequest::default()
            .insert_header(("Authorization", "Bearer "))
            .to_http_request();
        assert_eq!(bearer_token(&empty), None);
        let basic = TestRequest::default()
            .insert_header(("Authorization", "Basic abc"))
            .to_http_request();
        assert_eq!(bearer_token(&basic), None);
    }
}
