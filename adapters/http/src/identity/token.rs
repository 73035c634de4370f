//! `POST /auth/v1/token?grant_type=password|refresh_token` (supabase-js `signInWithPassword` and the
//! session refresh). `pkce` and `id_token` are answered "unsupported" until OAuth lands (one more arm here).

use actix_web::{HttpRequest, HttpResponse, web};
use domain::identity::AuthAction;
use serde::Deserialize;

use super::dto::SessionDto;
use super::{AuthApiError, IdentityApi, present};

#[derive(Debug, Deserialize)]
pub struct GrantQuery {
    pub grant_type: Option<String>,
}

#[derive(Debug, Deserialize)]
pub struct TokenBody {
    pub email: Option<String>,
    pub phone: Option<String>,
    pub password: Option<String>,
    pub refresh_token: Option<String>,
}

/// Answers a session.
///
/// # Errors
/// 400 `invalid_credentials`, `email_not_confirmed`, `refresh_token_not_found`, `refresh_token_already_used`,
/// `session_expired`, `validation_failed`; 429.
pub async fn token(
    api: web::Data<IdentityApi>,
    request: HttpRequest,
    query: web::Query<GrantQuery>,
    body: web::Json<TokenBody>,
) -> Result<HttpResponse, AuthApiError> {
    let session = match query.grant_type.as_deref() {
        Some("password") => {
            let Some(email) = present(body.email.as_ref()) else {
                return Err(AuthApiError::validation("missing email or phone"));
            };
            api.limit(&request, AuthAction::SignIn, Some(email)).await?;
            let password = body.password.as_deref().unwrap_or_default();
            api.service.sign_in_with_password(email, password).await?
        }
        Some("refresh_token") => {
            let Some(refresh_token) = present(body.refresh_token.as_ref()) else {
                return Err(AuthApiError::validation("refresh_token required"));
            };
            api.service.refresh(refresh_token).await?
        }
        _ => return Err(AuthApiError::validation("unsupported_grant_type")),
    };
    Ok(HttpResponse::Ok().json(SessionDto::from(&session)))
}
