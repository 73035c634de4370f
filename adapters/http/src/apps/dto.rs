//! The JSON of the app calls. An app answers as the domain's [`App`](domain::apps::App) serialises (the
//! specification's field names); the types here describe it in the OpenAPI document, and carry the request
//! bodies and the small answers.

use chrono::{DateTime, Utc};
use domain::review::ReviewEvent;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::ToSchema;

/// Where an app stands in the app-store review.
#[derive(Debug, Clone, Copy, Serialize, ToSchema)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
#[allow(dead_code)] // Documents `AppStoreStatus`.
pub enum AppStoreStatusDoc {
    Development,
    Submitted,
    Published,
    Rejected,
}

/// A standard app runs in the foreground (one at a time); background apps run alongside.
#[derive(Debug, Clone, Copy, Serialize, ToSchema)]
#[serde(rename_all = "lowercase")]
#[allow(dead_code)]
pub enum AppTypeDoc {
    Background,
    Standard,
}

/// A permission type (`NOTIFICATIONS` is legacy: kept on apps that have it, never newly added).
#[derive(Debug, Clone, Copy, Serialize, ToSchema)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
#[allow(dead_code)]
pub enum PermissionTypeDoc {
    Microphone,
    Location,
    BackgroundLocation,
    Calendar,
    Camera,
    Notifications,
    ReadNotifications,
    PostNotifications,
    All,
}

/// One permission of an app.
#[derive(Debug, Serialize, ToSchema)]
#[allow(dead_code)]
pub struct PermissionDoc {
    #[serde(rename = "type")]
    kind: PermissionTypeDoc,
    /// Why the app needs it (at most 500 characters).
    description: Option<String>,
}

#[derive(Debug, Clone, Copy, Serialize, ToSchema)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
#[allow(dead_code)]
pub enum HardwareTypeDoc {
    Camera,
    Display,
    Microphone,
    Speaker,
    Imu,
    Button,
    Light,
    Wifi,
}

#[derive(Debug, Clone, Copy, Serialize, ToSchema)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
#[allow(dead_code)]
pub enum HardwareLevelDoc {
    Required,
    Optional,
}

/// One hardware requirement of an app.
#[derive(Debug, Serialize, ToSchema)]
#[allow(dead_code)]
pub struct HardwareRequirementDoc {
    #[serde(rename = "type")]
    kind: HardwareTypeDoc,
    level: HardwareLevelDoc,
    description: Option<String>,
}

/// An app as the developer sees it (specification §3).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[allow(dead_code)] // Documents the serialisation of `domain::apps::App`.
pub struct AppDoc {
    /// Globally unique and immutable.
    package_name: String,
    /// The organization that owns the app.
    org_id: String,
    /// The account that registered it.
    developer_id: String,
    name: String,
    description: String,
    onboarding_instructions: String,
    /// The server URL (events go to `publicUrl + /webhook`).
    public_url: String,
    #[serde(rename = "logoURL")]
    logo_url: String,
    #[serde(rename = "webviewURL")]
    webview_url: Option<String>,
    is_public: bool,
    app_store_status: AppStoreStatusDoc,
    app_type: AppTypeDoc,
    created_at: DateTime<Utc>,
    updated_at: DateTime<Utc>,
    review_notes: Option<String>,
    reviewed_by: Option<String>,
    reviewed_at: Option<DateTime<Utc>>,
    /// AI tools: `{id, description, activationPhrases, parameters: {name: {type, description, required, enum?}}}`.
    #[schema(value_type = Vec<Object>)]
    tools: Vec<Value>,
    /// Settings, each with `type` (`group`, `titleValue`, `toggle`, `text`, `text_no_save_button`, `select`,
    /// `select_with_search`, `multiselect`, `slider`, `numeric_input`, `time_picker`) and its fields.
    #[schema(value_type = Vec<Object>)]
    settings: Vec<Value>,
    hardware_requirements: Vec<HardwareRequirementDoc>,
    permissions: Vec<PermissionDoc>,
    shared_with_organization: bool,
    shared_with_emails: Vec<String>,
}

/// What anyone holding a tester link sees (nothing about the organization, reviewers or testers).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[allow(dead_code)] // Documents the serialisation of `domain::apps::TesterView`.
pub struct TesterViewDoc {
    package_name: String,
    name: String,
    description: String,
    onboarding_instructions: String,
    #[serde(rename = "logoURL")]
    logo_url: String,
    #[serde(rename = "webviewURL")]
    webview_url: Option<String>,
    app_type: AppTypeDoc,
    permissions: Vec<PermissionDoc>,
    hardware_requirements: Vec<HardwareRequirementDoc>,
}

/// `POST /api/dev/apps/register`'s body (documentation; the server reads it leniently and validates it).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[allow(dead_code)]
pub struct RegisterRequest {
    package_name: String,
    name: String,
    description: String,
    onboarding_instructions: Option<String>,
    public_url: String,
    #[serde(rename = "logoURL")]
    logo_url: String,
    #[serde(rename = "webviewURL")]
    webview_url: Option<String>,
    app_type: Option<AppTypeDoc>,
    permissions: Option<Vec<PermissionDoc>>,
    hardware_requirements: Option<Vec<HardwareRequirementDoc>>,
}

/// `PUT /api/dev/apps/{packageName}`'s body: only these fields are read; an absent one keeps its value;
/// anything else (status, review fields, keys, organization, permissions) is ignored.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[allow(dead_code)]
pub struct UpdateAppRequest {
    name: Option<String>,
    description: Option<String>,
    onboarding_instructions: Option<String>,
    public_url: Option<String>,
    #[serde(rename = "logoURL")]
    logo_url: Option<String>,
    /// An empty string clears it.
    #[serde(rename = "webviewURL")]
    webview_url: Option<String>,
    app_type: Option<AppTypeDoc>,
    #[schema(value_type = Option<Vec<Object>>)]
    settings: Option<Vec<Value>>,
    #[schema(value_type = Option<Vec<Object>>)]
    tools: Option<Vec<Value>>,
    hardware_requirements: Option<Vec<HardwareRequirementDoc>>,
}

/// A new app and its API key, shown this once.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[allow(dead_code)]
pub struct RegisteredDoc {
    api_key: String,
    app: AppDoc,
}

/// A new API key, shown this once.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ApiKeyDto {
    pub api_key: String,
}

/// `POST …/move-org`'s body.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", default)]
pub struct MoveRequest {
    pub target_org_id: Option<String>,
}

/// `PATCH /api/permissions/{packageName}`'s body.
#[derive(Debug, Serialize, ToSchema)]
#[allow(dead_code)]
pub struct PermissionsRequest {
    permissions: Vec<PermissionDoc>,
}

/// The app's permissions.
#[derive(Debug, Serialize, ToSchema)]
#[allow(dead_code)]
pub struct PermissionsDoc {
    permissions: Vec<PermissionDoc>,
}

/// `PATCH …/visibility`'s body.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct VisibilityRequest {
    pub shared_with_organization: Option<bool>,
}

/// The tester e-mail list (`PATCH …/share-emails`, `POST …/share`).
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", default)]
pub struct EmailsRequest {
    pub emails: Vec<String>,
}

/// The stored tester list.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SharedEmailsDto {
    pub shared_with_emails: Vec<String>,
}

/// The tester link.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct InstallUrlDto {
    /// `{PORTAL_STORE_URL}/install/{token}`.
    pub install_url: String,
}

/// The tester link and the stored tester list.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ShareDto {
    pub install_url: String,
    pub shared_with_emails: Vec<String>,
}

/// The export file: what `@mentra/sdk` `validateAppConfig` accepts (`name`, `description`, `version`,
/// `onboardingInstructions`, `publicUrl`, `logoURL`, `webviewURL`?, `appType`, `permissions`, `settings`,
/// `tools`).
#[derive(Debug, Serialize, ToSchema)]
#[schema(value_type = Object)]
#[allow(dead_code)]
pub struct ConfigFileDoc(Value);

/// One entry of an app's review history.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct HistoryEntryDto {
    pub id: String,
    /// `submitted`, `approved`, `rejected`, `edited_after_approval`, `edited`, `resubmitted` or `moved`.
    pub kind: String,
    pub at: DateTime<Utc>,
    pub actor_email: String,
    pub notes: Option<String>,
    /// A review by a member of the app's own organization (allowed, and shown as such).
    pub self_review: bool,
    /// What the event carries: `{changedFields}` for edits, `{addedPermissions}` for a resubmission,
    /// `{fromOrgId, toOrgId}` for moves.
    #[schema(value_type = Option<Object>)]
    pub detail: Option<Value>,
}

impl From<&ReviewEvent> for HistoryEntryDto {
    fn from(event: &ReviewEvent) -> Self {
        let self_review = event
            .detail
            .as_ref()
            .and_then(|d| d.get("selfReview"))
            .and_then(Value::as_bool)
            .unwrap_or(false);
        Self {
            id: event.id.to_string(),
            kind: event.kind.as_str().to_owned(),
            at: event.at,
            actor_email: event.actor_email.as_str().to_owned(),
            notes: event.notes.clone(),
            self_review,
            detail: event.detail.clone(),
        }
    }
}
