//! The JSON of the audit log: an entry, its actor, a page.

use chrono::{DateTime, Utc};
use domain::audit::{AuditAction, AuditEntry, AuditPage, AuditTarget, FieldChange};
use serde::Serialize;
use utoipa::ToSchema;

/// Who made a change: the account id and its e-mail address at the time. A change the server's operator
/// made (an `app-server` command, the `PORTAL_ADMIN_EMAILS` setting) has no account: `id` is `null` and
/// `email` reads "operator (…)".
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct AuditActorDto {
    #[schema(format = Uuid)]
    pub id: Option<String>,
    pub email: String,
}

/// One entry of the audit log.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AuditEntryDto {
    #[schema(format = Uuid)]
    pub id: String,
    pub at: DateTime<Utc>,
    /// `null` for a platform entry.
    #[schema(format = Uuid)]
    pub organization_id: Option<String>,
    pub actor: AuditActorDto,
    pub action: AuditAction,
    pub target: Option<AuditTarget>,
    /// The fields that changed, old and new values (never a secret).
    pub changes: Vec<FieldChange>,
    pub client_ip: Option<String>,
    pub user_agent: Option<String>,
    /// The personal access token the change was made through (its name); `null`: a signed-in session.
    pub via_token: Option<String>,
}

impl From<AuditEntry> for AuditEntryDto {
    fn from(entry: AuditEntry) -> Self {
        Self {
            id: entry.id.to_string(),
            at: entry.at,
            organization_id: entry.org_id.map(|org| org.to_string()),
            actor: AuditActorDto {
                id: entry.actor_id.map(|actor| actor.to_string()),
                email: entry.actor_email,
            },
            action: entry.action,
            target: entry.target,
            changes: entry.changes,
            client_ip: entry.client_ip,
            user_agent: entry.user_agent,
            via_token: entry.via_token,
        }
    }
}

/// A page of entries, newest first; `nextCursor` reads the next page, `null` on the last.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AuditPageDto {
    pub entries: Vec<AuditEntryDto>,
    pub next_cursor: Option<String>,
}

/// `{success, data}` around a page.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct AuditPageResponse {
    pub success: bool,
    pub data: AuditPageDto,
}

impl From<AuditPage> for AuditPageResponse {
    fn from(page: AuditPage) -> Self {
        Self {
            success: true,
            data: AuditPageDto {
                entries: page.entries.into_iter().map(AuditEntryDto::from).collect(),
                next_cursor: page.next.map(|cursor| cursor.to_string()),
            },
        }
    }
}
