//! Supabase Auth's recovery codes (auth-js `mfa.recoveryCodes.getStatus/generate/verify/regenerate/unenroll`):
//! `GET|POST|DELETE /factors/recovery-codes`, `POST /factors/recovery-codes/verify` and
//! `POST /factors/recovery-codes/regenerate`. The set appears in `GET /user`'s `factors` as a verified
//! `recovery_code` factor.
//!
//! Verifications are limited as TOTP verifications (and password sign-ins) are: per client address, failures
//! per (account, client address) refused with 429, and the account's failures from every client together
//! only slow the owner down.

use actix_web::{HttpRequest, HttpResponse, web};
use domain::identity::{Proof, RecoveryCodeSet};
use serde::{Deserialize, Serialize};

use super::{AuthApiError, AuthJson, IdentityApi, access_claims};

const FACTOR_TYPE: &str = "recovery_code";

#[derive(Debug, Serialize)]
struct StatusAnswer {
    id: String,
    #[serde(rename = "type")]
    factor_type: &'static str,
    total: usize,
    remaining: usize,
}

#[derive(Debug, Serialize)]
struct SetAnswer {
    id: String,
    #[serde(rename = "type")]
    factor_type: &'static str,
    friendly_name: String,
    total: usize,
    codes: Vec<String>,
}

impl From<RecoveryCodeSet> for SetAnswer {
    fn from(set: RecoveryCodeSet) -> Self {
        Self {
            id: set.factor.id.to_string(),
            factor_type: FACTOR_TYPE,
            friendly_name: set.factor.display_name().to_owned(),
            total: set.codes.len(),
            codes: set.codes,
        }
    }
}

/// `GET /factors/recovery-codes`: the set's size and unused codes, never the codes.
///
/// # Errors
/// 404 `mfa_factor_not_found` without a set; 401/403 as `GET /user`.
pub async fn status(api: web::Data<IdentityApi>, request: HttpRequest) -> Result<HttpResponse, AuthApiError> {
    let claims = access_claims(&api, &request).await?;
    let status = api.services.factors.recovery_codes_status(&claims).await?;
    Ok(HttpResponse::Ok().json(StatusAnswer {
        id: status.factor_id.to_string(),
        factor_type: FACTOR_TYPE,
        total: status.counts.total,
        remaining: status.counts.remaining,
    }))
}

#[derive(Debug, Deserialize)]
pub struct GenerateBody {
    pub friendly_name: Option<String>,
}

/// `POST /factors/recovery-codes` (the body is optional): the account's first set, answered once.
///
/// # Errors
/// 403 `insufficient_aal`; 422 `mfa_recovery_codes_sole_factor`, `mfa_verified_factor_exists`,
/// `mfa_factor_name_conflict`, `too_many_enrolled_mfa_factors`; 400 `validation_failed`; 401/403 as
/// `GET /user`.
pub async fn generate(
    api: web::Data<IdentityApi>,
    request: HttpRequest,
    body: Option<AuthJson<GenerateBody>>,
) -> Result<HttpResponse, AuthApiError> {
    let claims = access_claims(&api, &request).await?;
    let name = body.as_ref().and_then(|b| b.friendly_name.as_deref());
    let set = api
        .services
        .factors
        .generate_recovery_codes(&claims, name)
        .await?;
    tracing::info!(user_id = %claims.sub, factor_id = %set.factor.id, "recovery codes made");
    Ok(HttpResponse::Ok().json(SetAnswer::from(set)))
}

/// `POST /factors/recovery-codes/regenerate`: a new set; the old codes stop working at once.
///
/// # Errors
/// 403 `insufficient_aal`; 404 `mfa_factor_not_found` without a set; 401/403 as `GET /user`.
pub async fn regenerate(
    api: web::Data<IdentityApi>,
    request: HttpRequest,
) -> Result<HttpResponse, AuthApiError> {
    let claims = access_claims(&api, &request).await?;
    let set = api.services.factors.regenerate_recovery_codes(&claims).await?;
    tracing::info!(user_id = %claims.sub, factor_id = %set.factor.id, "recovery codes made anew");
    Ok(HttpResponse::Ok().json(SetAnswer::from(set)))
}

#[derive(Debug, Deserialize)]
pub struct VerifyBody {
    pub code: Option<String>,
}

impl VerifyBody {
    /// The code, trimmed (400 `validation_failed` when empty).
    fn code(&self) -> Result<&str, AuthApiError> {
        let code = self.code.as_deref().map(str::trim).unwrap_or_default();
        if code.is_empty() {
            return Err(AuthApiError::validation("Code needs to be non-empty"));
        }
        Ok(code)
    }
}

/// `POST /factors/recovery-codes/verify`: a right, unused code raises the session to `aal2` (a new token
/// pair of the same session).
///
/// # Errors
/// 400 `validation_failed` without a code; 404 `mfa_factor_not_found` without a set; 422
/// `mfa_verification_failed`; 429 `over_request_rate_limit`; 401/403 as `GET /user`.
pub async fn verify(
    api: web::Data<IdentityApi>,
    request: HttpRequest,
    body: AuthJson<VerifyBody>,
) -> Result<HttpResponse, AuthApiError> {
    let code = body.code()?;
    let claims = access_claims(&api, &request).await?;
    let factors = &api.services.factors;
    let proof = Proof::SecondFactor { challenge: None };
    let session = api
        .second_factor(&request, claims.email.as_str(), proof, |guarded| {
            factors.verify_recovery_code(guarded, &claims, code)
        })
        .await?;
    tracing::info!(user_id = %claims.sub, "recovery code used; session at aal2");
    Ok(api.answer_session(&request, &session).await)
}

#[derive(Debug, Serialize)]
struct UnenrollAnswer {
    id: String,
}

/// `DELETE /factors/recovery-codes`: removes the set.
///
/// # Errors
/// 404 `mfa_factor_not_found` without a set; 422 `insufficient_aal` from an `aal1` session; 401/403 as
/// `GET /user`.
pub async fn unenroll(
    api: web::Data<IdentityApi>,
    request: HttpRequest,
) -> Result<HttpResponse, AuthApiError> {
    let claims = access_claims(&api, &request).await?;
    let removed = api.services.factors.unenroll_recovery_codes(&claims).await?;
    tracing::info!(user_id = %claims.sub, factor_id = %removed, "recovery codes removed");
    Ok(HttpResponse::Ok().json(UnenrollAnswer {
        id: removed.to_string(),
    }))
}
