//! The eleven setting types, named as on the wire.

use serde::{Deserialize, Serialize};
use std::fmt;

/// The eleven setting types, named as on the wire.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum SettingType {
    #[serde(rename = "group")]
    Group,
    #[serde(rename = "titleValue")]
    TitleValue,
    #[serde(rename = "toggle")]
    Toggle,
    #[serde(rename = "text")]
    Text,
    #[serde(rename = "text_no_save_button")]
    TextNoSaveButton,
    #[serde(rename = "select")]
    Select,
    #[serde(rename = "select_with_search")]
    SelectWithSearch,
    #[serde(rename = "multiselect")]
    Multiselect,
    #[serde(rename = "slider")]
    Slider,
    #[serde(rename = "numeric_input")]
    NumericInput,
    #[serde(rename = "time_picker")]
    TimePicker,
}

impl SettingType {
    /// Every type, in the order the editor's type menu lists them.
    pub const ALL: [Self; 11] = [
        Self::Toggle,
        Self::Text,
        Self::TextNoSaveButton,
        Self::Select,
        Self::SelectWithSearch,
        Self::Multiselect,
        Self::Slider,
        Self::Group,
        Self::TitleValue,
        Self::NumericInput,
        Self::TimePicker,
    ];

    /// The wire name (`text_no_save_button`, `titleValue`, …).
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Group => "group",
            Self::TitleValue => "titleValue",
            Self::Toggle => "toggle",
            Self::Text => "text",
            Self::TextNoSaveButton => "text_no_save_button",
            Self::Select => "select",
            Self::SelectWithSearch => "select_with_search",
            Self::Multiselect => "multiselect",
            Self::Slider => "slider",
            Self::NumericInput => "numeric_input",
            Self::TimePicker => "time_picker",
        }
    }

    /// Reads a wire name; names are case-sensitive, as in the SDK.
    #[must_use]
    pub fn parse(value: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|kind| kind.as_str() == value)
    }

    /// Whether settings of this type have a `key` and a `label` (all but `group` and `titleValue`).
    #[must_use]
    pub const fn is_keyed(self) -> bool {
        !matches!(self, Self::Group | Self::TitleValue)
    }

    /// Whether settings of this type have `options` (`select`, `select_with_search`, `multiselect`).
    #[must_use]
    pub const fn is_select_like(self) -> bool {
        matches!(self, Self::Select | Self::SelectWithSearch | Self::Multiselect)
    }
}

impl fmt::Display for SettingType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}
