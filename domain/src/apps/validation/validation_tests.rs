//! The rules of the register and update bodies.

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
    App, AppStoreStatus, AppType, HardwareLevel, HardwareRequirement, HardwareType, Permission,
    PermissionType,
};
use crate::common::{OrgId, ServerUrlRule, UserId};
use crate::testing::noon;

fn valid() -> RegistrationInput {
    RegistrationInput {
        package_name: "com.example.notes".into(),
        details: AppDetailsInput {
            name: Some(" Notes ".into()),
            description: Some("Takes notes".into()),
            public_url: Some("http://notes.example.com/".into()),
            logo_url: Some("http://127.0.0.1:8080/api/images/1".into()),
            ..AppDetailsInput::default()
        },
        permissions: vec![Permission {
            kind: PermissionType::Microphone,
            description: None,
        }],
        hardware_requirements: vec![],
    }
}

/// [`valid`] with its details edited.
fn valid_with(edit: impl FnOnce(&mut AppDetailsInput)) -> RegistrationInput {
    let mut input = valid();
    edit(&mut input.details);
    input
}

fn register(input: &RegistrationInput) -> Result<App, FieldErrors> {
    validate_registration(
        input,
        ServerUrlRule::HttpsOnly,
        OrgId::new(),
        UserId::new(),
        noon(),
    )
}

fn errors_of(input: &RegistrationInput) -> FieldErrors {
    register(input).unwrap_err()
}

fn update(details: AppDetailsInput) -> Result<Valid<UpdateInput>, FieldErrors> {
    validate_update(
        &UpdateInput {
            details,
            ..UpdateInput::default()
        },
        ServerUrlRule::HttpsOnly,
    )
}

#[test]
fn a_complete_registration_is_accepted_normalised_and_defaults_to_background() {
    let app = register(&valid()).unwrap();
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
        let errors = errors_of(&valid_with(|d| {
            d.public_url = Some(bad.into());
            d.webview_url = Some(bad.into());
        }));
        assert_eq!(errors["publicUrl"], "Please enter a valid URL", "{bad:?}");
        assert_eq!(errors["webviewURL"], "Please enter a valid URL", "{bad:?}");
    }
    let valid = update(AppDetailsInput {
        public_url: Some("\u{feff}http://example.com/".into()),
        ..AppDetailsInput::default()
    })
    .unwrap();
    assert_eq!(valid.details.public_url.as_deref(), Some("https://example.com"));
}

#[test]
fn a_server_url_that_does_not_parse_is_invalid() {
    let errors = errors_of(&valid_with(|d| d.public_url = Some("not a url".into())));
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
        let errors = errors_of(&valid_with(|d| d.logo_url = Some(bad.into())));
        assert_eq!(errors["logoURL"], "Please enter a valid URL", "{bad:?}");
    }
}

#[test]
fn a_webview_url_is_optional_but_must_be_valid_when_given() {
    let ok = register(&valid_with(|d| d.webview_url = Some("view.example.com/".into()))).unwrap();
    assert_eq!(ok.webview_url.as_deref(), Some("https://view.example.com"));
    let blank = register(&valid_with(|d| d.webview_url = Some("  ".into()))).unwrap();
    assert_eq!(blank.webview_url, None);
    let errors = errors_of(&valid_with(|d| d.webview_url = Some("https://".into())));
    assert_eq!(errors["webviewURL"], "Please enter a valid URL");
}

#[test]
fn onboarding_instructions_are_capped_at_two_thousand_characters() {
    let at_cap = valid_with(|d| d.onboarding_instructions = Some("o".repeat(2000)));
    assert!(register(&at_cap).is_ok());
    let errors = errors_of(&valid_with(|d| {
        d.onboarding_instructions = Some("o".repeat(2001))
    }));
    assert_eq!(errors["onboardingInstructions"], ONBOARDING_TOO_LONG);
}

#[test]
fn an_overlong_name_or_description_is_refused() {
    let errors = errors_of(&valid_with(|d| {
        d.name = Some("n".repeat(MAX_NAME_LEN + 1));
        d.description = Some("d".repeat(MAX_DESCRIPTION_LEN + 1));
    }));
    assert_eq!(errors["name"], NAME_TOO_LONG);
    assert_eq!(errors["description"], DESCRIPTION_TOO_LONG);
}

#[test]
fn the_app_type_is_background_or_standard() {
    let standard = register(&valid_with(|d| d.app_type = Some("standard".into())));
    assert_eq!(standard.unwrap().app_type, AppType::Standard);
    let errors = errors_of(&valid_with(|d| d.app_type = Some("foreground".into())));
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
    let app = validate_registration(&valid(), ServerUrlRule::HttpsOnly, org, dev, noon()).unwrap();
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
    let app = register(&input).unwrap();
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
    let valid = validate_update(&input, ServerUrlRule::HttpsOnly).unwrap();
    assert_eq!(
        *valid,
        UpdateInput {
            details: AppDetailsInput {
                name: Some("New".into()),
                ..AppDetailsInput::default()
            },
            ..UpdateInput::default()
        }
    );
}

#[test]
fn an_update_checks_present_fields_with_the_registration_rules() {
    let errors = update(AppDetailsInput {
        name: Some("  ".into()),
        public_url: Some(String::new()),
        logo_url: Some("nope".into()),
        app_type: Some("x".into()),
        ..AppDetailsInput::default()
    })
    .unwrap_err();
    assert_eq!(errors["name"], NAME_REQUIRED);
    assert_eq!(errors["publicUrl"], SERVER_URL_REQUIRED);
    assert_eq!(errors["logoURL"], INVALID_URL);
    assert_eq!(errors["appType"], INVALID_APP_TYPE);
}

#[test]
fn an_update_changes_only_the_given_fields_and_an_empty_webview_clears_it() {
    let mut app = register(&valid()).unwrap();
    app.webview_url = Some("https://view.example.com".into());
    app.app_store_status = AppStoreStatus::Published;
    let later = noon() + chrono::Duration::hours(1);
    let valid = update(AppDetailsInput {
        description: Some(" Better notes ".into()),
        webview_url: Some(String::new()),
        ..AppDetailsInput::default()
    })
    .unwrap();
    let next = valid.apply_to(&app, later);
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

#[test]
fn an_empty_registration_names_exactly_the_fields_the_document_marks_required() {
    let errors = validate_registration(
        &RegistrationInput::default(),
        ServerUrlRule::HttpsOnly,
        OrgId::new(),
        UserId::new(),
        noon(),
    )
    .unwrap_err();
    let named: Vec<&str> = errors.keys().collect();
    assert_eq!(named, REQUIRED_AT_REGISTRATION, "{errors:?}");
}

#[test]
fn editable_fields_are_the_apps_json_names() {
    use crate::apps::config::fixtures::{blank_app, configured_app};
    use crate::apps::{HardwareLevel, HardwareRequirement, HardwareType};
    let before = blank_app();
    let mut after = configured_app();
    after.hardware_requirements = vec![HardwareRequirement {
        kind: HardwareType::Camera,
        level: HardwareLevel::Required,
        description: None,
    }];
    // Every editable field differs, in the edit screen's order, and each is a name of the app's JSON form
    // whose value differs there too (what the review history shows).
    assert_eq!(changed_fields(&before, &after), EDITABLE_FIELDS);
    let (was, is) = (
        serde_json::to_value(&before).unwrap(),
        serde_json::to_value(&after).unwrap(),
    );
    for field in EDITABLE_FIELDS {
        assert!(
            is.get(field).is_some(),
            "{field} is not a name of the app's JSON form"
        );
        assert_ne!(was.get(field), is.get(field), "{field}");
    }
    // What is not editable is never reported, whatever changed.
    let mut moved = before.clone();
    moved.is_public = true;
    moved.shared_with_emails = vec![crate::common::EmailAddress::parse("tester@example.com").unwrap()];
    moved.review_notes = None;
    assert!(changed_fields(&before, &moved).is_empty());
}
