//! The one JSON body extractor of every route ([`Json`]; `actix_web::web::Json` is refused by clippy).
//!
//! A body is read in three steps, before any handler sees it:
//! 1. as JSON, with the scope's `JsonConfig` (size limit, content type, the scope's own malformed-JSON
//!    answer);
//! 2. it must be a JSON object: serde would read an array as a struct's fields in order (`[]` on
//!    `share-emails` would clear the tester list, `[true]` on `visibility` would set it);
//! 3. no string of it holds a control character (the domain's rule, [`domain::common::text`]), so that both
//!    databases answer the same field error instead of PostgreSQL failing on a NUL that SQLite stores;
//!
//! then it becomes the handler's type. How each refusal is answered is the scope's: the product API's
//! envelope ([`ApiError`]) or the identity service's (`AuthApiError`), through [`BodyRefusal`].

use actix_web::dev::Payload;
use actix_web::{FromRequest, HttpRequest, ResponseError};
use domain::common::FieldErrors;
use domain::common::text::control_characters;
use serde::de::DeserializeOwned;
use serde_json::Value;
use std::future::Future;
use std::marker::PhantomData;
use std::pin::Pin;

use crate::ApiError;

/// How a scope answers a body that is JSON but not what the route reads.
pub trait BodyRefusal: ResponseError + Sized + 'static {
    /// The body is valid JSON but not an object; `found` says what it is (`invalid type: sequence`).
    fn not_an_object(found: &str) -> Self;
    /// A string of the body holds a control character; `fields` names each one by its path.
    fn control_characters(fields: FieldErrors) -> Self;
    /// The object does not have the route's shape (a missing field, a value of the wrong type).
    fn wrong_shape(cause: &serde_json::Error) -> Self;
}

/// A JSON object body read into `T` (the three steps of the module). `E` is the scope's error type: the
/// product API's [`ApiError`] unless said otherwise.
#[derive(Debug)]
pub struct Json<T, E = ApiError> {
    value: T,
    refusal: PhantomData<fn() -> E>,
}

impl<T, E> Json<T, E> {
    /// The body as read.
    pub fn into_inner(self) -> T {
        self.value
    }
}

impl<T, E> std::ops::Deref for Json<T, E> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.value
    }
}

impl<T: DeserializeOwned + 'static, E: BodyRefusal> FromRequest for Json<T, E> {
    type Error = actix_web::Error;
    type Future = Pin<Box<dyn Future<Output = Result<Self, actix_web::Error>>>>;

    fn from_request(request: &HttpRequest, payload: &mut Payload) -> Self::Future {
        #[allow(clippy::disallowed_types)] // The one place that reads with actix's extractor.
        let raw = actix_web::web::Json::<Value>::from_request(request, payload);
        Box::pin(async move {
            let body = raw.await?.into_inner();
            let value = read::<T, E>(body)?;
            Ok(Self {
                value,
                refusal: PhantomData,
            })
        })
    }
}

/// Steps 2 and 3, and the conversion to the route's type.
///
/// # Errors
/// The scope's refusal of step 2, 3, or of the shape.
pub fn read<T: DeserializeOwned, E: BodyRefusal>(body: Value) -> Result<T, E> {
    if !body.is_object() {
        // serde's own words for what came instead ("invalid type: string \"text\", expected a map").
        let found = serde_json::from_value::<serde_json::Map<String, Value>>(body)
            .err()
            .map(|cause| cause.to_string())
            .unwrap_or_default();
        let found = found.split(", expected").next().unwrap_or_default();
        return Err(E::not_an_object(found));
    }
    let fields = control_characters(&body);
    if !fields.is_empty() {
        return Err(E::control_characters(fields));
    }
    serde_json::from_value(body).map_err(|cause| E::wrong_shape(&cause))
}

/// The product API's answers: 400 `INVALID_JSON` for a body of the wrong shape, 400 `VALIDATION` with the
/// fields for control characters.
impl BodyRefusal for ApiError {
    fn not_an_object(found: &str) -> Self {
        Self::bad_request(
            "INVALID_JSON",
            format!("The request body does not have the expected shape: {found}, expected a JSON object"),
        )
    }

    fn control_characters(fields: FieldErrors) -> Self {
        Self::bad_request("VALIDATION", fields.first_message()).with_fields(fields.to_map())
    }

    fn wrong_shape(cause: &serde_json::Error) -> Self {
        Self::bad_request(
            "INVALID_JSON",
            format!(
                "The request body does not have the expected shape: {}",
                crate::error::readable(cause)
            ),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;
    use serde_json::json;

    #[derive(Debug, Deserialize)]
    #[serde(rename_all = "camelCase")]
    struct Visibility {
        shared_with_organization: Option<bool>,
    }

    #[derive(Debug, Deserialize)]
    struct Emails {
        #[serde(default)]
        emails: Vec<String>,
    }

    #[test]
    fn an_array_is_not_read_as_a_structs_fields() {
        // What serde alone does with an array: the struct's fields in order.
        let lenient: Visibility = serde_json::from_value(json!([true])).unwrap();
        assert_eq!(lenient.shared_with_organization, Some(true));
        let lenient: Emails = serde_json::from_value(json!([])).unwrap();
        assert!(lenient.emails.is_empty());

        for (body, found) in [
            (json!([true]), "invalid type: sequence"),
            (json!([]), "invalid type: sequence"),
            (json!("x"), "invalid type: string \"x\""),
            (json!(1), "invalid type: integer `1`"),
            (json!(null), "invalid type: null"),
            (json!(true), "invalid type: boolean `true`"),
        ] {
            let refused = read::<Visibility, ApiError>(body.clone()).unwrap_err();
            assert_eq!(refused.code(), "INVALID_JSON", "{body}");
            assert_eq!(
                refused.to_string(),
                format!("The request body does not have the expected shape: {found}, expected a JSON object")
            );
        }
        assert!(read::<Emails, ApiError>(json!([])).is_err());
        assert!(read::<Value, ApiError>(json!([1])).is_err());
    }

    #[test]
    fn an_object_is_read() {
        let read: Visibility = read::<_, ApiError>(json!({"sharedWithOrganization": true})).unwrap();
        assert_eq!(read.shared_with_organization, Some(true));
    }

    #[test]
    fn a_control_character_is_a_field_error_naming_its_path() {
        let refused = read::<Emails, ApiError>(json!({"emails": ["a@b.co", "c\u{0}@d.co"]})).unwrap_err();
        let ApiError::BadRequest { code, fields, .. } = &refused else {
            panic!("{refused:?}")
        };
        assert_eq!(*code, "VALIDATION");
        assert!(fields.as_ref().unwrap().contains_key("emails[1]"), "{fields:?}");
        assert_eq!(refused.to_string(), domain::common::text::CONTROL_CHARACTER);
    }

    #[test]
    fn a_value_of_the_wrong_type_names_no_server_type() {
        let refused = read::<Visibility, ApiError>(json!({"sharedWithOrganization": "yes"})).unwrap_err();
        assert_eq!(refused.code(), "INVALID_JSON");
        assert!(refused.to_string().contains("expected a boolean"), "{refused}");
    }
}
