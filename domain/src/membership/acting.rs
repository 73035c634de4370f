//! [`ActingMember`]: the caller acting in an organization, as the member directory answered for this
//! request, and the organization's second-factor requirement (PRODUCT.md §1a) checked at the same door.

use super::ports::{MemberDirectory, MemberStanding};
use super::roles::{OrgAction, OrgRole};
use crate::common::{Caller, OrgId, RepoError, UserId};

/// A person's role in an organization (`None`: not a member, or no such organization), whether the
/// organization requires a second factor (PRODUCT.md §1a) and the revision of the organization's apps, read
/// in the same statement as the session that authenticated the request
/// ([`crate::identity::ports::RefreshTokenRepository::current_of_family_in_org`]): what every
/// organization-scoped request needs, in one round trip instead of three. Made only by the domain's
/// authentication; [`ActingMember::resolve`] turns it into the proof of membership.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MembershipRead {
    user: UserId,
    org: OrgId,
    role: Option<OrgRole>,
    org_requires_two_factor: bool,
    apps_revision: u64,
}

impl MembershipRead {
    pub(crate) const fn new(
        user: UserId,
        org: OrgId,
        role: Option<OrgRole>,
        org_requires_two_factor: bool,
        apps_revision: u64,
    ) -> Self {
        Self {
            user,
            org,
            role,
            org_requires_two_factor,
            apps_revision,
        }
    }

    /// The organization that was asked about.
    #[must_use]
    pub const fn org(&self) -> OrgId {
        self.org
    }
}

/// Whether the request's session passed a second factor: an `aal2` session (built-in: a TOTP challenge
/// or a passkey sign-in, of an account whose factor is still there; hosted: the token's `aal` claim).
/// The HTTP layer derives it from what authenticating the request already loaded, so it costs no read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SecondFactor {
    Passed,
    NotPassed,
}

/// The message of [`ActingError::SecondFactorRequired`] (403 `ORG_MFA_REQUIRED`).
pub const ORG_REQUIRES_TWO_FACTOR: &str = "This organization requires two-factor authentication. Add an authenticator app on Account Security (and sign in with it) to work in this organization.";

/// Why the membership door refused a member.
#[derive(Debug, thiserror::Error)]
pub enum ActingError {
    /// 403 `ORG_MFA_REQUIRED`: the organization requires a second factor and the caller's session has
    /// not passed one (the account has none, or this session did not use it).
    #[error("{}", ORG_REQUIRES_TWO_FACTOR)]
    SecondFactorRequired,
    /// 500: the directory failed.
    #[error(transparent)]
    Repo(#[from] RepoError),
}

/// The caller, an organization and the caller's role in it, as [`MemberDirectory::standing_of`] (or the
/// read made with the request's session) answered when the request began. It is made only by
/// [`ActingMember::resolve`], and its fields cannot be changed:
/// holding one proves that the caller was found to be a member of *this* organization, and that the
/// organization's second-factor requirement is met, so a use case handed one does not ask the directory
/// again (one membership read per request instead of one per layer).
///
/// It must never outlive the request it was resolved for: membership can end at any time, on any server
/// instance, and the next request has to see that.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ActingMember {
    caller: Caller,
    org: OrgId,
    role: OrgRole,
    second_factor: SecondFactor,
    /// The organization requires a second factor that this session has not passed: only
    /// [`ActingMember::resolve`] at [`Door::Leave`] makes such a member, who may do nothing but leave.
    held_back: bool,
    /// The revision of the organization's apps when it was read in the same statement as the membership
    /// ([`MembershipRead`]); `None` when the directory answered.
    apps_revision: Option<u64>,
}

/// Where a request's membership comes from.
#[derive(Clone, Copy)]
pub enum StandingSource<'a> {
    /// Ask the member directory for the caller's standing in the organization.
    Directory(&'a dyn MemberDirectory, OrgId),
    /// What authenticating the request read with its session ([`MembershipRead`]); a read of someone else
    /// answers no member.
    Read(&'a MembershipRead),
}

/// What the member is resolved for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Door {
    /// Every organization-scoped use case: a member held back by the organization's second-factor
    /// requirement is refused ([`ActingError::SecondFactorRequired`]).
    Act,
    /// Leaving the organization: a held-back member is answered too, marked so ([`ActingMember::is_held_back`]);
    /// leaving stays possible without the factor the organization requires, and the use case lets such a
    /// member do nothing else.
    Leave,
}

impl ActingMember {
    /// The caller acting in an organization, from `source`; `None` when the caller is not a member (or the
    /// organization does not exist, or a read is of someone else). The organization's second-factor
    /// requirement is checked here, the same way whatever the source.
    ///
    /// # Errors
    /// [`ActingError::SecondFactorRequired`] at [`Door::Act`] when the organization requires a second factor
    /// and `second_factor` is [`SecondFactor::NotPassed`]; [`ActingError::Repo`] when the directory fails.
    pub async fn resolve(
        source: StandingSource<'_>,
        caller: Caller,
        second_factor: SecondFactor,
        door: Door,
    ) -> Result<Option<Self>, ActingError> {
        let standing = match source {
            StandingSource::Directory(directory, org) => directory
                .standing_of(org, caller.user_id)
                .await?
                .map(|standing| (org, standing, None)),
            StandingSource::Read(read) if read.user == caller.user_id => read.role.map(|role| {
                let standing = MemberStanding {
                    role,
                    org_requires_two_factor: read.org_requires_two_factor,
                };
                (read.org, standing, Some(read.apps_revision))
            }),
            StandingSource::Read(_) => None,
        };
        let member = standing.map(
            |(
                org,
                MemberStanding {
                    role,
                    org_requires_two_factor,
                },
                apps_revision,
            )| Self {
                caller,
                org,
                role,
                second_factor,
                held_back: org_requires_two_factor && second_factor == SecondFactor::NotPassed,
                apps_revision,
            },
        );
        match member {
            Some(member) if member.held_back && door == Door::Act => Err(ActingError::SecondFactorRequired),
            other => Ok(other),
        }
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

    /// Whether the request's session passed a second factor (turning the organization's requirement on
    /// needs it, so that an admin cannot lock themself out).
    #[must_use]
    pub fn passed_second_factor(&self) -> bool {
        self.second_factor == SecondFactor::Passed
    }

    /// Whether the organization's second-factor requirement holds this member back (only a member resolved at
    /// [`Door::Leave`] can be).
    #[must_use]
    pub const fn is_held_back(&self) -> bool {
        self.held_back
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
    use crate::membership::ports::MockMemberDirectory;
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

    fn directory(role: Option<OrgRole>, org_requires_two_factor: bool) -> MockMemberDirectory {
        let mut directory = MockMemberDirectory::new();
        directory.expect_standing_of().times(1).returning(move |_, _| {
            Ok(role.map(|role| MemberStanding {
                role,
                org_requires_two_factor,
            }))
        });
        directory
    }

    #[test]
    fn a_member_acts_with_the_role_the_directory_answers() {
        let (caller, org) = (caller(), OrgId::new());
        let mut directory = MockMemberDirectory::new();
        directory
            .expect_standing_of()
            .with(eq(org), eq(caller.user_id))
            .times(1)
            .returning(|_, _| {
                Ok(Some(MemberStanding {
                    role: OrgRole::Member,
                    org_requires_two_factor: false,
                }))
            });
        let member = block_on(ActingMember::resolve(
            StandingSource::Directory(&directory, org),
            caller.clone(),
            SecondFactor::NotPassed,
            Door::Act,
        ))
        .unwrap()
        .unwrap();
        assert_eq!(
            (member.caller(), member.org(), member.role()),
            (&caller, org, OrgRole::Member)
        );
        assert!(member.can(OrgAction::ManageApps));
        assert!(!member.can(OrgAction::ManageMembers));
        assert!(!member.passed_second_factor());
        assert!(!member.is_held_back());
    }

    #[test]
    fn a_membership_read_with_the_session_makes_a_member_with_the_revision_read_with_it() {
        let (caller, org) = (caller(), OrgId::new());
        let read = MembershipRead::new(caller.user_id, org, Some(OrgRole::Admin), false, 42);
        let member = block_on(ActingMember::resolve(
            StandingSource::Read(&read),
            caller.clone(),
            SecondFactor::NotPassed,
            Door::Act,
        ))
        .unwrap()
        .unwrap();
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
        let stranger = MembershipRead::new(caller.user_id, org, None, true, 3);
        assert_eq!(
            block_on(ActingMember::resolve(
                StandingSource::Read(&stranger),
                caller.clone(),
                SecondFactor::NotPassed,
                Door::Act
            ))
            .unwrap(),
            None
        );
        assert_eq!(
            block_on(ActingMember::resolve(
                StandingSource::Read(&stranger),
                caller.clone(),
                SecondFactor::NotPassed,
                Door::Leave
            ))
            .unwrap(),
            None
        );
        let someone_else = MembershipRead::new(UserId::new(), org, Some(OrgRole::Admin), false, 3);
        assert_eq!(
            block_on(ActingMember::resolve(
                StandingSource::Read(&someone_else),
                caller,
                SecondFactor::Passed,
                Door::Act
            ))
            .unwrap(),
            None
        );
    }

    #[test]
    fn a_membership_read_of_an_organization_requiring_a_second_factor_refuses_a_session_without_one() {
        let (caller, org) = (caller(), OrgId::new());
        let read = MembershipRead::new(caller.user_id, org, Some(OrgRole::Admin), true, 7);
        let refused = block_on(ActingMember::resolve(
            StandingSource::Read(&read),
            caller.clone(),
            SecondFactor::NotPassed,
            Door::Act,
        ))
        .unwrap_err();
        assert!(matches!(refused, ActingError::SecondFactorRequired));
        let member = block_on(ActingMember::resolve(
            StandingSource::Read(&read),
            caller.clone(),
            SecondFactor::Passed,
            Door::Act,
        ))
        .unwrap()
        .unwrap();
        assert!(member.passed_second_factor());
        assert!(!member.is_held_back());
        let leaving = block_on(ActingMember::resolve(
            StandingSource::Read(&read),
            caller.clone(),
            SecondFactor::NotPassed,
            Door::Leave,
        ))
        .unwrap()
        .unwrap();
        assert!(leaving.is_held_back());
        let free = MembershipRead::new(caller.user_id, org, Some(OrgRole::Member), false, 7);
        let member = block_on(ActingMember::resolve(
            StandingSource::Read(&free),
            caller,
            SecondFactor::NotPassed,
            Door::Leave,
        ))
        .unwrap()
        .unwrap();
        assert!(!member.is_held_back());
    }

    #[test]
    fn a_member_the_directory_answered_has_no_revision_read_with_it() {
        let member = block_on(ActingMember::resolve(
            StandingSource::Directory(&directory(Some(OrgRole::Member), false), OrgId::new()),
            caller(),
            SecondFactor::NotPassed,
            Door::Act,
        ))
        .unwrap()
        .unwrap();
        assert_eq!(member.apps_revision(), None);
    }

    #[test]
    fn someone_who_is_not_a_member_gets_nothing_to_act_with() {
        let outsider = block_on(ActingMember::resolve(
            StandingSource::Directory(&directory(None, true), OrgId::new()),
            caller(),
            SecondFactor::NotPassed,
            Door::Act,
        ))
        .unwrap();
        assert_eq!(outsider, None);
    }

    #[test]
    fn a_member_without_a_passed_second_factor_cannot_act_in_an_organization_that_requires_one() {
        let refused = block_on(ActingMember::resolve(
            StandingSource::Directory(&directory(Some(OrgRole::Admin), true), OrgId::new()),
            caller(),
            SecondFactor::NotPassed,
            Door::Act,
        ))
        .unwrap_err();
        assert!(matches!(refused, ActingError::SecondFactorRequired));
        assert!(refused.to_string().contains("Account Security"));
    }

    #[test]
    fn a_member_whose_session_passed_a_second_factor_acts_in_an_organization_that_requires_one() {
        let member = block_on(ActingMember::resolve(
            StandingSource::Directory(&directory(Some(OrgRole::Member), true), OrgId::new()),
            caller(),
            SecondFactor::Passed,
            Door::Act,
        ))
        .unwrap()
        .unwrap();
        assert!(member.passed_second_factor());
        assert!(!member.is_held_back());
    }

    #[test]
    fn a_member_held_back_by_the_requirement_is_answered_to_leave_marked_as_held_back() {
        let member = block_on(ActingMember::resolve(
            StandingSource::Directory(&directory(Some(OrgRole::Member), true), OrgId::new()),
            caller(),
            SecondFactor::NotPassed,
            Door::Leave,
        ))
        .unwrap()
        .unwrap();
        assert!(member.is_held_back());
        let free = block_on(ActingMember::resolve(
            StandingSource::Directory(&directory(Some(OrgRole::Member), false), OrgId::new()),
            caller(),
            SecondFactor::NotPassed,
            Door::Leave,
        ))
        .unwrap()
        .unwrap();
        assert!(!free.is_held_back());
    }
}
