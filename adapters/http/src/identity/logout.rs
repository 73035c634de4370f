//! `POST /auth/v1/logout?scope=global|local|others` (supabase-js `signOut`).

use actix_web::{HttpRequest, HttpResponse, web};
use domain::identity::SignOutScope;
use serde::Deserialize;

use super::{AuthApiError, IdentityApi, access_claims};

#[derive(Debug, Deserialize)]
pub struct LogoutQuery {
    pub scope: Option<String>,
}

/// Ends the sessions of the scope (default `global`); 204.
///
/// # Errors
/// 400 `validation_failed` for another scope; 401/403 as `GET /user`.
pub async fn logout(
    api: web::Data<IdentityApi>,
    request: HttpRequest,
    query: web::Query<LogoutQuery>,
) -> Result<HttpResponse, AuthApiError> {
    let scope = match query.scope.as_deref() {
        None | Some("" | "global") => SignOutScope::Global,
        Some("local") => SignOutScope::Local,
        Some("others") => SignOutScope::Others,
        Some(other) => {
            return Err(AuthApiError::validation(format!(
                "Unsupported logout scope {other:?}"
            )));
        }
    };
    let claims = access_claims(&api, &request).await?;
    api.services.sessions.sign_out(&claims, scope).await?;
    Ok(HttpResponse::NoContent().finish())
}
