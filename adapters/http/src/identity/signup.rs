//! `POST /auth/v1/signup` (supabase-js `signUp`).

use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse, web};
use domain::identity::{AuthAction, SignUpOutcome, SignUpRequest};
use serde::Deserialize;
use serde_json::Value;

use super::dto::{SessionDto, UserDto};
use super::{AuthApiError, AuthJson, IdentityApi, RedirectQuery, present, signup_browser_cookie};

#[derive(Debug, Deserialize)]
pub struct SignUpBody {
    pub email: Option<String>,
    pub phone: Option<String>,
    pub password: Option<String>,
    /// `options.data`: the initial `user_metadata`.
    pub data: Option<Value>,
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
    let Some(email) = present(body.email.as_ref()) else {
        if present(body.phone.as_ref()).is_some() {
            return Err(AuthApiError::new(
                StatusCode::BAD_REQUEST,
                "phone_provider_disabled",
                "Phone signups are disabled",
            ));
        }
        return Err(AuthApiError::validation("To signup, please provide your email"));
    };
    let Some(password) = body.password.as_deref().filter(|p| !p.is_empty()) else {
        return Err(AuthApiError::validation("Signup requires a valid password"));
    };
    api.limit(&request, AuthAction::SignUp, Some(email)).await?;
    let outcome = api
        .service
        .sign_up(SignUpRequest {
            email,
            password,
            data: body.data.as_ref(),
            redirect_to: query.redirect_to.as_deref(),
        })
        .await?;
    if let SignUpOutcome::SignedIn(session) = &outcome {
        api.note_client(&request, session).await;
    }
    Ok(match outcome {
        SignUpOutcome::SignedIn(session) => HttpResponse::Ok().json(SessionDto::from(session.as_ref())),
        SignUpOutcome::ConfirmationSent {
            user_id,
            email,
            browser,
        } => HttpResponse::Ok()
            .cookie(signup_browser_cookie(&api.service.config().public_url, &browser))
            .json(UserDto::awaiting_confirmation(user_id, &email, api.clock.now())),
    })
}
