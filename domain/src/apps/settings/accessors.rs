//! What a setting says whatever its kind: its type, key, label, title, options and default.

use serde_json::Value;

use super::{SelectOption, Setting, SettingType};

impl Setting {
    /// The setting's type.
    #[must_use]
    pub const fn setting_type(&self) -> SettingType {
        match self {
            Self::Group { .. } => SettingType::Group,
            Self::TitleValue { .. } => SettingType::TitleValue,
            Self::Toggle { .. } => SettingType::Toggle,
            Self::Text { .. } => SettingType::Text,
            Self::TextNoSaveButton { .. } => SettingType::TextNoSaveButton,
            Self::Select { .. } => SettingType::Select,
            Self::SelectWithSearch { .. } => SettingType::SelectWithSearch,
            Self::Multiselect { .. } => SettingType::Multiselect,
            Self::Slider { .. } => SettingType::Slider,
            Self::NumericInput { .. } => SettingType::NumericInput,
            Self::TimePicker { .. } => SettingType::TimePicker,
        }
    }

    /// The wire name of the setting's type.
    #[must_use]
    pub const fn type_name(&self) -> &'static str {
        self.setting_type().as_str()
    }

    /// The key of a keyed setting; `None` for `group` and `titleValue`.
    #[must_use]
    pub fn key(&self) -> Option<&str> {
        match self {
            Self::Group { .. } | Self::TitleValue { .. } => None,
            Self::Toggle { key, .. }
            | Self::Text { key, .. }
            | Self::TextNoSaveButton { key, .. }
            | Self::Select { key, .. }
            | Self::SelectWithSearch { key, .. }
            | Self::Multiselect { key, .. }
            | Self::Slider { key, .. }
            | Self::NumericInput { key, .. }
            | Self::TimePicker { key, .. } => Some(key),
        }
    }

    /// The label; `None` for a `group`, which has a title instead.
    #[must_use]
    pub fn label(&self) -> Option<&str> {
        match self {
            Self::Group { .. } => None,
            Self::TitleValue { label, .. }
            | Self::Toggle { label, .. }
            | Self::Text { label, .. }
            | Self::TextNoSaveButton { label, .. }
            | Self::Select { label, .. }
            | Self::SelectWithSearch { label, .. }
            | Self::Multiselect { label, .. }
            | Self::Slider { label, .. }
            | Self::NumericInput { label, .. }
            | Self::TimePicker { label, .. } => Some(label),
        }
    }

    /// The title of a `group`; `None` for every other kind.
    #[must_use]
    pub fn title(&self) -> Option<&str> {
        match self {
            Self::Group { title } => Some(title),
            _ => None,
        }
    }

    /// The options of a select-like setting; `None` for every other kind.
    #[must_use]
    pub fn options(&self) -> Option<&[SelectOption]> {
        match self {
            Self::Select { options, .. }
            | Self::SelectWithSearch { options, .. }
            | Self::Multiselect { options, .. } => Some(options),
            _ => None,
        }
    }

    /// The default as JSON: the `value` of a `titleValue`, an array for a `multiselect`, `None` for a
    /// `group` and for a select without a default.
    #[must_use]
    pub fn default_value(&self) -> Option<Value> {
        match self {
            Self::Group { .. } => None,
            Self::TitleValue { value, .. } => Some(value.clone()),
            Self::Toggle { default_value, .. } => Some(Value::Bool(*default_value)),
            Self::Text { default_value, .. } | Self::TextNoSaveButton { default_value, .. } => {
                Some(Value::String(default_value.clone()))
            }
            Self::Select { default_value, .. } | Self::SelectWithSearch { default_value, .. } => {
                default_value.clone()
            }
            Self::Multiselect { default_value, .. } => Some(Value::Array(default_value.clone())),
            Self::Slider { default_value, .. } | Self::NumericInput { default_value, .. } => {
                serde_json::Number::from_f64(*default_value).map(Value::Number)
            }
            Self::TimePicker { default_value, .. } => Some(Value::from(*default_value)),
        }
    }
}
