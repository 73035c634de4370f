//! The descriptive fields of a configuration file, each declared once in [`ConfigFields`]: how it is read
//! (serde, with the specification's messages), what an export writes, how an import applies it to an app,
//! and the update a client sends for it. The lists (`permissions`, `settings`, `tools`) are read entry by
//! entry in `import`, after these fields (a problem here is reported before a problem in an entry).

use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::Value;

use super::ConfigError;
use crate::apps::validation::AppDetailsInput;
use crate::apps::{App, AppType};
use crate::common::normalise_url;

/// The `version` an exported file carries, so that the `@mentra/sdk` `validateAppConfig` check accepts it
/// (apps have no version of their own).
pub const EXPORT_VERSION: &str = "1.0.0";

/// The descriptive fields of a configuration file, in the order an export writes them. Every field is
/// optional: one the file does not have leaves the app's value alone. `null` counts as present (and so as
/// the wrong type); unknown fields are ignored.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ConfigFields {
    #[serde(
        default,
        deserialize_with = "non_blank",
        skip_serializing_if = "Option::is_none"
    )]
    #[cfg_attr(feature = "openapi", schema(nullable = false, min_length = 1))]
    pub name: Option<String>,
    #[serde(
        default,
        deserialize_with = "non_blank",
        skip_serializing_if = "Option::is_none"
    )]
    #[cfg_attr(feature = "openapi", schema(nullable = false, min_length = 1))]
    pub description: Option<String>,
    /// Written by export, read for information only (apps have no version).
    #[serde(default, deserialize_with = "text", skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schema(nullable = false))]
    pub version: Option<String>,
    #[serde(default, deserialize_with = "text", skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schema(nullable = false))]
    pub onboarding_instructions: Option<String>,
    #[serde(
        default,
        deserialize_with = "non_blank",
        skip_serializing_if = "Option::is_none"
    )]
    #[cfg_attr(feature = "openapi", schema(nullable = false, min_length = 1))]
    pub public_url: Option<String>,
    #[serde(rename = "logoURL")]
    #[serde(
        default,
        deserialize_with = "non_blank",
        skip_serializing_if = "Option::is_none"
    )]
    #[cfg_attr(feature = "openapi", schema(nullable = false, min_length = 1))]
    pub logo_url: Option<String>,
    /// Empty removes the app's webview URL.
    #[serde(rename = "webviewURL")]
    #[serde(default, deserialize_with = "text", skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schema(nullable = false))]
    pub webview_url: Option<String>,
    #[serde(
        default,
        deserialize_with = "app_type",
        skip_serializing_if = "Option::is_none"
    )]
    #[cfg_attr(feature = "openapi", schema(nullable = false))]
    pub app_type: Option<AppType>,
}

impl ConfigFields {
    /// Reads the fields of a configuration object (the caller checked it is an object).
    ///
    /// # Errors
    /// [`ConfigError::InvalidField`] for the first field (in file order) of the wrong type.
    pub(super) fn read(object: &Value) -> Result<Self, ConfigError> {
        serde_path_to_error::deserialize(object).map_err(|error| ConfigError::InvalidField {
            field: error.path().to_string(),
            expected: error.into_inner().to_string(),
        })
    }

    /// What an export writes for `app`: a blank name, description, server URL, logo or webview URL is
    /// left out so that the file always imports.
    #[must_use]
    pub fn of(app: &App) -> Self {
        let non_blank = |text: &str| Some(text.to_owned()).filter(|text| !text.trim().is_empty());
        Self {
            name: non_blank(&app.name),
            description: non_blank(&app.description),
            version: Some(EXPORT_VERSION.to_owned()),
            onboarding_instructions: Some(app.onboarding_instructions.clone()),
            public_url: non_blank(&app.public_url),
            logo_url: non_blank(&app.logo_url),
            webview_url: app.webview_url.as_deref().and_then(non_blank),
            app_type: Some(app.app_type),
        }
    }

    /// Replaces each field of `app` the file sets. The server and webview URLs are normalised
    /// (specification §5) and an empty webview URL removes it; `version` is not stored.
    pub fn apply_to(&self, app: &mut App) {
        if let Some(name) = &self.name {
            app.name.clone_from(name);
        }
        if let Some(description) = &self.description {
            app.description.clone_from(description);
        }
        if let Some(instructions) = &self.onboarding_instructions {
            app.onboarding_instructions.clone_from(instructions);
        }
        if let Some(url) = &self.public_url {
            app.public_url = normalise_url(url);
        }
        if let Some(url) = &self.logo_url {
            app.logo_url.clone_from(url);
        }
        if let Some(url) = &self.webview_url {
            app.webview_url = Some(normalise_url(url)).filter(|url| !url.is_empty());
        }
        if let Some(app_type) = self.app_type {
            app.app_type = app_type;
        }
    }

    /// The fields of an update body that write the fields the file sets, with their values in `next`
    /// (the app with the file applied, so URLs go normalised).
    #[must_use]
    pub fn details_input(&self, next: &App) -> AppDetailsInput {
        let set = |present: bool, value: &str| present.then(|| value.to_owned());
        AppDetailsInput {
            name: set(self.name.is_some(), &next.name),
            description: set(self.description.is_some(), &next.description),
            onboarding_instructions: set(
                self.onboarding_instructions.is_some(),
                &next.onboarding_instructions,
            ),
            public_url: set(self.public_url.is_some(), &next.public_url),
            logo_url: set(self.logo_url.is_some(), &next.logo_url),
            webview_url: set(
                self.webview_url.is_some(),
                next.webview_url.as_deref().unwrap_or_default(),
            ),
            app_type: set(self.app_type.is_some(), next.app_type.code()),
        }
    }
}

/// A string with more than white space.
fn non_blank<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<String>, D::Error> {
    match Value::deserialize(deserializer)? {
        Value::String(text) if !text.trim().is_empty() => Ok(Some(text)),
        _ => Err(D::Error::custom("must be a non-empty string")),
    }
}

/// Any string, empty included.
fn text<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<String>, D::Error> {
    match Value::deserialize(deserializer)? {
        Value::String(text) => Ok(Some(text)),
        _ => Err(D::Error::custom("must be a string")),
    }
}

/// `background` or `standard`.
fn app_type<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<AppType>, D::Error> {
    match Value::deserialize(deserializer)? {
        Value::String(text) if AppType::parse(&text).is_some() => Ok(AppType::parse(&text)),
        _ => Err(D::Error::custom("must be either \"background\" or \"standard\"")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::apps::config::fixtures::configured_app;
    use serde_json::json;

    #[test]
    fn what_an_export_writes_reads_back_as_the_same_fields() {
        let fields = ConfigFields::of(&configured_app());
        let written = serde_json::to_value(&fields).unwrap();
        assert_eq!(ConfigFields::read(&written), Ok(fields));
    }

    #[test]
    fn the_first_field_of_the_wrong_type_in_the_files_order_is_named_with_its_wire_name() {
        let error = ConfigFields::read(&json!({"webviewURL": 1, "name": ""})).unwrap_err();
        assert_eq!(
            error.to_string(),
            "Optional field \"webviewURL\" must be a string if provided."
        );
        let error = ConfigFields::read(&json!({"name": null, "webviewURL": 1})).unwrap_err();
        assert_eq!(
            error.to_string(),
            "Optional field \"name\" must be a non-empty string if provided."
        );
    }

    #[test]
    fn applying_the_fields_writes_only_those_present() {
        let app = configured_app();
        let mut next = app.clone();
        ConfigFields {
            description: Some("New".into()),
            ..ConfigFields::default()
        }
        .apply_to(&mut next);
        assert_eq!(next.description, "New");
        assert_eq!(next.name, app.name);
        assert_eq!(
            ConfigFields {
                description: Some("New".into()),
                ..ConfigFields::default()
            }
            .details_input(&next),
            AppDetailsInput {
                description: Some("New".into()),
                ..AppDetailsInput::default()
            }
        );
    }
}
