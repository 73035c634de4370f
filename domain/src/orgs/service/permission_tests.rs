//! The permission table of PRODUCT.md §3, checked for every organization use case and every role.

use chrono::Duration;

use super::test_support::*;
use super::{InvitationService, OrgService};
use crate::orgs::errors::OrgError;
use crate::orgs::{OrgContents, OrgProfileInput, OrgRole};
use crate::testing::{block_on, noon};

/// Every use case that acts on an existing organization.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Act {
    Get,
    UpdateProfile,
    Delete,
    Invite,
    Resend,
    Rescind,
    ChangeRole,
    RemoveMember,
    Leave,
}

const EVERY_ACT: [Act; 9] = [
    Act::Get,
    Act::UpdateProfile,
    Act::Delete,
    Act::Invite,
    Act::Resend,
    Act::Rescind,
    Act::ChangeRole,
    Act::RemoveMember,
    Act::Leave,
];

/// The table: which acts a plain member may do (an admin may do them all).
const fn member_may(act: Act) -> bool {
    matches!(act, Act::Get | Act::Leave)
}

fn run(
    (service, invitations): &(OrgService, InvitationService),
    role: OrgRole,
    act: Act,
) -> Result<(), OrgError> {
    let caller = me_in(role);
    let profile = OrgProfileInput {
        name: "Acme".into(),
        contact_email: Some("dev@acme.example.com".into()),
        ..OrgProfileInput::default()
    };
    block_on(async {
        match act {
            Act::Get => service.get(&caller).await.map(drop),
            Act::UpdateProfile => service.update_profile(&caller, &profile).await.map(drop),
            Act::Delete => service.delete(&caller).await.map(drop),
            Act::Invite => invitations
                .invite(&caller, "new@example.com", None)
                .await
                .map(drop),
            Act::Resend => invitations
                .resend_invite(&caller, "pending@example.com")
                .await
                .map(drop),
            Act::Rescind => invitations.rescind_invite(&caller, "pending@example.com").await,
            Act::ChangeRole => service.change_role(&caller, OTHER, OrgRole::Admin).await,
            Act::RemoveMember => service.remove_member(&caller, OTHER).await,
            Act::Leave => service.leave(&caller).await,
        }
    })
}

/// Mocks under which every act succeeds once the permission check has passed.
fn permissive(role: OrgRole) -> Mocks {
    let mut mocks = Mocks::new().with_role(Some(role));
    mocks.orgs.expect_get().returning(|_| Ok(Some(org())));
    mocks.orgs.expect_contents().returning(|_| {
        Ok(Some(OrgContents {
            organization: org(),
            members: vec![member(ME, OrgRole::Admin), member(OTHER, OrgRole::Member)],
            pending_invites: vec![open_invite("pending@example.com", noon() - Duration::days(1))],
        }))
    });
    mocks
        .orgs
        .expect_members()
        .returning(|_| Ok(vec![member(ME, OrgRole::Admin), member(OTHER, OrgRole::Member)]));
    mocks
        .orgs
        .expect_update_profile()
        .returning(|_, _, _, _, _| Ok(org()));
    mocks.orgs.expect_delete().returning(|_, _| Ok(Vec::new()));
    mocks.orgs.expect_set_role().returning(|_, _, _, _| Ok(()));
    mocks.orgs.expect_remove_member().returning(|_, _, _| Ok(()));
    mocks.invites.expect_pending().returning(|_| {
        Ok(vec![open_invite(
            "pending@example.com",
            noon() - Duration::days(1),
        )])
    });
    mocks.invites.expect_create().returning(|_, _, _| Ok(()));
    mocks
        .invites
        .expect_resend()
        .returning(|_, _, _, _, _, _, _, _| Ok(open_invite("pending@example.com", noon())));
    mocks.invites.expect_rescind().returning(|_, _, _, _| Ok(()));
    mocks
}

#[test]
fn a_member_is_refused_every_admin_action_before_anything_is_touched() {
    let service = Mocks::new().with_role(Some(OrgRole::Member)).build_both();
    for act in EVERY_ACT.into_iter().filter(|act| !member_may(*act)) {
        let result = run(&service, OrgRole::Member, act);
        assert!(matches!(result, Err(OrgError::AdminOnly)), "{act:?}: {result:?}");
    }
}

#[test]
fn the_admin_only_refusal_is_a_clear_message() {
    assert_eq!(
        OrgError::AdminOnly.to_string(),
        "Only organization admins can do this"
    );
}

#[test]
fn a_member_may_view_and_leave() {
    let service = permissive(OrgRole::Member).build_both();
    for act in EVERY_ACT.into_iter().filter(|act| member_may(*act)) {
        let result = run(&service, OrgRole::Member, act);
        assert!(result.is_ok(), "{act:?}: {result:?}");
    }
}

#[test]
fn an_admin_may_do_every_action() {
    let service = permissive(OrgRole::Admin).build_both();
    for act in EVERY_ACT {
        let result = run(&service, OrgRole::Admin, act);
        assert!(result.is_ok(), "{act:?}: {result:?}");
    }
}

#[test]
fn the_table_in_the_tests_matches_the_role_rules() {
    use crate::orgs::OrgAction;
    let action = |act: Act| match act {
        Act::Get => OrgAction::View,
        Act::UpdateProfile | Act::Delete => OrgAction::ManageProfile,
        Act::Leave => OrgAction::Leave,
        _ => OrgAction::ManageMembers,
    };
    for act in EVERY_ACT {
        assert_eq!(OrgRole::Member.can(action(act)), member_may(act), "{act:?}");
        assert!(OrgRole::Admin.can(action(act)), "{act:?}");
    }
}
