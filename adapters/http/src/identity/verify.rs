//! `GET /auth/v1/verify` (the link in an e-mail) and `POST /auth/v1/verify` (supabase-js `verifyOtp`, a typed
//! six-digit code or a link's token as `token_hash`).
//!
//! The link answers like GoTrue's implicit flow: a redirect to `redirect_to` (only a page of this portal) or
//! the portal's home, with the session in the URL fragment (`#access_token=…&refresh_token=…&type=…`), which
//! supabase-js picks up; or with `#error=…&error_code=…&error_description=…`. The fragment never reaches a
//! server or a `Referer`.

use actix_web::http::{StatusCode, header};
use actix_web::{HttpRequest, HttpResponse, web};
use domain::identity::codes::emails::resolve_redirect;
use domain::identity::{AuthAction, IdentityError, Session, VerifyKind, VerifySecret};
use serde::Deserialize;

use super::dto::SessionDto;
use super::{AuthApiError, AuthJson, IdentityApi, present, signup_browser, signup_browser_cookie};

#[derive(Debug, Deserialize)]
pub struct VerifyBody {
    #[serde(rename = "type")]
    pub kind: Option<String>,
    /// The six-digit code (with `email`).
    pub token: Option<String>,
    /// The link's token.
    pub token_hash: Option<String>,
    pub email: Option<String>,
    pub phone: Option<String>,
}

fn kind_of(value: Option<&String>) -> Result<(VerifyKind, &str), AuthApiError> {
    let Some(text) = present(value) else {
        return Err(AuthApiError::validation("Verify requires a verification type"));
    };
    VerifyKind::parse(text)
        .map(|kind| (kind, text))
        .ok_or_else(|| AuthApiError::validation("Unsupported verification type"))
}

/// Answers a session.
///
/// # Errors
/// 400 `validation_failed` for a missing or unsupported type or secret; 403 `otp_expired` for a wrong,
/// used or expired code; 429.
pub async fn verify(
    api: web::Data<IdentityApi>,
    request: HttpRequest,
    body: AuthJson<VerifyBody>,
) -> Result<HttpResponse, AuthApiError> {
    let (kind, _) = kind_of(body.kind.as_ref())?;
    let secret = if let Some(token_hash) = present(body.token_hash.as_ref()) {
        VerifySecret::Link(token_hash)
    } else {
        let Some(code) = present(body.token.as_ref()) else {
            return Err(AuthApiError::validation(
                "Verify requires either a token or a token hash",
            ));
        };
        let Some(email) = present(body.email.as_ref()) else {
            if present(body.phone.as_ref()).is_some() {
                return Err(AuthApiError::new(
                    StatusCode::BAD_REQUEST,
                    "phone_provider_disabled",
                    "Unsupported phone provider",
                ));
            }
            return Err(AuthApiError::validation("Verify requires an email"));
        };
        VerifySecret::Code { email, code }
    };
    let email = match secret {
        VerifySecret::Code { email, .. } => Some(email),
        VerifySecret::Link(_) => None,
    };
    api.limit(&request, AuthAction::Verify, email).await?;
    let browser = signup_browser(&request);
    let session = api.service.verify(kind, secret, browser.as_deref()).await?;
    api.signed_in(&request, session.user.account.email.as_str()).await;
    api.note_client(&request, &session).await;
    let mut response = HttpResponse::Ok();
    if browser.is_some() {
        response.cookie(signup_browser_cookie(&api.service.config().public_url, ""));
    }
    Ok(response.json(SessionDto::from(&session)))
}

#[derive(Debug, Deserialize)]
pub struct VerifyLinkQuery {
    pub token: Option<String>,
    #[serde(rename = "type")]
    pub kind: Option<String>,
    pub redirect_to: Option<String>,
}

/// Where the browser goes after the link: a page of this portal named by `redirect_to`, else its home.
/// The link's `redirect_to` is checked again here: a link may have been made by hand.
fn target(public_url: &str, redirect_to: Option<&str>) -> String {
    redirect_to
        .and_then(|t| resolve_redirect(public_url, t))
        .unwrap_or_else(|| format!("{}/", public_url.trim_end_matches('/')))
}

fn fragment(pairs: &[(&str, &str)]) -> String {
    let mut serializer = url::form_urlencoded::Serializer::new(String::new());
    for (key, value) in pairs {
        serializer.append_pair(key, value);
    }
    serializer.finish()
}

fn redirect(location: String) -> HttpResponse {
    HttpResponse::SeeOther()
        .insert_header((header::LOCATION, location))
        .insert_header(("Referrer-Policy", "no-referrer"))
        .finish()
}

fn error_redirect(to: &str, error: &AuthApiError) -> HttpResponse {
    let kind = if error.status.is_server_error() {
        "server_error"
    } else {
        "access_denied"
    };
    error.log_cause();
    redirect(format!(
        "{to}#{}",
        fragment(&[
            ("error", kind),
            ("error_code", error.code),
            ("error_description", &error.msg),
        ])
    ))
}

fn session_redirect(to: &str, session: &Session, kind: &str) -> HttpResponse {
    let (expires_at, expires_in) = (session.expires_at.to_string(), session.expires_in.to_string());
    redirect(format!(
        "{to}#{}",
        fragment(&[
            ("access_token", &session.access_token),
            ("expires_at", &expires_at),
            ("expires_in", &expires_in),
            ("refresh_token", &session.refresh_token),
            ("token_type", session.token_type),
            ("type", kind),
        ])
    ))
}

/// Verifies the link's token and redirects (303) with the session or the error in the fragment.
pub async fn verify_link(
    api: web::Data<IdentityApi>,
    request: HttpRequest,
    query: web::Query<VerifyLinkQuery>,
) -> HttpResponse {
    let to = target(&api.service.config().public_url, query.redirect_to.as_deref());
    let (kind, kind_text) = match kind_of(query.kind.as_ref()) {
        Ok(found) => found,
        Err(error) => return error_redirect(&to, &error),
    };
    let Some(token) = present(query.token.as_ref()) else {
        return error_redirect(
            &to,
            &AuthApiError::validation("Verify requires a token or a token hash"),
        );
    };
    if let Err(error) = api.limit(&request, AuthAction::Verify, None).await {
        return error_redirect(&to, &error);
    }
    let browser = signup_browser(&request);
    match api
        .service
        .verify(kind, VerifySecret::Link(token), browser.as_deref())
        .await
    {
        Ok(session) => {
            api.signed_in(&request, session.user.account.email.as_str()).await;
            api.note_client(&request, &session).await;
            // A first proof that removed someone else's password asks for a new one, as a recovery does
            // (supabase-js then signals PASSWORD_RECOVERY).
            let kind_text = if session.choose_password {
                "recovery"
            } else {
                kind_text
            };
            let mut response = session_redirect(&to, &session, kind_text);
            if browser.is_some() {
                let spent = signup_browser_cookie(&api.service.config().public_url, "");
                if let Err(error) = response.add_cookie(&spent) {
                    tracing::warn!(%error, "could not remove the sign-up cookie");
                }
            }
            response
        }
        Err(IdentityError::InvalidCode) => error_redirect(
            &to,
            &AuthApiError::new(
                StatusCode::FORBIDDEN,
                "otp_expired",
                "Email link is invalid or has expired",
            ),
        ),
        Err(other) => error_redirect(&to, &AuthApiError::from(other)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_link_goes_only_to_pages_of_this_portal() {
        let base = "https://portal.test";
        assert_eq!(target(base, None), "https://portal.test/");
        assert_eq!(target(base, Some("/dashboard")), "https://portal.test/dashboard");
        assert_eq!(
            target(base, Some("https://portal.test/signin?x=1#old")),
            "https://portal.test/signin?x=1"
        );
        assert_eq!(target(base, Some("https://evil.test/")), "https://portal.test/");
        assert_eq!(target(base, Some("//evil.test/")), "https://portal.test/");
    }

    #[test]
    fn fragment_values_are_form_encoded() {
        assert_eq!(
            fragment(&[("error_description", "Email link is invalid or has expired")]),
            "error_description=Email+link+is+invalid+or+has+expired"
        );
    }
}
