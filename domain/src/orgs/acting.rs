//! [`ActingMember`]: the caller acting in an organization, as the member directory answered for this
//! request.

use super::ports::MemberDirectory;
use super::{OrgAction, OrgRole};
use crate::common::{Caller, OrgId, RepoError};

/// The caller, an organization and the caller's role in it, as [`MemberDirectory::role_of`] answered when
/// the request began. It is made only by [`ActingMember::resolve`], which asks the directory, and its
/// fields cannot be changed: holding one proves that the caller was found to be a member of *this*
/// organization, so a use case handed one does not ask the directory again (one membership read per
/// request instead of one per layer).
///
/// It must never outlive the request it was resolved for: membership can end at any time, on any server
/// instance, and the next request has to see that.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ActingMember {
    caller: Caller,
    org: OrgId,
    role: OrgRole,
}

impl ActingMember {
    /// Asks the directory for the caller's role in `org`; `None` when the caller is not a member (or the
    /// organization does not exist).
    ///
    /// # Errors
    /// [`RepoError::Backend`] when the directory fails.
    pub async fn resolve(
        directory: &dyn MemberDirectory,
        caller: Caller,
        org: OrgId,
    ) -> Result<Option<Self>, RepoError> {
        Ok(directory
            .role_of(org, caller.user_id)
            .await?
            .map(|role| Self { caller, org, role }))
    }

    #[must_use]
    pub const fn caller(&self) -> &Caller {
        &self.caller
    }

    #[must_use]
    pub const fn org(&self) -> OrgId {
        self.org
    }

    #[must_use]
    pub const fn role(&self) -> OrgRole {
        self.role
    }

    /// Whether the member's role allows `action` (PRODUCT.md §3).
    #[must_use]
    pub const fn can(&self, action: OrgAction) -> bool {
        self.role.can(action)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::common::{EmailAddress, UserId};
    use crate::orgs::ports::MockMemberDirectory;
    use crate::testing::block_on;
    use mockall::predicate::eq;

    fn caller() -> Caller {
        Caller {
            user_id: UserId::new(),
            email: EmailAddress::parse("dev@example.com").unwrap(),
            platform_role: None,
            origin: crate::common::ClientOrigin::default(),
        }
    }

    #[test]
    fn a_member_acts_with_the_role_the_directory_answers() {
        let (caller, org) = (caller(), OrgId::new());
        let mut directory = MockMemberDirectory::new();
        directory
            .expect_role_of()
            .with(eq(org), eq(caller.user_id))
            .times(1)
            .returning(|_, _| Ok(Some(OrgRole::Member)));
        let member = block_on(ActingMember::resolve(&directory, caller.clone(), org))
            .unwrap()
            .unwrap();
        assert_eq!(
            (member.caller(), member.org(), member.role()),
            (&caller, org, OrgRole::Member)
        );
        assert!(member.can(OrgAction::ManageApps));
        assert!(!member.can(OrgAction::ManageMembers));
    }

    #[test]
    fn someone_who_is_not_a_member_gets_nothing_to_act_with() {
        let mut directory = MockMemberDirectory::new();
        directory.expect_role_of().returning(|_, _| Ok(None));
        let outsider = block_on(ActingMember::resolve(&directory, caller(), OrgId::new())).unwrap();
        assert_eq!(outsider, None);
    }
}
