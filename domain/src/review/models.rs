//! The review history of an app: every store transition, every edit made after approval, and every move
//! between organizations (PRODUCT.md §4), visible to the developer and the reviewer.

use std::fmt;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use uuid::Uuid;

use crate::apps::status::StatusCounts;
use crate::apps::{App, PackageName};
use crate::common::{Caller, EmailAddress, OrgId, SecretGenerator, UserId};

/// Identifies one review event.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
pub struct ReviewEventId(pub Uuid);

impl ReviewEventId {
    /// A random (v4) id drawn from the randomness port.
    #[must_use]
    pub fn generate(secrets: &dyn SecretGenerator) -> Self {
        Self(random_uuid(secrets))
    }
}

impl fmt::Display for ReviewEventId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

/// A v4 UUID from 16 bytes of the randomness port.
#[must_use]
pub fn random_uuid(secrets: &dyn SecretGenerator) -> Uuid {
    let mut bytes = [0u8; 16];
    for (slot, byte) in bytes.iter_mut().zip(secrets.random_bytes(16)) {
        *slot = byte;
    }
    uuid::Builder::from_random_bytes(bytes).into_uuid()
}

/// What happened.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ReviewEventKind {
    /// The developer published (or resubmitted): → SUBMITTED.
    Submitted,
    /// A reviewer approved: SUBMITTED → PUBLISHED.
    Approved,
    /// A reviewer rejected: SUBMITTED → REJECTED.
    Rejected,
    /// A PUBLISHED app was edited; `detail.changedFields` lists what changed.
    EditedAfterApproval,
    /// A SUBMITTED app was edited (while waiting for review); `detail.changedFields` lists what changed.
    Edited,
    /// A permission was added to a PUBLISHED app, which went back to SUBMITTED (users granted it what the
    /// reviewer saw, not more); `detail.addedPermissions` lists the new permission types.
    Resubmitted,
    /// The app moved to another organization; `detail` holds `fromOrgId` and `toOrgId`.
    Moved,
}

impl ReviewEventKind {
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Submitted => "submitted",
            Self::Approved => "approved",
            Self::Rejected => "rejected",
            Self::EditedAfterApproval => "edited_after_approval",
            Self::Edited => "edited",
            Self::Resubmitted => "resubmitted",
            Self::Moved => "moved",
        }
    }
}

/// One entry of an app's review history.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ReviewEvent {
    pub id: ReviewEventId,
    pub package_name: PackageName,
    /// The organization owning the app when the event happened (the target organization for a move).
    pub org_id: OrgId,
    pub kind: ReviewEventKind,
    pub actor: UserId,
    pub actor_email: EmailAddress,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub notes: Option<String>,
    pub at: DateTime<Utc>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail: Option<Value>,
}

impl ReviewEvent {
    /// An event about `app`, by `caller`, now; no notes, no detail.
    #[must_use]
    pub fn new(
        secrets: &dyn SecretGenerator,
        app: &App,
        kind: ReviewEventKind,
        caller: &Caller,
        at: DateTime<Utc>,
    ) -> Self {
        Self {
            id: ReviewEventId::generate(secrets),
            package_name: app.package_name.clone(),
            org_id: app.org_id,
            kind,
            actor: caller.user_id,
            actor_email: caller.email.clone(),
            notes: None,
            at,
            detail: None,
        }
    }

    #[must_use]
    pub fn with_notes(mut self, notes: Option<String>) -> Self {
        self.notes = notes;
        self
    }

    #[must_use]
    pub fn with_detail(mut self, detail: Value) -> Self {
        self.detail = Some(detail);
        self
    }

    #[must_use]
    pub fn in_org(mut self, org_id: OrgId) -> Self {
        self.org_id = org_id;
        self
    }
}

/// The admin dashboard: counts per status and the most recent submissions (newest first).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AdminStats {
    pub counts: StatusCounts,
    pub recent_submissions: Vec<App>,
}

/// An app as the reviewer sees it: the app and the name of the organization that owns it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ReviewedApp {
    pub app: App,
    pub organization_name: Option<String>,
}

impl ReviewedApp {
    /// The Developer line of the review dialog: the organization name, else the developer id.
    #[must_use]
    pub fn developer_label(&self) -> String {
        self.organization_name
            .as_deref()
            .map(str::trim)
            .filter(|n| !n.is_empty())
            .map_or_else(|| self.app.developer_id.to_string(), str::to_owned)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::RepeatingBytes;

    #[test]
    fn an_event_id_is_a_version_four_uuid_from_the_randomness_port() {
        let id = ReviewEventId::generate(&RepeatingBytes(0xff));
        assert_eq!(id.0.get_version_num(), 4);
        assert_eq!(id, ReviewEventId::generate(&RepeatingBytes(0xff)));
        assert_ne!(id, ReviewEventId::generate(&RepeatingBytes(0x01)));
    }

    #[test]
    fn event_kinds_serialise_in_snake_case() {
        assert_eq!(
            serde_json::to_string(&ReviewEventKind::EditedAfterApproval).unwrap(),
            "\"edited_after_approval\""
        );
        assert_eq!(ReviewEventKind::Moved.as_str(), "moved");
        for kind in [
            ReviewEventKind::Submitted,
            ReviewEventKind::Approved,
            ReviewEventKind::Rejected,
            ReviewEventKind::EditedAfterApproval,
            ReviewEventKind::Edited,
            ReviewEventKind::Resubmitted,
            ReviewEventKind::Moved,
        ] {
            assert_eq!(serde_json::to_value(kind).unwrap(), kind.as_str());
        }
    }
}
