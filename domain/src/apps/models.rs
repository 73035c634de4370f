//! The app entity and its identifying newtypes.

use crate::common::code_enum;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use super::{AppStoreStatus, HardwareRequirement, Permission, Setting, Tool};
use crate::common::{EmailAddress, OrgId, UserId};

pub use crate::common::package::{
    MAX_PACKAGE_NAME_LEN, PACKAGE_NAME_EMPTY_PART, PACKAGE_NAME_INVALID, PACKAGE_NAME_REQUIRED,
    PACKAGE_NAME_TOO_LONG, PackageName, PackageNameError,
};

/// How the review history names a platform reviewer to the app's developers: reviewers stay anonymous to
/// them (staff still see who, in the Admin Panel).
pub const APP_REVIEW: &str = "App Review";

code_enum! {
    /// Background apps run alongside others; only one standard ("Foreground App") runs at a time.
    #[derive(Default)]
    pub enum AppType: "Background apps run alongside others; only one standard (\"Foreground App\") runs at a time." {
        #[default]
        Background => "background",
        Standard => "standard",
    }
}

/// An app as stored. Field names follow specification §3.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct App {
    #[cfg_attr(feature = "openapi", schema(value_type = String, pattern = r"^[a-z0-9-]+(\.[a-z0-9-]+)*$", max_length = 128))]
    pub package_name: PackageName,
    /// The organization that owns the app.
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = Uuid))]
    pub org_id: OrgId,
    /// The account that registered it.
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = Uuid))]
    pub developer_id: UserId,
    pub name: String,
    pub description: String,
    pub onboarding_instructions: String,
    pub public_url: String,
    #[serde(rename = "logoURL")]
    pub logo_url: String,
    #[serde(rename = "webviewURL")]
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub webview_url: Option<String>,
    pub is_public: bool,
    pub app_store_status: AppStoreStatus,
    pub app_type: AppType,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub review_notes: Option<String>,
    /// Who made the last review decision. Developers read "App Review": reviewers stay anonymous to them
    /// (the serialized form); platform staff read the reviewer's e-mail (the admin views put it back).
    #[serde(serialize_with = "anonymous_reviewer")]
    #[cfg_attr(feature = "openapi", schema(required = true, example = "App Review"))]
    pub reviewed_by: Option<String>,
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub reviewed_at: Option<DateTime<Utc>>,
    #[cfg_attr(feature = "openapi", schema(max_items = 100))]
    pub tools: Vec<Tool>,
    #[cfg_attr(feature = "openapi", schema(max_items = 200))]
    pub settings: Vec<Setting>,
    #[cfg_attr(feature = "openapi", schema(value_type = std::collections::BTreeSet<HardwareRequirement>))]
    pub hardware_requirements: Vec<HardwareRequirement>,
    #[cfg_attr(feature = "openapi", schema(value_type = std::collections::BTreeSet<Permission>))]
    pub permissions: Vec<Permission>,
    pub shared_with_organization: bool,
    #[cfg_attr(feature = "openapi", schema(value_type = std::collections::BTreeSet<String>))]
    pub shared_with_emails: Vec<EmailAddress>,
}

impl App {
    /// A newly registered app before its details are written: DEVELOPMENT, private, blank, with no
    /// settings, tools, permissions, hardware or testers.
    #[must_use]
    pub fn registered(
        package_name: PackageName,
        org_id: OrgId,
        developer_id: UserId,
        now: DateTime<Utc>,
    ) -> Self {
        Self {
            package_name,
            org_id,
            developer_id,
            name: String::new(),
            description: String::new(),
            onboarding_instructions: String::new(),
            public_url: String::new(),
            logo_url: String::new(),
            webview_url: None,
            is_public: false,
            app_store_status: AppStoreStatus::Development,
            app_type: AppType::default(),
            created_at: now,
            updated_at: now,
            review_notes: None,
            reviewed_by: None,
            reviewed_at: None,
            tools: Vec::new(),
            settings: Vec::new(),
            hardware_requirements: Vec::new(),
            permissions: Vec::new(),
            shared_with_organization: false,
            shared_with_emails: Vec::new(),
        }
    }

    /// Where the platform sends events: the server URL plus `/webhook`.
    #[must_use]
    pub fn webhook_url(&self) -> String {
        format!("{}/webhook", self.public_url.trim_end_matches('/'))
    }

    /// Where the uptime monitor checks health: the server URL plus `/health`.
    #[must_use]
    pub fn health_url(&self) -> String {
        format!("{}/health", self.public_url.trim_end_matches('/'))
    }
}

/// What anyone holding a tester link sees: enough to try the app, nothing about the organization, the
/// reviewers or the other testers.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TesterView {
    #[cfg_attr(feature = "openapi", schema(value_type = String, pattern = r"^[a-z0-9-]+(\.[a-z0-9-]+)*$", max_length = 128))]
    pub package_name: PackageName,
    pub name: String,
    pub description: String,
    pub onboarding_instructions: String,
    #[serde(rename = "logoURL")]
    pub logo_url: String,
    #[serde(rename = "webviewURL")]
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub webview_url: Option<String>,
    pub app_type: AppType,
    pub permissions: Vec<Permission>,
    pub hardware_requirements: Vec<HardwareRequirement>,
}

impl From<App> for TesterView {
    fn from(app: App) -> Self {
        Self {
            package_name: app.package_name,
            name: app.name,
            description: app.description,
            onboarding_instructions: app.onboarding_instructions,
            logo_url: app.logo_url,
            webview_url: app.webview_url,
            app_type: app.app_type,
            permissions: app.permissions,
            hardware_requirements: app.hardware_requirements,
        }
    }
}

/// `reviewedBy` as developers read it: "App Review" once an app has been decided, never the reviewer.
fn anonymous_reviewer<S: serde::Serializer>(
    reviewer: &Option<String>,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    reviewer.as_ref().map(|_| APP_REVIEW).serialize(serializer)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_package_name_of_lowercase_letters_digits_dots_and_hyphens_is_accepted() {
        assert_eq!(
            PackageName::parse(" com.example.my-app2 ").unwrap().as_str(),
            "com.example.my-app2"
        );
    }

    #[test]
    fn an_empty_package_name_is_required() {
        assert_eq!(PackageName::parse("  "), Err(PackageNameError::Required));
        assert_eq!(PackageNameError::Required.to_string(), "Package name is required");
    }

    #[test]
    fn a_package_name_with_capitals_spaces_or_underscores_is_invalid() {
        for bad in [
            "Com.example",
            "com example",
            "com_example",
            "com/example",
            "émoji",
        ] {
            assert_eq!(PackageName::parse(bad), Err(PackageNameError::Invalid), "{bad:?}");
        }
        assert_eq!(
            PackageNameError::Invalid.to_string(),
            "Package name must use lowercase letters, numbers, dots, and hyphens only"
        );
    }

    #[test]
    fn an_overlong_package_name_is_told_its_length_not_its_characters() {
        assert!(PackageName::parse(&"a".repeat(128)).is_ok());
        assert_eq!(
            PackageName::parse(&"a".repeat(129)),
            Err(PackageNameError::TooLong)
        );
        assert_eq!(
            PackageNameError::TooLong.to_string(),
            "Package name must be 128 characters or fewer"
        );
        // Bad characters are named first, whatever the length.
        assert_eq!(
            PackageName::parse(&"A".repeat(129)),
            Err(PackageNameError::Invalid)
        );
    }

    #[test]
    fn a_package_name_with_an_empty_dot_separated_part_is_refused() {
        for bad in [
            ".",
            "..",
            "...",
            ".com.example",
            "com.example.",
            "com..example",
            "-..",
        ] {
            assert_eq!(
                PackageName::parse(bad),
                Err(PackageNameError::EmptyPart),
                "{bad:?}"
            );
        }
        assert_eq!(
            PackageNameError::EmptyPart.to_string(),
            "Package name cannot start or end with a dot or have two dots in a row"
        );
        for good in ["a", "a.b", "-", "a-.-b", "1.2.3"] {
            assert!(PackageName::parse(good).is_ok(), "{good:?}");
        }
    }

    #[test]
    fn a_stored_package_name_with_an_empty_part_does_not_deserialise() {
        assert!(serde_json::from_str::<PackageName>("\"..\"").is_err());
    }

    #[test]
    fn app_type_defaults_to_background_and_reads_its_two_forms() {
        assert_eq!(AppType::default(), AppType::Background);
        assert_eq!(AppType::parse("standard"), Some(AppType::Standard));
        assert_eq!(AppType::parse("foreground"), None);
        assert_eq!(serde_json::to_string(&AppType::Standard).unwrap(), "\"standard\"");
    }
}
