//! App settings: the eleven setting types of specification §3, in the JSON shape of the `@mentra/sdk`.
//!
//! - [`validate_settings`] holds the rules every write (create, update, import) applies to a settings list
//!   (see `settings/validate.rs`);
//! - [`convert_setting`] and [`new_setting`] are the editor's type change and new-setting defaults
//!   (specification §4, see `settings/convert.rs`); `settings/properties.rs` holds the property tests
//!   that tie conversion and validation together.
//! - [`SettingType`] names the types (`settings/setting_type.rs`); what a [`Setting`] says (its type, key,
//!   label, title, options, default) is read in `settings/accessors.rs`.

use serde::{Deserialize, Serialize};
use serde_json::Value;

mod accessors;
mod convert;
mod error;
#[cfg(test)]
mod properties;
mod setting_type;
mod validate;

pub use convert::{
    SAMPLE_OPTION_LABEL, SAMPLE_OPTION_VALUE, SLIDER_DEFAULT_MAX, SLIDER_DEFAULT_MIN, convert_setting,
    js_number_text, new_setting,
};
pub use error::{SettingIssue, SettingsError};
pub use setting_type::SettingType;
pub use validate::{
    MAX_KEY_LEN, MAX_LABEL_LEN, MAX_OPTIONS, MAX_PLACEHOLDER_LEN, MAX_SETTINGS, MAX_TEXT_DEFAULT_LEN,
    SECONDS_PER_DAY, validate_settings,
};

/// The OpenAPI schema of a setting's value: any JSON value, as in the SDK (`SettingValue` in the document).
#[cfg(feature = "openapi")]
#[derive(Debug)]
pub enum SettingValueSchema {}

#[cfg(feature = "openapi")]
impl utoipa::PartialSchema for SettingValueSchema {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        use utoipa::openapi::schema::{
            AdditionalProperties, ArrayBuilder, ObjectBuilder, OneOfBuilder, Type, empty,
        };
        // Lists and objects hold any JSON value (the generated TypeScript cannot name a type inside itself).
        let scalar = |kind: Type| ObjectBuilder::new().schema_type(kind);
        OneOfBuilder::new()
            .item(scalar(Type::String))
            .item(scalar(Type::Number))
            .item(scalar(Type::Boolean))
            .item(scalar(Type::Null))
            .item(ArrayBuilder::new().items(utoipa::openapi::RefOr::T(empty())))
            .item(
                ObjectBuilder::new()
                    .schema_type(Type::Object)
                    .additional_properties(Some(AdditionalProperties::RefOr(empty().into()))),
            )
            .into()
    }
}

#[cfg(feature = "openapi")]
impl utoipa::ToSchema for SettingValueSchema {
    fn name() -> std::borrow::Cow<'static, str> {
        "SettingValue".into()
    }
}

/// One option of a select-like setting. The value is any JSON scalar, as in the SDK.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SelectOption {
    #[cfg_attr(feature = "openapi", schema(max_length = 200))]
    pub label: String,
    #[cfg_attr(feature = "openapi", schema(value_type = SettingValueSchema))]
    pub value: Value,
}

impl SelectOption {
    #[must_use]
    pub fn new(label: impl Into<String>, value: impl Into<Value>) -> Self {
        Self {
            label: label.into(),
            value: value.into(),
        }
    }
}

fn slider_default_min() -> f64 {
    SLIDER_DEFAULT_MIN
}

fn slider_default_max() -> f64 {
    SLIDER_DEFAULT_MAX
}

/// A setting. Every kind but `group` and `titleValue` has a `key` and a `label`.
///
/// When read from JSON, a missing `defaultValue` of a toggle or text kind is `false` or `""`, and a missing
/// slider `min`/`max` is 0/100 (specification §9).
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type")]
pub enum Setting {
    #[serde(rename = "group")]
    Group {
        #[cfg_attr(feature = "openapi", schema(max_length = 200))]
        title: String,
    },
    #[serde(rename = "titleValue")]
    TitleValue {
        #[cfg_attr(feature = "openapi", schema(max_length = 200))]
        label: String,
        #[cfg_attr(feature = "openapi", schema(value_type = SettingValueSchema))]
        value: Value,
    },
    #[serde(rename = "toggle", rename_all = "camelCase")]
    Toggle {
        #[cfg_attr(feature = "openapi", schema(min_length = 1, max_length = 100))]
        key: String,
        #[cfg_attr(feature = "openapi", schema(max_length = 200))]
        label: String,
        #[serde(default)]
        #[cfg_attr(feature = "openapi", schema(required = true))]
        default_value: bool,
    },
    #[serde(rename = "text", rename_all = "camelCase")]
    Text {
        #[cfg_attr(feature = "openapi", schema(min_length = 1, max_length = 100))]
        key: String,
        #[cfg_attr(feature = "openapi", schema(max_length = 200))]
        label: String,
        #[serde(default)]
        #[cfg_attr(feature = "openapi", schema(required = true))]
        default_value: String,
    },
    #[serde(rename = "text_no_save_button", rename_all = "camelCase")]
    TextNoSaveButton {
        #[cfg_attr(feature = "openapi", schema(min_length = 1, max_length = 100))]
        key: String,
        #[cfg_attr(feature = "openapi", schema(max_length = 200))]
        label: String,
        #[serde(default)]
        #[cfg_attr(feature = "openapi", schema(required = true))]
        default_value: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[cfg_attr(feature = "openapi", schema(nullable = false))]
        max_lines: Option<u32>,
    },
    #[serde(rename = "select", rename_all = "camelCase")]
    Select {
        #[cfg_attr(feature = "openapi", schema(min_length = 1, max_length = 100))]
        key: String,
        #[cfg_attr(feature = "openapi", schema(max_length = 200))]
        label: String,
        #[cfg_attr(feature = "openapi", schema(min_items = 1, max_items = 100))]
        options: Vec<SelectOption>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[cfg_attr(feature = "openapi", schema(value_type = SettingValueSchema))]
        default_value: Option<Value>,
    },
    #[serde(rename = "select_with_search", rename_all = "camelCase")]
    SelectWithSearch {
        #[cfg_attr(feature = "openapi", schema(min_length = 1, max_length = 100))]
        key: String,
        #[cfg_attr(feature = "openapi", schema(max_length = 200))]
        label: String,
        #[cfg_attr(feature = "openapi", schema(min_items = 1, max_items = 100))]
        options: Vec<SelectOption>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[cfg_attr(feature = "openapi", schema(value_type = SettingValueSchema))]
        default_value: Option<Value>,
    },
    #[serde(rename = "multiselect", rename_all = "camelCase")]
    Multiselect {
        #[cfg_attr(feature = "openapi", schema(min_length = 1, max_length = 100))]
        key: String,
        #[cfg_attr(feature = "openapi", schema(max_length = 200))]
        label: String,
        #[cfg_attr(feature = "openapi", schema(min_items = 1, max_items = 100))]
        options: Vec<SelectOption>,
        #[serde(default)]
        #[cfg_attr(feature = "openapi", schema(required = true))]
        #[cfg_attr(feature = "openapi", schema(value_type = Vec<SettingValueSchema>))]
        default_value: Vec<Value>,
    },
    #[serde(rename = "slider", rename_all = "camelCase")]
    Slider {
        #[cfg_attr(feature = "openapi", schema(min_length = 1, max_length = 100))]
        key: String,
        #[cfg_attr(feature = "openapi", schema(max_length = 200))]
        label: String,
        #[serde(default = "slider_default_min")]
        #[cfg_attr(feature = "openapi", schema(required = true))]
        min: f64,
        #[serde(default = "slider_default_max")]
        #[cfg_attr(feature = "openapi", schema(required = true))]
        max: f64,
        default_value: f64,
    },
    #[serde(rename = "numeric_input", rename_all = "camelCase")]
    NumericInput {
        #[cfg_attr(feature = "openapi", schema(min_length = 1, max_length = 100))]
        key: String,
        #[cfg_attr(feature = "openapi", schema(max_length = 200))]
        label: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[cfg_attr(feature = "openapi", schema(nullable = false))]
        min: Option<f64>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[cfg_attr(feature = "openapi", schema(nullable = false))]
        max: Option<f64>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[cfg_attr(feature = "openapi", schema(nullable = false))]
        step: Option<f64>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[cfg_attr(feature = "openapi", schema(nullable = false))]
        #[cfg_attr(feature = "openapi", schema(max_length = 200))]
        placeholder: Option<String>,
        default_value: f64,
    },
    #[serde(rename = "time_picker", rename_all = "camelCase")]
    TimePicker {
        #[cfg_attr(feature = "openapi", schema(min_length = 1, max_length = 100))]
        key: String,
        #[cfg_attr(feature = "openapi", schema(max_length = 200))]
        label: String,
        /// Seconds since midnight.
        #[cfg_attr(feature = "openapi", schema(maximum = 86399))]
        default_value: u32,
        #[serde(default)]
        #[cfg_attr(feature = "openapi", schema(required = true))]
        show_seconds: bool,
    },
}

/// Whether two JSON values are the same setting value: numbers compare by numeric value (`1` equals
/// `1.0`), everything else structurally.
#[must_use]
pub fn same_value(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => match (x.as_f64(), y.as_f64()) {
            (Some(x), Some(y)) => x == y,
            _ => x == y,
        },
        _ => a == b,
    }
}

/// Whether `value` is the value of one of `options`.
#[must_use]
pub fn is_option_value(options: &[SelectOption], value: &Value) -> bool {
    options.iter().any(|option| same_value(&option.value, value))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn every_setting_type_round_trips_through_its_wire_name() {
        for kind in SettingType::ALL {
            assert_eq!(SettingType::parse(kind.as_str()), Some(kind));
            assert_eq!(serde_json::to_value(kind).unwrap(), json!(kind.as_str()));
        }
        let names: Vec<&str> = SettingType::ALL.iter().map(|kind| kind.as_str()).collect();
        assert_eq!(
            names,
            [
                "toggle",
                "text",
                "text_no_save_button",
                "select",
                "select_with_search",
                "multiselect",
                "slider",
                "group",
                "titleValue",
                "numeric_input",
                "time_picker"
            ]
        );
    }

    #[test]
    fn unknown_or_differently_cased_type_names_are_not_setting_types() {
        assert_eq!(SettingType::parse("Toggle"), None);
        assert_eq!(SettingType::parse("checkbox"), None);
        assert_eq!(SettingType::parse("titlevalue"), None);
    }

    #[test]
    fn only_group_and_title_value_are_keyless() {
        let keyless: Vec<SettingType> = SettingType::ALL.into_iter().filter(|k| !k.is_keyed()).collect();
        assert_eq!(keyless, [SettingType::Group, SettingType::TitleValue]);
        let select_like: Vec<SettingType> = SettingType::ALL
            .into_iter()
            .filter(|k| k.is_select_like())
            .collect();
        assert_eq!(
            select_like,
            [
                SettingType::Select,
                SettingType::SelectWithSearch,
                SettingType::Multiselect
            ]
        );
    }

    #[test]
    fn a_setting_exposes_its_key_label_title_and_type_name() {
        let toggle = Setting::Toggle {
            key: "dark".into(),
            label: "Dark mode".into(),
            default_value: true,
        };
        assert_eq!(toggle.key(), Some("dark"));
        assert_eq!(toggle.label(), Some("Dark mode"));
        assert_eq!(toggle.title(), None);
        assert_eq!(toggle.type_name(), "toggle");

        let group = Setting::Group {
            title: "Display".into(),
        };
        assert_eq!(
            (group.key(), group.label(), group.title()),
            (None, None, Some("Display"))
        );
        assert_eq!(group.type_name(), "group");

        let title_value = Setting::TitleValue {
            label: "Version".into(),
            value: json!("1.2"),
        };
        assert_eq!((title_value.key(), title_value.label()), (None, Some("Version")));
        assert_eq!(title_value.type_name(), "titleValue");
    }

    #[test]
    fn a_setting_reads_and_writes_the_sdk_json_shape() {
        let json = json!({
            "type": "select",
            "key": "units",
            "label": "Units",
            "options": [{"label": "Metric", "value": "metric"}, {"label": "Imperial", "value": "imperial"}],
            "defaultValue": "metric"
        });
        let setting: Setting = serde_json::from_value(json.clone()).unwrap();
        assert_eq!(setting.options().map(<[SelectOption]>::len), Some(2));
        assert_eq!(serde_json::to_value(&setting).unwrap(), json);
    }

    #[test]
    fn missing_toggle_text_and_slider_bounds_read_as_their_defaults() {
        let toggle: Setting =
            serde_json::from_value(json!({"type": "toggle", "key": "k", "label": "L"})).unwrap();
        assert_eq!(toggle.default_value(), Some(json!(false)));
        let text: Setting =
            serde_json::from_value(json!({"type": "text", "key": "k", "label": "L"})).unwrap();
        assert_eq!(text.default_value(), Some(json!("")));
        let slider: Setting =
            serde_json::from_value(json!({"type": "slider", "key": "k", "label": "L", "defaultValue": 5}))
                .unwrap();
        assert!(matches!(slider, Setting::Slider { min, max, .. } if min == 0.0 && max == 100.0));
    }

    #[test]
    fn the_default_value_of_each_kind_is_its_json_form() {
        let multi = Setting::Multiselect {
            key: "k".into(),
            label: "L".into(),
            options: vec![SelectOption::new("A", "a")],
            default_value: vec![json!("a")],
        };
        assert_eq!(multi.default_value(), Some(json!(["a"])));
        let time = Setting::TimePicker {
            key: "k".into(),
            label: "L".into(),
            default_value: 60,
            show_seconds: false,
        };
        assert_eq!(time.default_value(), Some(json!(60)));
        assert_eq!(Setting::Group { title: "G".into() }.default_value(), None);
    }

    #[test]
    fn numbers_are_the_same_value_whatever_their_json_representation() {
        assert!(same_value(&json!(1), &json!(1.0)));
        assert!(!same_value(&json!(1), &json!("1")));
        assert!(is_option_value(&[SelectOption::new("One", 1)], &json!(1.0)));
    }
}
