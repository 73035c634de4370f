//! What the contexts above read of an organization: a user's standing in it, and its name, contact e-mail
//! and logo (implemented by the adapter that stores organizations).

use async_trait::async_trait;

use super::roles::OrgRole;
use crate::common::{EmailAddress, OrgId, RepoError, UserId};

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

    /// The user's role in the organization with whether the organization requires a second factor of
    /// its members, in one read; `None` when the user is not a member (or the organization does not
    /// exist). The membership door of every org-scoped request ([`super::ActingMember::resolve`]) asks
    /// this.
    ///
    /// # Errors
    /// [`RepoError::Backend`] when the store fails.
    async fn standing_of(&self, org: OrgId, user: UserId) -> Result<Option<MemberStanding>, RepoError>;
}

/// A user's membership of an organization as the membership door reads it: the role, and whether the
/// organization requires a second factor of its members (PRODUCT.md §1a).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MemberStanding {
    pub role: OrgRole,
    pub org_requires_two_factor: bool,
}

/// What publishing, review e-mails and image rules need to know about an organization.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct OrgContact {
    pub name: String,
    pub contact_email: Option<EmailAddress>,
    /// The profile's logo (an image URL), which only admins may replace or delete.
    pub logo: Option<String>,
}

impl OrgContact {
    /// Publishing needs a non-blank name and a contact e-mail.
    #[must_use]
    pub fn is_complete(&self) -> bool {
        !self.name.trim().is_empty() && self.contact_email.is_some()
    }
}

/// Reads an organization's name and contact e-mail (implemented by the adapter that stores organizations).
#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
#[async_trait]
pub trait OrgProfileLookup: Send + Sync {
    /// The organization's name, contact e-mail and logo, or `None` when it does not exist.
    ///
    /// # Errors
    /// [`RepoError::Backend`] when the store fails.
    async fn profile(&self, org: OrgId) -> Result<Option<OrgContact>, RepoError>;
}
