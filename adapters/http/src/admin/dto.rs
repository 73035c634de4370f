//! The JSON of the platform-admin calls (specification §3 "Submitted app (admin view)", "Admin stats",
//! "Admin user"; PRODUCT.md §4, §5).

use domain::identity::models::AddedThrough;
use std::collections::BTreeMap;

use chrono::{DateTime, Utc};
use domain::apps::App;
use domain::identity::models::PlatformAdmin;
use domain::review::platform::{DebugReport, RoleCounts};
use domain::review::service::is_self_review;
use domain::review::{ReviewEvent, ReviewEventKind, ReviewedApp, SinceLastDecision};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::ToSchema;

use crate::auth::RoleName;

/// The organization owning an app.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct OrganizationRefDto {
    pub id: String,
    /// `null` when the organization has no profile.
    #[schema(required = true)]
    pub name: Option<String>,
}

/// A submitted app as the review queue lists it (specification §3 "Submitted app (admin view)").
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SubmittedAppDto {
    /// The app's identity: its package name.
    #[serde(rename = "_id")]
    pub id: String,
    pub name: String,
    pub package_name: String,
    /// May be empty: show a placeholder image.
    #[serde(rename = "logoURL")]
    pub logo_url: String,
    pub description: String,
    pub public_url: String,
    /// When it was submitted (or last changed).
    pub updated_at: DateTime<Utc>,
    pub created_at: DateTime<Utc>,
    pub developer_id: String,
    pub organization: OrganizationRefDto,
    /// The latest uptime check: `healthy`, `unhealthy`, `unreachable`, `timeout`, `error`, or `unknown`
    /// before the first check.
    pub app_health_status: String,
}

impl SubmittedAppDto {
    #[must_use]
    pub fn of(reviewed: &ReviewedApp, health: &str) -> Self {
        let app = &reviewed.app;
        Self {
            id: app.package_name.to_string(),
            name: app.name.clone(),
            package_name: app.package_name.to_string(),
            logo_url: app.logo_url.clone(),
            description: app.description.clone(),
            public_url: app.public_url.clone(),
            updated_at: app.updated_at,
            created_at: app.created_at,
            developer_id: app.developer_id.to_string(),
            organization: OrganizationRefDto {
                id: app.org_id.to_string(),
                name: reviewed.organization_name.clone(),
            },
            app_health_status: health.to_owned(),
        }
    }
}

/// The dashboard cards.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct StatsCountsDto {
    pub development: u64,
    pub submitted: u64,
    pub published: u64,
    pub rejected: u64,
    /// Platform admins (role `admin`).
    pub admins: u64,
    /// Platform reviewers (role `reviewer`).
    pub reviewers: u64,
}

/// `GET /api/admin/apps/stats`.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct StatsDto {
    pub counts: StatsCountsDto,
    /// The newest submissions, newest first.
    pub recent_submissions: Vec<SubmittedAppDto>,
}

/// One entry of an app's review history, oldest first.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ReviewHistoryEntryDto {
    pub id: String,
    pub kind: ReviewEventKind,
    pub at: DateTime<Utc>,
    pub actor_email: String,
    #[schema(required = true)]
    pub notes: Option<String>,
    /// A decision by a member of the app's own organization (allowed, and shown as such).
    pub self_review: bool,
    /// What the event carries (`{changedFields}` for edits, `{fromOrgId, toOrgId}` for moves…).
    #[schema(value_type = Option<std::collections::HashMap<String, serde_json::Value>>, required = true)]
    pub detail: Option<Value>,
}

impl From<&ReviewEvent> for ReviewHistoryEntryDto {
    fn from(event: &ReviewEvent) -> Self {
        Self {
            id: event.id.to_string(),
            kind: event.kind,
            at: event.at,
            actor_email: event.actor_email.as_str().to_owned(),
            notes: event.notes.clone(),
            self_review: is_self_review(event),
            detail: event.shown_detail(),
        }
    }
}

/// An app as platform staff read it: the stored app (the domain's `App` serialisation, specification §3
/// field names) without its tester list `sharedWithEmails` (PRODUCT.md §1), which staff never see.
#[derive(Debug, Clone)]
pub struct StaffAppDto(pub App);

impl Serialize for StaffAppDto {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut value = serde_json::to_value(&self.0).map_err(serde::ser::Error::custom)?;
        if let Some(fields) = value.as_object_mut() {
            fields.remove("sharedWithEmails");
            // Staff see who decided; the app's own serialized form names only "App Review".
            fields.insert("reviewedBy".to_owned(), serde_json::json!(self.0.reviewed_by));
        }
        value.serialize(serializer)
    }
}

/// The schema of [`StaffAppDto`]: the domain's [`App`] schema without `sharedWithEmails`.
impl utoipa::PartialSchema for StaffAppDto {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        use utoipa::openapi::RefOr;
        use utoipa::openapi::schema::Schema;
        let mut schema = <App as utoipa::PartialSchema>::schema();
        if let RefOr::T(Schema::Object(object)) = &mut schema {
            object.properties.shift_remove("sharedWithEmails");
            object.required.retain(|name| name != "sharedWithEmails");
            object.description = Some(
                "An app as platform staff read it: the stored app without its tester list, with the reviewer's \
                 e-mail in `reviewedBy`. `updatedAt` is the revision to send back as `expectedUpdatedAt` when \
                 approving or rejecting."
                    .to_owned(),
            );
        }
        schema
    }
}

impl ToSchema for StaffAppDto {
    fn name() -> std::borrow::Cow<'static, str> {
        "StaffApp".into()
    }

    fn schemas(schemas: &mut Vec<(String, utoipa::openapi::RefOr<utoipa::openapi::schema::Schema>)>) {
        <App as ToSchema>::schemas(schemas);
    }
}

/// `GET /api/admin/apps/{packageName}`: the app as stored with its organization, its review history and
/// whether a decision by the caller would be a self-review.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AdminAppDto {
    #[serde(flatten)]
    pub app: StaffAppDto,
    pub organization: OrganizationRefDto,
    pub history: Vec<ReviewHistoryEntryDto>,
    /// The caller is a member of the app's organization: a decision is recorded as a self-review.
    pub self_review: bool,
    /// The app's tester link, when its developers made one.
    #[schema(required = true)]
    pub tester_url: Option<String>,
    /// What changed in the reviewed fields since the last approval or rejection.
    pub since_last_decision: SinceLastDecisionDto,
}

/// What changed since the last decision, for the review dialog.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SinceLastDecisionDto {
    /// `first_review` (no decision yet), `not_recorded` (the last decision predates recording what it
    /// saw) or `compared` (see `changedFields`).
    #[schema(example = "compared")]
    pub state: String,
    /// When `compared`: the reviewed fields that differ, by their names in the app (its editable fields:
    /// `name`, `description`, `publicUrl`, `permissions`, `settings`, `tools`…); empty when nothing changed.
    pub changed_fields: Vec<String>,
    /// When `compared`: each changed field with the value the last decision saw (`old`) and its value
    /// now (`new`), in the order of `changedFields`.
    pub changes: Vec<ReviewedChangeDto>,
}

/// One reviewed field that changed since the last decision: its value then and now (any JSON value;
/// `null` for none). `permissions`, `hardwareRequirements`, `settings` and `tools` are lists.
#[derive(Debug, Serialize, ToSchema)]
pub struct ReviewedChangeDto {
    pub field: String,
    pub old: serde_json::Value,
    pub new: serde_json::Value,
}

impl From<&SinceLastDecision> for SinceLastDecisionDto {
    fn from(since: &SinceLastDecision) -> Self {
        let state = match since {
            SinceLastDecision::FirstReview => "first_review",
            SinceLastDecision::NotRecorded => "not_recorded",
            SinceLastDecision::Changed(_) => "compared",
        };
        let changes = match since {
            SinceLastDecision::Changed(changes) => changes
                .iter()
                .map(|change| ReviewedChangeDto {
                    field: change.field.to_owned(),
                    old: change.old.clone(),
                    new: change.new.clone(),
                })
                .collect(),
            SinceLastDecision::FirstReview | SinceLastDecision::NotRecorded => Vec::new(),
        };
        Self {
            state: state.to_owned(),
            changed_fields: since.changed_fields().into_iter().map(str::to_owned).collect(),
            changes,
        }
    }
}

/// `POST /api/admin/apps/{packageName}/approve`.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct DecisionRequest {
    /// The reviewer's notes, sent to the organization's contact.
    #[serde(default)]
    pub notes: Option<String>,
    /// The `updatedAt` of the app as the reviewer opened it; a decision on an app changed since is 409.
    #[serde(default)]
    #[schema(required = true, value_type = String, format = DateTime)]
    pub expected_updated_at: Option<DateTime<Utc>>,
}

/// `POST /api/admin/apps/{packageName}/reject`: a rejection says why (`REVIEW_NOTES_REQUIRED` without notes).
#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RejectionRequest {
    /// Why the app was rejected, sent to the organization's contact: required, not blank.
    #[serde(default)]
    #[schema(required = true, value_type = String, min_length = 1, pattern = r"\S")]
    pub notes: Option<String>,
    /// The `updatedAt` of the app as the reviewer opened it; a decision on an app changed since is 409.
    #[serde(default)]
    #[schema(required = true, value_type = String, format = DateTime)]
    pub expected_updated_at: Option<DateTime<Utc>>,
}

/// A platform admin or reviewer (specification §3 "Admin user").
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AdminUserDto {
    pub email: String,
    pub role: RoleName,
    pub added_at: DateTime<Utc>,
    /// Who granted it: an admin's e-mail, or `the first-admin setup link` (`null` for configuration or the
    /// command line).
    #[schema(required = true)]
    pub added_by: Option<String>,
    /// The role waits for an account that proves the address.
    pub pending: bool,
}

impl From<&PlatformAdmin> for AdminUserDto {
    fn from(admin: &PlatformAdmin) -> Self {
        Self {
            email: admin.email.as_str().to_owned(),
            role: admin.role.into(),
            added_at: admin.added_at,
            added_by: match admin.added_through() {
                AddedThrough::Operator => None,
                through => Some(through.describe()),
            },
            pending: !admin.is_bound(),
        }
    }
}

/// `POST /api/admin/users`.
#[derive(Debug, Deserialize, ToSchema)]
pub struct AddAdminUserRequest {
    #[serde(default)]
    #[schema(required = true, value_type = String, format = Email)]
    pub email: Option<String>,
    /// `admin` or `reviewer`.
    #[serde(default)]
    #[schema(required = true, value_type = crate::auth::RoleName)]
    pub role: Option<String>,
}

/// Platform roles by kind.
#[derive(Debug, Clone, Copy, Serialize, ToSchema)]
pub struct RoleCountsDto {
    pub admins: u64,
    pub reviewers: u64,
    /// Roles waiting for an account that proves the address.
    pub pending: u64,
}

impl From<RoleCounts> for RoleCountsDto {
    fn from(counts: RoleCounts) -> Self {
        Self {
            admins: counts.admins,
            reviewers: counts.reviewers,
            pending: counts.pending,
        }
    }
}

/// `GET /api/admin/debug`.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct DebugDto {
    /// Apps per stored status, spelled as stored.
    pub stored_statuses: BTreeMap<String, u64>,
    /// Apps whose stored status is none of the four (they show as Development; `fix-app-statuses`
    /// repairs them).
    pub unknown_statuses: u64,
    /// SUBMITTED apps whose organization has no contact e-mail (a decision e-mails nobody).
    pub submitted_without_contact: Vec<String>,
    pub platform_roles: RoleCountsDto,
    pub demo_mode: bool,
}

impl From<DebugReport> for DebugDto {
    fn from(report: DebugReport) -> Self {
        Self {
            stored_statuses: report.stored_statuses,
            unknown_statuses: report.unknown_statuses,
            submitted_without_contact: report
                .submitted_without_contact
                .iter()
                .map(ToString::to_string)
                .collect(),
            platform_roles: report.roles.into(),
            demo_mode: report.demo,
        }
    }
}

/// `POST /api/admin/fix-app-statuses`.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct FixStatusesDto {
    /// How many apps were repaired.
    pub fixed: usize,
    /// Their package names.
    pub package_names: Vec<String>,
}
