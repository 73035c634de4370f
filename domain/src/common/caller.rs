//! Who is acting. The HTTP adapter resolves it from the verified token on every request.

use crate::common::code_enum;

use super::{EmailAddress, UserId};

code_enum! {
    /// A platform-wide role (PRODUCT.md §5): `admin` reviews apps and manages platform admins; `reviewer`
    /// only reviews.
    pub enum PlatformRole: "A platform-wide role (PRODUCT.md §5): `admin` reviews apps and manages platform admins; `reviewer`\nonly reviews." {
        Admin => "admin",
        Reviewer => "reviewer",
    }
}

impl PlatformRole {
    /// Both roles may approve and reject submissions.
    #[must_use]
    pub const fn can_review(self) -> bool {
        true
    }

    /// Only `admin` may add or remove platform admins and use the maintenance endpoints.
    #[must_use]
    pub const fn can_manage_platform(self) -> bool {
        matches!(self, Self::Admin)
    }
}

/// The signed-in account performing a use case.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Caller {
    pub user_id: UserId,
    pub email: EmailAddress,
    /// `Some` when the account is a platform admin or reviewer.
    pub platform_role: Option<PlatformRole>,
    /// Where the request came from, recorded in audit entries.
    pub origin: ClientOrigin,
}

/// Where a request came from, as the HTTP adapter saw it: the client's address (through the trusted
/// proxies), its user agent, and the personal access token it presented (when it did not come from a
/// session). Empty outside a request.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ClientOrigin {
    pub client_ip: Option<String>,
    pub user_agent: Option<String>,
    pub via_token: Option<super::TokenUse>,
}

impl Caller {
    #[must_use]
    pub fn can_review(&self) -> bool {
        self.platform_role.is_some_and(PlatformRole::can_review)
    }

    #[must_use]
    pub fn can_manage_platform(&self) -> bool {
        self.platform_role.is_some_and(PlatformRole::can_manage_platform)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn caller(role: Option<PlatformRole>) -> Caller {
        Caller {
            user_id: UserId::new(),
            email: EmailAddress::parse("dev@example.com").unwrap(),
            platform_role: role,
            origin: crate::common::ClientOrigin::default(),
        }
    }

    #[test]
    fn a_reviewer_may_review_but_not_manage_the_platform() {
        let reviewer = caller(Some(PlatformRole::Reviewer));
        assert!(reviewer.can_review());
        assert!(!reviewer.can_manage_platform());
    }

    #[test]
    fn a_platform_admin_may_review_and_manage() {
        let admin = caller(Some(PlatformRole::Admin));
        assert!(admin.can_review() && admin.can_manage_platform());
    }

    #[test]
    fn a_developer_may_do_neither() {
        let developer = caller(None);
        assert!(!developer.can_review() && !developer.can_manage_platform());
    }
}
