//! Validation of the register and update bodies (specification §5), from the raw values received to a
//! validated [`NewApp`] or [`AppUpdate`], or a map of field errors keyed by the API's camelCase names.

use chrono::{DateTime, Utc};
use serde::Deserialize;

use super::hardware::validate_hardware;
use super::permissions::validate_permissions;
use super::{App, AppStoreStatus, AppType, HardwareRequirement, PackageName, Permission, Setting, Tool};
use crate::common::url::{MAX_URL_LEN, UrlError, is_blank, is_invisible};
use crate::common::{OrgId, PublicUrl, ServerUrlRule, UserId};

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

/// The register body as received (`POST /api/dev/apps/register`). Missing strings read as empty.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct RegistrationInput {
    #[cfg_attr(feature = "openapi", schema(value_type = String, pattern = r"^[a-z0-9-]+(\.[a-z0-9-]+)*$", max_length = 128))]
    pub package_name: String,
    #[cfg_attr(feature = "openapi", schema(max_length = 100))]
    pub name: String,
    #[cfg_attr(feature = "openapi", schema(max_length = 5000))]
    pub description: String,
    #[cfg_attr(feature = "openapi", schema(max_length = 2000))]
    pub onboarding_instructions: Option<String>,
    pub public_url: String,
    #[serde(rename = "logoURL")]
    pub logo_url: String,
    #[serde(rename = "webviewURL")]
    pub webview_url: Option<String>,
    #[cfg_attr(feature = "openapi", schema(value_type = Option<AppType>))]
    pub app_type: Option<String>,
    #[cfg_attr(feature = "openapi", schema(value_type = std::collections::BTreeSet<Permission>))]
    pub permissions: Vec<Permission>,
    #[cfg_attr(feature = "openapi", schema(value_type = std::collections::BTreeSet<HardwareRequirement>))]
    pub hardware_requirements: Vec<HardwareRequirement>,
}

/// A validated registration.
#[derive(Debug, Clone, PartialEq)]
pub struct NewApp {
    pub package_name: PackageName,
    pub name: String,
    pub description: String,
    pub onboarding_instructions: String,
    pub public_url: PublicUrl,
    pub logo_url: String,
    pub webview_url: Option<PublicUrl>,
    pub app_type: AppType,
    pub permissions: Vec<Permission>,
    pub hardware_requirements: Vec<HardwareRequirement>,
}

impl NewApp {
    /// The app as first stored: DEVELOPMENT, private, no settings, tools or testers.
    #[must_use]
    pub fn into_app(self, org_id: OrgId, developer_id: UserId, now: DateTime<Utc>) -> App {
        App {
            package_name: self.package_name,
            org_id,
            developer_id,
            name: self.name,
            description: self.description,
            onboarding_instructions: self.onboarding_instructions,
            public_url: self.public_url.into(),
            logo_url: self.logo_url,
            webview_url: self.webview_url.map(Into::into),
            is_public: false,
            app_store_status: AppStoreStatus::Development,
            app_type: self.app_type,
            created_at: now,
            updated_at: now,
            review_notes: None,
            reviewed_by: None,
            reviewed_at: None,
            tools: Vec::new(),
            settings: Vec::new(),
            hardware_requirements: self.hardware_requirements,
            permissions: self.permissions,
            shared_with_organization: false,
            shared_with_emails: Vec::new(),
        }
    }
}

/// The update body as received (`PUT /api/dev/apps/{packageName}`). Only these fields are read; anything
/// else in the body (status, review fields, keys, organization, permissions) is ignored. An absent field
/// (or `null`) leaves the stored value as it is; an empty `webviewURL` clears it.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct UpdateInput {
    #[cfg_attr(feature = "openapi", schema(max_length = 100))]
    pub name: Option<String>,
    #[cfg_attr(feature = "openapi", schema(max_length = 5000))]
    pub description: Option<String>,
    #[cfg_attr(feature = "openapi", schema(max_length = 2000))]
    pub onboarding_instructions: Option<String>,
    pub public_url: Option<String>,
    #[serde(rename = "logoURL")]
    pub logo_url: Option<String>,
    #[serde(rename = "webviewURL")]
    pub webview_url: Option<String>,
    #[cfg_attr(feature = "openapi", schema(value_type = Option<AppType>))]
    pub app_type: Option<String>,
    #[cfg_attr(feature = "openapi", schema(max_items = 200))]
    pub settings: Option<Vec<Setting>>,
    #[cfg_attr(feature = "openapi", schema(max_items = 100))]
    pub tools: Option<Vec<Tool>>,
    #[cfg_attr(feature = "openapi", schema(value_type = Option<std::collections::BTreeSet<HardwareRequirement>>))]
    pub hardware_requirements: Option<Vec<HardwareRequirement>>,
}

/// A validated update; `None` keeps the stored value.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct AppUpdate {
    pub name: Option<String>,
    pub description: Option<String>,
    pub onboarding_instructions: Option<String>,
    pub public_url: Option<PublicUrl>,
    pub logo_url: Option<String>,
    /// `Some(None)` clears the webview URL.
    pub webview_url: Option<Option<PublicUrl>>,
    pub app_type: Option<AppType>,
    pub settings: Option<Vec<Setting>>,
    pub tools: Option<Vec<Tool>>,
    pub hardware_requirements: Option<Vec<HardwareRequirement>>,
}

impl AppUpdate {
    /// `app` with this update applied and `updated_at` set to `now`. Status, review fields, permissions,
    /// sharing and ownership are never touched.
    #[must_use]
    pub fn apply_to(&self, app: &App, now: DateTime<Utc>) -> App {
        let mut next = app.clone();
        if let Some(name) = &self.name {
            next.name.clone_from(name);
        }
        if let Some(description) = &self.description {
            next.description.clone_from(description);
        }
        if let Some(onboarding) = &self.onboarding_instructions {
            next.onboarding_instructions.clone_from(onboarding);
        }
        if let Some(url) = &self.public_url {
            next.public_url = url.as_str().to_owned();
        }
        if let Some(logo) = &self.logo_url {
            next.logo_url.clone_from(logo);
        }
        if let Some(webview) = &self.webview_url {
            next.webview_url = webview.as_ref().map(|u| u.as_str().to_owned());
        }
        if let Some(app_type) = self.app_type {
            next.app_type = app_type;
        }
        if let Some(settings) = &self.settings {
            next.settings.clone_from(settings);
        }
        if let Some(tools) = &self.tools {
            next.tools.clone_from(tools);
        }
        if let Some(hardware) = &self.hardware_requirements {
            next.hardware_requirements.clone_from(hardware);
        }
        next.updated_at = now;
        next
    }
}

/// The names (camelCase) of the editable fields that differ between two versions of an app, in the order
/// of the edit screen. Recorded with edits made after approval.
#[must_use]
pub fn changed_fields(before: &App, after: &App) -> Vec<&'static str> {
    let checks: [(&'static str, bool); 11] = [
        ("name", before.name != after.name),
        ("description", before.description != after.description),
        (
            "onboardingInstructions",
            before.onboarding_instructions != after.onboarding_instructions,
        ),
        ("publicUrl", before.public_url != after.public_url),
        ("logoURL", before.logo_url != after.logo_url),
        ("webviewURL", before.webview_url != after.webview_url),
        ("appType", before.app_type != after.app_type),
        ("permissions", before.permissions != after.permissions),
        (
            "hardwareRequirements",
            before.hardware_requirements != after.hardware_requirements,
        ),
        ("settings", before.settings != after.settings),
        ("tools", before.tools != after.tools),
    ];
    checks
        .into_iter()
        .filter_map(|(field, changed)| changed.then_some(field))
        .collect()
}

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

fn required_text(
    errors: &mut FieldErrors,
    field: &str,
    value: &str,
    required: &str,
    max: usize,
    too_long: &str,
) -> Option<String> {
    let trimmed = value.trim();
    let message = if trimmed.is_empty() {
        required
    } else if trimmed.chars().count() > max {
        too_long
    } else {
        return Some(trimmed.to_owned());
    };
    errors.add(field.to_owned(), message.to_owned());
    None
}

fn onboarding(errors: &mut FieldErrors, value: &str) -> Option<String> {
    let trimmed = value.trim();
    if trimmed.chars().count() > MAX_ONBOARDING_LEN {
        errors.add("onboardingInstructions", ONBOARDING_TOO_LONG);
        return None;
    }
    Some(trimmed.to_owned())
}

fn public_url(errors: &mut FieldErrors, value: &str, rule: ServerUrlRule) -> Option<PublicUrl> {
    PublicUrl::parse_server(value, rule)
        .map_err(|e| {
            let message = if e == UrlError::Empty {
                SERVER_URL_REQUIRED
            } else {
                INVALID_URL
            };
            errors.add("publicUrl", message)
        })
        .ok()
}

/// The logo comes from the image upload, whose URL is under the server's own public URL; that may be plain
/// `http` on a local install, so it is checked (absolute `http(s)` URL with a host, no credentials, no
/// white space or invisible characters) but not normalised.
fn logo_url(errors: &mut FieldErrors, value: &str) -> Option<String> {
    let trimmed = value.trim();
    let message = if trimmed.is_empty() {
        LOGO_REQUIRED
    } else if is_web_url(trimmed) {
        return Some(trimmed.to_owned());
    } else {
        INVALID_URL
    };
    errors.add("logoURL", message);
    None
}

fn is_web_url(value: &str) -> bool {
    value.chars().count() <= MAX_URL_LEN
        && !value.chars().any(|c| is_blank(c) || is_invisible(c))
        && url::Url::parse(value).is_ok_and(|u| {
            matches!(u.scheme(), "http" | "https")
                && u.host_str().is_some_and(|h| !h.is_empty())
                && u.username().is_empty()
                && u.password().is_none()
        })
}

fn webview_url(errors: &mut FieldErrors, value: &str) -> Option<Option<PublicUrl>> {
    PublicUrl::parse_optional(value)
        .map_err(|_| errors.add("webviewURL", INVALID_URL))
        .ok()
}

fn app_type(errors: &mut FieldErrors, value: &str) -> Option<AppType> {
    let parsed = AppType::parse(value);
    if parsed.is_none() {
        errors.add("appType", INVALID_APP_TYPE);
    }
    parsed
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
    use crate::apps::{HardwareLevel, HardwareType, PermissionType};
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
