//! One error type for every handler, with an exhaustive status map and the JSON envelope
//! `{"error": "<human message>", "code": "<MACHINE_CODE>", "fields": {...}}` (PRODUCT.md §6).

use actix_web::http::StatusCode;
use actix_web::{HttpResponse, ResponseError, web};
use serde::Serialize;
use std::collections::BTreeMap;
use std::fmt;

/// An error answered to a client. 5xx variants log their cause and answer a generic message.
#[derive(Debug, thiserror::Error)]
pub enum ApiError {
    /// 400: the request is malformed or a rule refused it; `fields` (field or path → message) when the rule
    /// names fields (the app calls' `VALIDATION`).
    #[error("{message}")]
    BadRequest {
        code: &'static str,
        message: String,
        fields: Option<BTreeMap<String, String>>,
    },
    /// 401: no valid session.
    #[error("{0}")]
    Unauthorized(String),
    /// 403: signed in, but not allowed.
    #[error("{0}")]
    Forbidden(String),
    /// 403 with a code of its own: signed in, but the session must do more first (`MFA_REQUIRED`: pass
    /// the account's second factor).
    #[error("{message}")]
    ForbiddenUntil { code: &'static str, message: String },
    /// 404: nothing there (or nothing the caller may know exists).
    #[error("{0}")]
    NotFound(String),
    /// 409: the state does not allow it (duplicate, illegal transition, only admin…); `fields` when a field
    /// is the cause (a taken package name).
    #[error("{message}")]
    Conflict {
        code: &'static str,
        message: String,
        fields: Option<BTreeMap<String, String>>,
    },
    /// 405: the path exists but not for this method; `allow` lists the methods it answers.
    #[error("This endpoint does not answer {method}.")]
    MethodNotAllowed { method: String, allow: String },
    /// 408: the request's body did not arrive in time (a stalled or very slow client).
    #[error("The request body did not arrive in time.")]
    RequestTimeout,
    /// 413: the body is too large (`code` names what: `PAYLOAD_TOO_LARGE`, or the image rule's code).
    #[error("{message}")]
    PayloadTooLarge { code: &'static str, message: String },
    /// 415: the body's type is not accepted (`code` as above: `UNSUPPORTED_MEDIA_TYPE`, `INVALID_IMAGE_TYPE`).
    #[error("{message}")]
    UnsupportedMediaType { code: &'static str, message: String },
    /// 400 `VALIDATION`: field validation failed; `fields` maps each field (API spelling, or a path such as
    /// `settings[2].key`) to its message.
    #[error("{message}")]
    Validation {
        message: String,
        fields: BTreeMap<String, String>,
    },
    /// 429: too many attempts; `retry_after` in seconds; `message` names the limit ([`Self::RATE_LIMITED`]
    /// when there is nothing more to say).
    #[error("{message}")]
    TooManyRequests { message: String, retry_after: u64 },
    /// 503 with `Retry-After` (seconds): a dependency is down (`DATABASE_UNAVAILABLE`: the database cannot be
    /// reached). The adapter that noticed the outage logs its cause, once per outage.
    #[error("The service is temporarily unavailable. Please try again shortly.")]
    Unavailable { code: &'static str, retry_after: u64 },
    /// 500: a bug or an unexpected failure; the cause is logged, not answered.
    #[error("An unexpected error occurred. Please try again.")]
    Internal(#[source] Box<dyn std::error::Error + Send + Sync>),
}

/// The error envelope every error answers (PRODUCT.md §6); `ErrorBody` in the OpenAPI document.
#[derive(Debug, Serialize, utoipa::ToSchema)]
#[schema(as = ErrorBody)]
pub struct Envelope<'a> {
    /// A human-readable message, in the specification's wording where it gives one.
    #[schema(example = "Display name is required")]
    error: String,
    /// A machine-readable code, e.g. `VALIDATION`, `PROFILE_INCOMPLETE`, `RATE_LIMITED`.
    #[schema(example = "VALIDATION")]
    code: &'a str,
    /// Validation errors only: the field (API spelling or path such as `settings[2].key`) → message.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<BTreeMap<String, String>>, nullable = false)]
    fields: Option<&'a BTreeMap<String, String>>,
}

impl ApiError {
    /// The message of a 429 that names no particular limit.
    pub const RATE_LIMITED: &'static str = "Too many requests. Please try again later.";

    pub fn bad_request(code: &'static str, message: impl Into<String>) -> Self {
        Self::BadRequest {
            code,
            message: message.into(),
            fields: None,
        }
    }

    /// 413 with the generic code `PAYLOAD_TOO_LARGE`.
    pub fn payload_too_large(message: impl Into<String>) -> Self {
        Self::PayloadTooLarge {
            code: "PAYLOAD_TOO_LARGE",
            message: message.into(),
        }
    }

    /// 415 with the generic code `UNSUPPORTED_MEDIA_TYPE`.
    pub fn unsupported_media_type(message: impl Into<String>) -> Self {
        Self::UnsupportedMediaType {
            code: "UNSUPPORTED_MEDIA_TYPE",
            message: message.into(),
        }
    }

    pub fn conflict(code: &'static str, message: impl Into<String>) -> Self {
        Self::Conflict {
            code,
            message: message.into(),
            fields: None,
        }
    }

    /// The same error naming the fields at fault (400 and 409 answer them; other kinds ignore them).
    #[must_use]
    pub fn with_fields(mut self, named: BTreeMap<String, String>) -> Self {
        match &mut self {
            Self::BadRequest { fields, .. } | Self::Conflict { fields, .. } => *fields = Some(named),
            Self::Validation { fields, .. } => *fields = named,
            _ => {}
        }
        self
    }

    /// The machine-readable code of the envelope.
    #[must_use]
    pub fn code(&self) -> &'static str {
        match self {
            Self::BadRequest { code, .. }
            | Self::Conflict { code, .. }
            | Self::PayloadTooLarge { code, .. }
            | Self::UnsupportedMediaType { code, .. }
            | Self::ForbiddenUntil { code, .. } => code,
            Self::Unauthorized(_) => "UNAUTHORIZED",
            Self::Forbidden(_) => "FORBIDDEN",
            Self::NotFound(_) => "NOT_FOUND",
            Self::Validation { .. } => "VALIDATION",
            Self::TooManyRequests { .. } => "RATE_LIMITED",
            Self::MethodNotAllowed { .. } => "METHOD_NOT_ALLOWED",
            Self::RequestTimeout => "REQUEST_TIMEOUT",
            Self::Unavailable { code, .. } => code,
            Self::Internal(_) => "INTERNAL",
        }
    }
}

impl ResponseError for ApiError {
    fn status_code(&self) -> StatusCode {
        match self {
            Self::BadRequest { .. } => StatusCode::BAD_REQUEST,
            Self::Unauthorized(_) => StatusCode::UNAUTHORIZED,
            Self::Forbidden(_) | Self::ForbiddenUntil { .. } => StatusCode::FORBIDDEN,
            Self::NotFound(_) => StatusCode::NOT_FOUND,
            Self::Conflict { .. } => StatusCode::CONFLICT,
            Self::PayloadTooLarge { .. } => StatusCode::PAYLOAD_TOO_LARGE,
            Self::UnsupportedMediaType { .. } => StatusCode::UNSUPPORTED_MEDIA_TYPE,
            Self::Validation { .. } => StatusCode::BAD_REQUEST,
            Self::TooManyRequests { .. } => StatusCode::TOO_MANY_REQUESTS,
            Self::MethodNotAllowed { .. } => StatusCode::METHOD_NOT_ALLOWED,
            Self::RequestTimeout => StatusCode::REQUEST_TIMEOUT,
            Self::Unavailable { .. } => StatusCode::SERVICE_UNAVAILABLE,
            Self::Internal(_) => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }

    fn error_response(&self) -> HttpResponse {
        if let Self::Internal(cause) = self {
            tracing::error!(error.cause_chain = %CauseChain(cause.as_ref()), "request failed");
        }
        let fields = match self {
            Self::Validation { fields, .. } => Some(fields),
            Self::BadRequest { fields, .. } | Self::Conflict { fields, .. } => fields.as_ref(),
            _ => None,
        };
        let mut response = HttpResponse::build(self.status_code());
        match self {
            Self::TooManyRequests { retry_after, .. } | Self::Unavailable { retry_after, .. } => {
                response.insert_header(("Retry-After", retry_after.to_string()));
            }
            Self::MethodNotAllowed { allow, .. } => {
                response.insert_header(("Allow", allow.as_str()));
            }
            // The rest of the body was not read: the connection cannot carry another request.
            Self::RequestTimeout => {
                response.force_close();
            }
            _ => {}
        }
        response.json(Envelope {
            error: self.to_string(),
            code: self.code(),
            fields,
        })
    }
}

/// A repository's failure, for the use cases whose other errors are mapped by hand: the database being
/// unreachable is a 503 with `Retry-After` (`DATABASE_UNAVAILABLE`); any other failure a 500.
impl From<domain::common::RepoError> for ApiError {
    fn from(error: domain::common::RepoError) -> Self {
        match error {
            domain::common::RepoError::Unavailable { retry_after } => Self::database_unavailable(retry_after),
            other => Self::Internal(Box::new(other)),
        }
    }
}

impl ApiError {
    /// 503 `DATABASE_UNAVAILABLE` with `Retry-After` (whole seconds, at least one).
    #[must_use]
    pub fn database_unavailable(retry_after: std::time::Duration) -> Self {
        Self::Unavailable {
            code: "DATABASE_UNAVAILABLE",
            retry_after: retry_after.as_secs().max(1),
        }
    }
}

/// Formats an error with all its sources, for logs.
struct CauseChain<'a>(&'a (dyn std::error::Error + 'static));

impl fmt::Display for CauseChain<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)?;
        let mut source = self.0.source();
        while let Some(cause) = source {
            write!(f, ": {cause}")?;
            source = cause.source();
        }
        Ok(())
    }
}

/// Largest JSON body accepted (settings and tools of a big app fit well inside).
pub const MAX_JSON_BODY: usize = 1024 * 1024;

/// serde's description of a body of the wrong shape, without the server's own type names.
pub(crate) fn readable(cause: &serde_json::Error) -> String {
    let text = cause.to_string();
    let text = text.split(" at line ").next().unwrap_or_default();
    match text.find(", expected struct ") {
        Some(at) => format!("{}, expected a JSON object", &text[..at]),
        None => text.to_owned(),
    }
}

/// Malformed JSON bodies answer the envelope too, not actix's plain text.
pub fn json_config() -> web::JsonConfig {
    web::JsonConfig::default()
        .limit(MAX_JSON_BODY)
        .error_handler(|err, _req| {
            use actix_web::error::JsonPayloadError as E;
            let api = match &err {
                E::OverflowKnownLength { .. } | E::Overflow { .. } => {
                    ApiError::payload_too_large("The request body is too large.")
                }
                E::ContentType => ApiError::unsupported_media_type("Send the body as application/json."),
                E::Deserialize(cause) if cause.is_data() => ApiError::bad_request(
                    "INVALID_JSON",
                    format!(
                        "The request body does not have the expected shape: {}",
                        readable(cause)
                    ),
                ),
                _ => ApiError::bad_request("INVALID_JSON", "The request body is not valid JSON."),
            };
            api.into()
        })
}

pub fn query_config() -> web::QueryConfig {
    web::QueryConfig::default().error_handler(|err, _req| {
        ApiError::bad_request("INVALID_QUERY", format!("Invalid query parameters: {err}")).into()
    })
}

pub fn path_config() -> web::PathConfig {
    web::PathConfig::default().error_handler(|err, _req| {
        ApiError::bad_request("INVALID_PATH", format!("Invalid path: {err}")).into()
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use actix_web::body::to_bytes;

    async fn body_of(error: ApiError) -> (StatusCode, serde_json::Value) {
        let response = error.error_response();
        let status = response.status();
        let bytes = to_bytes(response.into_body()).await.unwrap();
        (status, serde_json::from_slice(&bytes).unwrap())
    }

    #[tokio::test]
    async fn a_validation_error_answers_400_validation_with_its_fields() {
        let fields = BTreeMap::from([("name".to_owned(), "Display name is required".to_owned())]);
        let (status, body) = body_of(ApiError::Validation {
            message: "Please fix the highlighted fields.".into(),
            fields,
        })
        .await;
        assert_eq!(status, StatusCode::BAD_REQUEST);
        assert_eq!(body["code"], "VALIDATION");
        assert_eq!(body["fields"]["name"], "Display name is required");
    }

    #[tokio::test]
    async fn a_bad_request_or_conflict_may_name_its_fields() {
        let fields = BTreeMap::from([("packageName".to_owned(), "taken".to_owned())]);
        let (status, body) =
            body_of(ApiError::conflict("PACKAGE_NAME_TAKEN", "taken").with_fields(fields)).await;
        assert_eq!(status, StatusCode::CONFLICT);
        assert_eq!(body["fields"]["packageName"], "taken");
        let (status, body) = body_of(ApiError::bad_request("NO_ORGANIZATION", "x")).await;
        assert_eq!(status, StatusCode::BAD_REQUEST);
        assert!(body.get("fields").is_none());
    }

    #[tokio::test]
    async fn an_internal_error_says_nothing_internal() {
        let cause: Box<dyn std::error::Error + Send + Sync> = "database password is hunter2".into();
        let (status, body) = body_of(ApiError::Internal(cause)).await;
        assert_eq!(status, StatusCode::INTERNAL_SERVER_ERROR);
        assert_eq!(body["error"], "An unexpected error occurred. Please try again.");
        assert!(!body.to_string().contains("hunter2"));
        assert!(body.get("fields").is_none());
    }

    #[tokio::test]
    async fn an_unreachable_database_answers_503_with_retry_after() {
        let error = ApiError::from(domain::common::RepoError::Unavailable {
            retry_after: std::time::Duration::from_secs(5),
        });
        let response = error.error_response();
        assert_eq!(response.status(), StatusCode::SERVICE_UNAVAILABLE);
        assert_eq!(response.headers().get("Retry-After").unwrap(), "5");
        let (_, body) = body_of(error).await;
        assert_eq!(body["code"], "DATABASE_UNAVAILABLE");
        let other = ApiError::from(domain::common::RepoError::NotFound);
        assert_eq!(other.status_code(), StatusCode::INTERNAL_SERVER_ERROR);
    }

    #[tokio::test]
    async fn a_rate_limit_carries_retry_after() {
        let response = ApiError::TooManyRequests {
            message: ApiError::RATE_LIMITED.into(),
            retry_after: 42,
        }
        .error_response();
        assert_eq!(response.status(), StatusCode::TOO_MANY_REQUESTS);
        assert_eq!(response.headers().get("Retry-After").unwrap(), "42");
    }

    #[test]
    fn every_variant_has_a_distinct_status() {
        let cause = || -> Box<dyn std::error::Error + Send + Sync> { "x".into() };
        let statuses: Vec<u16> = [
            ApiError::bad_request("X", "x"),
            ApiError::Unauthorized("x".into()),
            ApiError::Forbidden("x".into()),
            ApiError::NotFound("x".into()),
            ApiError::MethodNotAllowed {
                method: "PATCH".into(),
                allow: "GET".into(),
            },
            ApiError::RequestTimeout,
            ApiError::conflict("X", "x"),
            ApiError::payload_too_large("x"),
            ApiError::unsupported_media_type("x"),
            ApiError::Validation {
                message: "x".into(),
                fields: BTreeMap::new(),
            },
            ApiError::TooManyRequests {
                message: "x".into(),
                retry_after: 1,
            },
            ApiError::database_unavailable(std::time::Duration::from_secs(1)),
            ApiError::Internal(cause()),
        ]
        .iter()
        .map(|e| e.status_code().as_u16())
        .collect();
        assert_eq!(
            statuses,
            [400, 401, 403, 404, 405, 408, 409, 413, 415, 400, 429, 503, 500]
        );
    }
}
