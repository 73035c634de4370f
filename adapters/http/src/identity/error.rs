//! Errors of `/auth/v1` in the Supabase Auth (GoTrue) shape, so that `@supabase/supabase-js` raises an
//! `AuthApiError` with the right `status` and `code`: `{"code": "<error_code>", "error_code": "<error_code>",
//! "msg": "<message>"}` with the status GoTrue uses. `code` is the string error code because every response
//! of this scope carries `x-supabase-api-version: 2024-01-01` (auth-js then reads `code`); `error_code`
//! serves clients that read the older field. A 5xx logs its cause and says nothing internal.

use actix_web::http::StatusCode;
use actix_web::{HttpResponse, ResponseError};
use domain::identity::IdentityError;
use serde::Serialize;
use std::fmt;

/// An error answered by the identity service.
#[derive(Debug)]
pub struct AuthApiError {
    pub status: StatusCode,
    pub code: &'static str,
    pub msg: String,
    /// `weak_password.reasons` of a refused password.
    pub weak_password: Option<Vec<&'static str>>,
    /// Seconds for `Retry-After` (429).
    pub retry_after: Option<u64>,
    cause: Option<Box<dyn std::error::Error + Send + Sync>>,
}

impl fmt::Display for AuthApiError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}: {}", self.status.as_u16(), self.code, self.msg)
    }
}

impl std::error::Error for AuthApiError {}

#[derive(Serialize)]
struct WeakPassword<'a> {
    reasons: &'a [&'static str],
}

#[derive(Serialize)]
struct Body<'a> {
    code: &'a str,
    error_code: &'a str,
    msg: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    weak_password: Option<WeakPassword<'a>>,
}

pub const UNEXPECTED: &str = "Unexpected failure, please check server logs for more information";

impl AuthApiError {
    #[must_use]
    pub fn new(status: StatusCode, code: &'static str, msg: impl Into<String>) -> Self {
        Self {
            status,
            code,
            msg: msg.into(),
            weak_password: None,
            retry_after: None,
            cause: None,
        }
    }

    /// 400 `validation_failed`.
    #[must_use]
    pub fn validation(msg: impl Into<String>) -> Self {
        Self::new(StatusCode::BAD_REQUEST, "validation_failed", msg)
    }

    /// 400 `phone_provider_disabled`: phone numbers are not offered.
    #[must_use]
    pub fn phone_provider_disabled(msg: &'static str) -> Self {
        Self::new(StatusCode::BAD_REQUEST, "phone_provider_disabled", msg)
    }

    /// 401 `no_authorization`: no bearer token at all.
    #[must_use]
    pub fn no_authorization() -> Self {
        Self::new(
            StatusCode::UNAUTHORIZED,
            "no_authorization",
            "This endpoint requires a valid Bearer token",
        )
    }

    /// 429 with `Retry-After`: `over_email_send_rate_limit` for e-mail sending, else
    /// `over_request_rate_limit`.
    #[must_use]
    pub fn rate_limited(sends_email: bool, retry_after: u64) -> Self {
        let (code, msg) = if sends_email {
            ("over_email_send_rate_limit", "email rate limit exceeded")
        } else {
            ("over_request_rate_limit", "Request rate limit reached")
        };
        Self {
            retry_after: Some(retry_after),
            ..Self::new(StatusCode::TOO_MANY_REQUESTS, code, msg)
        }
    }

    /// 503 `database_unavailable` with `Retry-After`: the database cannot be reached (logged once per
    /// outage by the database adapter, not here).
    #[must_use]
    pub fn unavailable(retry_after: std::time::Duration) -> Self {
        Self {
            retry_after: Some(retry_after.as_secs().max(1)),
            ..Self::new(
                StatusCode::SERVICE_UNAVAILABLE,
                "database_unavailable",
                "The service is temporarily unavailable. Please try again shortly.",
            )
        }
    }

    /// 500 `unexpected_failure`; the cause is logged, not answered.
    #[must_use]
    pub fn internal(cause: impl Into<Box<dyn std::error::Error + Send + Sync>>) -> Self {
        Self {
            cause: Some(cause.into()),
            ..Self::new(
                StatusCode::INTERNAL_SERVER_ERROR,
                "unexpected_failure",
                UNEXPECTED,
            )
        }
    }
}

/// A store's failure: 503 while the database cannot be reached, else 500.
impl From<domain::common::RepoError> for AuthApiError {
    fn from(error: domain::common::RepoError) -> Self {
        match error {
            domain::common::RepoError::Unavailable { retry_after } => Self::unavailable(retry_after),
            other => Self::internal(other),
        }
    }
}

impl From<IdentityError> for AuthApiError {
    fn from(error: IdentityError) -> Self {
        use IdentityError as E;
        let code = error.error_code();
        let status = match &error {
            E::Validation(fields) if fields.get("password").is_some() && fields.get("email").is_none() => {
                StatusCode::UNPROCESSABLE_ENTITY
            }
            E::Validation(_)
            | E::InvalidCredentials
            | E::EmailNotConfirmed
            | E::RefreshTokenNotFound
            | E::RefreshTokenReused
            | E::SessionExpired
            | E::ReauthenticationNeeded
            | E::RecentSignInNeeded
            | E::WebAuthnChallengeNotFound
            | E::WebAuthnChallengeExpired
            | E::WebAuthnVerificationFailed => StatusCode::BAD_REQUEST,
            E::UserAlreadyExists
            | E::SignupsDisabled
            | E::ProviderEmailMissing
            | E::AccountNotLinkable
            | E::EmailChangeUnsupported => StatusCode::UNPROCESSABLE_ENTITY,
            E::ChallengeNotFound
            | E::ChallengeIpMismatch
            | E::ChallengeExpired(_)
            | E::TotpCodeInvalid
            | E::Aal2RequiredToUnenroll
            | E::FactorNameConflict(_)
            | E::TooManyFactors
            | E::FactorTypeNotEnabled(_)
            | E::FactorVerifyNotEnabled
            | E::RecoveryCodeInvalid
            | E::RecoveryCodesExist
            | E::RecoveryCodesSoleFactor
            | E::RecoveryCodesNotChallenged
            | E::WebAuthnCredentialExists
            | E::TooManyPasskeys => StatusCode::UNPROCESSABLE_ENTITY,
            E::InvalidCode
            | E::InvalidAccessToken(_)
            | E::SessionNotFound
            | E::UserNotFound
            | E::Aal2RequiredToEnroll
            | E::Aal2RequiredToUpdateUser
            | E::Aal2RequiredToSignOutOthers
            | E::Aal2RequiredForPasskeys => StatusCode::FORBIDDEN,
            E::RateLimited { retry_after_secs } => {
                tracing::warn!("identity rate limit reached");
                return Self::rate_limited(false, *retry_after_secs);
            }
            E::EmailRateLimited { retry_after_secs } => {
                tracing::warn!("identity e-mail rate limit reached");
                return Self::rate_limited(true, *retry_after_secs);
            }
            E::FactorNotFound | E::PasskeyNotFound => StatusCode::NOT_FOUND,
            E::Repo(domain::common::RepoError::Unavailable { retry_after }) => {
                return Self::unavailable(*retry_after);
            }
            E::Hasher(_) | E::Signing(_) | E::Repo(_) => return Self::internal(error),
        };
        let weak_password = (code == "weak_password").then(Vec::new);
        let msg = match &error {
            E::InvalidAccessToken(_) => "invalid JWT: unable to parse or verify signature".to_owned(),
            E::UserNotFound => "User from sub claim in JWT does not exist".to_owned(),
            other => other.to_string(),
        };
        Self {
            weak_password,
            ..Self::new(status, code, msg)
        }
    }
}

impl AuthApiError {
    /// Logs the cause of a 5xx (once, where it is answered).
    pub fn log_cause(&self) {
        if let Some(cause) = &self.cause {
            tracing::error!(error.cause = %cause, "identity request failed");
        }
    }
}

impl ResponseError for AuthApiError {
    fn status_code(&self) -> StatusCode {
        self.status
    }

    fn error_response(&self) -> HttpResponse {
        self.log_cause();
        let mut response = HttpResponse::build(self.status);
        response.insert_header(("x-sb-error-code", self.code));
        if let Some(seconds) = self.retry_after {
            response.insert_header(("Retry-After", seconds.to_string()));
        }
        response.json(Body {
            code: self.code,
            error_code: self.code,
            msg: &self.msg,
            weak_password: self
                .weak_password
                .as_deref()
                .map(|reasons| WeakPassword { reasons }),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use actix_web::body::to_bytes;
    use domain::common::{FieldErrors, RepoError};

    async fn body(error: AuthApiError) -> (u16, serde_json::Value) {
        let response = error.error_response();
        let status = response.status().as_u16();
        let bytes = to_bytes(response.into_body()).await.unwrap();
        (status, serde_json::from_slice(&bytes).unwrap())
    }

    #[actix_web::test]
    async fn wrong_credentials_are_400_invalid_credentials() {
        let (status, json) = body(IdentityError::InvalidCredentials.into()).await;
        assert_eq!(status, 400);
        assert_eq!(
            json,
            serde_json::json!({"code": "invalid_credentials", "error_code": "invalid_credentials", "msg": "Invalid login credentials"})
        );
    }

    #[actix_web::test]
    async fn a_weak_password_is_422_with_its_payload() {
        let error = IdentityError::Validation(FieldErrors::single("password", "Password is too short"));
        let (status, json) = body(error.into()).await;
        assert_eq!(status, 422);
        assert_eq!(json["code"], "weak_password");
        assert_eq!(json["weak_password"]["reasons"], serde_json::json!([]));
    }

    #[actix_web::test]
    async fn a_used_code_is_403_otp_expired() {
        let (status, json) = body(IdentityError::InvalidCode.into()).await;
        assert_eq!((status, json["code"].as_str()), (403, Some("otp_expired")));
    }

    #[actix_web::test]
    async fn a_store_failure_is_500_and_says_nothing_internal() {
        let error = IdentityError::Repo(RepoError::backend("reading", "password=hunter2"));
        let (status, json) = body(error.into()).await;
        assert_eq!(status, 500);
        assert_eq!(json["msg"], UNEXPECTED);
        assert!(!json.to_string().contains("hunter2"));
    }

    #[actix_web::test]
    async fn a_rate_limit_carries_retry_after() {
        let response = AuthApiError::rate_limited(true, 30).error_response();
        assert_eq!(response.status().as_u16(), 429);
        assert_eq!(response.headers().get("Retry-After").unwrap(), "30");
        assert_eq!(
            response.headers().get("x-sb-error-code").unwrap(),
            "over_email_send_rate_limit"
        );
    }
}
