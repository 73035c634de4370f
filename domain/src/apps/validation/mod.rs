//! Validation of the register and update bodies (specification §5), from the raw values received to a
//! validated [`NewApp`] or [`AppUpdate`], or a map of field errors keyed by the API's camelCase names.

//!
//! The bodies and their validated forms are in `bodies`, the rules of single fields in `fields`; this
//! module holds the messages and limits and puts the rules together.

mod bodies;
mod fields;

pub use bodies::{AppUpdate, NewApp, RegistrationInput, UpdateInput, changed_fields};

use super::hardware::validate_hardware;
use super::permissions::validate_permissions;
use super::{AppType, PackageName, Setting, Tool};
use crate::common::ServerUrlRule;
use fields::{app_type, logo_url, onboarding, public_url, required_text, webview_url};

/// Field name (camelCase, as in the API) → message.
pub use crate::common::FieldErrors;

pub const NAME_REQUIRED: &str = "Display name is required";
pub const DESCRIPTION_REQUIRED: &str = "Description is required";
pub const SERVER_URL_REQUIRED: &str = "Server URL is required";
pub const LOGO_REQUIRED: &str = "Logo is required";
pub const INVALID_URL: &str = crate::common::url::INVALID_URL;
pub const INVALID_APP_TYPE: &str = "App type must be background or standard";

/// Longest display name, in characters.
pub const MAX_NAME_LEN: usize = 100;
/// Longest description, in characters.
pub const MAX_DESCRIPTION_LEN: usize = 5000;
/// Longest onboarding instructions, in characters (specification §9).
pub const MAX_ONBOARDING_LEN: usize = 2000;

pub const NAME_TOO_LONG: &str = "Display name must be 100 characters or fewer";
pub const DESCRIPTION_TOO_LONG: &str = "Description must be 5000 characters or fewer";
pub const ONBOARDING_TOO_LONG: &str = "Onboarding instructions must be 2000 characters or fewer";

/// The seam for the rules of settings and AI tools (PRODUCT.md §4: validated on every write).
///
/// # Errors
/// The field errors of the settings and tools rules.
pub fn validate_app_config(settings: &[Setting], tools: &[Tool]) -> Result<(), FieldErrors> {
    let mut errors = FieldErrors::new();
    if let Err(problems) = super::settings::validate_settings(settings) {
        errors.merge(problems.fields());
    }
    if let Err(problems) = super::tools::validate_tools(tools) {
        errors.merge(problems.fields());
    }
    if errors.is_empty() { Ok(()) } else { Err(errors) }
}

/// Validates a registration; `server_urls` says whether a loopback `http://` server URL is kept.
///
/// # Errors
/// Every field error found (not only the first).
pub fn validate_registration(
    input: &RegistrationInput,
    server_urls: ServerUrlRule,
) -> Result<NewApp, FieldErrors> {
    let mut errors = FieldErrors::new();
    let package_name = PackageName::parse(&input.package_name)
        .map_err(|e| errors.add("packageName", e.to_string()))
        .ok();
    let name = required_text(
        &mut errors,
        "name",
        &input.name,
        NAME_REQUIRED,
        MAX_NAME_LEN,
        NAME_TOO_LONG,
    );
    let description = required_text(
        &mut errors,
        "description",
        &input.description,
        DESCRIPTION_REQUIRED,
        MAX_DESCRIPTION_LEN,
        DESCRIPTION_TOO_LONG,
    );
    let onboarding = onboarding(
        &mut errors,
        input.onboarding_instructions.as_deref().unwrap_or_default(),
    );
    let public_url = public_url(&mut errors, &input.public_url, server_urls);
    let logo_url = logo_url(&mut errors, &input.logo_url);
    let webview_url = webview_url(&mut errors, input.webview_url.as_deref().unwrap_or_default());
    let app_type = match input.app_type.as_deref().map(str::trim) {
        None | Some("") => Some(AppType::default()),
        Some(value) => app_type(&mut errors, value),
    };
    let permissions = validate_permissions(&input.permissions, &[])
        .map_err(|e| errors.add("permissions", e.to_string()))
        .ok();
    let hardware = validate_hardware(&input.hardware_requirements)
        .map_err(|e| errors.add("hardwareRequirements", e.to_string()))
        .ok();
    // Every `None` above recorded an error, so with no errors every value is present.
    let (Some(package_name), Some(public_url), true) = (package_name, public_url, errors.is_empty()) else {
        return Err(errors);
    };
    Ok(NewApp {
        package_name,
        name: name.unwrap_or_default(),
        description: description.unwrap_or_default(),
        onboarding_instructions: onboarding.unwrap_or_default(),
        public_url,
        logo_url: logo_url.unwrap_or_default(),
        webview_url: webview_url.flatten(),
        app_type: app_type.unwrap_or_default(),
        permissions: permissions.unwrap_or_default(),
        hardware_requirements: hardware.unwrap_or_default(),
    })
}

/// Validates an update. Present fields follow the same rules as at registration; settings and tools go
/// through [`validate_app_config`].
///
/// # Errors
/// Every field error found.
pub fn validate_update(input: &UpdateInput, server_urls: ServerUrlRule) -> Result<AppUpdate, FieldErrors> {
    let mut errors = FieldErrors::new();
    let update = AppUpdate {
        name: input
            .name
            .as_deref()
            .and_then(|v| required_text(&mut errors, "name", v, NAME_REQUIRED, MAX_NAME_LEN, NAME_TOO_LONG)),
        description: input.description.as_deref().and_then(|v| {
            required_text(
                &mut errors,
                "description",
                v,
                DESCRIPTION_REQUIRED,
                MAX_DESCRIPTION_LEN,
                DESCRIPTION_TOO_LONG,
            )
        }),
        onboarding_instructions: input
            .onboarding_instructions
            .as_deref()
            .and_then(|v| onboarding(&mut errors, v)),
        public_url: input
            .public_url
            .as_deref()
            .and_then(|v| public_url(&mut errors, v, server_urls)),
        logo_url: input.logo_url.as_deref().and_then(|v| logo_url(&mut errors, v)),
        webview_url: input
            .webview_url
            .as_deref()
            .and_then(|v| webview_url(&mut errors, v)),
        app_type: input
            .app_type
            .as_deref()
            .and_then(|v| app_type(&mut errors, v.trim())),
        settings: input.settings.clone(),
        tools: input.tools.clone(),
        hardware_requirements: input.hardware_requirements.as_deref().and_then(|list| {
            validate_hardware(list)
                .map_err(|e| errors.add("hardwareRequirements", e.to_string()))
                .ok()
        }),
    };
    if input.settings.is_some() || input.tools.is_some() {
        let settings = input.settings.as_deref().unwrap_or_default();
        let tools = input.tools.as_deref().unwrap_or_default();
        if let Err(config_errors) = validate_app_config(settings, tools) {
            errors.merge(config_errors);
        }
    }
    if errors.is_empty() {
        Ok(update)
    } else {
        Err(errors)
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn settings_and_tools_are_validated_together_with_paths_to_each_problem() {
        use crate::apps::{Setting, Tool};
        let settings = vec![
            Setting::Toggle {
                key: "dup".into(),
                label: "A".into(),
                default_value: false,
            },
            Setting::Toggle {
                key: "dup".into(),
                label: "B".into(),
                default_value: true,
            },
        ];
        let tools = vec![Tool {
            id: String::new(),
            description: "Does things".into(),
            activation_phrases: vec![],
            parameters: indexmap::IndexMap::new(),
        }];
        let errors = super::validate_app_config(&settings, &tools).unwrap_err();
        assert!(errors.keys().any(|k| k.starts_with("settings[1]")), "{errors:?}");
        assert!(errors.keys().any(|k| k.starts_with("tools[0]")), "{errors:?}");
        assert!(super::validate_app_config(&settings[..1], &[]).is_ok());
    }

    use super::*;
    use crate::apps::{
        AppStoreStatus, HardwareLevel, HardwareRequirement, HardwareType, Permission, PermissionType,
    };
    use crate::common::{OrgId, UserId};
    use crate::testing::noon;

    fn valid() -> RegistrationInput {
        RegistrationInput {
            package_name: "com.example.notes".into(),
            name: " Notes ".into(),
            description: "Takes notes".into(),
            onboarding_instructions: None,
            public_url: "http://notes.example.com/".into(),
            logo_url: "http://127.0.0.1:8080/api/images/1".into(),
            webview_url: None,
            app_type: None,
            permissions: vec![Permission {
                kind: PermissionType::Microphone,
                description: None,
            }],
            hardware_requirements: vec![],
        }
    }

    fn errors_of(input: &RegistrationInput) -> FieldErrors {
        validate_registration(input, ServerUrlRule::HttpsOnly).unwrap_err()
    }

    #[test]
    fn a_complete_registration_is_accepted_normalised_and_defaults_to_background() {
        let app = validate_registration(&valid(), ServerUrlRule::HttpsOnly).unwrap();
        assert_eq!(app.package_name.as_str(), "com.example.notes");
        assert_eq!(app.name, "Notes");
        assert_eq!(app.public_url.as_str(), "https://notes.example.com");
        assert_eq!(app.logo_url, "http://127.0.0.1:8080/api/images/1");
        assert_eq!(app.app_type, AppType::Background);
        assert_eq!(app.webview_url, None);
        assert_eq!(app.onboarding_instructions, "");
    }

    #[test]
    fn an_empty_registration_reports_every_required_field_with_the_specifications_messages() {
        let errors = errors_of(&RegistrationInput::default());
        assert_eq!(errors["packageName"], "Package name is required");
        assert_eq!(errors["name"], "Display name is required");
        assert_eq!(errors["description"], "Description is required");
        assert_eq!(errors["publicUrl"], "Server URL is required");
        assert_eq!(errors["logoURL"], "Logo is required");
        assert_eq!(errors.len(), 5);
    }

    #[test]
    fn a_package_name_with_capitals_is_refused_with_the_specifications_message() {
        let errors = errors_of(&RegistrationInput {
            package_name: "Com.Example".into(),
            ..valid()
        });
        assert_eq!(
            errors["packageName"],
            "Package name must use lowercase letters, numbers, dots, and hyphens only"
        );
    }

    #[test]
    fn a_package_name_of_dots_or_over_the_length_limit_is_refused_with_its_own_message() {
        for (name, message) in [
            (
                "..",
                "Package name cannot start or end with a dot or have two dots in a row",
            ),
            (
                "com..example",
                "Package name cannot start or end with a dot or have two dots in a row",
            ),
            (&"a".repeat(129), "Package name must be 128 characters or fewer"),
        ] {
            let errors = errors_of(&RegistrationInput {
                package_name: name.to_owned(),
                ..valid()
            });
            assert_eq!(errors["packageName"], message, "{name:?}");
        }
    }

    #[test]
    fn server_and_webview_urls_with_credentials_a_scheme_typo_or_invisible_characters_are_invalid() {
        for bad in [
            "https://user:pass@example.com",
            "http:/example.com",
            "https:////example.com",
            "https://exa\u{200b}mple.com",
        ] {
            let errors = errors_of(&RegistrationInput {
                public_url: bad.into(),
                webview_url: Some(bad.into()),
                ..valid()
            });
            assert_eq!(errors["publicUrl"], "Please enter a valid URL", "{bad:?}");
            assert_eq!(errors["webviewURL"], "Please enter a valid URL", "{bad:?}");
        }
        let update = validate_update(
            &UpdateInput {
                public_url: Some("\u{feff}http://example.com/".into()),
                ..UpdateInput::default()
            },
            ServerUrlRule::HttpsOnly,
        )
        .unwrap();
        assert_eq!(update.public_url.unwrap().as_str(), "https://example.com");
    }

    #[test]
    fn a_server_url_that_does_not_parse_is_invalid() {
        let errors = errors_of(&RegistrationInput {
            public_url: "not a url".into(),
            ..valid()
        });
        assert_eq!(errors["publicUrl"], "Please enter a valid URL");
    }

    #[test]
    fn a_logo_that_is_not_a_web_url_is_invalid() {
        for bad in [
            "logo.png",
            "ftp://example.com/logo.png",
            "https://exa mple.com/l.png",
            "https://user:pass@example.com/l.png",
            "https://exa\u{200b}mple.com/l.png",
        ] {
            let errors = errors_of(&RegistrationInput {
                logo_url: bad.into(),
                ..valid()
            });
            assert_eq!(errors["logoURL"], "Please enter a valid URL", "{bad:?}");
        }
    }

    #[test]
    fn a_webview_url_is_optional_but_must_be_valid_when_given() {
        let ok = validate_registration(
            &RegistrationInput {
                webview_url: Some("view.example.com/".into()),
                ..valid()
            },
            ServerUrlRule::HttpsOnly,
        )
        .unwrap();
        assert_eq!(ok.webview_url.unwrap().as_str(), "https://view.example.com");
        let blank = validate_registration(
            &RegistrationInput {
                webview_url: Some("  ".into()),
                ..valid()
            },
            ServerUrlRule::HttpsOnly,
        )
        .unwrap();
        assert_eq!(blank.webview_url, None);
        let errors = errors_of(&RegistrationInput {
            webview_url: Some("https://".into()),
            ..valid()
        });
        assert_eq!(errors["webviewURL"], "Please enter a valid URL");
    }

    #[test]
    fn onboarding_instructions_are_capped_at_two_thousand_characters() {
        let at_cap = RegistrationInput {
            onboarding_instructions: Some("o".repeat(2000)),
            ..valid()
        };
        assert!(validate_registration(&at_cap, ServerUrlRule::HttpsOnly).is_ok());
        let errors = errors_of(&RegistrationInput {
            onboarding_instructions: Some("o".repeat(2001)),
            ..valid()
        });
        assert_eq!(errors["onboardingInstructions"], ONBOARDING_TOO_LONG);
    }

    #[test]
    fn an_overlong_name_or_description_is_refused() {
        let errors = errors_of(&RegistrationInput {
            name: "n".repeat(MAX_NAME_LEN + 1),
            description: "d".repeat(MAX_DESCRIPTION_LEN + 1),
            ..valid()
        });
        assert_eq!(errors["name"], NAME_TOO_LONG);
        assert_eq!(errors["description"], DESCRIPTION_TOO_LONG);
    }

    #[test]
    fn the_app_type_is_background_or_standard() {
        let standard = validate_registration(
            &RegistrationInput {
                app_type: Some("standard".into()),
                ..valid()
            },
            ServerUrlRule::HttpsOnly,
        );
        assert_eq!(standard.unwrap().app_type, AppType::Standard);
        let errors = errors_of(&RegistrationInput {
            app_type: Some("foreground".into()),
            ..valid()
        });
        assert_eq!(errors["appType"], INVALID_APP_TYPE);
    }

    #[test]
    fn permission_and_hardware_lists_are_validated_at_registration() {
        let legacy = Permission {
            kind: PermissionType::Notifications,
            description: None,
        };
        let camera = HardwareRequirement {
            kind: HardwareType::Camera,
            level: HardwareLevel::Required,
            description: None,
        };
        let errors = errors_of(&RegistrationInput {
            permissions: vec![legacy],
            hardware_requirements: vec![camera.clone(), camera],
            ..valid()
        });
        assert!(errors["permissions"].contains("legacy"));
        assert_eq!(
            errors["hardwareRequirements"],
            "Hardware requirement CAMERA is listed more than once"
        );
    }

    #[test]
    fn a_new_app_starts_in_development_private_and_unshared() {
        let org = OrgId::new();
        let dev = UserId::new();
        let app = validate_registration(&valid(), ServerUrlRule::HttpsOnly)
            .unwrap()
            .into_app(org, dev, noon());
        assert_eq!(app.app_store_status, AppStoreStatus::Development);
        assert_eq!((app.org_id, app.developer_id), (org, dev));
        assert!(!app.is_public && !app.shared_with_organization && app.shared_with_emails.is_empty());
        assert_eq!(app.created_at, noon());
        assert_eq!(app.public_url, "https://notes.example.com");
    }

    #[test]
    fn the_register_body_reads_the_apis_field_names() {
        let input: RegistrationInput = serde_json::from_value(serde_json::json!({
            "packageName": "a.b", "name": "A", "description": "D", "publicUrl": "a.example.com",
            "logoURL": "https://a.example.com/l.png", "webviewURL": "", "appType": "standard"
        }))
        .unwrap();
        let app = validate_registration(&input, ServerUrlRule::HttpsOnly).unwrap();
        assert_eq!(app.app_type, AppType::Standard);
        assert!(app.permissions.is_empty());
    }

    #[test]
    fn the_update_body_ignores_status_review_fields_and_permissions() {
        let input: UpdateInput = serde_json::from_value(serde_json::json!({
            "name": "New", "appStoreStatus": "PUBLISHED", "reviewNotes": "x", "orgId": "y",
            "permissions": [{"type": "CAMERA"}]
        }))
        .unwrap();
        let update = validate_update(&input, ServerUrlRule::HttpsOnly).unwrap();
        assert_eq!(
            update,
            AppUpdate {
                name: Some("New".into()),
                ..AppUpdate::default()
            }
        );
    }

    #[test]
    fn an_update_checks_present_fields_with_the_registration_rules() {
        let input = UpdateInput {
            name: Some("  ".into()),
            public_url: Some(String::new()),
            logo_url: Some("nope".into()),
            app_type: Some("x".into()),
            ..UpdateInput::default()
        };
        let errors = validate_update(&input, ServerUrlRule::HttpsOnly).unwrap_err();
        assert_eq!(errors["name"], NAME_REQUIRED);
        assert_eq!(errors["publicUrl"], SERVER_URL_REQUIRED);
        assert_eq!(errors["logoURL"], INVALID_URL);
        assert_eq!(errors["appType"], INVALID_APP_TYPE);
    }

    #[test]
    fn an_update_changes_only_the_given_fields_and_an_empty_webview_clears_it() {
        let mut app = validate_registration(&valid(), ServerUrlRule::HttpsOnly)
            .unwrap()
            .into_app(OrgId::new(), UserId::new(), noon());
        app.webview_url = Some("https://view.example.com".into());
        app.app_store_status = AppStoreStatus::Published;
        let later = noon() + chrono::Duration::hours(1);
        let update = validate_update(
            &UpdateInput {
                description: Some(" Better notes ".into()),
                webview_url: Some(String::new()),
                ..UpdateInput::default()
            },
            ServerUrlRule::HttpsOnly,
        )
        .unwrap();
        let next = update.apply_to(&app, later);
        assert_eq!(next.description, "Better notes");
        assert_eq!(next.webview_url, None);
        assert_eq!(next.name, app.name);
        assert_eq!(next.app_store_status, AppStoreStatus::Published);
        assert_eq!(next.updated_at, later);
        assert_eq!(changed_fields(&app, &next), vec!["description", "webviewURL"]);
    }

    #[test]
    fn the_config_seam_accepts_empty_settings_and_tools() {
        assert_eq!(validate_app_config(&[], &[]), Ok(()));
    }
}
