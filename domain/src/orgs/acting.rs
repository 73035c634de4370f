//! [`ActingMember`]: the caller acting in an organization, as the member directory answered for this
//! request.

use super::ports::MemberDirectory;
use super::{OrgAction, OrgRole};
use crate::common::{Caller, OrgId, RepoError, UserId};

/// A person's role in an organization (`None`: not a member, or no such organization) and the revision of
/// the organization's apps, read in the same statement as the session that authenticated the request
/// ([`crate::identity::ports::RefreshTokenRepository::current_of_family_in_org`]): what every
/// organization-scoped request needs, in one round trip instead of three. Made only by the domain's
/// authentication; [`ActingMember::from_read`] turns it into the proof of membership.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MembershipRead {
    user: UserId,
    org: OrgId,
    role: Option<OrgRole>,
    apps_revision: u64,
}

impl MembershipRead {
    pub(crate) const fn new(user: UserId, org: OrgId, role: Option<OrgRole>, apps_revision: u64) -> Self {
        Self {
            user,
            org,
            role,
            apps_revision,
        }
    }

    /// The organization that was asked about.
    #[must_use]
    pub const fn org(&self) -> OrgId {
        self.org
    }
}

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
    /// The revision of the organization's apps when it was read in the same statement as the membership
    /// ([`MembershipRead`]); `None` when the directory answered.
    apps_revision: Option<u64>,
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
        Ok(directory.role_of(org, caller.user_id).await?.map(|role| Self {
            caller,
            org,
            role,
            apps_revision: None,
        }))
    }

    /// The caller acting in the organization of `read`, which authenticating the caller's request read
    /// with its session; `None` when the caller is not a member of it, or when `read` is of someone else.
    #[must_use]
    pub fn from_read(caller: Caller, read: &MembershipRead) -> Option<Self> {
        if read.user != caller.user_id {
            return None;
        }
        read.role.map(|role| Self {
            caller,
            org: read.org,
            role,
            apps_revision: Some(read.apps_revision),
        })
    }

    /// The revision of the organization's apps read with the membership, when it was
    /// ([`MembershipRead`]): the request that resolved this member reads it no second time.
    #[must_use]
    pub const fn apps_revision(&self) -> Option<u64> {
        self.apps_revision
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
    use crate::common::EmailAddress;
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
    fn a_membership_read_with_the_session_makes_a_member_with_the_revision_read_with_it() {
        let (caller, org) = (caller(), OrgId::new());
        let read = MembershipRead::new(caller.user_id, org, Some(OrgRole::Admin), 42);
        let member = ActingMember::from_read(caller.clone(), &read).unwrap();
        assert_eq!(
            (
                member.caller(),
                member.org(),
                member.role(),
                member.apps_revision()
            ),
            (&caller, org, OrgRole::Admin, Some(42))
        );
        assert_eq!(read.org(), org);
    }

    #[test]
    fn a_membership_read_of_a_stranger_or_of_someone_else_makes_no_member() {
        let (caller, org) = (caller(), OrgId::new());
        let stranger = MembershipRead::new(caller.user_id, org, None, 3);
        assert_eq!(ActingMember::from_read(caller.clone(), &stranger), None);
        let someone_else = MembershipRead::new(UserId::new(), org, Some(OrgRole::Admin), 3);
        assert_eq!(ActingMember::from_read(caller, &someone_else), None);
    }

    #[test]
    fn a_member_the_directory_answered_has_no_revision_read_with_it() {
        let mut directory = MockMemberDirectory::new();
        directory
            .expect_role_of()
            .returning(|_, _| Ok(Some(OrgRole::Member)));
        let member = block_on(ActingMember::resolve(&directory, caller(), OrgId::new()))
            .unwrap()
            .unwrap();
        assert_eq!(member.apps_revision(), None);
    }

    #[test]
    fn someone_who_is_not_a_member_gets_nothing_to_act_with() {
        let mut directory = MockMemberDirectory::new();
        directory.expect_role_of().returning(|_, _| Ok(None));
        let outsider = block_on(ActingMember::resolve(&directory, caller(), OrgId::new())).unwrap();
        assert_eq!(outsider, None);
    }
}
