//! The built-in identity service under `/auth/v1`: the subset of the Supabase Auth (GoTrue) REST API that
//! `@supabase/supabase-js` calls (PRODUCT.md §1), with its request and response shapes, error bodies and
//! status codes. One module per resource; the JSON shapes are in [`dto`], the errors in [`error`].
//!
//! Provider sign-in (`GET /authorize`, `GET|POST /callback`, `grant_type=pkce`) is in `crate::oauth`; second
//! factors are in [`factors`], passkeys in [`passkeys`]. With a hosted Supabase this whole scope is not
//! registered: public-config then points the browser at the hosted URL.

mod api;
mod bodies;
pub mod dto;
pub mod error;
pub mod factors;
pub mod logout;
pub mod otp;
pub mod passkeys;
pub mod recover;
pub mod recovery_codes;
pub mod settings;
pub mod signup;
pub mod token;
pub mod user;
pub mod verify;

use actix_web::http::header;
use actix_web::middleware::DefaultHeaders;
use actix_web::{HttpRequest, web};
use serde::Deserialize;

pub use api::IdentityApi;
pub use bodies::AuthJson;
use bodies::{json_config, query_config};
pub use error::AuthApiError;

/// The API version whose error shape this service answers (auth-js reads `code` from it on).
pub const API_VERSION: &str = "2024-01-01";

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
    Ok(api.services.sessions.authenticate_access(token).await?)
}

/// A non-empty trimmed text.
pub(crate) fn present(value: Option<&String>) -> Option<&str> {
    value.map(|v| v.trim()).filter(|v| !v.is_empty())
}

/// Browsers call this service from any origin with bearer tokens (no cookies), as Supabase allows.
fn cors() -> actix_cors::Cors {
    actix_cors::Cors::default()
        .allow_any_origin()
        .allowed_methods(["GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"])
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
                // Before `/factors/{factor_id}`, which would take `recovery-codes` for an id.
                .route("/factors/recovery-codes", web::get().to(recovery_codes::status))
                .route(
                    "/factors/recovery-codes",
                    web::post().to(recovery_codes::generate),
                )
                .route(
                    "/factors/recovery-codes",
                    web::delete().to(recovery_codes::unenroll),
                )
                .route(
                    "/factors/recovery-codes/verify",
                    web::post().to(recovery_codes::verify),
                )
                .route(
                    "/factors/recovery-codes/regenerate",
                    web::post().to(recovery_codes::regenerate),
                )
                .route(
                    "/factors/{factor_id}/challenge",
                    web::post().to(factors::challenge),
                )
                .route("/factors/{factor_id}/verify", web::post().to(factors::verify))
                .route("/factors/{factor_id}", web::delete().to(factors::unenroll))
                .route(
                    "/passkeys/registration/options",
                    web::post().to(passkeys::registration_options),
                )
                .route(
                    "/passkeys/registration/verify",
                    web::post().to(passkeys::registration_verify),
                )
                .route(
                    "/passkeys/authentication/options",
                    web::post().to(passkeys::authentication_options),
                )
                .route(
                    "/passkeys/authentication/verify",
                    web::post().to(passkeys::authentication_verify),
                )
                .route("/passkeys", web::get().to(passkeys::list))
                .route("/passkeys/{passkey_id}", web::patch().to(passkeys::rename))
                .route("/passkeys/{passkey_id}", web::delete().to(passkeys::delete))
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
const METHODS: [(&str, &str); 19] = [
    ("/signup", "POST"),
    ("/token", "POST"),
    ("/otp", "POST"),
    ("/verify", "GET, POST"),
    ("/recover", "POST"),
    ("/user", "GET, PUT"),
    ("/logout", "POST"),
    ("/settings", "GET"),
    ("/factors", "POST"),
    ("/factors/recovery-codes", "GET, POST, DELETE"),
    ("/factors/recovery-codes/verify", "POST"),
    ("/factors/recovery-codes/regenerate", "POST"),
    ("/passkeys", "GET"),
    ("/passkeys/registration/options", "POST"),
    ("/passkeys/registration/verify", "POST"),
    ("/passkeys/authentication/options", "POST"),
    ("/passkeys/authentication/verify", "POST"),
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
