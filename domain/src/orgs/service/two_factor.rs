//! The organization's second-factor requirement (PRODUCT.md §1a): an admin requires a second factor of
//! every member, or stops requiring it. The requirement itself is enforced at the membership door
//! ([`crate::orgs::ActingMember::resolve`]), not here.

use super::OrgService;
use crate::audit::{AuditAction, AuditTarget};
use crate::common::RepoError;
use crate::orgs::{ActingMember, OrgAction, OrgError, Organization};

impl OrgService {
    /// Turns the organization's second-factor requirement on or off (admins only), recorded with the field
    /// changed. Turning it on needs the admin's own session to have passed a second factor, so that an
    /// admin cannot lock themself out; turning it off does not. Setting the value it already has changes
    /// nothing and writes no audit entry.
    ///
    /// # Errors
    /// [`OrgError::NotFound`], [`OrgError::AdminOnly`]; [`OrgError::OwnSecondFactorFirst`] when turning
    /// it on from a session without a second factor; [`OrgError::Repo`] when the store fails.
    pub async fn set_two_factor_requirement(
        &self,
        member: &ActingMember,
        required: bool,
    ) -> Result<Organization, OrgError> {
        Self::allow(member, OrgAction::ManageProfile)?;
        if required && !member.passed_second_factor() {
            return Err(OrgError::OwnSecondFactorFirst);
        }
        let org = member.org();
        let current = self.existing(org).await?;
        if current.require_two_factor == required {
            return Ok(current);
        }
        let audit = self
            .audit(member.caller(), AuditAction::OrgUpdated, org)
            .on(AuditTarget::organization(org))
            .change("requireTwoFactor", current.require_two_factor, required);
        match self
            .orgs
            .set_two_factor_requirement(org, required, self.clock.now(), &audit)
            .await
        {
            Err(RepoError::NotFound) => Err(OrgError::NotFound),
            other => Ok(other?),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::*;
    use crate::audit::AuditAction;
    use crate::common::RepoError;
    use crate::orgs::{OrgError, OrgRole, SecondFactor};
    use crate::testing::{block_on, noon};
    use mockall::predicate::{always, eq};

    #[test]
    fn an_admin_whose_session_passed_a_second_factor_requires_one_recorded_with_the_field_changed() {
        let mut mocks = Mocks::new().with_members();
        mocks
            .orgs
            .expect_set_two_factor_requirement()
            .times(1)
            .withf(|org, required, now, audit| {
                *org == ORG
                    && *required
                    && *now == noon()
                    && audit.action == AuditAction::OrgUpdated
                    && audit.org_id == Some(ORG)
                    && audit.changes.len() == 1
                    && audit.changes[0].field == "requireTwoFactor"
                    && audit.changes[0].old == serde_json::Value::Bool(false)
                    && audit.changes[0].new == serde_json::Value::Bool(true)
            })
            .returning(|_, required, _, _| {
                let mut stored = org();
                stored.require_two_factor = required;
                Ok(stored)
            });
        let admin = me_in_with(OrgRole::Admin, false, SecondFactor::Passed);
        let stored = block_on(mocks.build().set_two_factor_requirement(&admin, true)).unwrap();
        assert!(stored.require_two_factor);
    }

    #[test]
    fn an_admin_whose_session_has_not_passed_a_second_factor_cannot_turn_the_requirement_on() {
        let mut mocks = Mocks::new().with_members();
        mocks.orgs.expect_set_two_factor_requirement().never();
        let admin = me_in(OrgRole::Admin);
        let error = block_on(mocks.build().set_two_factor_requirement(&admin, true)).unwrap_err();
        assert!(matches!(error, OrgError::OwnSecondFactorFirst), "{error:?}");
        assert_eq!(error.code(), "OWN_MFA_REQUIRED");
    }

    #[test]
    fn a_member_cannot_change_the_requirement() {
        let mut mocks = Mocks::new();
        mocks.orgs.expect_set_two_factor_requirement().never();
        let member = me_in_with(OrgRole::Member, false, SecondFactor::Passed);
        let error = block_on(mocks.build().set_two_factor_requirement(&member, true)).unwrap_err();
        assert!(matches!(error, OrgError::AdminOnly), "{error:?}");
    }

    #[test]
    fn turning_the_requirement_off_needs_no_second_factor_and_setting_the_same_value_writes_nothing() {
        let mut mocks = Mocks::new();
        mocks.orgs.expect_get().returning(|_| {
            let mut stored = org();
            stored.require_two_factor = true;
            Ok(Some(stored))
        });
        mocks
            .orgs
            .expect_set_two_factor_requirement()
            .with(eq(ORG), eq(false), always(), always())
            .times(1)
            .returning(|_, _, _, _| Ok(org()));
        let service = mocks.build();
        let admin = me_in_with(OrgRole::Admin, false, SecondFactor::Passed);
        assert!(
            block_on(service.set_two_factor_requirement(&admin, true))
                .unwrap()
                .require_two_factor
        );
        let plain = me_in(OrgRole::Admin);
        assert!(
            !block_on(service.set_two_factor_requirement(&plain, false))
                .unwrap()
                .require_two_factor
        );
    }

    #[test]
    fn an_unknown_organization_is_not_found() {
        let mut mocks = Mocks::new();
        mocks.orgs.expect_get().returning(|_| Ok(None));
        let admin = me_in_with(OrgRole::Admin, false, SecondFactor::Passed);
        let error = block_on(mocks.build().set_two_factor_requirement(&admin, true)).unwrap_err();
        assert!(matches!(error, OrgError::NotFound), "{error:?}");
        let mut racing = Mocks::new().with_members();
        racing
            .orgs
            .expect_set_two_factor_requirement()
            .returning(|_, _, _, _| Err(RepoError::NotFound));
        let error = block_on(racing.build().set_two_factor_requirement(&admin, true)).unwrap_err();
        assert!(matches!(error, OrgError::NotFound), "{error:?}");
    }

    #[test]
    fn a_member_held_back_by_the_requirement_may_leave_and_do_nothing_else() {
        let mut mocks = Mocks::new().with_members();
        mocks
            .orgs
            .expect_remove_member()
            .with(eq(ORG), eq(ME), always())
            .times(1)
            .returning(|_, _, _| Ok(()));
        let service = mocks.build();
        let held_back = me_in_with(OrgRole::Admin, true, SecondFactor::NotPassed);
        assert!(held_back.is_held_back());
        block_on(service.leave_or_remove(&held_back, ME)).unwrap();
        let error = block_on(service.leave_or_remove(&held_back, OTHER)).unwrap_err();
        assert!(matches!(error, OrgError::SecondFactorRequired), "{error:?}");
        assert_eq!(error.code(), "ORG_MFA_REQUIRED");
        let error = block_on(service.get(&held_back)).unwrap_err();
        assert!(matches!(error, OrgError::SecondFactorRequired), "{error:?}");
    }
}
