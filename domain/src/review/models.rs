//! The review history of an app: every store transition, every edit made after approval, and every move
//! between organizations (PRODUCT.md §4), visible to the developer and the reviewer.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::apps::App;
use crate::apps::status::StatusCounts;
use crate::common::EmailAddress;

pub use crate::apps::review_events::{APP_REVIEW, ReviewEvent, ReviewEventId, ReviewEventKind};
pub use crate::common::secrets::random_uuid;

/// The key of a review event's `detail` that marks a review by a member of the app's own organization.
pub const SELF_REVIEW: &str = "selfReview";

impl ReviewEvent {
    /// The event's `detail` as its readers see it: without the reviewed fields a decision recorded
    /// ([`REVIEWED`]); `None` when nothing else is left.
    #[must_use]
    pub fn shown_detail(&self) -> Option<Value> {
        let mut detail = self.detail.clone()?;
        if let Some(fields) = detail.as_object_mut() {
            fields.remove(REVIEWED);
            if fields.is_empty() {
                return None;
            }
        }
        Some(detail)
    }

    /// Whether this is a review by a member of the app's own organization (allowed, recorded and shown):
    /// its `detail` carries [`SELF_REVIEW`].
    #[must_use]
    pub fn is_self_review(&self) -> bool {
        self.detail
            .as_ref()
            .and_then(|d| d.get(SELF_REVIEW))
            .and_then(Value::as_bool)
            .unwrap_or(false)
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
        assert_eq!(ReviewEventKind::Moved.code(), "moved");
        for kind in [
            ReviewEventKind::Submitted,
            ReviewEventKind::Approved,
            ReviewEventKind::Rejected,
            ReviewEventKind::EditedAfterApproval,
            ReviewEventKind::Edited,
            ReviewEventKind::Resubmitted,
            ReviewEventKind::Moved,
        ] {
            assert_eq!(serde_json::to_value(kind).unwrap(), kind.code());
        }
    }
}

/// Who an entry of the review history names, as the app's developers may see it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", tag = "kind", content = "email")]
pub enum HistoryActor {
    /// A member of the app's organization: their own submissions, edits and moves, and a self-review.
    Member(EmailAddress),
    /// A decision by a platform reviewer from outside the organization, shown as [`APP_REVIEW`].
    AppReview,
}

impl HistoryActor {
    /// The name the history shows: the member's e-mail, or [`APP_REVIEW`].
    #[must_use]
    pub fn display_name(&self) -> &str {
        match self {
            Self::Member(email) => email.as_str(),
            Self::AppReview => APP_REVIEW,
        }
    }
}

/// One entry of an app's review history as its developers see it: the event without the reviewer's
/// identity (see [`HistoryActor`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DeveloperHistoryEntry {
    pub id: ReviewEventId,
    pub kind: ReviewEventKind,
    pub actor: HistoryActor,
    pub notes: Option<String>,
    pub at: DateTime<Utc>,
    /// A review by a member of the app's own organization (allowed, and shown as such).
    pub self_review: bool,
    pub detail: Option<Value>,
}

impl DeveloperHistoryEntry {
    /// The developer's view of `event`: an approval or rejection names its reviewer only when the reviewer
    /// is a member of the app's organization (a self-review); every other event is a member's own action.
    #[must_use]
    pub fn of(event: ReviewEvent) -> Self {
        let self_review = event.is_self_review();
        let detail = event.shown_detail();
        let decision = matches!(event.kind, ReviewEventKind::Approved | ReviewEventKind::Rejected);
        let actor = if decision && !self_review {
            HistoryActor::AppReview
        } else {
            HistoryActor::Member(event.actor_email)
        };
        Self {
            id: event.id,
            kind: event.kind,
            actor,
            notes: event.notes,
            at: event.at,
            self_review,
            detail,
        }
    }
}

/// The key of a decision event's `detail` that holds the reviewed fields as the reviewer decided on them
/// (see [`reviewed_snapshot`]); the history's readers are not shown it.
pub const REVIEWED: &str = "reviewed";

/// The fields a reviewer judges, by their names in the app's JSON form: what "changed since the last
/// decision" compares (the editable fields).
pub const REVIEWED_FIELDS: &[&str] = crate::apps::validation::EDITABLE_FIELDS;

/// The reviewed fields of `app` ([`REVIEWED_FIELDS`]) as a JSON object, recorded with each decision.
#[must_use]
pub fn reviewed_snapshot(app: &App) -> Value {
    let whole = serde_json::to_value(app).unwrap_or(Value::Null);
    let fields = REVIEWED_FIELDS
        .iter()
        .map(|&name| {
            (
                (*name).to_owned(),
                whole.get(name).cloned().unwrap_or(Value::Null),
            )
        })
        .collect();
    Value::Object(fields)
}

/// What changed in the app since the last approval or rejection, for the review dialog.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SinceLastDecision {
    /// No decision yet: this is the app's first review.
    FirstReview,
    /// The last decision was made before decisions recorded what they saw.
    NotRecorded,
    /// The reviewed fields that differ from what the last decision saw (empty: nothing changed), in the
    /// order of [`REVIEWED_FIELDS`], each with the value the decision saw and the value now.
    Changed(Vec<ReviewedChange>),
}

/// One reviewed field that changed since the last decision: what the decision saw, and what it is now
/// (`null` for none).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReviewedChange {
    pub field: &'static str,
    pub old: Value,
    pub new: Value,
}

impl SinceLastDecision {
    /// The names of the changed fields (none unless [`Self::Changed`]).
    #[must_use]
    pub fn changed_fields(&self) -> Vec<&'static str> {
        match self {
            Self::Changed(changes) => changes.iter().map(|change| change.field).collect(),
            Self::FirstReview | Self::NotRecorded => Vec::new(),
        }
    }
}

/// Compares `app` with the snapshot its last decision in `history` (oldest first) recorded.
#[must_use]
pub fn since_last_decision(app: &App, history: &[ReviewEvent]) -> SinceLastDecision {
    let Some(last) = history
        .iter()
        .rev()
        .find(|event| matches!(event.kind, ReviewEventKind::Approved | ReviewEventKind::Rejected))
    else {
        return SinceLastDecision::FirstReview;
    };
    let Some(seen) = last.detail.as_ref().and_then(|d| d.get(REVIEWED)) else {
        return SinceLastDecision::NotRecorded;
    };
    let now = reviewed_snapshot(app);
    SinceLastDecision::Changed(
        REVIEWED_FIELDS
            .iter()
            .copied()
            .filter(|&name| seen.get(name) != now.get(name))
            .map(|field| ReviewedChange {
                field,
                old: seen.get(field).cloned().unwrap_or(Value::Null),
                new: now.get(field).cloned().unwrap_or(Value::Null),
            })
            .collect(),
    )
}
