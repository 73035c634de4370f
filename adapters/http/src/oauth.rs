//! Sign-in with an OpenID Connect provider under `/auth/v1`, as `@supabase/supabase-js`'s
//! `signInWithOAuth` (flow type `pkce`) drives it (PRODUCT.md §1):
//!
//! - `GET /authorize?provider=…&redirect_to=…&code_challenge=…&code_challenge_method=s256` → 302 to the
//!   provider. A `redirect_to` that is not a page of this portal is refused with a JSON 400 (nothing is
//!   sent anywhere); every other refusal (unknown or unconfigured provider, missing PKCE, an unavailable
//!   provider, too many attempts) goes back to `redirect_to` (or the portal's home) with `error`,
//!   `error_code` and `error_description` query parameters, so the page shows a clear message instead of
//!   a broken redirect.
//! - `GET /callback` and `POST /callback` (Apple's `response_mode=form_post`) → redirect to the flow's
//!   `redirect_to` with `?code=<auth code>`, or with the error parameters as GoTrue sends them.
//! - [`exchange_pkce`] answers `POST /token?grant_type=pkce {auth_code, code_verifier}`.
//!
//! Hook-in (done where `/auth/v1` is assembled): register [`configure`] inside the `/auth/v1` scope (it
//! relies on the scope's [`IdentityApi`] for rate limits, and its CORS and `no-store` headers), and call
//! [`exchange_pkce`] from the token endpoint's `pkce` arm.

use actix_web::http::{StatusCode, header};
use actix_web::{HttpRequest, HttpResponse, web};
use domain::common::Clock;
use domain::identity::Session;
use domain::identity::oauth::{
    AuthorizeRequest, CallbackRequest, KNOWN_PROVIDERS, OAuthError, OAuthService, OidcError,
};
use serde::Deserialize;
use std::sync::Arc;
use std::sync::atomic::{AtomicI64, Ordering};

use crate::identity::{AuthApiError, IdentityApi};

const PRUNE_EVERY_SECS: i64 = 600;
/// The largest form Apple's callback may post.
const FORM_LIMIT: usize = 16 * 1024;

/// What the OAuth handlers share.
#[derive(Clone)]
pub struct OAuthApi {
    pub service: Arc<OAuthService>,
    clock: Arc<dyn Clock>,
    last_prune: Arc<AtomicI64>,
}

impl std::fmt::Debug for OAuthApi {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OAuthApi")
            .field("providers", &self.service.configured())
            .finish_non_exhaustive()
    }
}

impl OAuthApi {
    #[must_use]
    pub fn new(service: Arc<OAuthService>, clock: Arc<dyn Clock>) -> Self {
        Self {
            service,
            clock,
            last_prune: Arc::new(AtomicI64::new(0)),
        }
    }

    /// The configured providers (for `GET /settings`'s `external` map and `/api/public-config`).
    #[must_use]
    pub fn providers(&self) -> Vec<String> {
        self.service.configured().into_iter().map(str::to_owned).collect()
    }

    /// Deletes expired flows and codes at most every ten minutes per instance.
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
        if let Err(error) = self.service.prune_expired().await {
            tracing::warn!(%error, "could not prune OAuth flows");
        }
    }
}

/// `GET /settings`'s `external` entries of the sign-in providers: each known provider and whether it is
/// configured (`None`: no OAuth at all).
#[must_use]
pub fn external_providers(api: Option<&OAuthApi>) -> serde_json::Map<String, serde_json::Value> {
    KNOWN_PROVIDERS
        .iter()
        .map(|name| {
            let on = api.is_some_and(|a| a.service.is_configured(name));
            ((*name).to_owned(), serde_json::Value::Bool(on))
        })
        .collect()
}

/// Registers `GET /authorize`, `GET /callback` and `POST /callback`; call inside the `/auth/v1` scope.
pub fn configure(api: OAuthApi) -> impl FnOnce(&mut web::ServiceConfig) {
    move |cfg| {
        cfg.app_data(web::Data::new(api))
            .app_data(
                web::FormConfig::default()
                    .limit(FORM_LIMIT)
                    .error_handler(|err, _req| {
                        AuthApiError::validation(format!("Invalid form: {err}")).into()
                    }),
            )
            .route("/authorize", web::get().to(authorize))
            .route("/callback", web::get().to(callback_get))
            .route("/callback", web::post().to(callback_post));
    }
}

/// Maps an error of the OAuth flow to its GoTrue status and body.
#[must_use]
pub fn api_error(error: OAuthError) -> AuthApiError {
    let status = match &error {
        OAuthError::Identity(_) => return error_into_identity(error),
        OAuthError::Repo(domain::common::RepoError::Unavailable { retry_after }) => {
            return AuthApiError::unavailable(*retry_after);
        }
        OAuthError::Repo(_) => return AuthApiError::internal(error),
        OAuthError::Provider(OidcError::Unavailable(cause)) => {
            tracing::warn!(%cause, "sign-in provider unavailable");
            return AuthApiError::new(
                StatusCode::SERVICE_UNAVAILABLE,
                "unexpected_failure",
                "The sign-in provider is unavailable. Please try again later.",
            );
        }
        OAuthError::ProviderDenied { .. } => StatusCode::FORBIDDEN,
        OAuthError::FlowNotFound => StatusCode::NOT_FOUND,
        OAuthError::FlowExpired => StatusCode::UNPROCESSABLE_ENTITY,
        _ => StatusCode::BAD_REQUEST,
    };
    if let OAuthError::Provider(cause) = &error {
        tracing::info!(%cause, "provider sign-in refused");
    }
    let msg = match &error {
        OAuthError::Provider(OidcError::Rejected(_)) => {
            "The sign-in provider did not accept the sign-in. Please try again.".to_owned()
        }
        OAuthError::Provider(_) => "The sign-in provider's answer could not be verified.".to_owned(),
        other => other.to_string(),
    };
    AuthApiError::new(status, error.error_code(), msg)
}

fn error_into_identity(error: OAuthError) -> AuthApiError {
    match error {
        OAuthError::Identity(inner) => AuthApiError::from(inner),
        other => AuthApiError::internal(other),
    }
}

/// `POST /token?grant_type=pkce`: the session for an auth code and its verifier.
///
/// # Errors
/// 400 `validation_failed` (missing values), 404 `flow_state_not_found` (unknown or used code), 422
/// `flow_state_expired`, 400 `bad_code_verifier`, the linking rule's 422s, 500.
pub async fn exchange_pkce(
    api: &OAuthApi,
    client: &str,
    auth_code: Option<&str>,
    code_verifier: Option<&str>,
) -> Result<Session, AuthApiError> {
    api.service
        .exchange_pkce(
            client,
            auth_code.unwrap_or_default(),
            code_verifier.unwrap_or_default(),
        )
        .await
        .map_err(api_error)
}

#[derive(Debug, Deserialize)]
pub struct AuthorizeQuery {
    pub provider: Option<String>,
    pub redirect_to: Option<String>,
    pub code_challenge: Option<String>,
    pub code_challenge_method: Option<String>,
}

async fn authorize(
    api: web::Data<OAuthApi>,
    identity: web::Data<IdentityApi>,
    request: HttpRequest,
    query: web::Query<AuthorizeQuery>,
) -> HttpResponse {
    let to = match api.service.redirect_target(query.redirect_to.as_deref()) {
        Ok(to) => to,
        Err(error) => return HttpResponse::from_error(api_error(error)),
    };
    let client = identity.client(&request).await;
    api.prune_now_and_then().await;
    let started = api
        .service
        .authorize(AuthorizeRequest {
            client: &client,
            provider: query.provider.as_deref(),
            redirect_to: Some(&to),
            code_challenge: query.code_challenge.as_deref(),
            code_challenge_method: query.code_challenge_method.as_deref(),
        })
        .await;
    match started {
        Ok(url) => redirect(&url, StatusCode::FOUND),
        Err(error) => error_redirect(&to, &api_error(error), None, StatusCode::FOUND),
    }
}

#[derive(Debug, Deserialize)]
pub struct CallbackParams {
    pub state: Option<String>,
    pub code: Option<String>,
    pub error: Option<String>,
    pub error_description: Option<String>,
    /// Apple's first sign-in: the user's name as JSON.
    pub user: Option<String>,
}

async fn callback_get(api: web::Data<OAuthApi>, query: web::Query<CallbackParams>) -> HttpResponse {
    callback(&api, &query, StatusCode::FOUND).await
}

async fn callback_post(api: web::Data<OAuthApi>, form: web::Form<CallbackParams>) -> HttpResponse {
    // 303: the browser follows a posted form with a GET.
    callback(&api, &form, StatusCode::SEE_OTHER).await
}

async fn callback(api: &OAuthApi, params: &CallbackParams, status: StatusCode) -> HttpResponse {
    let outcome = api
        .service
        .callback(CallbackRequest {
            state: params.state.as_deref(),
            code: params.code.as_deref(),
            error: params.error.as_deref(),
            error_description: params.error_description.as_deref(),
            user: params.user.as_deref(),
        })
        .await;
    match outcome.result {
        Ok(code) => redirect(&with_query(&outcome.redirect_to, &[("code", &code)]), status),
        Err(error) => {
            let provider_error = match &error {
                OAuthError::ProviderDenied { error, .. } => Some(error.clone()),
                _ => None,
            };
            error_redirect(
                &outcome.redirect_to,
                &api_error(error),
                provider_error.as_deref(),
                status,
            )
        }
    }
}

/// `to` with the pairs set in its query (replacing earlier `code`/`error*` values, keeping the rest).
fn with_query(to: &str, pairs: &[(&str, &str)]) -> String {
    let Ok(mut url) = url::Url::parse(to) else {
        return to.to_owned();
    };
    let kept: Vec<(String, String)> = url
        .query_pairs()
        .filter(|(k, _)| !matches!(k.as_ref(), "code" | "error" | "error_code" | "error_description"))
        .map(|(k, v)| (k.into_owned(), v.into_owned()))
        .collect();
    url.set_fragment(None);
    {
        let mut query = url.query_pairs_mut();
        query.clear();
        for (k, v) in &kept {
            query.append_pair(k, v);
        }
        for (k, v) in pairs {
            query.append_pair(k, v);
        }
    }
    url.into()
}

/// The OAuth `error` of a refusal, as GoTrue names it.
fn oauth_error_kind(error: &AuthApiError) -> &'static str {
    match error.code {
        "signup_disabled" | "provider_email_needs_verification" | "user_banned" => "access_denied",
        _ => match error.status.as_u16() {
            400 | 404 | 422 => "invalid_request",
            401 => "unauthorized_client",
            403 => "access_denied",
            429 => "temporarily_unavailable",
            503 => "temporarily_unavailable",
            _ => "server_error",
        },
    }
}

fn error_redirect(
    to: &str,
    error: &AuthApiError,
    provider_error: Option<&str>,
    status: StatusCode,
) -> HttpResponse {
    error.log_cause();
    let kind = provider_error.unwrap_or_else(|| oauth_error_kind(error));
    redirect(
        &with_query(
            to,
            &[
                ("error", kind),
                ("error_code", error.code),
                ("error_description", &error.msg),
            ],
        ),
        status,
    )
}

fn redirect(location: &str, status: StatusCode) -> HttpResponse {
    HttpResponse::build(status)
        .insert_header((header::LOCATION, location))
        .insert_header(("Referrer-Policy", "no-referrer"))
        .finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_code_replaces_earlier_results_and_keeps_the_pages_own_query() {
        assert_eq!(
            with_query(
                "https://portal.test/signin?next=%2Fapps&code=old&error=x#frag",
                &[("code", "c1")]
            ),
            "https://portal.test/signin?next=%2Fapps&code=c1"
        );
        assert_eq!(
            with_query("https://portal.test/", &[("error_description", "a b&c")]),
            "https://portal.test/?error_description=a+b%26c"
        );
    }

    #[test]
    fn each_flow_error_has_gotrues_status_and_code() {
        let cases = [
            (OAuthError::UnknownProvider("x".into()), 400, "validation_failed"),
            (
                OAuthError::ProviderNotConfigured("apple".into()),
                400,
                "provider_disabled",
            ),
            (OAuthError::RedirectNotAllowed, 400, "validation_failed"),
            (OAuthError::StateUnknown, 400, "bad_oauth_state"),
            (OAuthError::FlowNotFound, 404, "flow_state_not_found"),
            (OAuthError::FlowExpired, 422, "flow_state_expired"),
            (OAuthError::BadCodeVerifier, 400, "bad_code_verifier"),
            (
                OAuthError::Provider(OidcError::InvalidIdToken("nonce".into())),
                400,
                "bad_oauth_callback",
            ),
            (
                OAuthError::Provider(OidcError::Unavailable("down".into())),
                503,
                "unexpected_failure",
            ),
            (
                OAuthError::Identity(domain::identity::IdentityError::AccountNotLinkable),
                422,
                "identity_already_exists",
            ),
        ];
        for (error, status, code) in cases {
            let mapped = api_error(error);
            assert_eq!(
                (mapped.status.as_u16(), mapped.code),
                (status, code),
                "{}",
                mapped.msg
            );
        }
        let hidden = api_error(OAuthError::Provider(OidcError::InvalidIdToken(
            "secret detail".into(),
        )));
        assert!(!hidden.msg.contains("secret detail"));
    }

    #[test]
    fn refusals_carry_the_oauth_error_kind() {
        let disabled = api_error(OAuthError::ProviderNotConfigured("apple".into()));
        assert_eq!(oauth_error_kind(&disabled), "invalid_request");
        let denied = api_error(OAuthError::ProviderDenied {
            error: "access_denied".into(),
            description: "no".into(),
        });
        assert_eq!(oauth_error_kind(&denied), "access_denied");
    }

    #[test]
    fn the_settings_map_lists_every_known_provider() {
        let map = external_providers(None);
        assert_eq!(map.len(), 4);
        assert!(map.values().all(|v| v == &serde_json::Value::Bool(false)));
    }
}
