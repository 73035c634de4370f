//! `GET /auth/v1/user` and `PUT /auth/v1/user` (supabase-js `getUser`, `updateUser`). Only an identity
//! access token is accepted: a core token, a refresh token or the anon key is refused.

use actix_web::{HttpRequest, HttpResponse, web};
use domain::identity::{GivenPassword, UserUpdate};
use serde::Deserialize;
use serde_json::Value;

use super::dto::UserDto;
use super::{AuthApiError, AuthJson, IdentityApi, access_claims};

/// # Errors
/// 401 `no_authorization` without a bearer; 403 `bad_jwt` for anything but a valid access token; 403
/// `user_not_found`.
pub async fn get_user(
    api: web::Data<IdentityApi>,
    request: HttpRequest,
) -> Result<HttpResponse, AuthApiError> {
    let claims = access_claims(&api, &request).await?;
    let user = api.services.account.get_user(&claims).await?;
    Ok(HttpResponse::Ok().json(UserDto::from(&user)))
}

#[derive(Debug, Deserialize)]
pub struct UpdateUserBody {
    pub email: Option<String>,
    pub password: Option<String>,
    pub current_password: Option<String>,
    pub data: Option<Value>,
}

impl UpdateUserBody {
    /// What to change.
    fn update(&self) -> UserUpdate<'_> {
        UserUpdate {
            email: self.email.as_deref(),
            password: self.password.as_deref(),
            data: self.data.as_ref(),
        }
    }
}

/// # Errors
/// As [`get_user`], and 422 `weak_password`, 400 `reauthentication_needed`, 400 `invalid_credentials` (a
/// wrong current password), 422 `feature_not_supported` (another e-mail address).
pub async fn update_user(
    api: web::Data<IdentityApi>,
    request: HttpRequest,
    body: AuthJson<UpdateUserBody>,
) -> Result<HttpResponse, AuthApiError> {
    let claims = access_claims(&api, &request).await?;
    let update = body.update();
    let account = &api.services.account;
    // A current password given is an answer to "prove it's you": limited as a password sign-in is.
    let user = match body.current_password.as_deref() {
        Some(password) => {
            api.first_factor(&request, claims.email.as_str(), |guarded| {
                account.update_user(&claims, update, Some(GivenPassword { guarded, password }))
            })
            .await?
        }
        None => account.update_user(&claims, update, None).await?,
    };
    Ok(HttpResponse::Ok().json(UserDto::from(&user)))
}
