//! Exporting an app's configuration to a file (specification §3; PRODUCT.md §4).

use serde::Serialize;
use serde_json::Value;

use super::fields::ConfigFields;
pub use super::fields::EXPORT_VERSION;
use crate::apps::{App, PackageName};

/// The file an export is saved as: `{packageName}_config.json`.
#[must_use]
pub fn export_file_name(package_name: &PackageName) -> String {
    format!("{package_name}_config.json")
}

/// A configuration file as an export writes it: the descriptive fields (`ConfigFields`), then the
/// permissions, settings and tools.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ConfigFile {
    #[serde(flatten)]
    pub fields: ConfigFields,
    #[cfg_attr(feature = "openapi", schema(value_type = Vec<crate::apps::Permission>))]
    pub permissions: Vec<Value>,
    #[cfg_attr(feature = "openapi", schema(value_type = Vec<crate::apps::Setting>))]
    pub settings: Vec<Value>,
    #[cfg_attr(feature = "openapi", schema(value_type = Vec<crate::apps::Tool>))]
    pub tools: Vec<Value>,
}

/// The configuration file of an app, fields in this order: `name`, `description`, `version`,
/// `onboardingInstructions`, `publicUrl`, `logoURL`, `webviewURL` (only when set), `appType`,
/// `permissions`, `settings`, `tools` ([`ConfigFields::of`] says which descriptive fields are left out).
/// No internal ids, status, review or ownership data; empty `options` and `enum` lists are removed. The
/// result passes [`validate_config`](super::validate_config).
#[must_use]
pub fn export_config(app: &App) -> ConfigFile {
    let settings = app
        .settings
        .iter()
        .filter_map(|setting| serde_json::to_value(setting).ok())
        .map(|mut value| {
            if let Some(object) = value.as_object_mut()
                && object
                    .get("options")
                    .and_then(Value::as_array)
                    .is_some_and(Vec::is_empty)
            {
                object.remove("options");
            }
            value
        });
    ConfigFile {
        fields: ConfigFields::of(app),
        permissions: to_array(app.permissions.iter()),
        settings: settings.collect(),
        tools: to_array(app.tools.iter().map(|tool| tool.without_empty_enums())),
    }
}

fn to_array<T: Serialize>(items: impl Iterator<Item = T>) -> Vec<Value> {
    items.filter_map(|item| serde_json::to_value(item).ok()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::apps::config::fixtures::{blank_app, configured_app};
    use crate::apps::config::{apply_config, validate_config};
    use crate::apps::settings::Setting;
    use crate::apps::tools::{ParameterType, ToolParameter};
    use serde_json::json;

    fn export(app: &App) -> Value {
        serde_json::to_value(export_config(app)).unwrap()
    }

    #[test]
    fn the_export_file_is_named_after_the_package() {
        let app = blank_app();
        assert_eq!(
            export_file_name(&app.package_name),
            "com.example.weather_config.json"
        );
    }

    #[test]
    fn the_export_holds_the_configurable_fields_in_order_and_a_version() {
        let file = export(&configured_app());
        let keys: Vec<&str> = file.as_object().unwrap().keys().map(String::as_str).collect();
        assert_eq!(
            keys,
            [
                "name",
                "description",
                "version",
                "onboardingInstructions",
                "publicUrl",
                "logoURL",
                "webviewURL",
                "appType",
                "permissions",
                "settings",
                "tools"
            ]
        );
        assert_eq!(file["version"], json!("1.0.0"));
        assert_eq!(file["appType"], json!("standard"));
        assert_eq!(file["permissions"][1], json!({"type": "MICROPHONE"}));
    }

    #[test]
    fn the_export_has_no_internal_status_review_or_ownership_data() {
        let file = export(&configured_app());
        for field in [
            "packageName",
            "orgId",
            "developerId",
            "appStoreStatus",
            "reviewNotes",
            "createdAt",
            "_id",
        ] {
            assert!(file.get(field).is_none(), "{field}");
        }
    }

    #[test]
    fn the_webview_url_is_only_exported_when_set() {
        assert!(export(&blank_app()).get("webviewURL").is_none());
        assert_eq!(
            export(&configured_app())["webviewURL"],
            json!("https://weather.example.com/webview")
        );
    }

    #[test]
    fn empty_options_and_enum_lists_are_removed() {
        let mut app = blank_app();
        app.settings = vec![Setting::Select {
            key: "k".into(),
            label: "L".into(),
            options: Vec::new(),
            default_value: None,
        }];
        let mut tool = configured_app().tools.remove(0);
        tool.parameters.insert(
            "mode".into(),
            ToolParameter {
                kind: ParameterType::String,
                description: String::new(),
                required: false,
                allowed: Some(vec![]),
            },
        );
        app.tools = vec![tool];
        let file = export(&app);
        assert_eq!(
            file["settings"][0],
            json!({"type": "select", "key": "k", "label": "L"})
        );
        assert!(file["tools"][0]["parameters"]["mode"].get("enum").is_none());
        assert_eq!(
            file["tools"][0]["parameters"]["city"]["enum"],
            json!(["Paris", "Rome"])
        );
    }

    #[test]
    fn blank_required_texts_are_left_out_so_the_file_still_imports() {
        let mut app = blank_app();
        app.logo_url = String::new();
        let file = export(&app);
        assert!(file.get("logoURL").is_none());
        assert!(validate_config(&file).is_ok());
    }

    #[test]
    fn export_then_import_then_apply_gives_back_the_configurable_fields() {
        let source = configured_app();
        let config = validate_config(&export(&source)).unwrap();
        assert_eq!(config.fields.version.as_deref(), Some(EXPORT_VERSION));
        let restored = apply_config(&blank_app(), &config);
        assert_eq!(restored.name, source.name);
        assert_eq!(restored.description, source.description);
        assert_eq!(restored.onboarding_instructions, source.onboarding_instructions);
        assert_eq!(restored.public_url, source.public_url);
        assert_eq!(restored.logo_url, source.logo_url);
        assert_eq!(restored.webview_url, source.webview_url);
        assert_eq!(restored.app_type, source.app_type);
        assert_eq!(restored.permissions, source.permissions);
        assert_eq!(restored.settings, source.settings);
        assert_eq!(restored.tools, source.tools);
        assert_eq!(restored.package_name, blank_app().package_name);
    }

    #[test]
    fn a_round_trip_onto_the_same_app_changes_nothing() {
        let app = configured_app();
        assert_eq!(apply_config(&app, &validate_config(&export(&app)).unwrap()), app);
    }

    #[test]
    fn an_exported_file_survives_serialising_to_text() {
        let app = configured_app();
        let text = serde_json::to_string_pretty(&export(&app)).unwrap();
        let config = super::super::read_config_file(&export_file_name(&app.package_name), &text).unwrap();
        assert_eq!(apply_config(&blank_app(), &config).settings, app.settings);
    }
}
