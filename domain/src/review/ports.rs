//! Ports of the review context.

use async_trait::async_trait;

use super::ReviewEvent;
use crate::apps::PackageName;
use crate::common::{OrgId, RepoError};

/// Reads review histories (written atomically with each change through the apps repository).
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
}
