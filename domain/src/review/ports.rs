//! Ports of the review context.

use async_trait::async_trait;
use chrono::{DateTime, Utc};

use super::ReviewEvent;
use crate::apps::ports::StatusChange;
use crate::apps::{App, PackageName};
use crate::common::{OrgId, RepoError};

/// What a [`ReviewRepository::decide`] that lost its compare-and-set on the store status answers
/// (`RepoError::Conflict(STATUS_MOVED)`).
pub const STATUS_MOVED: &str = "status";
/// What a [`ReviewRepository::decide`] that lost its compare-and-set on the revision answers
/// (`RepoError::Conflict(REVISION_MOVED)`).
pub const REVISION_MOVED: &str = "revision";

/// Reads review histories (written atomically with each change through the apps repository) and writes
/// reviewers' decisions.
#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
#[async_trait]
pub trait ReviewRepository: Send + Sync {
    /// The history of the organization's app, oldest first (events from before a move included), or
    /// `None` when the organization has no such app.
    ///
    /// # Errors
    /// [`RepoError::Backend`] when the store fails.
    async fn history(&self, org: OrgId, package: &PackageName)
    -> Result<Option<Vec<ReviewEvent>>, RepoError>;

    /// The history of any app, oldest first (empty when there is none), for platform reviewers.
    ///
    /// # Errors
    /// [`RepoError::Backend`] when the store fails.
    async fn admin_history(&self, package: &PackageName) -> Result<Vec<ReviewEvent>, RepoError>;

    /// A reviewer's decision on any app, compare-and-set on what the reviewer saw: when the app's status is
    /// still `expected` and its `updatedAt` still `seen` (compared at millisecond precision, as stored),
    /// writes `change.to`, the review fields, `updatedAt`, the event and the e-mails in one transaction
    /// and answers the app as stored afterwards.
    ///
    /// # Errors
    /// [`RepoError::NotFound`] when there is no such app; [`RepoError::Conflict`]`(`[`STATUS_MOVED`]`)` when
    /// its status is not `expected`, else [`RepoError::Conflict`]`(`[`REVISION_MOVED`]`)` when its
    /// `updatedAt` is not `seen`; [`RepoError::Backend`] when the store fails.
    async fn decide(
        &self,
        package: &PackageName,
        expected: crate::apps::AppStoreStatus,
        seen: DateTime<Utc>,
        change: StatusChange,
    ) -> Result<App, RepoError>;
}
