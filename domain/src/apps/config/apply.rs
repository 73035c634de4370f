//! The import summary shown before confirming, and applying a confirmed configuration to an app.

use serde::Serialize;

use super::{AppConfig, ImportAdjustment};
use crate::apps::App;
use crate::apps::settings::Setting;

/// What the import confirmation shows (specification §3): the descriptive fields the file sets and how
/// many settings (groups not counted), tools and permissions it holds, and the defaults import fitted to
/// their settings (empty when none). A list the file lacks counts 0.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ImportSummary {
    pub name: Option<String>,
    pub description: Option<String>,
    pub settings_count: usize,
    pub tools_count: usize,
    pub permissions_count: usize,
    pub public_url: Option<String>,
    #[serde(rename = "logoURL")]
    pub logo_url: Option<String>,
    #[serde(rename = "webviewURL")]
    pub webview_url: Option<String>,
    pub adjustments: Vec<ImportAdjustment>,
}

/// Summarises a configuration for the import confirmation.
#[must_use]
pub fn import_summary(config: &AppConfig) -> ImportSummary {
    ImportSummary {
        name: config.fields.name.clone(),
        description: config.fields.description.clone(),
        settings_count: config.settings.as_ref().map_or(0, |settings| {
            settings
                .iter()
                .filter(|s| !matches!(s, Setting::Group { .. }))
                .count()
        }),
        tools_count: config.tools.as_ref().map_or(0, Vec::len),
        permissions_count: config.permissions.as_ref().map_or(0, Vec::len),
        public_url: config.fields.public_url.clone(),
        logo_url: config.fields.logo_url.clone(),
        webview_url: config.fields.webview_url.clone(),
        adjustments: config.adjustments.clone(),
    }
}

/// The app with the configuration applied: every descriptive field the file has replaces the app's
/// ([`ConfigFields::apply_to`](super::ConfigFields::apply_to)), and so does every list it has
/// (permissions, settings, tools); the others stay. The package name, owner, store status, review fields,
/// timestamps, hardware and sharing never change. The caller saves the result, which validates it.
#[must_use]
pub fn apply_config(app: &App, config: &AppConfig) -> App {
    let mut next = app.clone();
    config.fields.apply_to(&mut next);
    if let Some(permissions) = &config.permissions {
        next.permissions.clone_from(permissions);
    }
    if let Some(settings) = &config.settings {
        next.settings.clone_from(settings);
    }
    if let Some(tools) = &config.tools {
        next.tools.clone_from(tools);
    }
    next
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::apps::config::fixtures::{blank_app, configured_app, every_kind_of_setting};
    use crate::apps::config::{ConfigFields, validate_config};
    use crate::apps::{AppStoreStatus, AppType};
    use serde_json::json;

    #[test]
    fn the_summary_counts_settings_without_groups() {
        let config = AppConfig {
            settings: Some(every_kind_of_setting()),
            ..AppConfig::default()
        };
        let summary = import_summary(&config);
        assert_eq!(summary.settings_count, 10);
        assert_eq!((summary.tools_count, summary.permissions_count), (0, 0));
    }

    #[test]
    fn the_summary_shows_the_descriptive_fields_of_the_file() {
        let config = validate_config(&json!({
            "name": "Weather", "description": "Forecasts", "publicUrl": "https://w.example.com",
            "logoURL": "https://cdn.example.com/w.png", "webviewURL": "https://w.example.com/view",
            "tools": [{"id": "t", "description": "d"}], "permissions": [{"type": "CAMERA"}]
        }))
        .unwrap();
        assert_eq!(
            serde_json::to_value(import_summary(&config)).unwrap(),
            json!({
                "name": "Weather", "description": "Forecasts", "settingsCount": 0, "toolsCount": 1,
                "permissionsCount": 1, "publicUrl": "https://w.example.com",
                "logoURL": "https://cdn.example.com/w.png", "webviewURL": "https://w.example.com/view",
                "adjustments": []
            })
        );
    }

    #[test]
    fn the_summary_lists_the_defaults_import_fitted() {
        let config = validate_config(&json!({"settings": [
            {"type": "slider", "key": "v", "label": "V", "min": 0, "max": 10, "defaultValue": -0.5}
        ]}))
        .unwrap();
        assert_eq!(
            serde_json::to_value(import_summary(&config)).unwrap()["adjustments"],
            json!([{
                "path": "settings[0]",
                "message": "Setting at index 0 (\"v\"): default -0.5 is outside 0 to 10 and was set to the minimum, 0."
            }])
        );
    }

    #[test]
    fn an_empty_configuration_changes_nothing() {
        let app = configured_app();
        assert_eq!(apply_config(&app, &AppConfig::default()), app);
    }

    #[test]
    fn present_fields_replace_the_apps_and_absent_ones_stay() {
        let app = configured_app();
        let config = AppConfig {
            fields: ConfigFields {
                name: Some("Renamed".into()),
                app_type: Some(AppType::Background),
                ..ConfigFields::default()
            },
            settings: Some(Vec::new()),
            ..AppConfig::default()
        };
        let next = apply_config(&app, &config);
        assert_eq!(next.name, "Renamed");
        assert_eq!(next.app_type, AppType::Background);
        assert!(next.settings.is_empty());
        assert_eq!(next.description, app.description);
        assert_eq!(next.tools, app.tools);
        assert_eq!(next.webview_url, app.webview_url);
    }

    #[test]
    fn package_name_owner_and_store_status_never_change() {
        let app = blank_app();
        let next = apply_config(
            &app,
            &validate_config(&json!({"name": "X", "appType": "standard"})).unwrap(),
        );
        assert_eq!(next.package_name, app.package_name);
        assert_eq!(next.org_id, app.org_id);
        assert_eq!(next.developer_id, app.developer_id);
        assert_eq!(next.app_store_status, AppStoreStatus::Published);
        assert_eq!(next.review_notes, app.review_notes);
        assert_eq!(next.updated_at, app.updated_at);
    }

    #[test]
    fn imported_urls_are_normalised_and_an_empty_webview_url_removes_it() {
        let config = AppConfig {
            fields: ConfigFields {
                public_url: Some(" http://weather.example.com/ ".into()),
                webview_url: Some("  ".into()),
                ..ConfigFields::default()
            },
            ..AppConfig::default()
        };
        let next = apply_config(&configured_app(), &config);
        assert_eq!(next.public_url, "https://weather.example.com");
        assert_eq!(next.webview_url, None);
        let with_view = AppConfig {
            fields: ConfigFields {
                webview_url: Some("view.example.com/".into()),
                ..ConfigFields::default()
            },
            ..AppConfig::default()
        };
        assert_eq!(
            apply_config(&blank_app(), &with_view).webview_url.as_deref(),
            Some("https://view.example.com")
        );
    }
}
