//! Authenticating a request that names an organization: the membership and the apps' revision come from
//! the session's own read, one statement.

use std::sync::Arc;

use super::*;
use crate::common::OrgId;
use crate::identity::models::{
    AuthMethod, LiveSession, LiveSessionInOrg, RefreshToken, SecondFactorMethod, SecondStep,
};
use crate::identity::ports::{MockPlatformAdminRepository, MockRefreshTokenRepository, MockTokenSigner};
use crate::identity::sessions::tokens::{AccessTokenClaims, CoreTokenClaims, TokenError};
use crate::identity::test_support::access_claims;
use crate::membership::{ActingError, ActingMember, OrgRole, SecondFactor};
use crate::testing::{block_on, fixed_clock, noon};
use mockall::predicate::eq;

fn core_of(claims: &AccessTokenClaims) -> CoreTokenClaims {
    let mut core = CoreTokenClaims::issue(claims.sub, claims.email.clone(), "iss", noon());
    core.sid = Some(claims.session_id);
    core
}

fn live_head(claims: &AccessTokenClaims) -> RefreshToken {
    let mut head = RefreshToken::start("h".into(), claims.sub, AuthMethod::Password, noon());
    head.family_id = claims.session_id;
    head
}

fn signer_taking(core: CoreTokenClaims) -> MockTokenSigner {
    let mut signer = MockTokenSigner::new();
    signer
        .expect_verify_core()
        .returning(move |_, _| Ok(core.clone()));
    signer
        .expect_verify_access()
        .returning(|_, _| Err(TokenError::Invalid));
    signer
}

/// A service whose only session read is the one in `org`: the read without the organization, the
/// platform-admin store and any member directory have no expectation, so asking them would panic.
fn in_org(claims: &AccessTokenClaims, org: OrgId, found: Option<LiveSessionInOrg>) -> CoreTokenService {
    let mut sessions = MockRefreshTokenRepository::new();
    sessions
        .expect_current_of_family_in_org()
        .with(eq(claims.session_id), eq(org))
        .times(1)
        .returning(move |_, _| Ok(found.clone()));
    CoreTokenService::new(
        Arc::new(signer_taking(core_of(claims))),
        Arc::new(MockPlatformAdminRepository::new()),
        Arc::new(fixed_clock()),
        "https://portal.test".into(),
    )
    .with_sessions(Arc::new(sessions))
}

fn found(head: RefreshToken, org_role: Option<OrgRole>, has_verified_factor: bool) -> LiveSessionInOrg {
    LiveSessionInOrg {
        live: LiveSession {
            head,
            role: Some(PlatformRole::Reviewer),
            protection: crate::identity::Protection {
                passkey: has_verified_factor,
                ..Default::default()
            },
        },
        org_role,
        org_requires_two_factor: false,
        apps_revision: 17,
    }
}

#[test]
fn a_member_is_authenticated_with_role_and_revision_from_one_session_read() {
    let (claims, org) = (access_claims(noon()), OrgId::new());
    // Staff MFA is required by default: the platform role read with the session is carried only by a
    // session that passed a second factor (the assurance rule's `UseStaff`), as this one did.
    let mut head = live_head(&claims);
    head.second_step = Some(SecondStep {
        method: SecondFactorMethod::Passkey,
        factor_id: None,
        at: noon(),
    });
    let service = in_org(&claims, org, Some(found(head, Some(OrgRole::Member), true)));
    let (authenticated, read) = block_on(service.authenticate_in_org("core", org)).unwrap();
    assert_eq!(authenticated.caller.platform_role, Some(PlatformRole::Reviewer));
    let read = read.unwrap();
    assert_eq!(read.org(), org);
    let second_factor = authenticated.second_factor();
    let member = block_on(ActingMember::resolve(
        crate::membership::StandingSource::Read(&read),
        authenticated.caller,
        second_factor,
        crate::membership::Door::Act,
    ))
    .unwrap()
    .unwrap();
    assert_eq!(
        (member.org(), member.role(), member.apps_revision()),
        (org, OrgRole::Member, Some(17))
    );
}

#[test]
fn a_stranger_is_authenticated_and_the_read_says_not_a_member() {
    let (claims, org) = (access_claims(noon()), OrgId::new());
    let service = in_org(&claims, org, Some(found(live_head(&claims), None, false)));
    let (authenticated, read) = block_on(service.authenticate_in_org("core", org)).unwrap();
    let second_factor = authenticated.second_factor();
    assert_eq!(
        block_on(ActingMember::resolve(
            crate::membership::StandingSource::Read(&read.unwrap()),
            authenticated.caller,
            second_factor,
            crate::membership::Door::Act
        ))
        .unwrap(),
        None
    );
}

#[test]
fn a_signed_out_session_is_refused_whatever_the_organization() {
    let (claims, org) = (access_claims(noon()), OrgId::new());
    let mut revoked = live_head(&claims);
    revoked.revoked_at = Some(noon());
    for outcome in [None, Some(found(revoked, Some(OrgRole::Admin), false))] {
        let error = block_on(in_org(&claims, org, outcome).authenticate_in_org("core", org)).unwrap_err();
        assert!(matches!(error, AuthError::Unauthenticated(TokenError::Invalid)));
    }
}

#[test]
fn an_aal1_session_of_an_account_with_a_factor_is_refused_in_an_organization_too() {
    let (claims, org) = (access_claims(noon()), OrgId::new());
    let service = in_org(
        &claims,
        org,
        Some(found(live_head(&claims), Some(OrgRole::Admin), true)),
    );
    let error = block_on(service.authenticate_in_org("core", org)).unwrap_err();
    assert!(matches!(error, AuthError::MfaRequired));
}

#[test]
fn without_sessions_known_here_the_membership_is_left_to_the_directory() {
    let claims = access_claims(noon());
    let mut core = core_of(&claims);
    core.sid = None;
    let mut admins = MockPlatformAdminRepository::new();
    admins.expect_role_of().returning(|_| Ok(None));
    let service = CoreTokenService::new(
        Arc::new(signer_taking(core)),
        Arc::new(admins),
        Arc::new(fixed_clock()),
        "https://portal.test".into(),
    );
    let (authenticated, read) = block_on(service.authenticate_in_org("core", OrgId::new())).unwrap();
    assert_eq!((authenticated.caller.user_id, read), (claims.sub, None));
}

fn requiring_two_factor(head: RefreshToken, has_verified_factor: bool) -> LiveSessionInOrg {
    LiveSessionInOrg {
        org_requires_two_factor: true,
        ..found(head, Some(OrgRole::Member), has_verified_factor)
    }
}

#[test]
fn an_organization_requiring_a_second_factor_read_with_the_session_refuses_a_session_without_one() {
    let (claims, org) = (access_claims(noon()), OrgId::new());
    let service = in_org(
        &claims,
        org,
        Some(requiring_two_factor(live_head(&claims), false)),
    );
    let (authenticated, read) = block_on(service.authenticate_in_org("core", org)).unwrap();
    let (second_factor, read) = (authenticated.second_factor(), read.unwrap());
    assert_eq!(second_factor, SecondFactor::NotPassed);
    let refused = block_on(ActingMember::resolve(
        crate::membership::StandingSource::Read(&read),
        authenticated.caller.clone(),
        second_factor,
        crate::membership::Door::Act,
    ))
    .unwrap_err();
    assert!(matches!(refused, ActingError::SecondFactorRequired));
    let leaving = block_on(ActingMember::resolve(
        crate::membership::StandingSource::Read(&read),
        authenticated.caller,
        second_factor,
        crate::membership::Door::Leave,
    ))
    .unwrap()
    .unwrap();
    assert!(leaving.is_held_back());
}

#[test]
fn an_organization_requiring_a_second_factor_read_with_the_session_admits_an_aal2_session() {
    let (claims, org) = (access_claims(noon()), OrgId::new());
    let step = SecondStep {
        method: SecondFactorMethod::Passkey,
        factor_id: None,
        at: noon(),
    };
    let head = live_head(&claims).raised("h2".into(), step, noon());
    let service = in_org(&claims, org, Some(requiring_two_factor(head, true)));
    let (authenticated, read) = block_on(service.authenticate_in_org("core", org)).unwrap();
    let second_factor = authenticated.second_factor();
    assert_eq!(second_factor, SecondFactor::Passed);
    let member = block_on(ActingMember::resolve(
        crate::membership::StandingSource::Read(&read.unwrap()),
        authenticated.caller,
        second_factor,
        crate::membership::Door::Act,
    ))
    .unwrap()
    .unwrap();
    assert!(member.passed_second_factor() && !member.is_held_back());
}
