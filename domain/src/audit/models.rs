//! An audit entry: who (account id and e-mail at the time), what (an action code, a target, the fields that
//! changed), when, and from where (client address and user agent). Never a secret: the builder drops a
//! change to a field named like a secret, and the tester list is recorded as a count.

use crate::common::code_enum;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use uuid::Uuid;

use super::AuditAction;
use crate::common::PackageName;
use crate::common::secrets::random_uuid;
use crate::common::{Caller, Cursor, CursorId, OrgId, SecretGenerator, UserId};

/// The actor e-mail of an entry the server's operator made: an `app-server` command (`app-server admin
/// grant|revoke`) or the `PORTAL_ADMIN_EMAILS` setting read at start. No account makes such a change, so the
/// entry's actor id is `None` (never a made-up account) and this text stands where an address would.
pub const OPERATOR_ACTOR: &str = "operator (app-server command line or configuration)";

/// Longest user agent kept (the rest is cut; a header can be kilobytes long).
pub const MAX_USER_AGENT_CHARS: usize = 256;

/// Field names whose values are secrets: a change to one of them is never recorded (the action says what
/// happened). Compared without case, `_` and `-`.
pub const SECRET_FIELDS: &[&str] = &[
    "apikey",
    "key",
    "keyhash",
    "token",
    "sharetoken",
    "password",
    "secret",
    "sharedwithemails",
];

/// Whether `field` names a secret ([`SECRET_FIELDS`]).
#[must_use]
pub fn is_secret_field(field: &str) -> bool {
    let folded: String = field
        .chars()
        .filter(|c| *c != '_' && *c != '-')
        .flat_map(char::to_lowercase)
        .collect();
    SECRET_FIELDS.contains(&folded.as_str())
}

code_enum! {
    /// What kind of thing an entry is about.
    pub enum AuditTargetKind: "What kind of thing an entry is about." {
        App => "app",
        Organization => "organization",
        Member => "member",
        Invitation => "invitation",
        Image => "image",
        Account => "account",
        /// A personal access token (labelled with its name).
        AccessToken => "access_token",
        /// A webhook endpoint (labelled with its URL).
        Webhook => "webhook",
    }
}

/// What an entry is about: an app's package name, a member's or account's id (with the e-mail when known),
/// an invitation's or image's id.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct AuditTarget {
    pub kind: AuditTargetKind,
    pub id: String,
    /// A readable name for people: an app's name, an organization's name, a member's or invitee's e-mail.
    /// The log's reader fills it with the target's current name (`AuditLog::list`); the name recorded with
    /// the entry stands when the target is gone.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    /// The app, organization or account no longer exists (set when the log is read): `label` is then the
    /// name recorded with the entry, if any, and `id` what it was known by.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub deleted: bool,
}

impl AuditTarget {
    #[must_use]
    pub fn new(kind: AuditTargetKind, id: impl Into<String>) -> Self {
        Self {
            kind,
            id: id.into(),
            label: None,
            deleted: false,
        }
    }

    #[must_use]
    pub fn app(package: &PackageName) -> Self {
        Self::new(AuditTargetKind::App, package.as_str())
    }

    #[must_use]
    pub fn organization(org: OrgId) -> Self {
        Self::new(AuditTargetKind::Organization, org.to_string())
    }

    #[must_use]
    pub fn member(user: UserId) -> Self {
        Self::new(AuditTargetKind::Member, user.to_string())
    }

    /// An invitation, labelled with the invited address.
    #[must_use]
    pub fn invitation(id: crate::common::InviteId, email: &str) -> Self {
        Self::new(AuditTargetKind::Invitation, id.to_string()).with_label(email)
    }

    /// An image.
    #[must_use]
    pub fn image(id: crate::common::ImageId) -> Self {
        Self::new(AuditTargetKind::Image, id.to_string())
    }

    /// The holder of a platform role: its e-mail address (a role belongs to an address until an account
    /// proves it, and `/api/admin/users/{email}` names it so).
    #[must_use]
    pub fn platform_user(email: &str) -> Self {
        Self::new(AuditTargetKind::Account, email).with_label(email)
    }

    #[must_use]
    pub fn with_label(mut self, label: impl Into<String>) -> Self {
        self.label = Some(label.into());
        self
    }
}

/// One field that changed: its API name and its values before and after (`null` when it had none).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct FieldChange {
    pub field: String,
    /// Any JSON value; `null` when the field had none.
    pub old: Value,
    /// Any JSON value; `null` when the field has none.
    pub new: Value,
}

/// Identifies one audit entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
pub struct AuditEntryId(pub Uuid);

impl std::fmt::Display for AuditEntryId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

/// One recorded change. Made by [`AuditEntry::by`] and written by the repository that writes the change,
/// in the same transaction.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AuditEntry {
    pub id: AuditEntryId,
    pub at: DateTime<Utc>,
    /// The organization the change belongs to; `None` for a platform entry.
    pub org_id: Option<OrgId>,
    /// The account that made the change; `None` for the server's operator ([`AuditEntry::by_operator`]).
    pub actor_id: Option<UserId>,
    /// The actor's e-mail address when the change was made ([`OPERATOR_ACTOR`] for the operator).
    pub actor_email: String,
    pub action: AuditAction,
    pub target: Option<AuditTarget>,
    pub changes: Vec<FieldChange>,
    /// The client's address, through `PORTAL_TRUSTED_PROXIES`.
    pub client_ip: Option<String>,
    pub user_agent: Option<String>,
    /// The name of the personal access token the change was made through (`None`: a signed-in session).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub via_token: Option<String>,
}

impl AuditEntry {
    /// An entry about `action` by `caller` at `at`, with the caller's address and user agent; no
    /// organization, target or change yet.
    #[must_use]
    pub fn by(
        secrets: &dyn SecretGenerator,
        caller: &Caller,
        action: AuditAction,
        at: DateTime<Utc>,
    ) -> Self {
        Self {
            id: AuditEntryId(random_uuid(secrets)),
            at,
            org_id: None,
            actor_id: Some(caller.user_id),
            actor_email: caller.email.as_str().to_owned(),
            action,
            target: None,
            changes: Vec::new(),
            client_ip: caller.origin.client_ip.clone(),
            user_agent: caller
                .origin
                .user_agent
                .as_deref()
                .map(|agent| agent.chars().take(MAX_USER_AGENT_CHARS).collect()),
            via_token: caller.origin.via_token.as_ref().map(|token| token.name.clone()),
        }
    }

    /// An entry about `action` made by the server's operator at `at` (an `app-server` command or the
    /// configuration read at start): no account, no client address, no user agent; the actor e-mail is
    /// [`OPERATOR_ACTOR`].
    #[must_use]
    pub fn by_operator(secrets: &dyn SecretGenerator, action: AuditAction, at: DateTime<Utc>) -> Self {
        Self {
            id: AuditEntryId(random_uuid(secrets)),
            at,
            org_id: None,
            actor_id: None,
            actor_email: OPERATOR_ACTOR.to_owned(),
            action,
            target: None,
            changes: Vec::new(),
            client_ip: None,
            user_agent: None,
            via_token: None,
        }
    }

    #[must_use]
    pub const fn in_org(mut self, org: OrgId) -> Self {
        self.org_id = Some(org);
        self
    }

    #[must_use]
    pub fn on(mut self, target: AuditTarget) -> Self {
        self.target = Some(target);
        self
    }

    /// Records that `field` went from `old` to `new`; nothing when they are equal or when the field names a
    /// secret ([`is_secret_field`]).
    #[must_use]
    pub fn change(mut self, field: &str, old: impl Into<Value>, new: impl Into<Value>) -> Self {
        let (old, new) = (old.into(), new.into());
        if old != new && !is_secret_field(field) {
            self.changes.push(FieldChange {
                field: field.to_owned(),
                old,
                new,
            });
        }
        self
    }

    /// Whether the platform's log shows the entry ([`AuditAction::is_platform`] or no organization).
    #[must_use]
    pub const fn is_platform(&self) -> bool {
        self.org_id.is_none() || self.action.is_platform()
    }
}

/// Which log is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AuditScope {
    /// One organization's entries.
    Org(OrgId),
    /// Platform entries and review decisions ([`AuditEntry::is_platform`]).
    Platform,
}

/// The filters of a read; every one given must match.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AuditFilter {
    pub actor: Option<UserId>,
    pub action: Option<AuditAction>,
    /// Entries about this app.
    pub app: Option<PackageName>,
    /// At or after.
    pub from: Option<DateTime<Utc>>,
    /// Before.
    pub to: Option<DateTime<Utc>>,
}

/// Where a page of the audit log starts (the one cursor of the newest-first logs).
pub type AuditCursor = Cursor<AuditEntryId>;

impl CursorId for AuditEntryId {
    fn parse_id(text: &str) -> Option<Self> {
        Uuid::parse_str(text).ok().map(Self)
    }
}

impl Cursor<AuditEntryId> {
    /// The cursor of the page that follows `entry`.
    #[must_use]
    pub fn after(entry: &AuditEntry) -> Self {
        Self {
            at_millis: entry.at.timestamp_millis(),
            id: entry.id,
        }
    }
}

/// One page of entries, newest first, and the cursor of the next page when there is one.
#[derive(Debug, Clone, PartialEq)]
pub struct AuditPage {
    pub entries: Vec<AuditEntry>,
    pub next: Option<AuditCursor>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::common::{ClientOrigin, EmailAddress};
    use crate::testing::RepeatingBytes;
    use serde_json::json;

    #[test]
    fn a_target_kind_is_spelled_alike_stored_and_answered() {
        for &kind in AuditTargetKind::ALL {
            assert_eq!(
                serde_json::to_value(kind).unwrap(),
                json!(kind.code()),
                "{kind:?}"
            );
            assert_eq!(AuditTargetKind::parse(kind.code()), Some(kind));
        }
    }

    fn caller() -> Caller {
        Caller {
            user_id: UserId::new(),
            email: EmailAddress::parse("Admin@Example.com").unwrap(),
            platform_role: None,
            origin: ClientOrigin {
                client_ip: Some("203.0.113.7".into()),
                user_agent: Some("x".repeat(1000)),
                via_token: None,
            },
        }
    }

    #[test]
    fn an_entry_carries_the_caller_and_where_the_call_came_from() {
        let caller = caller();
        let entry = AuditEntry::by(&RepeatingBytes(7), &caller, AuditAction::AppUpdated, Utc::now());
        assert_eq!(entry.actor_id, Some(caller.user_id));
        assert_eq!(entry.actor_email, caller.email.as_str());
        assert_eq!(entry.client_ip.as_deref(), Some("203.0.113.7"));
        assert_eq!(entry.user_agent.map(|a| a.len()), Some(MAX_USER_AGENT_CHARS));
    }

    #[test]
    fn unchanged_and_secret_fields_are_not_recorded() {
        let entry = AuditEntry::by(&RepeatingBytes(7), &caller(), AuditAction::AppUpdated, Utc::now())
            .change("name", "Old", "New")
            .change("description", "same", "same")
            .change("apiKey", "a", "b")
            .change("share_token", "a", "b")
            .change("sharedWithEmails", json!(["a@x.io"]), json!([]))
            .change("Password", "a", "b");
        assert_eq!(
            entry.changes,
            vec![FieldChange {
                field: "name".into(),
                old: json!("Old"),
                new: json!("New")
            }]
        );
    }

    #[test]
    fn a_cursor_reads_back_and_refuses_anything_else() {
        let id = AuditEntryId(Uuid::new_v4());
        let cursor = AuditCursor {
            at_millis: 1_700_000_000_123,
            id,
        };
        assert_eq!(AuditCursor::parse(&cursor.to_string()), Some(cursor));
        for bad in ["", "12", "x.y", "12.not-a-uuid", &format!("1.5.{id}")] {
            assert_eq!(AuditCursor::parse(bad), None, "{bad}");
        }
    }

    #[test]
    fn an_operator_entry_names_no_account_and_no_client() {
        let entry = AuditEntry::by_operator(&RepeatingBytes(7), AuditAction::PlatformRoleGranted, Utc::now());
        assert_eq!(entry.actor_id, None);
        assert_eq!(entry.actor_email, OPERATOR_ACTOR);
        assert_eq!((entry.client_ip, entry.user_agent), (None, None));
        assert!(entry.org_id.is_none());
    }

    #[test]
    fn platform_entries_are_those_without_organization_and_review_decisions() {
        let secrets = RepeatingBytes(7);
        let org = OrgId::new();
        let review = AuditEntry::by(&secrets, &caller(), AuditAction::ReviewApproved, Utc::now()).in_org(org);
        let edit = AuditEntry::by(&secrets, &caller(), AuditAction::AppUpdated, Utc::now()).in_org(org);
        let grant = AuditEntry::by(&secrets, &caller(), AuditAction::PlatformRoleGranted, Utc::now());
        assert!(review.is_platform() && grant.is_platform() && !edit.is_platform());
    }
}
