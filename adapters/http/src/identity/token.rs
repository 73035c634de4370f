//! `POST /auth/v1/token?grant_type=password|refresh_token` (supabase-js `signInWithPassword` and the
//! session refresh), and `pkce` (the end of a provider sign-in). `id_token` is answered "unsupported".

use actix_web::{HttpRequest, HttpResponse, web};
use domain::identity::Session;
use serde::Deserialize;

use super::{AuthApiError, AuthJson, IdentityApi, present};

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
    /// `grant_type=pkce`: the code the provider sign-in answered, and the verifier of its challenge.
    pub auth_code: Option<String>,
    pub code_verifier: Option<String>,
}

impl TokenBody {
    /// `grant_type=password`: the address (400 `validation_failed` without one) and the password.
    fn credentials(&self) -> Result<(&str, &str), AuthApiError> {
        let Some(email) = present(self.email.as_ref()) else {
            return Err(AuthApiError::validation("missing email or phone"));
        };
        Ok((email, self.password.as_deref().unwrap_or_default()))
    }

    /// `grant_type=refresh_token`: the refresh token (400 `validation_failed` without one).
    fn refresh_token(&self) -> Result<&str, AuthApiError> {
        present(self.refresh_token.as_ref()).ok_or_else(|| AuthApiError::validation("refresh_token required"))
    }
}

/// `grant_type=pkce`: the end of a provider sign-in, limited as a sign-in (400 `validation_failed`
/// `unsupported_grant_type` without providers).
async fn pkce(api: &IdentityApi, request: &HttpRequest, body: &TokenBody) -> Result<Session, AuthApiError> {
    let Some(oauth) = api.oauth.as_ref() else {
        return Err(AuthApiError::validation("unsupported_grant_type"));
    };
    let client = api.client(request).await;
    crate::oauth::exchange_pkce(
        oauth,
        &client,
        body.auth_code.as_deref(),
        body.code_verifier.as_deref(),
    )
    .await
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
    body: AuthJson<TokenBody>,
) -> Result<HttpResponse, AuthApiError> {
    let session = match query.grant_type.as_deref() {
        Some("password") => {
            let (email, password) = body.credentials()?;
            api.sign_in_with_password(&request, email, password).await?
        }
        Some("refresh_token") => api.services.sessions.refresh(body.refresh_token()?).await?,
        Some("pkce") => pkce(&api, &request, &body).await?,
        _ => return Err(AuthApiError::validation("unsupported_grant_type")),
    };
    Ok(api.answer_session(&request, &session).await)
}
