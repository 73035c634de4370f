//! The lenient body reader of the app calls: a JSON body read into its type with field errors instead of one
//! parse error, each entry of the list fields checked on its own (`settings[2]`, `permissions[0].type`).

use domain::apps::Permission;
use domain::common::FieldErrors;
use serde::de::DeserializeOwned;
use serde_json::Value;

use super::validation;
use crate::ApiError;

/// serde's description of a value of the wrong shape, without the server's type names or positions.
fn shape_message(error: &serde_json::Error) -> String {
    let text = error.to_string();
    let text = text.split(" at line ").next().unwrap_or_default().to_owned();
    format!("Invalid value: {text}")
}

/// When serde refused an entry of a list field for an unknown enum value (a permission `type`, a hardware
/// `level`…): the key holding it and a message naming it and the values there are
/// (`Unknown type "LASER". Use one of: MICROPHONE, …`).
fn unknown_value<'a>(item: &'a Value, error: &serde_json::Error) -> Option<(&'a str, String)> {
    let text = error.to_string();
    let rest = text.strip_prefix("unknown variant `")?;
    let (value, rest) = rest.split_once('`')?;
    let (key, _) = item
        .as_object()?
        .iter()
        .find(|(_, sent)| sent.as_str() == Some(value))?;
    // serde lists them as "expected `A`", "expected `A` or `B`" or "expected one of `A`, `B`, `C`".
    let listed = rest.split_once("expected ").map_or("", |(_, list)| list);
    let listed = listed.strip_prefix("one of ").unwrap_or(listed);
    let known: Vec<&str> = listed
        .split(" at line ")
        .next()
        .unwrap_or_default()
        .split([',', ' '])
        .filter(|word| *word != "or")
        .map(|name| name.trim_matches('`'))
        .filter(|name| !name.is_empty())
        .collect();
    let message = if known.is_empty() {
        format!("Unknown {key} \"{value}\".")
    } else {
        format!("Unknown {key} \"{value}\". Use one of: {}.", known.join(", "))
    };
    Some((key.as_str(), message))
}

/// Reads a JSON body into `T` with field errors instead of one parse error: each entry of the listed
/// array fields is checked on its own (`settings[2]`, `permissions[0].type`), then the body as a whole.
/// The body is an object already ([`Json`] refuses anything else).
pub(super) fn read_body<T: DeserializeOwned>(body: &Value, lists: &[ListCheck]) -> Result<T, ApiError> {
    let mut fields = FieldErrors::new();
    for (name, check) in lists {
        match body.get(*name) {
            None | Some(Value::Null) => {}
            Some(Value::Array(items)) => {
                for (index, item) in items.iter().enumerate() {
                    if let Err(error) = check(item) {
                        match unknown_value(item, &error) {
                            Some((key, text)) => fields.add(format!("{name}[{index}].{key}"), text),
                            None => fields.add(format!("{name}[{index}]"), shape_message(&error)),
                        }
                    }
                }
            }
            Some(_) => fields.add(*name, format!("{name} must be a list")),
        }
    }
    if !fields.is_empty() {
        return Err(validation(fields));
    }
    serde_json::from_value(body.clone()).map_err(|error| {
        ApiError::bad_request(
            "INVALID_JSON",
            format!(
                "The request body does not have the expected shape: {}",
                shape_message(&error).trim_start_matches("Invalid value: ")
            ),
        )
    })
}

/// A list field of a body and the check of one of its entries.
pub(super) type ListCheck = (&'static str, fn(&Value) -> Result<(), serde_json::Error>);

fn check<T: DeserializeOwned>(value: &Value) -> Result<(), serde_json::Error> {
    T::deserialize(value).map(|_| ())
}

pub(super) const PERMISSIONS: ListCheck = ("permissions", check::<Permission>);
pub(super) const HARDWARE: ListCheck = ("hardwareRequirements", check::<domain::apps::HardwareRequirement>);
pub(super) const SETTINGS: ListCheck = ("settings", check::<domain::apps::Setting>);
pub(super) const TOOLS: ListCheck = ("tools", check::<domain::apps::Tool>);

#[cfg(test)]
mod tests {
    use super::*;
    use domain::apps::service::AppError;
    use domain::apps::validation::{RegistrationInput, UpdateInput};
    use serde_json::json;

    #[test]
    fn a_malformed_list_entry_is_named_by_its_path() {
        let body = json!({"permissions": [{"type": "CAMERA"}, {"type": "TELEPATHY"}]});
        let err = read_body::<RegistrationInput>(&body, &[PERMISSIONS]).unwrap_err();
        assert_eq!(err.code(), "VALIDATION");
        let ApiError::Validation { fields, .. } = err else {
            panic!("{err:?}")
        };
        assert!(fields.contains_key("permissions[1].type"), "{fields:?}");
        assert_eq!(fields.len(), 1);
    }

    #[test]
    fn a_setting_of_the_wrong_shape_is_named_by_its_index() {
        let body = json!({"settings": [{"type": "toggle", "key": "k", "label": "K"}, {"type": "slider"}]});
        let err = read_body::<UpdateInput>(&body, &[SETTINGS, TOOLS]).unwrap_err();
        let ApiError::Validation { fields, .. } = err else {
            panic!("{err:?}")
        };
        assert!(fields.contains_key("settings[1]"));
    }

    #[test]
    fn unknown_and_forbidden_update_fields_are_ignored() {
        let body =
            json!({"name": "X", "appStoreStatus": "PUBLISHED", "organizationId": "o", "reviewedBy": "me"});
        let input: UpdateInput = read_body(&body, &[SETTINGS]).unwrap();
        assert_eq!(input.name.as_deref(), Some("X"));
    }

    #[test]
    fn app_errors_keep_the_domain_codes() {
        assert_eq!(
            ApiError::from(AppError::ProfileIncomplete).code(),
            "PROFILE_INCOMPLETE"
        );
        assert_eq!(
            ApiError::from(AppError::DuplicatePackageName).code(),
            "PACKAGE_NAME_TAKEN"
        );
        assert_eq!(ApiError::from(AppError::NotFound).code(), "NOT_FOUND");
        assert_eq!(ApiError::from(AppError::AdminOnly).code(), "FORBIDDEN");
    }
}
