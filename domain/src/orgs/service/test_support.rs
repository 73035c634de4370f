//! Fixtures of the organization service tests.

use std::sync::Arc;
use uuid::Uuid;

use super::{InvitationService, OrgService};
use crate::common::{Caller, EmailAddress, InviteId, OrgId, UserId};
use crate::orgs::invites::Invite;
use crate::orgs::ports::{MemberStanding, MockInviteRepository, MockMemberDirectory, MockOrgRepository};
use crate::orgs::{ActingMember, Member, OrgMembership, OrgProfile, OrgRole, Organization, SecondFactor};
use crate::testing::{MemoryRateLimitStore, RepeatingBytes, block_on, fixed_clock, noon};

pub const ME: UserId = UserId(Uuid::from_u128(1));
pub const OTHER: UserId = UserId(Uuid::from_u128(2));
pub const ORG: OrgId = OrgId(Uuid::from_u128(10));
pub const PUBLIC_URL: &str = "https://portal.example.com";

pub fn email(text: &str) -> EmailAddress {
    EmailAddress::parse(text).unwrap()
}

/// The acting user: `admin@acme.example.com` (whatever role the directory gives).
pub fn me() -> Caller {
    Caller {
        user_id: ME,
        email: email("admin@acme.example.com"),
        platform_role: None,
        origin: crate::common::ClientOrigin::default(),
    }
}

/// [`me`] acting in `ORG` with `role`, as the request's one membership read answered (a session without a
/// second factor, in an organization that does not require one).
pub fn me_in(role: OrgRole) -> ActingMember {
    me_in_with(role, false, SecondFactor::NotPassed)
}

/// [`me`] acting in `ORG` with `role`, the organization requiring a second factor or not, from a session
/// that passed one or not; a member held back by the requirement is resolved to leave.
pub fn me_in_with(role: OrgRole, org_requires_two_factor: bool, second_factor: SecondFactor) -> ActingMember {
    let mut directory = MockMemberDirectory::new();
    directory.expect_standing_of().returning(move |_, _| {
        Ok(Some(MemberStanding {
            role,
            org_requires_two_factor,
        }))
    });
    block_on(ActingMember::resolve(
        crate::orgs::StandingSource::Directory(&directory, ORG),
        me(),
        second_factor,
        crate::orgs::Door::Leave,
    ))
    .unwrap()
    .unwrap()
}

pub fn org() -> Organization {
    Organization {
        id: ORG,
        name: "Acme".into(),
        profile: OrgProfile::default(),
        require_two_factor: false,
        created_at: noon(),
        updated_at: noon(),
    }
}

pub fn membership(role: OrgRole) -> OrgMembership {
    OrgMembership {
        organization: org(),
        role,
    }
}

pub fn member(user: UserId, role: OrgRole) -> Member {
    let address = if user == ME {
        "admin@acme.example.com".to_owned()
    } else {
        format!("user-{}@acme.example.com", user.0.as_u128())
    };
    Member {
        user_id: user,
        email: email(&address),
        role,
        joined_at: noon(),
        has_two_factor: false,
    }
}

/// An open invitation of `ORG` for `to`, sent at `invited_at` (so it expires seven days later).
pub fn open_invite(to: &str, invited_at: chrono::DateTime<chrono::Utc>) -> Invite {
    let (mut invite, _) = Invite::issue(
        ORG,
        email(to),
        OrgRole::Member,
        OTHER,
        &RepeatingBytes(0x42),
        invited_at,
    );
    invite.id = InviteId(Uuid::from_u128(99));
    invite
}

/// The mocks of one test; expectations are set on the fields, then [`Mocks::build`] makes the service.
pub struct Mocks {
    pub orgs: MockOrgRepository,
    pub invites: MockInviteRepository,
    pub directory: MockMemberDirectory,
    pub images: crate::media::ports::MockImageStore,
    /// The rate-limit counters (in memory; a test may fill them first).
    pub limits: Arc<MemoryRateLimitStore>,
}

impl Mocks {
    pub fn new() -> Self {
        Self {
            orgs: MockOrgRepository::new(),
            invites: MockInviteRepository::new(),
            directory: MockMemberDirectory::new(),
            images: crate::media::ports::MockImageStore::new(),
            limits: Arc::new(MemoryRateLimitStore::default()),
        }
    }

    /// The directory answers `role` for the caller in any organization.
    pub fn with_role(mut self, role: Option<OrgRole>) -> Self {
        self.directory.expect_role_of().returning(move |_, _| Ok(role));
        self
    }

    /// The organization's members are the caller (admin) and OTHER (member), and its stored profile is
    /// [`org`] (what the audit entries of member and profile changes read first).
    pub fn with_members(mut self) -> Self {
        self.orgs
            .expect_members()
            .returning(|_| Ok(vec![member(ME, OrgRole::Admin), member(OTHER, OrgRole::Member)]));
        self.orgs.expect_get().returning(|_| Ok(Some(org())));
        self
    }

    pub fn build(self) -> OrgService {
        self.build_both().0
    }

    /// The invitation service over these mocks.
    pub fn build_invitations(self) -> InvitationService {
        self.build_both().1
    }

    /// Both services over the same mocks.
    pub fn build_both(self) -> (OrgService, InvitationService) {
        let orgs = Arc::new(self.orgs);
        let clock = Arc::new(fixed_clock());
        let secrets = Arc::new(RepeatingBytes(0x7f));
        (
            OrgService::new(
                orgs.clone(),
                clock.clone(),
                secrets.clone(),
                Arc::new(self.images),
            ),
            InvitationService::new(
                orgs,
                Arc::new(self.invites),
                Arc::new(self.directory),
                clock,
                secrets,
                PUBLIC_URL,
                self.limits,
            ),
        )
    }
}
