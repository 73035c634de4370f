//! The lenient body reader of the app calls: a JSON body read into its type with field errors instead of one
//! parse error, each entry of the list fields checked on its own (`settings[2]`, `permissions[0].type`).

use domain::apps::Permission;
use domain::common::FieldErrors;
use serde::de::DeserializeOwned;
use serde_json::Value;

use super::validation;
use crate::ApiError;

/// Why one entry of a list field was refused: the path inside the entry (`type`, `parameters.city.type`; empty
/// for the entry as a whole) and the message.
type EntryError = (String, String);

/// Reads one entry into `T`; a refusal names the path inside the entry where serde stopped
/// (`serde_path_to_error`), and a text that is none of the values a key takes names them (`Unknown type
/// "LASER". Use one of: MICROPHONE, …`).
fn entry<T: DeserializeOwned>(item: &Value, known: fn(&str) -> Vec<String>) -> Result<(), EntryError> {
    let error = match serde_path_to_error::deserialize::<_, T>(item) {
        Ok(_) => return Ok(()),
        Err(error) => error,
    };
    let mut path: Vec<String> = error
        .path()
        .iter()
        .map(|segment| match segment {
            serde_path_to_error::Segment::Seq { index } => format!("[{index}]"),
            serde_path_to_error::Segment::Map { key }
            | serde_path_to_error::Segment::Enum { variant: key } => key.clone(),
            serde_path_to_error::Segment::Unknown => "?".to_owned(),
        })
        .collect();
    // An internally tagged entry (a setting) is refused as a whole: when its tag is unknown, the tag is where
    // it went wrong.
    let tag = item.get("type").and_then(Value::as_str);
    if path.is_empty() && tag.is_some_and(|tag| !known("type").iter().any(|value| value == tag)) {
        path.push("type".to_owned());
    }
    let key = path.last().cloned().unwrap_or_default();
    let sent = path
        .iter()
        .try_fold(item, |value, segment| match segment.strip_prefix('[') {
            Some(index) => value.get(index.trim_end_matches(']').parse::<usize>().ok()?),
            None => value.get(segment),
        });
    let values = known(&key);
    let message = match sent.and_then(Value::as_str) {
        Some(text) if !values.is_empty() && !values.iter().any(|v| v == text) => {
            format!("Unknown {key} \"{text}\". Use one of: {}.", values.join(", "))
        }
        _ => format!("Invalid value: {}", error.into_inner()),
    };
    let path = path.join(".").replace(".[", "[");
    Err((path, message))
}

/// The wire names of every value of an enum (`MICROPHONE`, `toggle`…), from the domain's own list of them.
fn names<T: serde::Serialize>(all: &[T]) -> Vec<String> {
    all.iter()
        .filter_map(|value| serde_json::to_value(value).ok()?.as_str().map(str::to_owned))
        .collect()
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
                    if let Err((path, message)) = check(item) {
                        let field = if path.is_empty() {
                            format!("{name}[{index}]")
                        } else {
                            format!("{name}[{index}].{path}")
                        };
                        fields.add(field, message);
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
            format!("The request body does not have the expected shape: {error}"),
        )
    })
}

/// A list field of a body and the check of one of its entries.
pub(super) type ListCheck = (&'static str, fn(&Value) -> Result<(), EntryError>);

fn permission(item: &Value) -> Result<(), EntryError> {
    entry::<Permission>(item, |key| match key {
        "type" => names(domain::apps::PermissionType::ALL),
        _ => Vec::new(),
    })
}

fn hardware(item: &Value) -> Result<(), EntryError> {
    use domain::apps::{HardwareLevel, HardwareType};
    entry::<domain::apps::HardwareRequirement>(item, |key| match key {
        "type" => names(HardwareType::ALL),
        "level" => names(&[HardwareLevel::Required, HardwareLevel::Optional]),
        _ => Vec::new(),
    })
}

fn setting(item: &Value) -> Result<(), EntryError> {
    entry::<domain::apps::Setting>(item, |key| match key {
        "type" => names(&domain::apps::SettingType::ALL),
        _ => Vec::new(),
    })
}

fn tool(item: &Value) -> Result<(), EntryError> {
    entry::<domain::apps::Tool>(item, |key| match key {
        "type" => names(domain::apps::ParameterType::ALL),
        _ => Vec::new(),
    })
}

pub(super) const PERMISSIONS: ListCheck = ("permissions", permission);
pub(super) const HARDWARE: ListCheck = ("hardwareRequirements", hardware);
pub(super) const SETTINGS: ListCheck = ("settings", setting);
pub(super) const TOOLS: ListCheck = ("tools", tool);

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
    fn an_unknown_value_names_the_values_there_are() {
        let body = json!({
            "settings": [{"type": "hologram", "key": "k", "label": "K"}],
            "tools": [{"id": "t", "description": "d", "parameters": {"city": {"type": "place", "description": "c"}}}],
        });
        let err = read_body::<UpdateInput>(&body, &[SETTINGS, TOOLS]).unwrap_err();
        let ApiError::Validation { fields, .. } = err else {
            panic!("{err:?}")
        };
        let setting = &fields["settings[0].type"];
        assert!(
            setting.starts_with("Unknown type \"hologram\". Use one of: toggle, "),
            "{setting}"
        );
        assert_eq!(
            fields["tools[0].parameters.city.type"],
            "Unknown type \"place\". Use one of: string, number, boolean."
        );
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
        assert_eq!(input.details.name.as_deref(), Some("X"));
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
