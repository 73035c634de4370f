//! The JSON of the app calls that is not a domain type: the small answers and request bodies of the adapter.
//! An app answers as the domain's [`App`] serialises (the specification's field names), and the OpenAPI
//! document takes its schema from that type (the domain's `openapi` feature).

use chrono::{DateTime, Utc};
use domain::apps::{App, Permission};
use domain::review::{DeveloperHistoryEntry, ReviewEventKind};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::ToSchema;

/// A new app and its API key, shown this once (`POST /api/dev/apps/register`).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RegisteredDto {
    pub api_key: String,
    pub app: App,
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
    /// The organization to move the app into (`TARGET_ORG_REQUIRED` without it).
    #[schema(required = true, value_type = String, format = Uuid)]
    pub target_org_id: Option<String>,
}

/// The app's permissions (`GET /api/permissions/{packageName}`), and the body of
/// `PATCH /api/permissions/{packageName}`.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct PermissionsDto {
    #[schema(value_type = std::collections::BTreeSet<Permission>)]
    pub permissions: Vec<Permission>,
}

/// `PATCH …/visibility`'s body.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct VisibilityRequest {
    #[schema(required = true, value_type = bool)]
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

/// One entry of an app's review history, as the app's developers see it.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct HistoryEntryDto {
    pub id: String,
    pub kind: ReviewEventKind,
    pub at: DateTime<Utc>,
    /// Who: a member's e-mail, or `App Review` for a decision by a platform reviewer (reviewers stay
    /// anonymous to developers; a self-review names the member).
    #[schema(example = "App Review")]
    pub actor: String,
    pub notes: Option<String>,
    /// A review by a member of the app's own organization (allowed, and shown as such).
    pub self_review: bool,
    /// What the event carries: `{changedFields}` for edits, `{addedPermissions}` for a resubmission,
    /// `{fromOrgId, toOrgId}` for moves.
    #[schema(value_type = Option<std::collections::HashMap<String, serde_json::Value>>)]
    pub detail: Option<Value>,
}

impl From<&DeveloperHistoryEntry> for HistoryEntryDto {
    fn from(entry: &DeveloperHistoryEntry) -> Self {
        Self {
            id: entry.id.to_string(),
            kind: entry.kind,
            at: entry.at,
            actor: entry.actor.display_name().to_owned(),
            notes: entry.notes.clone(),
            self_review: entry.self_review,
            detail: entry.detail.clone(),
        }
    }
}
