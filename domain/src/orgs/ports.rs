//! Ports of the organizations context.

use async_trait::async_trait;

use super::OrgRole;
use crate::common::{OrgId, RepoError, UserId};

/// Answers "which role does this user have in this organization?". Every organization-scoped use case
/// (apps included) asks it before acting.
#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
#[async_trait]
pub trait MemberDirectory: Send + Sync {
    /// The user's role in the organization, or `None` when the user is not a member (or the organization
    /// does not exist).
    ///
    /// # Errors
    /// [`RepoError::Backend`] when the store fails.
    async fn role_of(&self, org: OrgId, user: UserId) -> Result<Option<OrgRole>, RepoError>;
}
