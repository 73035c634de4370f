//! The register and update bodies as received, and what validating them gives: a [`NewApp`] that becomes an
//! [`App`], an [`AppUpdate`] applied to the stored app; and the fields an edit changed.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use crate::apps::{
    App, AppStoreStatus, AppType, HardwareRequirement, PackageName, Permission, Setting, Tool,
};
use crate::common::{OrgId, PublicUrl, UserId};

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
/// (or `null`) leaves the stored value as it is; an empty `webviewURL` clears it. Serializes for clients as
/// the register body does (a field left `None` goes as `null`, which leaves the value alone).
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
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
