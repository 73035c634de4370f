//! Supabase Auth's passkey endpoints (auth-js `registerPasskey`, `signInWithPasskey`, `passkey.*`):
//! `POST /passkeys/registration/options|verify`, `POST /passkeys/authentication/options|verify`,
//! `GET /passkeys`, `PATCH /passkeys/{id}`, `DELETE /passkeys/{id}`.
//!
//! A passkey sign-in is limited as a password sign-in is: per client address, failures per (account,
//! client address), and the account's failures everywhere only slow the owner down.

use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse, web};
use chrono::{DateTime, Utc};
use domain::identity::passkeys::{CeremonyOptions, Passkey, PasskeyService};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::sync::Arc;
use uuid::Uuid;

use super::{AuthApiError, AuthJson, IdentityApi, access_claims};

#[derive(Debug, Serialize)]
struct OptionsAnswer {
    challenge_id: String,
    options: Value,
    expires_at: i64,
}

impl From<CeremonyOptions> for OptionsAnswer {
    fn from(options: CeremonyOptions) -> Self {
        Self {
            challenge_id: options.challenge_id.to_string(),
            options: options.options,
            expires_at: options.expires_at.timestamp(),
        }
    }
}

/// Supabase Auth's `PasskeyListItem` (and, without `last_used_at`, its `PasskeyMetadata`).
#[derive(Debug, Serialize)]
struct PasskeyItem {
    id: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    friendly_name: Option<String>,
    created_at: DateTime<Utc>,
    #[serde(skip_serializing_if = "Option::is_none")]
    last_used_at: Option<DateTime<Utc>>,
}

impl From<&Passkey> for PasskeyItem {
    fn from(passkey: &Passkey) -> Self {
        Self {
            id: passkey.id.to_string(),
            friendly_name: passkey.friendly_name.clone(),
            created_at: passkey.created_at,
            last_used_at: passkey.last_used_at,
        }
    }
}

#[derive(Debug, Deserialize)]
pub struct VerifyBody {
    pub challenge_id: Option<String>,
    pub credential: Option<Value>,
}

impl VerifyBody {
    /// The challenge id and the credential, both required (400 `validation_failed` as Supabase Auth).
    fn parts(&self) -> Result<(Uuid, &Value), AuthApiError> {
        let challenge = self
            .challenge_id
            .as_deref()
            .map(str::trim)
            .filter(|c| !c.is_empty())
            .ok_or_else(|| AuthApiError::validation("challenge_id is required"))?;
        let challenge = Uuid::parse_str(challenge)
            .map_err(|_| AuthApiError::validation("challenge_id must be a valid UUID"))?;
        let credential = self
            .credential
            .as_ref()
            .filter(|c| c.is_object())
            .ok_or_else(|| AuthApiError::validation("credential is required"))?;
        Ok((challenge, credential))
    }
}

#[derive(Debug, Deserialize)]
pub struct RenameBody {
    pub friendly_name: Option<String>,
}

/// The passkey use cases (absent when the server serves no passkeys: 422 `passkey_disabled`).
fn service(api: &IdentityApi) -> Result<&Arc<PasskeyService>, AuthApiError> {
    api.passkeys.as_ref().ok_or_else(|| {
        AuthApiError::new(
            StatusCode::UNPROCESSABLE_ENTITY,
            "passkey_disabled",
            "Passkeys are disabled",
        )
    })
}

/// The passkey id of the path: 404 `validation_failed` when it is not a UUID (as Supabase Auth).
fn passkey_id(path: &str) -> Result<Uuid, AuthApiError> {
    Uuid::parse_str(path.trim())
        .map_err(|_| AuthApiError::new(StatusCode::NOT_FOUND, "validation_failed", "Passkey not found"))
}

/// `POST /passkeys/registration/options`: the options of `navigator.credentials.create` for a new
/// passkey of the signed-in account.
///
/// # Errors
/// 422 `too_many_passkeys`; 403 `insufficient_aal`; 401/403 as `GET /user`.
pub async fn registration_options(
    api: web::Data<IdentityApi>,
    request: HttpRequest,
) -> Result<HttpResponse, AuthApiError> {
    let claims = access_claims(&api, &request).await?;
    let options = service(&api)?.registration_options(&claims).await?;
    Ok(HttpResponse::Ok().json(OptionsAnswer::from(options)))
}

/// `POST /passkeys/registration/verify`: stores the passkey the browser created.
///
/// # Errors
/// 400 `validation_failed`, `webauthn_challenge_not_found`, `webauthn_challenge_expired`,
/// `webauthn_verification_failed`; 422 `webauthn_credential_exists`, `too_many_passkeys`; 403
/// `insufficient_aal`; 401/403 as `GET /user`.
pub async fn registration_verify(
    api: web::Data<IdentityApi>,
    request: HttpRequest,
    body: AuthJson<VerifyBody>,
) -> Result<HttpResponse, AuthApiError> {
    let (challenge, credential) = body.parts()?;
    let claims = access_claims(&api, &request).await?;
    let passkey = service(&api)?
        .registration_verify(&claims, challenge, credential)
        .await?;
    tracing::info!(user_id = %claims.sub, passkey_id = %passkey.id, "passkey registered");
    Ok(HttpResponse::Ok().json(PasskeyItem::from(&passkey)))
}

/// `POST /passkeys/authentication/options`: the options of `navigator.credentials.get` for a sign-in
/// with any passkey of this portal.
///
/// # Errors
/// 429 `over_request_rate_limit` per client address.
pub async fn authentication_options(
    api: web::Data<IdentityApi>,
    request: HttpRequest,
) -> Result<HttpResponse, AuthApiError> {
    let client = api.client(&request).await;
    let options = service(&api)?.authentication_options(&client).await?;
    Ok(HttpResponse::Ok().json(OptionsAnswer::from(options)))
}

/// `POST /passkeys/authentication/verify`: signs in with the passkey the browser chose; answers a session
/// at `aal2` (`amr` `passkey`).
///
/// # Errors
/// 400 `validation_failed`, `webauthn_challenge_not_found`, `webauthn_challenge_expired`,
/// `webauthn_verification_failed`, `email_not_confirmed`; 429 `over_request_rate_limit`.
pub async fn authentication_verify(
    api: web::Data<IdentityApi>,
    request: HttpRequest,
    body: AuthJson<VerifyBody>,
) -> Result<HttpResponse, AuthApiError> {
    let (challenge, credential) = body.parts()?;
    let client = api.client(&request).await;
    let passkeys = service(&api)?;
    let claim = passkeys.identify(&client, credential).await?;
    let email = claim.account.email.as_str().to_owned();
    let session = api
        .first_factor(&request, &email, |guarded| {
            passkeys.sign_in(guarded, challenge, credential, claim)
        })
        .await?;
    tracing::info!(user_id = %session.user.account.id, "signed in with a passkey");
    Ok(HttpResponse::Ok().json(super::dto::SessionDto::from(&session)))
}

/// `GET /passkeys`: the account's passkeys.
///
/// # Errors
/// 401/403 as `GET /user`.
pub async fn list(api: web::Data<IdentityApi>, request: HttpRequest) -> Result<HttpResponse, AuthApiError> {
    let claims = access_claims(&api, &request).await?;
    let passkeys = service(&api)?.list(&claims).await?;
    Ok(HttpResponse::Ok().json(passkeys.iter().map(PasskeyItem::from).collect::<Vec<_>>()))
}

/// `PATCH /passkeys/{id}`: renames a passkey.
///
/// # Errors
/// 400 `validation_failed` (`friendly_name`); 404 `validation_failed`; 401/403 as `GET /user`.
pub async fn rename(
    api: web::Data<IdentityApi>,
    request: HttpRequest,
    path: web::Path<String>,
    body: AuthJson<RenameBody>,
) -> Result<HttpResponse, AuthApiError> {
    let id = passkey_id(&path)?;
    let claims = access_claims(&api, &request).await?;
    let name = body.friendly_name.as_deref().unwrap_or_default();
    let passkey = service(&api)?.rename(&claims, id, name).await?;
    Ok(HttpResponse::Ok().json(PasskeyItem::from(&passkey)))
}

/// `DELETE /passkeys/{id}`: removes a passkey (204).
///
/// # Errors
/// 404 `validation_failed`; 403 `insufficient_aal`; 401/403 as `GET /user`.
pub async fn delete(
    api: web::Data<IdentityApi>,
    request: HttpRequest,
    path: web::Path<String>,
) -> Result<HttpResponse, AuthApiError> {
    let id = passkey_id(&path)?;
    let claims = access_claims(&api, &request).await?;
    let removed = service(&api)?.delete(&claims, id).await?;
    tracing::info!(user_id = %claims.sub, passkey_id = %removed.id, "passkey removed");
    Ok(HttpResponse::NoContent().finish())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_verification_needs_a_uuid_challenge_and_a_credential_object() {
        let body = |challenge: Option<&str>, credential: Option<Value>| VerifyBody {
            challenge_id: challenge.map(str::to_owned),
            credential,
        };
        let refused = |b: VerifyBody| b.parts().map(|_| ()).unwrap_err().msg;
        assert_eq!(
            refused(body(None, Some(serde_json::json!({})))),
            "challenge_id is required"
        );
        assert_eq!(
            refused(body(Some("nope"), Some(serde_json::json!({})))),
            "challenge_id must be a valid UUID"
        );
        let id = Uuid::new_v4().to_string();
        assert_eq!(refused(body(Some(&id), None)), "credential is required");
        assert_eq!(
            refused(body(Some(&id), Some(serde_json::json!("x")))),
            "credential is required"
        );
        assert!(
            body(Some(&id), Some(serde_json::json!({"id": "a"})))
                .parts()
                .is_ok()
        );
    }

    #[test]
    fn a_passkey_id_that_is_not_a_uuid_is_not_found() {
        let refused = passkey_id("nope").unwrap_err();
        assert_eq!(
            (refused.status.as_u16(), refused.code),
            (404, "validation_failed")
        );
    }
}
