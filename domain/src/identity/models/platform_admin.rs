//! The platform-admin list: roles bound to accounts or pending for an address, and the rules adapters and
//! the service share about them.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use crate::common::{EmailAddress, PlatformRole, UserId};

/// A platform admin or reviewer (PRODUCT.md §5).
///
/// A role belongs to an account, not to an address: once *bound* (`user_id` set) it follows that account,
/// and a later account with the same address (after an e-mail change) does not inherit it. A role given
/// to an address that no suitable account has yet is *pending*: it binds to the first account that proves
/// the address (see [`GrantBinding`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PlatformAdmin {
    /// The bound account's current address; for a pending role, the address it waits for.
    pub email: EmailAddress,
    /// The account holding the role; `None` while pending.
    pub user_id: Option<UserId>,
    pub role: PlatformRole,
    pub added_at: DateTime<Utc>,
    /// `None` when seeded from configuration or the command line; the admin's own address when they used
    /// the first-admin setup link.
    pub added_by: Option<EmailAddress>,
}

/// How a platform role came to be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AddedThrough<'a> {
    /// `PORTAL_ADMIN_EMAILS` or `app-server admin grant`.
    Operator,
    /// The first-admin setup link, used by the admin.
    SetupLink,
    /// A platform admin, in the Admin Panel.
    Admin(&'a EmailAddress),
}

impl AddedThrough<'_> {
    /// What `app-server admin list` and the Admin Panel say.
    #[must_use]
    pub fn describe(self) -> String {
        match self {
            Self::Operator => "command line / configuration".to_owned(),
            Self::SetupLink => "first-admin setup link".to_owned(),
            Self::Admin(email) => email.as_str().to_owned(),
        }
    }
}

impl PlatformAdmin {
    /// How the role came to be.
    #[must_use]
    pub fn added_through(&self) -> AddedThrough<'_> {
        match &self.added_by {
            None => AddedThrough::Operator,
            Some(by) if *by == self.email => AddedThrough::SetupLink,
            Some(by) => AddedThrough::Admin(by),
        }
    }

    /// Bound to an account (not waiting for a proven address).
    #[must_use]
    pub const fn is_bound(&self) -> bool {
        self.user_id.is_some()
    }
}

/// What using the first-admin setup link did ([`crate::identity::admins::setup`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SetupClaim {
    /// The caller is now a platform `admin` (the link is used up).
    Granted(PlatformAdmin),
    /// No unexpired link has this token (never issued, used already, replaced by a newer start, expired).
    Invalid,
    /// An account holds the `admin` role already: the link is void (and removed).
    AdminExists,
}

/// Which account a role given to an address binds to at once; without one it stays pending until an
/// account proves the address.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GrantBinding {
    /// Only an account whose address is proven (an admin in the panel, `PORTAL_ADMIN_EMAILS`): an address
    /// anybody could have signed up with when no mailer is configured must not carry a role to them.
    ProvenAccount,
    /// Any account that has the address (`app-server admin grant`: the operator vouches for that account).
    AnyAccount,
}

/// The role that answers for `email` in `admins`: the role bound to the account that has the address,
/// else the pending role waiting for it. Adapters and the service use the same rule.
#[must_use]
pub fn grant_for<'a>(admins: &'a [PlatformAdmin], email: &EmailAddress) -> Option<&'a PlatformAdmin> {
    admins
        .iter()
        .filter(|a| &a.email == email)
        .min_by_key(|a| !a.is_bound())
}

/// Whether changing `target` to `new_role` (`None` = removing it) would leave the platform without any
/// bound `admin` (a pending admin cannot act, so it does not count). Adapters and the service use the same
/// rule.
#[must_use]
pub fn would_leave_no_admin(
    admins: &[PlatformAdmin],
    target: &PlatformAdmin,
    new_role: Option<PlatformRole>,
) -> bool {
    if new_role == Some(PlatformRole::Admin) || !target.is_bound() || target.role != PlatformRole::Admin {
        return false;
    }
    let acting_admins = admins
        .iter()
        .filter(|a| a.is_bound() && a.role == PlatformRole::Admin)
        .count();
    acting_admins <= 1
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::noon;

    fn email(text: &str) -> EmailAddress {
        EmailAddress::parse(text).unwrap()
    }

    fn admin(text: &str, role: PlatformRole) -> PlatformAdmin {
        PlatformAdmin {
            email: email(text),
            user_id: Some(UserId::new()),
            role,
            added_at: noon(),
            added_by: None,
        }
    }

    fn pending(text: &str, role: PlatformRole) -> PlatformAdmin {
        PlatformAdmin {
            user_id: None,
            ..admin(text, role)
        }
    }

    #[test]
    fn removing_or_demoting_the_only_admin_would_leave_no_admin() {
        let admins = [
            admin("a@x.io", PlatformRole::Admin),
            admin("r@x.io", PlatformRole::Reviewer),
        ];
        assert!(would_leave_no_admin(&admins, &admins[0], None));
        assert!(would_leave_no_admin(
            &admins,
            &admins[0],
            Some(PlatformRole::Reviewer)
        ));
        assert!(!would_leave_no_admin(&admins, &admins[1], None));
        assert!(!would_leave_no_admin(
            &admins,
            &admins[0],
            Some(PlatformRole::Admin)
        ));
    }

    #[test]
    fn removing_one_of_two_admins_leaves_an_admin() {
        let admins = [
            admin("a@x.io", PlatformRole::Admin),
            admin("b@x.io", PlatformRole::Admin),
        ];
        assert!(!would_leave_no_admin(&admins, &admins[0], None));
    }

    #[test]
    fn a_pending_admin_does_not_count_and_may_always_go() {
        let admins = [
            admin("a@x.io", PlatformRole::Admin),
            pending("p@x.io", PlatformRole::Admin),
        ];
        assert!(would_leave_no_admin(&admins, &admins[0], None));
        assert!(!would_leave_no_admin(&admins, &admins[1], None));
        let only_pending = [pending("p@x.io", PlatformRole::Admin)];
        assert!(!would_leave_no_admin(&only_pending, &only_pending[0], None));
    }

    #[test]
    fn the_role_for_an_address_is_the_bound_one_before_a_pending_one() {
        let admins = [
            pending("a@x.io", PlatformRole::Admin),
            admin("a@x.io", PlatformRole::Reviewer),
            pending("b@x.io", PlatformRole::Reviewer),
        ];
        assert_eq!(grant_for(&admins, &email("a@x.io")), Some(&admins[1]));
        assert_eq!(grant_for(&admins, &email("b@x.io")), Some(&admins[2]));
        assert_eq!(grant_for(&admins, &email("c@x.io")), None);
    }
}
