//! The events an app's changes record for its review history (PRODUCT.md §4): written by the apps context in
//! the same transaction as each change, read by the review context (which adds how they are shown).

use crate::common::code_enum;
use std::fmt;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use uuid::Uuid;

pub use super::models::APP_REVIEW;
use super::models::App;
use crate::common::secrets::random_uuid;
use crate::common::{Caller, EmailAddress, OrgId, PackageName, SecretGenerator, UserId};

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

code_enum! {
    /// What happened.
    pub enum ReviewEventKind: "What happened." {
        /// The developer published (or resubmitted): → SUBMITTED.
        Submitted => "submitted",
        /// A reviewer approved: SUBMITTED → PUBLISHED.
        Approved => "approved",
        /// A reviewer rejected: SUBMITTED → REJECTED.
        Rejected => "rejected",
        /// A PUBLISHED app was edited; `detail.changedFields` lists what changed.
        EditedAfterApproval => "edited_after_approval",
        /// A SUBMITTED app was edited (while waiting for review); `detail.changedFields` lists what changed.
        Edited => "edited",
        /// A permission was added to a PUBLISHED app, which went back to SUBMITTED (users granted it what the
        /// reviewer saw, not more); `detail.addedPermissions` lists the new permission types.
        Resubmitted => "resubmitted",
        /// The app moved to another organization; `detail` holds `fromOrgId` and `toOrgId`.
        Moved => "moved",
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
