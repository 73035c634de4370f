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
use domain::identity::{IdentityError, Session, VerifyKind, VerifySecret};
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

impl VerifyBody {
    /// The type and the secret: a link's token (`token_hash`), else a typed code with its address (400
    /// `validation_failed` for a missing or unsupported type or secret, `phone_provider_disabled` for a
    /// phone).
    fn secret(&self) -> Result<(VerifyKind, VerifySecret<'_>), AuthApiError> {
        let (kind, _) = kind_of(self.kind.as_ref())?;
        if let Some(token_hash) = present(self.token_hash.as_ref()) {
            return Ok((kind, VerifySecret::Link(token_hash)));
        }
        let Some(code) = present(self.token.as_ref()) else {
            return Err(AuthApiError::validation(
                "Verify requires either a token or a token hash",
            ));
        };
        let Some(email) = present(self.email.as_ref()) else {
            if present(self.phone.as_ref()).is_some() {
                return Err(AuthApiError::phone_provider_disabled(
                    "Unsupported phone provider",
                ));
            }
            return Err(AuthApiError::validation("Verify requires an email"));
        };
        Ok((kind, VerifySecret::Code { email, code }))
    }
}

fn kind_of(value: Option<&String>) -> Result<(VerifyKind, &str), AuthApiError> {
    let Some(text) = present(value) else {
        return Err(AuthApiError::validation("Verify requires a verification type"));
    };
    VerifyKind::parse(text)
        .map(|kind| (kind, text))
        .ok_or_else(|| AuthApiError::validation("Unsupported verification type"))
}

/// The sign-up cookie a verification spends (a request that carried one has its answer remove it).
fn spent_signup_cookie(api: &IdentityApi) -> actix_web::cookie::Cookie<'static> {
    signup_browser_cookie(&api.services.issuer.config().public_url, "")
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
    let (kind, secret) = body.secret()?;
    let client = api.client(&request).await;
    let browser = signup_browser(&request);
    let session = api
        .services
        .email
        .verify(&client, kind, secret, browser.as_deref())
        .await?;
    api.proved(&request, &session).await;
    let mut response = HttpResponse::Ok();
    if browser.is_some() {
        response.cookie(spent_signup_cookie(&api));
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

impl VerifyLinkQuery {
    /// The type (and its text, for the fragment) and the link's token (400 `validation_failed` for a
    /// missing or unsupported type or a missing token).
    fn parts(&self) -> Result<(VerifyKind, &str, &str), AuthApiError> {
        let (kind, kind_text) = kind_of(self.kind.as_ref())?;
        let Some(token) = present(self.token.as_ref()) else {
            return Err(AuthApiError::validation(
                "Verify requires a token or a token hash",
            ));
        };
        Ok((kind, kind_text, token))
    }
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

/// The redirect with `session` in the fragment, of the type `kind` the link verified.
fn session_redirect(to: &str, session: &Session, kind: &str) -> HttpResponse {
    // A first proof that removed someone else's password asks for a new one, as a recovery does
    // (supabase-js then signals PASSWORD_RECOVERY).
    let kind = if session.choose_password { "recovery" } else { kind };
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
    let to = target(
        &api.services.issuer.config().public_url,
        query.redirect_to.as_deref(),
    );
    match verified_link(&api, &request, &query).await {
        Ok((session, kind, signed_up_here)) => {
            let mut response = session_redirect(&to, &session, kind);
            if signed_up_here && let Err(error) = response.add_cookie(&spent_signup_cookie(&api)) {
                tracing::warn!(%error, "could not remove the sign-up cookie");
            }
            response
        }
        Err(error) => error_redirect(&to, &error),
    }
}

/// Verifies the link's token of `query` (after `/verify`'s rate limit), with the sign-up cookie the request
/// carries; remembers the sign-in and notes the client. Answers the session, the type the link verified
/// and whether the request carried a sign-up cookie (spent now).
async fn verified_link<'q>(
    api: &IdentityApi,
    request: &HttpRequest,
    query: &'q VerifyLinkQuery,
) -> Result<(Session, &'q str, bool), AuthApiError> {
    let (kind, kind_text, token) = query.parts()?;
    let client = api.client(request).await;
    let browser = signup_browser(request);
    let secret = VerifySecret::Link(token);
    let session = api
        .services
        .email
        .verify(&client, kind, secret, browser.as_deref())
        .await
        .map_err(link_error)?;
    api.proved(request, &session).await;
    Ok((session, kind_text, browser.is_some()))
}

/// A link's verification refused: a wrong, used or expired token is 403 `otp_expired` with the link's
/// own message.
fn link_error(error: IdentityError) -> AuthApiError {
    match error {
        IdentityError::InvalidCode => AuthApiError::new(
            StatusCode::FORBIDDEN,
            "otp_expired",
            "Email link is invalid or has expired",
        ),
        other => AuthApiError::from(other),
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
    fn a_verification_takes_a_link_token_first_else_a_code_with_its_address() {
        let body =
            |token: Option<&str>, token_hash: Option<&str>, email: Option<&str>, phone: Option<&str>| {
                VerifyBody {
                    kind: Some("email".to_owned()),
                    token: token.map(str::to_owned),
                    token_hash: token_hash.map(str::to_owned),
                    email: email.map(str::to_owned),
                    phone: phone.map(str::to_owned),
                }
            };
        let link = body(Some("123456"), Some(" hash "), None, None);
        assert_eq!(link.secret().unwrap().1, VerifySecret::Link("hash"));
        let code = body(Some("123456"), None, Some("dev@example.com"), None);
        let (_, secret) = code.secret().unwrap();
        assert_eq!(
            secret,
            VerifySecret::Code {
                email: "dev@example.com",
                code: "123456"
            }
        );
        let phone = body(Some("123456"), None, None, Some("+15550100"))
            .secret()
            .unwrap_err();
        assert_eq!(
            (phone.status.as_u16(), phone.code),
            (400, "phone_provider_disabled")
        );
        let none = body(None, None, Some("dev@example.com"), None)
            .secret()
            .unwrap_err();
        assert_eq!(none.msg, "Verify requires either a token or a token hash");
    }

    #[test]
    fn a_wrong_link_is_otp_expired_with_the_link_message() {
        let refused = link_error(IdentityError::InvalidCode);
        assert_eq!(
            (refused.status.as_u16(), refused.code, refused.msg.as_str()),
            (403, "otp_expired", "Email link is invalid or has expired")
        );
        let query = VerifyLinkQuery {
            token: None,
            kind: Some("signup".to_owned()),
            redirect_to: None,
        };
        assert_eq!(
            query.parts().map(|_| ()).unwrap_err().msg,
            "Verify requires a token or a token hash"
        );
    }

    #[test]
    fn fragment_values_are_form_encoded() {
        assert_eq!(
            fragment(&[("error_description", "Email link is invalid or has expired")]),
            "error_description=Email+link+is+invalid+or+has+expired"
        );
    }
}
