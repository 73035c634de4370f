//! `POST /auth/v1/otp` (supabase-js `signInWithOtp`): e-mails a sign-in link and a six-digit code.

use actix_web::{HttpRequest, HttpResponse, web};
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

impl OtpBody {
    /// The address to e-mail (400 `validation_failed` without one, `phone_provider_disabled` for a phone).
    fn address(&self) -> Result<&str, AuthApiError> {
        let Some(email) = present(self.email.as_ref()) else {
            if present(self.phone.as_ref()).is_some() {
                return Err(AuthApiError::phone_provider_disabled(
                    "Unsupported phone provider",
                ));
            }
            return Err(AuthApiError::validation("One of email or phone must be set"));
        };
        Ok(email)
    }
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
    let email = body.address()?;
    let client = api.client(&request).await;
    let create_user = body.create_user.unwrap_or(true);
    let redirect_to = query.redirect_to.as_deref();
    api.services
        .email
        .request_magic_link(&client, email, create_user, redirect_to)
        .await?;
    Ok(HttpResponse::Ok().json(json!({})))
}
