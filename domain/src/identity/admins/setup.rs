//! The first platform admin on a fresh install (PRODUCT.md §5; `POST /api/admin/setup`).
//!
//! While no account holds the `admin` role, every start of the server issues a one-time setup token and
//! writes the link that carries it to the server's log: only whoever can read that log (the operator) learns
//! it. A signed-in user who opens the link within [`SETUP_LINK_TTL`] becomes an `admin`. The token is stored
//! only as its digest, is used up by its first use, is replaced at the next start, and is void as soon as an
//! admin exists by any way (the link, `PORTAL_ADMIN_EMAILS` proven, `app-server admin grant`).

use chrono::{DateTime, Duration, Utc};
use std::sync::Arc;

use crate::audit::{AuditAction, AuditEntry, AuditTarget};
use crate::common::secrets::digest_secret;
use crate::common::{Caller, Clock, PlatformRole, RepoError, SecretGenerator};
use crate::identity::models::{PlatformAdmin, SetupClaim, grant_for};
use crate::identity::ports::PlatformAdminRepository;

/// How long a setup link is valid after the start that issued it.
pub const SETUP_LINK_TTL: Duration = Duration::hours(1);

/// The bytes of randomness of a setup token (hex-encoded: twice as many characters).
const TOKEN_BYTES: usize = 32;

pub const SETUP_LINK_INVALID: &str = "This setup link is not valid: it was used already, has expired, or was replaced when \
     the server restarted. Use the newest link from the server log.";
pub const ADMIN_EXISTS: &str =
    "The platform has an admin already: ask them to give you a role in the Admin Panel.";

/// A setup token just issued: the token itself (for the link) and when it stops working.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SetupLink {
    pub token: String,
    pub expires_at: DateTime<Utc>,
}

/// What using a setup link can fail with.
#[derive(Debug, thiserror::Error)]
pub enum FirstAdminError {
    /// 400: no unexpired link has this token.
    #[error("{}", SETUP_LINK_INVALID)]
    Invalid,
    /// 409: an admin exists; the link does nothing.
    #[error("{}", ADMIN_EXISTS)]
    AdminExists,
    #[error(transparent)]
    Repo(RepoError),
}

impl FirstAdminError {
    /// The machine code of the error body.
    #[must_use]
    pub const fn code(&self) -> &'static str {
        match self {
            Self::Invalid => "SETUP_LINK_INVALID",
            Self::AdminExists => "ADMIN_EXISTS",
            Self::Repo(_) => "INTERNAL",
        }
    }
}

/// Issues and redeems the first-admin setup link.
pub struct FirstAdminSetup {
    admins: Arc<dyn PlatformAdminRepository>,
    clock: Arc<dyn Clock>,
    secrets: Arc<dyn SecretGenerator>,
}

impl FirstAdminSetup {
    #[must_use]
    pub fn new(
        admins: Arc<dyn PlatformAdminRepository>,
        clock: Arc<dyn Clock>,
        secrets: Arc<dyn SecretGenerator>,
    ) -> Self {
        Self {
            admins,
            clock,
            secrets,
        }
    }

    /// At start: a new setup token replacing any earlier one, while the platform has no admin; `None` (and
    /// no stored token) once it has one.
    ///
    /// # Errors
    /// A store failure.
    pub async fn issue(&self) -> Result<Option<SetupLink>, RepoError> {
        let token = self.secrets.token_hex(TOKEN_BYTES);
        let expires_at = self.clock.now() + SETUP_LINK_TTL;
        let stored = self
            .admins
            .replace_setup_token(&digest_secret(&token), expires_at)
            .await?;
        Ok(stored.then_some(SetupLink { token, expires_at }))
    }

    /// The signed-in caller uses the setup link: the caller becomes an `admin` when the token is valid and
    /// no admin exists yet.
    ///
    /// # Errors
    /// [`FirstAdminError::Invalid`] for an unknown, used, replaced or expired token;
    /// [`FirstAdminError::AdminExists`]; a store failure.
    pub async fn claim(&self, caller: &Caller, token: &str) -> Result<PlatformAdmin, FirstAdminError> {
        let token = token.trim();
        if token.is_empty() || token.len() > 2 * TOKEN_BYTES {
            return Err(FirstAdminError::Invalid);
        }
        let now = self.clock.now();
        let audit = AuditEntry::by(
            self.secrets.as_ref(),
            caller,
            AuditAction::PlatformFirstAdmin,
            now,
        )
        .on(AuditTarget::platform_user(caller.email.as_str()))
        .change(
            "platformRole",
            caller.platform_role.map(|role| role.code().to_owned()),
            PlatformRole::Admin.code(),
        );
        match self
            .admins
            .claim_setup_token(&digest_secret(token), caller.user_id, now, &audit)
            .await
            .map_err(FirstAdminError::Repo)?
        {
            SetupClaim::Granted(admin) => Ok(admin),
            SetupClaim::Invalid => Err(FirstAdminError::Invalid),
            SetupClaim::AdminExists => Err(FirstAdminError::AdminExists),
        }
    }

    /// Whether a platform role waits for the caller's address (`PORTAL_ADMIN_EMAILS` or a grant) while the
    /// caller holds none: the dashboard then says how the role is obtained.
    ///
    /// # Errors
    /// A store failure.
    pub async fn role_awaits_proof(&self, caller: &Caller) -> Result<bool, RepoError> {
        if caller.platform_role.is_some() {
            return Ok(false);
        }
        let admins = self.admins.list().await?;
        Ok(grant_for(&admins, &caller.email).is_some_and(|a| !a.is_bound()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::common::{PlatformRole, UserId};
    use crate::identity::ports::MockPlatformAdminRepository;
    use crate::identity::test_support::email;
    use crate::testing::{RepeatingBytes, block_on, fixed_clock, noon};
    use mockall::predicate::{always, eq};

    fn setup(repo: MockPlatformAdminRepository) -> FirstAdminSetup {
        FirstAdminSetup::new(
            Arc::new(repo),
            Arc::new(fixed_clock()),
            Arc::new(RepeatingBytes(0xab)),
        )
    }

    fn caller(role: Option<PlatformRole>) -> Caller {
        Caller {
            user_id: UserId::new(),
            email: email("me@x.io"),
            platform_role: role,
            origin: crate::common::ClientOrigin::default(),
        }
    }

    #[test]
    fn a_link_is_stored_as_a_digest_valid_for_an_hour() {
        let token = "ab".repeat(32);
        let mut repo = MockPlatformAdminRepository::new();
        repo.expect_replace_setup_token()
            .with(eq(digest_secret(&token)), eq(noon() + Duration::hours(1)))
            .times(1)
            .returning(|_, _| Ok(true));
        let link = block_on(setup(repo).issue()).unwrap().unwrap();
        assert_eq!(link.token, token);
        assert_eq!(link.expires_at, noon() + Duration::hours(1));
    }

    #[test]
    fn no_link_once_an_admin_exists() {
        let mut repo = MockPlatformAdminRepository::new();
        repo.expect_replace_setup_token().returning(|_, _| Ok(false));
        assert_eq!(block_on(setup(repo).issue()).unwrap(), None);
    }

    #[test]
    fn a_claim_sends_the_digest_and_maps_each_outcome() {
        for (outcome, expected) in [
            (SetupClaim::Invalid, "SETUP_LINK_INVALID"),
            (SetupClaim::AdminExists, "ADMIN_EXISTS"),
        ] {
            let mut repo = MockPlatformAdminRepository::new();
            repo.expect_claim_setup_token()
                .with(eq(digest_secret("tok")), always(), eq(noon()), always())
                .times(1)
                .return_once(move |_, _, _, _| Ok(outcome));
            let error = block_on(setup(repo).claim(&caller(None), " tok ")).unwrap_err();
            assert_eq!(error.code(), expected);
        }
    }

    #[test]
    fn an_empty_or_oversized_token_is_refused_without_a_lookup() {
        let mut repo = MockPlatformAdminRepository::new();
        repo.expect_claim_setup_token().never();
        let service = setup(repo);
        for token in ["", "  ", &"a".repeat(65)] {
            assert!(matches!(
                block_on(service.claim(&caller(None), token)),
                Err(FirstAdminError::Invalid)
            ));
        }
    }

    #[test]
    fn a_pending_role_for_the_callers_address_awaits_proof() {
        let mut repo = MockPlatformAdminRepository::new();
        repo.expect_list().returning(|| {
            Ok(vec![PlatformAdmin {
                email: email("me@x.io"),
                user_id: None,
                role: PlatformRole::Admin,
                added_at: noon(),
                added_by: None,
            }])
        });
        let service = setup(repo);
        assert!(block_on(service.role_awaits_proof(&caller(None))).unwrap());
        assert!(!block_on(service.role_awaits_proof(&caller(Some(PlatformRole::Reviewer)))).unwrap());
    }
}
