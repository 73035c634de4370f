//! `POST /auth/v1/otp` (supabase-js `signInWithOtp`): e-mails a sign-in link and a six-digit code.

use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse, web};
use domain::identity::AuthAction;
use serde::Deserialize;
use serde_json::json;

use super::{AuthApiError, AuthJson, IdentityApi, RedirectQuery, present};

#[derive(Debug, Deserialize)]
pub struct OtpBody {
    pub email: Option<String>,
    pub phone: Option<String>,
    /// `options.shouldCreateUser` (default true).
    pub create_user: Option<bool>,
}

/// Answers `{}` whether or not the address has an account.
///
/// # Errors
/// 400 `validation_failed` (no or invalid e-mail), `phone_provider_disabled`; 429
/// `over_email_send_rate_limit`.
pub async fn otp(
    api: web::Data<IdentityApi>,
    request: HttpRequest,
    query: web::Query<RedirectQuery>,
    body: AuthJson<OtpBody>,
) -> Result<HttpResponse, AuthApiError> {
    let Some(email) = present(body.email.as_ref()) else {
        if present(body.phone.as_ref()).is_some() {
            return Err(AuthApiError::new(
                StatusCode::BAD_REQUEST,
                "phone_provider_disabled",
                "Unsupported phone provider",
            ));
        }
        return Err(AuthApiError::validation("One of email or phone must be set"));
    };
    api.limit(&request, AuthAction::Otp, Some(email)).await?;
    api.service
        .request_magic_link(
            email,
            body.create_user.unwrap_or(true),
            query.redirect_to.as_deref(),
        )
        .await?;
    Ok(HttpResponse::Ok().json(json!({})))
}
