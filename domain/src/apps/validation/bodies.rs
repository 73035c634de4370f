//! The register and update bodies as received, each with its one validated form: a registration becomes
//! the new [`App`]; an update becomes a [`Valid`] update applied to the stored app.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use super::details::{Absent, AppDetailsInput};
use super::validate_app_config;
use crate::apps::hardware::validate_hardware;
use crate::apps::permissions::validate_permissions;
use crate::apps::{App, HardwareRequirement, PackageName, Permission, Setting, Tool};
use crate::common::{FieldErrors, OrgId, ServerUrlRule, UserId};

/// The register body as received (`POST /api/dev/apps/register`). Missing strings read as empty. It
/// serializes too, so that a client (the `devportal` command-line client) sends this very type.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "openapi", schema(example = json!({
    "packageName": "com.example.weather",
    "name": "Weather",
    "description": "Shows the weather where you are.",
    "onboardingInstructions": "Say \"weather\" to see today's forecast.",
    "publicUrl": "https://weather.example.com",
    "logoURL": "https://cdn.example.com/weather.png",
    "appType": "standard",
    "permissions": [{"type": "LOCATION", "description": "Your city's forecast"}],
    "hardwareRequirements": [{"type": "DISPLAY", "level": "REQUIRED"}]
})))]
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct RegistrationInput {
    #[cfg_attr(feature = "openapi", schema(value_type = String, pattern = r"^[a-z0-9-]+(\.[a-z0-9-]+)*$", max_length = 128))]
    pub package_name: String,
    #[serde(flatten)]
    pub details: AppDetailsInput,
    #[cfg_attr(feature = "openapi", schema(value_type = std::collections::BTreeSet<Permission>))]
    pub permissions: Vec<Permission>,
    #[cfg_attr(feature = "openapi", schema(value_type = std::collections::BTreeSet<HardwareRequirement>))]
    pub hardware_requirements: Vec<HardwareRequirement>,
}

/// The register body's fields an app cannot be registered without, by their API names (what the OpenAPI
/// document marks required): [`validate_registration`] reports each of them when it is absent, and no other
/// field (a test holds the two together).
pub const REQUIRED_AT_REGISTRATION: [&str; 5] =
    ["packageName", "name", "description", "publicUrl", "logoURL"];

/// Validates a registration and makes the new app (DEVELOPMENT, private, no settings, tools or
/// testers); `server_urls` says whether a loopback `http://` server URL is kept.
///
/// # Errors
/// Every field error found (not only the first).
pub fn validate_registration(
    input: &RegistrationInput,
    server_urls: ServerUrlRule,
    org_id: OrgId,
    developer_id: UserId,
    now: DateTime<Utc>,
) -> Result<App, FieldErrors> {
    let mut errors = FieldErrors::new();
    let package_name = PackageName::parse(&input.package_name)
        .map_err(|e| errors.add("packageName", e.to_string()))
        .ok();
    let details = input.details.checked(&mut errors, server_urls, Absent::Empty);
    let permissions = validate_permissions(&input.permissions, &[])
        .map_err(|e| errors.add("permissions", e.to_string()))
        .ok();
    let hardware = validate_hardware(&input.hardware_requirements)
        .map_err(|e| errors.add("hardwareRequirements", e.to_string()))
        .ok();
    // Every `None` above recorded an error.
    let (Some(package_name), Some(permissions), Some(hardware), true) =
        (package_name, permissions, hardware, errors.is_empty())
    else {
        return Err(errors);
    };
    let mut app = App::registered(package_name, org_id, developer_id, now);
    details.apply_to(&mut app);
    app.permissions = permissions;
    app.hardware_requirements = hardware;
    Ok(app)
}

/// The update body as received (`PUT /api/dev/apps/{packageName}`). Only these fields are read; anything
/// else in the body (status, review fields, keys, organization, permissions) is ignored. An absent field
/// (or `null`) leaves the stored value as it is; an empty `webviewURL` clears it. Serializes for clients as
/// the register body does (a field left `None` goes as `null`, which leaves the value alone).
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct UpdateInput {
    #[serde(flatten)]
    pub details: AppDetailsInput,
    #[cfg_attr(feature = "openapi", schema(max_items = 200))]
    pub settings: Option<Vec<Setting>>,
    #[cfg_attr(feature = "openapi", schema(max_items = 100))]
    pub tools: Option<Vec<Tool>>,
    #[cfg_attr(feature = "openapi", schema(value_type = Option<std::collections::BTreeSet<HardwareRequirement>>))]
    pub hardware_requirements: Option<Vec<HardwareRequirement>>,
}

/// An input that passed its validation, with its values normalised.
#[derive(Debug, Clone, PartialEq)]
pub struct Valid<T>(T);

impl<T> std::ops::Deref for Valid<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.0
    }
}

/// Validates an update. Present fields follow the same rules as at registration; settings and tools go
/// through [`validate_app_config`].
///
/// # Errors
/// Every field error found.
pub fn validate_update(
    input: &UpdateInput,
    server_urls: ServerUrlRule,
) -> Result<Valid<UpdateInput>, FieldErrors> {
    let mut errors = FieldErrors::new();
    let details = input.details.checked(&mut errors, server_urls, Absent::Kept);
    let hardware_requirements = input.hardware_requirements.as_deref().and_then(|list| {
        validate_hardware(list)
            .map_err(|e| errors.add("hardwareRequirements", e.to_string()))
            .ok()
    });
    if input.settings.is_some() || input.tools.is_some() {
        let settings = input.settings.as_deref().unwrap_or_default();
        let tools = input.tools.as_deref().unwrap_or_default();
        if let Err(config_errors) = validate_app_config(settings, tools) {
            errors.merge(config_errors);
        }
    }
    if errors.is_empty() {
        Ok(Valid(UpdateInput {
            details,
            hardware_requirements,
            ..input.clone()
        }))
    } else {
        Err(errors)
    }
}

impl Valid<UpdateInput> {
    /// `app` with this update applied and `updated_at` set to `now`. Status, review fields, permissions,
    /// sharing and ownership are never touched.
    #[must_use]
    pub fn apply_to(&self, app: &App, now: DateTime<Utc>) -> App {
        let mut next = app.clone();
        self.details.apply_to(&mut next);
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
