//! Test fixtures shared by the apps and review service tests.

use crate::apps::{App, AppStoreStatus, AppType, PackageName};
use crate::common::{Caller, EmailAddress, OrgId, PlatformRole, UserId};
use crate::orgs::OrgRole;
use crate::orgs::ports::MockMemberDirectory;
use crate::testing::noon;

pub(crate) fn developer() -> Caller {
    Caller {
        user_id: UserId::new(),
        email: EmailAddress::parse("dev@example.com").unwrap(),
        platform_role: None,
        origin: crate::common::ClientOrigin::default(),
    }
}

pub(crate) fn reviewer() -> Caller {
    Caller {
        user_id: UserId::new(),
        email: EmailAddress::parse("reviewer@portal.example.com").unwrap(),
        platform_role: Some(PlatformRole::Reviewer),
        origin: crate::common::ClientOrigin::default(),
    }
}

pub(crate) fn package() -> PackageName {
    PackageName::parse("com.example.notes").unwrap()
}

pub(crate) fn sample_app(org: OrgId, status: AppStoreStatus) -> App {
    App {
        name: "Notes".into(),
        description: "Takes notes".into(),
        public_url: "https://notes.example.com".into(),
        logo_url: "https://portal.example.com/api/images/x".into(),
        app_store_status: status,
        app_type: AppType::Background,
        ..App::registered(package(), org, UserId::new(), noon())
    }
}

/// A directory where the caller has `role` in every organization.
pub(crate) fn members(role: Option<OrgRole>) -> MockMemberDirectory {
    let mut members = MockMemberDirectory::new();
    members.expect_role_of().returning(move |_, _| Ok(role));
    members.expect_standing_of().returning(move |_, _| {
        Ok(role.map(|role| crate::orgs::MemberStanding {
            role,
            org_requires_two_factor: false,
        }))
    });
    members
}

/// A directory answering per organization (`None` elsewhere).
pub(crate) fn members_by_org(roles: Vec<(OrgId, OrgRole)>) -> MockMemberDirectory {
    let mut members = MockMemberDirectory::new();
    let standings = roles.clone();
    members
        .expect_role_of()
        .returning(move |org, _| Ok(roles.iter().find(|(o, _)| *o == org).map(|(_, r)| *r)));
    members.expect_standing_of().returning(move |org, _| {
        Ok(standings
            .iter()
            .find(|(o, _)| *o == org)
            .map(|(_, role)| crate::orgs::MemberStanding {
                role: *role,
                org_requires_two_factor: false,
            }))
    });
    members
}
