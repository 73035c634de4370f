//! App settings: the eleven setting types of specification §3, in the JSON shape of the `@mentra/sdk`.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// One option of a select-like setting. The value is any JSON scalar, as in the SDK.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SelectOption {
    pub label: String,
    pub value: Value,
}

/// A setting. Every kind but `group` and `titleValue` has a `key` and a `label`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type")]
pub enum Setting {
    #[serde(rename = "group")]
    Group { title: String },
    #[serde(rename = "titleValue")]
    TitleValue { label: String, value: Value },
    #[serde(rename = "toggle", rename_all = "camelCase")]
    Toggle { key: String, label: String, default_value: bool },
    #[serde(rename = "text", rename_all = "camelCase")]
    Text { key: String, label: String, default_value: String },
    #[serde(rename = "text_no_save_button", rename_all = "camelCase")]
    TextNoSaveButton {
        key: String,
        label: String,
        default_value: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        max_lines: Option<u32>,
    },
    #[serde(rename = "select", rename_all = "camelCase")]
    Select {
        key: String,
        label: String,
        options: Vec<SelectOption>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        default_value: Option<Value>,
    },
    #[serde(rename = "select_with_search", rename_all = "camelCase")]
    SelectWithSearch {
        key: String,
        label: String,
        options: Vec<SelectOption>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        default_value: Option<Value>,
    },
    #[serde(rename = "multiselect", rename_all = "camelCase")]
    Multiselect {
        key: String,
        label: String,
        options: Vec<SelectOption>,
        #[serde(default)]
        default_value: Vec<Value>,
    },
    #[serde(rename = "slider", rename_all = "camelCase")]
    Slider { key: String, label: String, min: f64, max: f64, default_value: f64 },
    #[serde(rename = "numeric_input", rename_all = "camelCase")]
    NumericInput {
        key: String,
        label: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        min: Option<f64>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        max: Option<f64>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        step: Option<f64>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        placeholder: Option<String>,
        default_value: f64,
    },
    #[serde(rename = "time_picker", rename_all = "camelCase")]
    TimePicker {
        key: String,
        label: String,
        /// Seconds since midnight.
        default_value: u32,
        #[serde(default)]
        show_seconds: bool,
    },
}
