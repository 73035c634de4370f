//! The app-store state machine (PRODUCT.md §4).
//!
//! | from                  | action  | to        |
//! |-----------------------|---------|-----------|
//! | DEVELOPMENT, REJECTED | publish | SUBMITTED |
//! | SUBMITTED             | approve | PUBLISHED |
//! | SUBMITTED             | reject  | REJECTED  |
//!
//! Anything else is an [`IllegalTransition`] (HTTP 409). Editing a PUBLISHED app keeps it PUBLISHED.

use crate::common::code_enum;
use serde::{Deserialize, Serialize};

code_enum! {
    /// Where an app stands in the app-store review.
    #[derive(Default)]
    pub enum AppStoreStatus: "Where an app stands in the app-store review." {
        #[default]
        Development => "DEVELOPMENT",
        Submitted => "SUBMITTED",
        Published => "PUBLISHED",
        Rejected => "REJECTED",
    }
}

code_enum! {
    /// What can be done to an app's store status.
    pub enum StatusAction: "What can be done to an app's store status." {
        /// The developer submits (or resubmits) the app for review.
        Publish => "publish",
        /// A reviewer accepts the submission.
        Approve => "approve",
        /// A reviewer sends the submission back with notes.
        Reject => "reject",
    }
}

/// The publish button the developer sees (specification §2, §4).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum StoreButton {
    /// In DEVELOPMENT.
    Publish,
    /// In REJECTED.
    Resubmit,
}

impl StoreButton {
    #[must_use]
    pub const fn label(self) -> &'static str {
        match self {
            Self::Publish => "Publish to App Store",
            Self::Resubmit => "Resubmit to App Store",
        }
    }
}

/// A transition the state machine does not allow (HTTP 409).
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("An app that is {} cannot be {}", .from.label(), .action.past_participle())]
pub struct IllegalTransition {
    pub from: AppStoreStatus,
    pub action: StatusAction,
}

impl StatusAction {
    const fn past_participle(self) -> &'static str {
        match self {
            Self::Publish => "published",
            Self::Approve => "approved",
            Self::Reject => "rejected",
        }
    }
}

/// The message when a rejection has no notes (the specification disables the button; the server refuses).
pub const REVIEW_NOTES_REQUIRED: &str = "Review notes are required to reject an app";

/// Why a rejection was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum RejectError {
    /// The notes were missing or blank (HTTP 400).
    #[error("{}", REVIEW_NOTES_REQUIRED)]
    NotesRequired,
    /// The app was not SUBMITTED (HTTP 409).
    #[error(transparent)]
    Illegal(#[from] IllegalTransition),
}

impl AppStoreStatus {
    /// The statuses whose apps the uptime monitor checks (PRODUCT.md §5).
    pub const MONITORED: [Self; 2] = [Self::Submitted, Self::Published];

    /// Whether the uptime monitor checks an app in this status.
    #[must_use]
    pub const fn is_monitored(self) -> bool {
        matches!(self, Self::Submitted | Self::Published)
    }

    /// Reads a stored or received status; anything unknown reads as `DEVELOPMENT` (specification §4).
    #[must_use]
    pub fn parse_lossy(value: &str) -> Self {
        match value {
            "SUBMITTED" => Self::Submitted,
            "PUBLISHED" => Self::Published,
            "REJECTED" => Self::Rejected,
            _ => Self::Development,
        }
    }

    /// The label of the status chip (specification §2).
    #[must_use]
    pub const fn label(self) -> &'static str {
        match self {
            Self::Development => "Development",
            Self::Submitted => "Submitted",
            Self::Published => "Published",
            Self::Rejected => "Rejected",
        }
    }

    /// The publish button offered in this status, if any.
    #[must_use]
    pub const fn available_action(self) -> Option<StoreButton> {
        match self {
            Self::Development => Some(StoreButton::Publish),
            Self::Rejected => Some(StoreButton::Resubmit),
            Self::Submitted | Self::Published => None,
        }
    }

    /// The status after `action`.
    ///
    /// # Errors
    /// [`IllegalTransition`] when the table above has no such row.
    pub const fn after(self, action: StatusAction) -> Result<Self, IllegalTransition> {
        match (self, action) {
            (Self::Development | Self::Rejected, StatusAction::Publish) => Ok(Self::Submitted),
            (Self::Submitted, StatusAction::Approve) => Ok(Self::Published),
            (Self::Submitted, StatusAction::Reject) => Ok(Self::Rejected),
            (from, action) => Err(IllegalTransition { from, action }),
        }
    }

    /// DEVELOPMENT or REJECTED → SUBMITTED.
    ///
    /// # Errors
    /// [`IllegalTransition`] from SUBMITTED or PUBLISHED.
    pub const fn publish(self) -> Result<Self, IllegalTransition> {
        self.after(StatusAction::Publish)
    }

    /// SUBMITTED → PUBLISHED.
    ///
    /// # Errors
    /// [`IllegalTransition`] from any other status.
    pub const fn approve(self) -> Result<Self, IllegalTransition> {
        self.after(StatusAction::Approve)
    }

    /// SUBMITTED → REJECTED, returning the trimmed notes with the new status.
    ///
    /// # Errors
    /// [`RejectError::NotesRequired`] when the notes are missing or blank (checked first);
    /// [`RejectError::Illegal`] from any status but SUBMITTED.
    pub fn reject(self, notes: Option<&str>) -> Result<(Self, String), RejectError> {
        let notes = notes
            .map(str::trim)
            .filter(|n| !n.is_empty())
            .ok_or(RejectError::NotesRequired)?;
        let to = self.after(StatusAction::Reject)?;
        Ok((to, notes.to_owned()))
    }
}

/// How many apps are in each status (the admin dashboard cards).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StatusCounts {
    pub development: u64,
    pub submitted: u64,
    pub published: u64,
    pub rejected: u64,
}

impl StatusCounts {
    /// The Total Apps card: the sum of the four statuses.
    #[must_use]
    pub const fn total(&self) -> u64 {
        self.development + self.submitted + self.published + self.rejected
    }

    /// The count of one status.
    #[must_use]
    pub const fn of(&self, status: AppStoreStatus) -> u64 {
        match status {
            AppStoreStatus::Development => self.development,
            AppStoreStatus::Submitted => self.submitted,
            AppStoreStatus::Published => self.published,
            AppStoreStatus::Rejected => self.rejected,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::AppStoreStatus as S;
    use super::*;

    #[test]
    fn a_development_app_can_be_published_and_becomes_submitted() {
        assert_eq!(S::Development.publish(), Ok(S::Submitted));
    }

    #[test]
    fn rejected_app_can_be_resubmitted() {
        assert_eq!(S::Rejected.publish(), Ok(S::Submitted));
    }

    #[test]
    fn a_submitted_or_published_app_cannot_be_published_again() {
        for from in [S::Submitted, S::Published] {
            let err = from.publish().unwrap_err();
            assert_eq!(
                err,
                IllegalTransition {
                    from,
                    action: StatusAction::Publish
                }
            );
        }
        assert_eq!(
            S::Published.publish().unwrap_err().to_string(),
            "An app that is Published cannot be published"
        );
    }

    #[test]
    fn only_a_submitted_app_can_be_approved() {
        assert_eq!(S::Submitted.approve(), Ok(S::Published));
        for from in [S::Development, S::Published, S::Rejected] {
            assert!(from.approve().is_err(), "{from:?}");
        }
    }

    #[test]
    fn a_submitted_app_is_rejected_with_trimmed_notes() {
        assert_eq!(
            S::Submitted.reject(Some("  logo is blurry ")),
            Ok((S::Rejected, "logo is blurry".to_owned()))
        );
    }

    #[test]
    fn a_rejection_without_notes_is_refused_before_the_status_is_looked_at() {
        assert_eq!(S::Submitted.reject(None), Err(RejectError::NotesRequired));
        assert_eq!(
            S::Development.reject(Some("   ")),
            Err(RejectError::NotesRequired)
        );
        assert_eq!(RejectError::NotesRequired.to_string(), REVIEW_NOTES_REQUIRED);
    }

    #[test]
    fn only_a_submitted_app_can_be_rejected() {
        for from in [S::Development, S::Published, S::Rejected] {
            assert!(
                matches!(from.reject(Some("no")), Err(RejectError::Illegal(_))),
                "{from:?}"
            );
        }
    }

    #[test]
    fn the_publish_button_depends_on_the_status() {
        assert_eq!(S::Development.available_action(), Some(StoreButton::Publish));
        assert_eq!(S::Rejected.available_action(), Some(StoreButton::Resubmit));
        assert_eq!(S::Submitted.available_action(), None);
        assert_eq!(S::Published.available_action(), None);
        assert_eq!(StoreButton::Publish.label(), "Publish to App Store");
        assert_eq!(StoreButton::Resubmit.label(), "Resubmit to App Store");
    }

    #[test]
    fn status_labels_are_the_specifications() {
        let labels: Vec<_> = S::ALL.iter().map(|s| s.label()).collect();
        assert_eq!(labels, ["Development", "Submitted", "Published", "Rejected"]);
    }

    #[test]
    fn an_unknown_status_reads_as_development() {
        assert_eq!(S::parse_lossy("ARCHIVED"), S::Development);
        for &s in S::ALL {
            assert_eq!(S::parse_lossy(s.code()), s);
        }
    }

    #[test]
    fn total_apps_is_the_sum_of_the_four_counts() {
        let counts = StatusCounts {
            development: 4,
            submitted: 3,
            published: 2,
            rejected: 1,
        };
        assert_eq!(counts.total(), 10);
        assert_eq!(counts.of(S::Submitted), 3);
        assert_eq!(
            serde_json::to_value(counts).unwrap(),
            serde_json::json!({"development": 4, "submitted": 3, "published": 2, "rejected": 1})
        );
    }
}
