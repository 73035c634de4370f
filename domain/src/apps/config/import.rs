//! [`validate_config`]: the shape checks of an imported configuration (specification §5), then the rules
//! every write of settings and tools applies.

use indexmap::IndexMap;
use serde_json::{Map, Value};
use std::collections::HashSet;

pub use super::import_settings::SUPPORTED_SETTING_TYPES;
use super::import_settings::read_setting;
use super::{AppConfig, ConfigError, ConfigFields};
use crate::apps::settings::validate_settings;
use crate::apps::tools::{ParameterType, Tool, ToolParameter, validate_tools};
use crate::apps::{Permission, PermissionType};

type Object = Map<String, Value>;

/// The permission types import accepts, as its error message lists them.
pub const PERMISSION_TYPE_NAMES: [&str; 9] = [
    "MICROPHONE",
    "LOCATION",
    "BACKGROUND_LOCATION",
    "CALENDAR",
    "CAMERA",
    "NOTIFICATIONS",
    "READ_NOTIFICATIONS",
    "POST_NOTIFICATIONS",
    "ALL",
];

/// Checks a parsed configuration file and reads it into an [`AppConfig`]. Checked in this order, the first
/// problem wins:
/// 1. the value is a JSON object;
/// 2. its descriptive fields have their types ([`ConfigFields`], in file order), and `settings`, `tools`,
///    `permissions`, if present, are arrays;
/// 3. each setting, tool and permission has the right shape (messages name its index); a setting default
///    that does not fit its setting is fitted by the rules of a type change and listed in
///    [`AppConfig::adjustments`];
/// 4. the settings pass [`validate_settings`], the tools [`validate_tools`], and no permission type is
///    listed twice.
///
/// Unknown fields are ignored. `null` counts as present (and so as the wrong type). The legacy
/// `NOTIFICATIONS` permission is accepted, as files exported from apps that have it contain it.
///
/// # Errors
/// The first [`ConfigError`] found.
pub fn validate_config(value: &Value) -> Result<AppConfig, ConfigError> {
    let object = value.as_object().ok_or(ConfigError::NotAnObject)?;
    let fields = ConfigFields::read(value)?;
    let settings = array(object, "settings")?;
    let tools = array(object, "tools")?;
    let permissions = array(object, "permissions")?;

    let mut adjustments = Vec::new();
    let settings = settings
        .map(|items| {
            items
                .iter()
                .enumerate()
                .map(|(i, item)| read_setting(i, item, &mut adjustments))
                .collect::<Result<Vec<_>, _>>()
        })
        .transpose()?;
    let tools = tools
        .map(|items| {
            items
                .iter()
                .enumerate()
                .map(|(i, item)| parse_tool(i, item))
                .collect::<Result<Vec<_>, _>>()
        })
        .transpose()?;
    let permissions = permissions.map(|items| parse_permissions(items)).transpose()?;
    if let Some(settings) = &settings {
        validate_settings(settings)?;
    }
    if let Some(tools) = &tools {
        validate_tools(tools)?;
    }

    Ok(AppConfig {
        fields,
        permissions,
        settings,
        tools,
        adjustments,
    })
}

fn array<'a>(object: &'a Object, field: &'static str) -> Result<Option<&'a Vec<Value>>, ConfigError> {
    match object.get(field) {
        None => Ok(None),
        Some(Value::Array(items)) => Ok(Some(items)),
        Some(_) => Err(ConfigError::InvalidField {
            field: field.to_owned(),
            expected: "must be an array".to_owned(),
        }),
    }
}

/// A field that is there and not `null`.
fn present<'a>(object: &'a Object, field: &str) -> Option<&'a Value> {
    object.get(field).filter(|value| !value.is_null())
}

fn parse_tool(index: usize, value: &Value) -> Result<Tool, ConfigError> {
    let fail = |message: String| ConfigError::InvalidEntry {
        path: format!("tools[{index}]"),
        message,
    };
    let object = value
        .as_object()
        .ok_or_else(|| fail(format!("Tool at index {index} must be an object.")))?;
    let text = |field| object.get(field).and_then(Value::as_str).map(str::to_owned);
    let (Some(id), Some(description)) = (text("id"), text("description")) else {
        return Err(fail(format!(
            "Tool at index {index} needs a string id and description."
        )));
    };
    let activation_phrases = match present(object, "activationPhrases") {
        None => Vec::new(),
        Some(value) => strings(value).ok_or_else(|| {
            fail(format!(
                "Tool at index {index}: activationPhrases must be an array of strings if provided."
            ))
        })?,
    };
    let parameters = match present(object, "parameters") {
        None => IndexMap::new(),
        Some(Value::Object(entries)) => entries
            .iter()
            .map(|(name, value)| Ok((name.clone(), parse_parameter(index, name, value)?)))
            .collect::<Result<_, ConfigError>>()?,
        Some(_) => {
            return Err(fail(format!(
                "Tool at index {index}: parameters must be an object if provided."
            )));
        }
    };
    Ok(Tool {
        id,
        description,
        activation_phrases,
        parameters,
    })
}

fn parse_parameter(index: usize, name: &str, value: &Value) -> Result<ToolParameter, ConfigError> {
    let fail = |what: &str| ConfigError::InvalidEntry {
        path: format!("tools[{index}]"),
        message: format!("Tool at index {index}: parameter \"{name}\" {what}."),
    };
    let shape = || fail("needs a type of string, number or boolean");
    let object = value.as_object().ok_or_else(shape)?;
    let kind = object
        .get("type")
        .and_then(Value::as_str)
        .and_then(ParameterType::parse)
        .ok_or_else(shape)?;
    let description = match present(object, "description") {
        None => String::new(),
        Some(value) => value
            .as_str()
            .map(str::to_owned)
            .ok_or_else(|| fail("description must be a string if provided"))?,
    };
    let required = match present(object, "required") {
        None => false,
        Some(value) => value
            .as_bool()
            .ok_or_else(|| fail("required must be a boolean if provided"))?,
    };
    let allowed = match present(object, "enum") {
        None => None,
        Some(value) => {
            Some(strings(value).ok_or_else(|| fail("enum must be an array of strings if provided"))?)
        }
    }
    .filter(|values| !values.is_empty());
    Ok(ToolParameter {
        kind,
        description,
        required,
        allowed,
    })
}

fn strings(value: &Value) -> Option<Vec<String>> {
    value
        .as_array()?
        .iter()
        .map(|item| item.as_str().map(str::to_owned))
        .collect()
}

fn parse_permissions(items: &[Value]) -> Result<Vec<Permission>, ConfigError> {
    let mut seen = HashSet::new();
    items
        .iter()
        .enumerate()
        .map(|(index, item)| {
            let fail =
                |message: String| ConfigError::InvalidEntry { path: format!("permissions[{index}]"), message };
            let object = item.as_object();
            let type_name = object
                .and_then(|o| o.get("type"))
                .and_then(Value::as_str)
                .ok_or_else(|| fail(format!("Permission at index {index} needs a string type.")))?;
            let kind: PermissionType =
                serde_json::from_value(Value::String(type_name.to_owned())).map_err(|_| {
                    fail(format!(
                        "Permission at index {index} has unsupported type \"{type_name}\". Supported types: {}.",
                        PERMISSION_TYPE_NAMES.join(", ")
                    ))
                })?;
            let description = match object.and_then(|o| present(o, "description")) {
                None => None,
                Some(value) => Some(value.as_str().map(str::to_owned).ok_or_else(|| {
                    fail(format!("Permission at index {index}: description must be a string if provided."))
                })?),
            };
            if !seen.insert(kind) {
                return Err(fail(format!("Permission at index {index}: type \"{type_name}\" is listed more than once.")));
            }
            Ok(Permission { kind, description })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::apps::{AppType, Setting};
    use serde_json::json;

    fn message(value: Value) -> String {
        validate_config(&value).unwrap_err().to_string()
    }

    #[test]
    fn an_empty_object_is_a_valid_configuration_that_changes_nothing() {
        assert_eq!(validate_config(&json!({})), Ok(AppConfig::default()));
    }

    #[test]
    fn a_configuration_must_be_a_json_object() {
        for bad in [json!([]), json!("config"), json!(null), json!(3)] {
            assert_eq!(validate_config(&bad), Err(ConfigError::NotAnObject));
        }
        assert_eq!(
            ConfigError::NotAnObject.to_string(),
            "Configuration must be a JSON object."
        );
    }

    #[test]
    fn name_description_public_url_and_logo_must_be_non_empty_strings_if_present() {
        for field in ["name", "description", "publicUrl", "logoURL"] {
            for bad in [json!(""), json!("  "), json!(1), json!(null)] {
                assert_eq!(
                    message(json!({ field: bad })),
                    format!("Optional field \"{field}\" must be a non-empty string if provided.")
                );
            }
        }
    }

    #[test]
    fn version_webview_url_and_onboarding_instructions_must_be_strings_if_present() {
        for field in ["version", "webviewURL", "onboardingInstructions"] {
            assert_eq!(
                message(json!({ field: 1 })),
                format!("Optional field \"{field}\" must be a string if provided.")
            );
            assert!(validate_config(&json!({ field: "" })).is_ok(), "{field}");
        }
    }

    #[test]
    fn settings_tools_and_permissions_must_be_arrays_if_present() {
        for field in ["settings", "tools", "permissions"] {
            assert_eq!(
                message(json!({ field: {} })),
                format!("Optional field \"{field}\" must be an array if provided.")
            );
        }
    }

    #[test]
    fn the_app_type_must_be_background_or_standard() {
        assert_eq!(
            validate_config(&json!({"appType": "standard"}))
                .unwrap()
                .fields
                .app_type,
            Some(AppType::Standard)
        );
        for bad in [json!("foreground"), json!("Background"), json!(1)] {
            assert_eq!(
                message(json!({ "appType": bad })),
                "Optional field \"appType\" must be either \"background\" or \"standard\" if provided."
            );
        }
    }

    #[test]
    fn top_level_fields_are_checked_before_entries() {
        assert_eq!(
            message(json!({"settings": [1], "appType": "x"})),
            "Optional field \"appType\" must be either \"background\" or \"standard\" if provided."
        );
    }

    #[test]
    fn the_settings_rules_of_every_write_apply_on_import() {
        let error = validate_config(&json!({"settings": [
            {"type": "toggle", "key": "a", "label": "A"},
            {"type": "toggle", "key": "a", "label": "B"}
        ]}))
        .unwrap_err();
        assert_eq!(
            error.to_string(),
            "Setting at index 1: Setting key \"a\" is used more than once"
        );
        assert!(error.fields().contains("settings[1].key"));
        assert_eq!(
            message(json!({"settings": [{"type": "select", "key": "u", "label": "U", "options": []}]})),
            "Setting at index 0: At least one option is required"
        );
        assert_eq!(
            message(json!({"settings": [{"type": "toggle", "key": " ", "label": "U"}]})),
            "Setting at index 0: Setting key is required"
        );
    }

    #[test]
    fn what_the_sdk_accepts_imports_with_defaults_fitted_and_listed() {
        let config = validate_config(&json!({"settings": [
            {"type": "group", "title": ""},
            {"type": "titleValue", "label": "Status", "value": null},
            {"type": "select", "key": "u", "label": "U", "options": [{"label": "None", "value": null}, {"label": "A", "value": "a"}], "defaultValue": "b"},
            {"type": "multiselect", "key": "m", "label": "M", "options": [{"label": "A", "value": "a"}], "defaultValue": ["a", "z", 7]},
            {"type": "slider", "key": "s", "label": "S", "min": 10, "max": 20, "defaultValue": 25},
            {"type": "toggle", "key": "t", "label": "T", "defaultValue": true}
        ]}))
        .unwrap();
        let settings = config.settings.unwrap();
        assert_eq!(settings[0], Setting::Group { title: String::new() });
        assert_eq!(settings[1].default_value(), Some(json!(null)));
        assert_eq!(settings[2].default_value(), None);
        assert_eq!(settings[3].default_value(), Some(json!(["a"])));
        assert_eq!(settings[4].default_value(), Some(json!(10.0)));
        let messages: Vec<(&str, &str)> = config
            .adjustments
            .iter()
            .map(|a| (a.path.as_str(), a.message.as_str()))
            .collect();
        assert_eq!(
            messages,
            [
                (
                    "settings[2]",
                    "Setting at index 2 (\"u\"): default \"b\" is not one of the options and was cleared."
                ),
                (
                    "settings[3]",
                    "Setting at index 3 (\"m\"): defaults not among the options were removed (\"z\", 7)."
                ),
                (
                    "settings[4]",
                    "Setting at index 4 (\"s\"): default 25 is outside 10 to 20 and was set to the minimum, 10."
                ),
            ]
        );
        assert_eq!(validate_settings(&settings), Ok(()));
    }

    #[test]
    fn a_tool_entry_needs_a_string_id_and_description() {
        assert_eq!(
            message(json!({"tools": [7]})),
            "Tool at index 0 must be an object."
        );
        assert_eq!(
            message(json!({"tools": [{"id": "t"}]})),
            "Tool at index 0 needs a string id and description."
        );
        assert_eq!(
            message(json!({"tools": [{"id": "t", "description": "d", "activationPhrases": "a, b"}]})),
            "Tool at index 0: activationPhrases must be an array of strings if provided."
        );
        assert_eq!(
            message(json!({"tools": [{"id": "t", "description": "d", "parameters": []}]})),
            "Tool at index 0: parameters must be an object if provided."
        );
    }

    #[test]
    fn a_tool_parameter_needs_a_known_type_and_well_typed_fields() {
        let with = |parameter: Value| json!({"tools": [{"id": "t", "description": "d", "parameters": {"city": parameter}}]});
        assert_eq!(
            message(with(json!({"type": "integer"}))),
            "Tool at index 0: parameter \"city\" needs a type of string, number or boolean."
        );
        assert_eq!(
            message(with(json!({"type": "string", "description": 1}))),
            "Tool at index 0: parameter \"city\" description must be a string if provided."
        );
        assert_eq!(
            message(with(json!({"type": "string", "required": "yes"}))),
            "Tool at index 0: parameter \"city\" required must be a boolean if provided."
        );
        assert_eq!(
            message(with(json!({"type": "string", "enum": [1]}))),
            "Tool at index 0: parameter \"city\" enum must be an array of strings if provided."
        );
    }

    #[test]
    fn a_tool_reads_with_defaults_and_an_empty_enum_dropped() {
        let config = validate_config(&json!({"tools": [{"id": "t", "description": "d", "parameters": {
            "city": {"type": "string", "enum": []}
        }}]}))
        .unwrap();
        let tool = &config.tools.unwrap()[0];
        assert!(tool.activation_phrases.is_empty());
        assert_eq!(
            tool.parameters["city"],
            ToolParameter {
                kind: ParameterType::String,
                description: String::new(),
                required: false,
                allowed: None
            }
        );
    }

    #[test]
    fn the_tools_rules_of_every_write_apply_on_import() {
        assert_eq!(
            message(json!({"tools": [{"id": "t", "description": "d"}, {"id": "t", "description": "e"}]})),
            "Tool at index 1: Tool id \"t\" is used more than once"
        );
    }

    #[test]
    fn a_permission_needs_a_known_type_listed_once() {
        assert_eq!(
            message(json!({"permissions": ["CAMERA"]})),
            "Permission at index 0 needs a string type."
        );
        assert_eq!(
            message(json!({"permissions": [{"type": "SPEAKER"}]})),
            "Permission at index 0 has unsupported type \"SPEAKER\". Supported types: MICROPHONE, LOCATION, \
             BACKGROUND_LOCATION, CALENDAR, CAMERA, NOTIFICATIONS, READ_NOTIFICATIONS, POST_NOTIFICATIONS, ALL."
        );
        assert_eq!(
            message(json!({"permissions": [{"type": "CAMERA", "description": false}]})),
            "Permission at index 0: description must be a string if provided."
        );
        assert_eq!(
            message(json!({"permissions": [{"type": "CAMERA"}, {"type": "CAMERA"}]})),
            "Permission at index 1: type \"CAMERA\" is listed more than once."
        );
    }

    #[test]
    fn every_listed_permission_type_is_accepted_including_the_legacy_one() {
        let permissions: Vec<Value> = PERMISSION_TYPE_NAMES.iter().map(|t| json!({"type": t})).collect();
        let config = validate_config(&json!({ "permissions": permissions })).unwrap();
        assert_eq!(config.permissions.map(|p| p.len()), Some(9));
    }

    #[test]
    fn a_full_configuration_is_read_into_typed_fields() {
        let config = validate_config(&json!({
            "name": "Weather",
            "description": "Shows the weather",
            "version": "1.0.0",
            "publicUrl": "https://weather.example.com",
            "logoURL": "https://cdn.example.com/logo.png",
            "webviewURL": "",
            "appType": "background",
            "onboardingInstructions": "Say weather",
            "permissions": [{"type": "LOCATION", "description": "For the forecast"}],
            "settings": [{"type": "group", "title": "Units"}, {"type": "toggle", "key": "c", "label": "Celsius", "defaultValue": true}],
            "tools": [{"id": "forecast", "description": "Forecast", "activationPhrases": ["forecast"]}],
            "somethingElse": 1
        }))
        .unwrap();
        assert_eq!(config.fields.name.as_deref(), Some("Weather"));
        assert_eq!(config.fields.version.as_deref(), Some("1.0.0"));
        assert_eq!(config.fields.webview_url.as_deref(), Some(""));
        assert_eq!(config.fields.app_type, Some(AppType::Background));
        assert_eq!(config.settings.map(|s| s.len()), Some(2));
        assert_eq!(
            config.tools.map(|t| t[0].activation_phrases.clone()),
            Some(vec!["forecast".to_owned()])
        );
        assert_eq!(
            config.permissions,
            Some(vec![Permission {
                kind: PermissionType::Location,
                description: Some("For the forecast".into())
            }])
        );
    }

    #[test]
    fn error_fields_name_the_offending_field() {
        let error = validate_config(&json!({"logoURL": ""})).unwrap_err();
        assert_eq!(
            error.fields().get("logoURL"),
            Some("Optional field \"logoURL\" must be a non-empty string if provided.")
        );
        let error = validate_config(&json!({"tools": [1]})).unwrap_err();
        assert!(error.fields().contains("tools[0]"));
        assert!(ConfigError::NotAnObject.fields().is_empty());
    }
}
