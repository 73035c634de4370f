//! The descriptive fields both bodies carry, declared once: each field's limits and messages, how it is
//! checked and normalised, how it is written to an app, and how an edit of it is recorded.

use serde::{Deserialize, Serialize};

pub use super::fields::{INVALID_APP_TYPE, INVALID_URL, LOGO_REQUIRED, SERVER_URL_REQUIRED};
use super::fields::{app_type, logo_url, optional_text, public_url, required_text, webview_url};
use crate::apps::{App, AppType};
use crate::common::{FieldErrors, ServerUrlRule};

pub const NAME_REQUIRED: &str = "Display name is required";
pub const DESCRIPTION_REQUIRED: &str = "Description is required";

/// Longest display name, in characters.
pub const MAX_NAME_LEN: usize = 100;
/// Longest description, in characters.
pub const MAX_DESCRIPTION_LEN: usize = 5000;
/// Longest onboarding instructions, in characters (specification §9).
pub const MAX_ONBOARDING_LEN: usize = 2000;

pub const NAME_TOO_LONG: &str = "Display name must be 100 characters or fewer";
pub const DESCRIPTION_TOO_LONG: &str = "Description must be 5000 characters or fewer";
pub const ONBOARDING_TOO_LONG: &str = "Onboarding instructions must be 2000 characters or fewer";

/// The descriptive fields of the register and update bodies. An absent field (or `null`) is `None`: at
/// registration it is read as empty (so a required one is reported), in an update it keeps the stored
/// value. An empty `webviewURL` clears it.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct AppDetailsInput {
    #[cfg_attr(feature = "openapi", schema(max_length = 100))]
    pub name: Option<String>,
    #[cfg_attr(feature = "openapi", schema(max_length = 5000))]
    pub description: Option<String>,
    #[cfg_attr(feature = "openapi", schema(max_length = 2000))]
    pub onboarding_instructions: Option<String>,
    /// The app's server: an `https://` URL (a bare host is read as `https://host`; `http://` to this machine
    /// is kept when private targets are allowed).
    #[cfg_attr(feature = "openapi", schema(max_length = 2048))]
    pub public_url: Option<String>,
    /// An `http(s)://` URL, such as the one the image upload answers.
    #[serde(rename = "logoURL")]
    #[cfg_attr(feature = "openapi", schema(max_length = 2048))]
    pub logo_url: Option<String>,
    /// Empty clears it.
    #[serde(rename = "webviewURL")]
    #[cfg_attr(feature = "openapi", schema(max_length = 2048))]
    pub webview_url: Option<String>,
    #[cfg_attr(feature = "openapi", schema(value_type = Option<AppType>))]
    pub app_type: Option<String>,
}

/// What an absent field means: an empty one (registration) or the stored one (update).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Absent {
    Empty,
    Kept,
}

impl AppDetailsInput {
    /// The fields checked by the rules of specification §5 and normalised (texts trimmed, URLs
    /// normalised, the app type in its stored form); every problem is recorded in `errors` under the
    /// API's field name, and such a field is `None` in the result.
    pub(super) fn checked(
        &self,
        errors: &mut FieldErrors,
        server_urls: ServerUrlRule,
        absent: Absent,
    ) -> Self {
        let given = |value: &Option<String>| match (value, absent) {
            (Some(value), _) => Some(value.clone()),
            (None, Absent::Empty) => Some(String::new()),
            (None, Absent::Kept) => None,
        };
        let (name, description) = (given(&self.name), given(&self.description));
        Self {
            name: name
                .and_then(|v| required_text(errors, "name", &v, NAME_REQUIRED, MAX_NAME_LEN, NAME_TOO_LONG)),
            description: description.and_then(|v| {
                required_text(
                    errors,
                    "description",
                    &v,
                    DESCRIPTION_REQUIRED,
                    MAX_DESCRIPTION_LEN,
                    DESCRIPTION_TOO_LONG,
                )
            }),
            onboarding_instructions: given(&self.onboarding_instructions).and_then(|v| {
                optional_text(
                    errors,
                    "onboardingInstructions",
                    &v,
                    MAX_ONBOARDING_LEN,
                    ONBOARDING_TOO_LONG,
                )
            }),
            public_url: given(&self.public_url)
                .and_then(|v| public_url(errors, &v, server_urls))
                .map(String::from),
            logo_url: given(&self.logo_url).and_then(|v| logo_url(errors, &v)),
            webview_url: given(&self.webview_url)
                .and_then(|v| webview_url(errors, &v))
                .map(|url| url.map(String::from).unwrap_or_default()),
            app_type: given(&self.app_type)
                .and_then(|v| match v.trim() {
                    "" if absent == Absent::Empty => Some(AppType::default()),
                    value => app_type(errors, value),
                })
                .map(|kind| kind.code().to_owned()),
        }
    }

    /// Writes the present fields of these checked details to `app`.
    pub(super) fn apply_to(&self, app: &mut App) {
        if let Some(name) = &self.name {
            app.name.clone_from(name);
        }
        if let Some(description) = &self.description {
            app.description.clone_from(description);
        }
        if let Some(onboarding) = &self.onboarding_instructions {
            app.onboarding_instructions.clone_from(onboarding);
        }
        if let Some(url) = &self.public_url {
            app.public_url.clone_from(url);
        }
        if let Some(logo) = &self.logo_url {
            app.logo_url.clone_from(logo);
        }
        if let Some(webview) = &self.webview_url {
            app.webview_url = Some(webview.clone()).filter(|url| !url.is_empty());
        }
        if let Some(app_type) = self.app_type.as_deref().and_then(AppType::parse) {
            app.app_type = app_type;
        }
    }
}

/// The editable fields by their names in the app's JSON form, in the order of the edit screen: what an
/// edit after approval records as changed, and what a reviewer judges ("changed since the last decision").
pub const EDITABLE_FIELDS: &[&str] = &[
    "name",
    "description",
    "onboardingInstructions",
    "publicUrl",
    "logoURL",
    "webviewURL",
    "appType",
    "permissions",
    "hardwareRequirements",
    "settings",
    "tools",
];

/// The [`EDITABLE_FIELDS`] that differ between two versions of an app. Every field of [`App`] is placed
/// here, editable or not: a field added to `App` does not compile until it is, so what an edit records and
/// what reviewers are told changed cannot miss it (`editable_fields_are_the_apps_json_names` holds the
/// names to [`EDITABLE_FIELDS`] and to the app's JSON form).
#[must_use]
pub fn changed_fields(before: &App, after: &App) -> Vec<&'static str> {
    let App {
        // Who owns it, where it stands in the store, and who may test it: not the edit screen's.
        package_name: _,
        org_id: _,
        developer_id: _,
        is_public: _,
        app_store_status: _,
        created_at: _,
        updated_at: _,
        review_notes: _,
        reviewed_by: _,
        reviewed_at: _,
        shared_with_organization: _,
        shared_with_emails: _,
        // The edit screen's, in its order.
        name,
        description,
        onboarding_instructions,
        public_url,
        logo_url,
        webview_url,
        app_type,
        permissions,
        hardware_requirements,
        settings,
        tools,
    } = after;
    [
        ("name", before.name != *name),
        ("description", before.description != *description),
        (
            "onboardingInstructions",
            before.onboarding_instructions != *onboarding_instructions,
        ),
        ("publicUrl", before.public_url != *public_url),
        ("logoURL", before.logo_url != *logo_url),
        ("webviewURL", before.webview_url != *webview_url),
        ("appType", before.app_type != *app_type),
        ("permissions", before.permissions != *permissions),
        (
            "hardwareRequirements",
            before.hardware_requirements != *hardware_requirements,
        ),
        ("settings", before.settings != *settings),
        ("tools", before.tools != *tools),
    ]
    .into_iter()
    .filter_map(|(field, changed)| changed.then_some(field))
    .collect()
}
