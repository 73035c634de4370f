//! Apps the configuration tests export, import and apply.

use indexmap::IndexMap;
use serde_json::json;
use uuid::Uuid;

use crate::apps::settings::{SelectOption, Setting};
use crate::apps::tools::{ParameterType, Tool, ToolParameter};
use crate::apps::{App, AppStoreStatus, AppType, PackageName, Permission, PermissionType};
use crate::common::{OrgId, UserId};
use crate::testing::noon;

/// An app with nothing configured.
pub fn blank_app() -> App {
    App {
        name: "Blank".into(),
        description: "Nothing yet".into(),
        public_url: "https://blank.example.com".into(),
        logo_url: "https://cdn.example.com/blank.png".into(),
        app_store_status: AppStoreStatus::Published,
        app_type: AppType::Background,
        review_notes: Some("Looks good".into()),
        reviewed_by: Some("reviewer@example.com".into()),
        reviewed_at: Some(noon()),
        ..App::registered(
            PackageName::parse("com.example.weather").unwrap(),
            OrgId::from(Uuid::from_u128(1)),
            UserId::from(Uuid::from_u128(2)),
            noon(),
        )
    }
}

/// One setting of every kind.
pub fn every_kind_of_setting() -> Vec<Setting> {
    vec![
        Setting::Group {
            title: "General".into(),
        },
        Setting::TitleValue {
            label: "Version".into(),
            value: json!("2.1"),
        },
        Setting::Toggle {
            key: "celsius".into(),
            label: "Use Celsius".into(),
            default_value: true,
        },
        Setting::Text {
            key: "city".into(),
            label: "City".into(),
            default_value: "Paris".into(),
        },
        Setting::TextNoSaveButton {
            key: "note".into(),
            label: "Note".into(),
            default_value: String::new(),
            max_lines: Some(4),
        },
        Setting::Select {
            key: "units".into(),
            label: "Units".into(),
            options: vec![
                SelectOption::new("Metric", "metric"),
                SelectOption::new("Imperial", "imperial"),
            ],
            default_value: Some(json!("metric")),
        },
        Setting::SelectWithSearch {
            key: "country".into(),
            label: "Country".into(),
            options: vec![SelectOption::new("France", "fr")],
            default_value: None,
        },
        Setting::Multiselect {
            key: "days".into(),
            label: "Days".into(),
            options: vec![SelectOption::new("Monday", 1), SelectOption::new("Tuesday", 2)],
            default_value: vec![json!(2)],
        },
        Setting::Slider {
            key: "volume".into(),
            label: "Volume".into(),
            min: 0.0,
            max: 10.0,
            default_value: 2.5,
        },
        Setting::NumericInput {
            key: "count".into(),
            label: "Count".into(),
            min: Some(1.0),
            max: None,
            step: Some(1.0),
            placeholder: Some("How many?".into()),
            default_value: 3.0,
        },
        Setting::TimePicker {
            key: "at".into(),
            label: "Remind at".into(),
            default_value: 28_800,
            show_seconds: false,
        },
    ]
}

/// A configured app: settings of every kind, a tool with and without allowed values, permissions and a
/// webview.
pub fn configured_app() -> App {
    App {
        name: "Weather".into(),
        description: "Shows the weather".into(),
        onboarding_instructions: "Say \"weather\"".into(),
        public_url: "https://weather.example.com".into(),
        logo_url: "https://cdn.example.com/weather.png".into(),
        webview_url: Some("https://weather.example.com/webview".into()),
        app_type: AppType::Standard,
        settings: every_kind_of_setting(),
        tools: vec![Tool {
            id: "forecast".into(),
            description: "Tells the forecast".into(),
            activation_phrases: vec!["forecast".into(), "will it rain".into()],
            parameters: IndexMap::from([
                (
                    "city".to_owned(),
                    ToolParameter {
                        kind: ParameterType::String,
                        description: "The city".into(),
                        required: true,
                        allowed: Some(vec!["Paris".into(), "Rome".into()]),
                    },
                ),
                (
                    "days".to_owned(),
                    ToolParameter {
                        kind: ParameterType::Number,
                        description: "Days".into(),
                        required: false,
                        allowed: None,
                    },
                ),
            ]),
        }],
        permissions: vec![
            Permission {
                kind: PermissionType::Location,
                description: Some("For the forecast".into()),
            },
            Permission {
                kind: PermissionType::Microphone,
                description: None,
            },
        ],
        ..blank_app()
    }
}
