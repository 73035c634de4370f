//! `POST /auth/v1/signup` (supabase-js `signUp`).

use actix_web::{HttpRequest, HttpResponse, web};
use domain::common::{EmailAddress, UserId};
use domain::identity::{SignUpOutcome, SignUpRequest};
use serde::Deserialize;
use serde_json::Value;

use super::dto::UserDto;
use super::{AuthApiError, AuthJson, IdentityApi, RedirectQuery, present, signup_browser_cookie};

#[derive(Debug, Deserialize)]
pub struct SignUpBody {
    pub email: Option<String>,
    pub phone: Option<String>,
    pub password: Option<String>,
    /// `options.data`: the initial `user_metadata`.
    pub data: Option<Value>,
}

impl SignUpBody {
    /// The sign-up, with `redirect_to` for its confirmation link (400 `validation_failed` without an e-mail
    /// or a password, `phone_provider_disabled` for a phone).
    fn request<'a>(&'a self, redirect_to: Option<&'a str>) -> Result<SignUpRequest<'a>, AuthApiError> {
        let Some(email) = present(self.email.as_ref()) else {
            if present(self.phone.as_ref()).is_some() {
                return Err(AuthApiError::phone_provider_disabled(
                    "Phone signups are disabled",
                ));
            }
            return Err(AuthApiError::validation("To signup, please provide your email"));
        };
        let Some(password) = self.password.as_deref().filter(|p| !p.is_empty()) else {
            return Err(AuthApiError::validation("Signup requires a valid password"));
        };
        Ok(SignUpRequest {
            email,
            password,
            data: self.data.as_ref(),
            redirect_to,
        })
    }
}

/// The answer of a sign-up waiting for its confirmation e-mail: the user, and the sign-up cookie `browser`.
fn confirmation_sent(
    api: &IdentityApi,
    user_id: UserId,
    email: &EmailAddress,
    browser: &str,
) -> HttpResponse {
    HttpResponse::Ok()
        .cookie(signup_browser_cookie(
            &api.services.issuer.config().public_url,
            browser,
        ))
        .json(UserDto::awaiting_confirmation(user_id, email, api.clock.now()))
}

/// Creates an account. Without e-mail confirmation (no SMTP) the answer is a session; with it, the user
/// awaiting confirmation (the same answer whether or not the address is taken) and the sign-up cookie
/// ([`super::SIGNUP_BROWSER_COOKIE`]) that lets this browser's confirmation install the chosen password.
///
/// # Errors
/// 400 `validation_failed` for a missing e-mail or password; 422 `weak_password`, `user_already_exists`,
/// `signup_disabled`; 400 `email_address_invalid`; 429.
pub async fn sign_up(
    api: web::Data<IdentityApi>,
    request: HttpRequest,
    query: web::Query<RedirectQuery>,
    body: AuthJson<SignUpBody>,
) -> Result<HttpResponse, AuthApiError> {
    let sign_up = body.request(query.redirect_to.as_deref())?;
    let client = api.client(&request).await;
    Ok(match api.services.email.sign_up(&client, sign_up).await? {
        SignUpOutcome::SignedIn(session) => api.answer_session(&request, &session).await,
        SignUpOutcome::ConfirmationSent {
            user_id,
            email,
            browser,
        } => confirmation_sent(&api, user_id, &email, &browser),
    })
}
