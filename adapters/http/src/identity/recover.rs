//! `POST /auth/v1/recover` (supabase-js `resetPasswordForEmail`).

use actix_web::{HttpRequest, HttpResponse, web};
use serde::Deserialize;
use serde_json::json;

use super::{AuthApiError, AuthJson, IdentityApi, RedirectQuery, present};

#[derive(Debug, Deserialize)]
pub struct RecoverBody {
    pub email: Option<String>,
}

/// E-mails a recovery link and code when the address has an account; answers `{}` either way.
///
/// # Errors
/// 400 `validation_failed` (no or invalid e-mail); 429 `over_email_send_rate_limit`.
pub async fn recover(
    api: web::Data<IdentityApi>,
    request: HttpRequest,
    query: web::Query<RedirectQuery>,
    body: AuthJson<RecoverBody>,
) -> Result<HttpResponse, AuthApiError> {
    let Some(email) = present(body.email.as_ref()) else {
        return Err(AuthApiError::validation("Password recovery requires an email"));
    };
    let client = api.client(&request).await;
    api.services
        .email
        .request_recovery(&client, email, query.redirect_to.as_deref())
        .await?;
    Ok(HttpResponse::Ok().json(json!({})))
}
