//! Configuration files: the JSON an app's settings, tools, permissions and descriptive fields are exported
//! to and imported from (specification §3 "Configuration file fields", §5 import rules; PRODUCT.md §4).
//!
//! The import flow is: [`check_config_file`] (name, emptiness, JSON syntax) → [`validate_config`] (shape
//! of every field, then the settings and tools rules every write applies) → [`import_summary`] for the
//! confirmation → [`apply_config`] → save. [`export_config`] writes a file that passes [`validate_config`]
//! and the `@mentra/sdk` `validateAppConfig` check (it carries a `version`).

use serde::Serialize;

use crate::common::FieldErrors;

use super::settings::SettingsError;
use super::tools::ToolsError;
use super::validation::UpdateInput;
use super::{App, Permission, Setting, Tool};

mod apply;
mod export;
mod fields;
mod file;
mod import;
mod import_fit;
mod import_settings;

#[cfg(test)]
pub(crate) mod fixtures;

pub use apply::{ImportSummary, apply_config, import_summary};
pub use export::{ConfigFile, EXPORT_VERSION, export_config, export_file_name};
pub use fields::ConfigFields;
pub use file::{check_config_file, read_config_file};
pub use import::{PERMISSION_TYPE_NAMES, SUPPORTED_SETTING_TYPES, validate_config};

/// What a valid configuration file holds: its descriptive fields and its lists, each `None` when the file
/// does not have it (a field or list the file does not have leaves the app's value alone when applied).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct AppConfig {
    pub fields: ConfigFields,
    pub permissions: Option<Vec<Permission>>,
    pub settings: Option<Vec<Setting>>,
    pub tools: Option<Vec<Tool>>,
    /// Defaults the file gave that did not fit their setting and were fitted on import, in file order.
    pub adjustments: Vec<ImportAdjustment>,
}

impl AppConfig {
    /// The update body that writes what the file sets, with the values of `next` (the app with this
    /// configuration applied). Permissions have their own call and are not in it.
    #[must_use]
    pub fn update_input(&self, next: &App) -> UpdateInput {
        UpdateInput {
            details: self.fields.details_input(next),
            settings: self.settings.as_ref().map(|_| next.settings.clone()),
            tools: self.tools.as_ref().map(|_| next.tools.clone()),
            hardware_requirements: None,
        }
    }
}

/// A default that import fitted to its setting by the rules of a type change (specification §4): a
/// select default not among the options is cleared, multiselect defaults are filtered to the options, a
/// slider default out of range falls back to the minimum (a numeric input's to its minimum, else its
/// maximum; a time picker's to midnight). The `@mentra/sdk` accepts such files, so import does too and
/// says what it changed in the summary.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ImportAdjustment {
    /// `settings[2]`.
    pub path: String,
    /// `Setting at index 2 ("units"): default "kelvin" is not one of the options and was cleared.`
    pub message: String,
}

/// Why a chosen file cannot be read as a configuration (specification §5, exact messages). Each means
/// HTTP 400.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum ConfigFileError {
    /// The file name does not end in `.json`.
    #[error("Please select a JSON file.")]
    NotAJsonFile,
    /// The file has nothing but white space.
    #[error("The selected file is empty.")]
    Empty,
    /// The contents are not JSON.
    #[error("Invalid JSON format. Please check the file content.")]
    InvalidJson,
}

/// Why a parsed configuration is refused. Each variant means HTTP 400; [`ConfigError::fields`] gives the
/// `fields` map. Messages take the specification's form `Optional field "x" must be ... if provided.`;
/// entries of `settings`, `tools` and `permissions` are named by their index.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ConfigError {
    /// The top level is not a JSON object.
    #[error("Configuration must be a JSON object.")]
    NotAnObject,
    /// A top-level field is present with the wrong type: `name`, `description`, `publicUrl` or `logoURL`
    /// not a non-blank string, `version`, `webviewURL` or `onboardingInstructions` not a string, a list
    /// not an array, `appType` neither `background` nor `standard`.
    #[error("Optional field \"{field}\" {expected} if provided.")]
    InvalidField {
        /// The field's name in the file (`logoURL`).
        field: String,
        /// `must be a non-empty string`.
        expected: String,
    },
    /// An entry of `settings`, `tools` or `permissions` has the wrong shape.
    #[error("{message}")]
    InvalidEntry {
        /// `settings[2]`, `tools[0]`, `permissions[1]`.
        path: String,
        message: String,
    },
    /// The settings are well-formed but break a rule of [`validate_settings`](super::settings::validate_settings).
    #[error(transparent)]
    Settings(#[from] SettingsError),
    /// The tools are well-formed but break a rule of [`validate_tools`](super::tools::validate_tools).
    #[error(transparent)]
    Tools(#[from] ToolsError),
}

impl ConfigError {
    /// Field path → message, for the API's `fields` map (empty for [`ConfigError::NotAnObject`]).
    #[must_use]
    pub fn fields(&self) -> FieldErrors {
        match self {
            Self::NotAnObject => FieldErrors::new(),
            Self::InvalidField { field, .. } => FieldErrors::single(field.clone(), self.to_string()),
            Self::InvalidEntry { path, message } => FieldErrors::single(path.clone(), message.clone()),
            Self::Settings(error) => error.fields(),
            Self::Tools(error) => error.fields(),
        }
    }
}

/// Either step of reading a configuration file failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ImportError {
    #[error(transparent)]
    File(#[from] ConfigFileError),
    #[error(transparent)]
    Config(#[from] ConfigError),
}
