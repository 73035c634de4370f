//! How `/auth/v1` reads request bodies and queries, and refuses them in this service's own error shape.

use actix_web::web;

use super::AuthApiError;

/// A JSON object body of `/auth/v1`, refused in this service's own shape ([`crate::json`]).
pub type AuthJson<T> = crate::json::Json<T, AuthApiError>;

/// `bad_json` for a body that is not an object or not of the route's shape; `email_address_invalid` (an
/// address) or `validation_failed` (anything else) for a text with a control character.
impl crate::json::BodyRefusal for AuthApiError {
    fn not_an_object(found: &str) -> Self {
        Self::new(
            actix_web::http::StatusCode::BAD_REQUEST,
            "bad_json",
            format!("Could not parse request body as JSON: {found}, expected a JSON object"),
        )
    }

    fn control_characters(fields: domain::common::FieldErrors) -> Self {
        let code = if fields.contains("email") {
            "email_address_invalid"
        } else {
            "validation_failed"
        };
        let field = fields.fields().next().unwrap_or("body").to_owned();
        Self::new(
            actix_web::http::StatusCode::BAD_REQUEST,
            code,
            format!("{field}: {}", fields.first_message()),
        )
    }

    fn wrong_shape(cause: &serde_json::Error) -> Self {
        Self::new(
            actix_web::http::StatusCode::BAD_REQUEST,
            "bad_json",
            format!("Could not parse request body as JSON: {cause}"),
        )
    }
}

pub(super) fn json_config() -> web::JsonConfig {
    web::JsonConfig::default()
        .limit(64 * 1024)
        .error_handler(|err, _req| json_refusal(&err).into())
}

/// A body that could not be read: 413 `request_too_large` over the limit (not a JSON error: the body was
/// never read whole), 400 `bad_json` otherwise.
fn json_refusal(err: &actix_web::error::JsonPayloadError) -> AuthApiError {
    use actix_web::error::JsonPayloadError;
    match err {
        JsonPayloadError::Overflow { .. } | JsonPayloadError::OverflowKnownLength { .. } => {
            AuthApiError::new(
                actix_web::http::StatusCode::PAYLOAD_TOO_LARGE,
                "request_too_large",
                "Request body is larger than 64 KB",
            )
        }
        other => AuthApiError::new(
            actix_web::http::StatusCode::BAD_REQUEST,
            "bad_json",
            format!("Could not parse request body as JSON: {other}"),
        ),
    }
}

pub(super) fn query_config() -> web::QueryConfig {
    web::QueryConfig::default().error_handler(|err, _req| {
        AuthApiError::validation(format!("Invalid query parameters: {err}")).into()
    })
}
