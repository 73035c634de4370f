//! The platform-admin list.

use async_trait::async_trait;
use chrono::{DateTime, Utc};

use crate::audit::AuditEntry;
use crate::common::{EmailAddress, PlatformRole, RepoError, UserId};
use crate::identity::models::{GrantBinding, PlatformAdmin, SetupClaim};

/// The platform admins and reviewers (PRODUCT.md §5): roles bound to accounts, or pending for an address
/// (see [`PlatformAdmin`]). The guarded changes re-check [`crate::identity::models::would_leave_no_admin`] in their
/// transaction, and find the role of an address with [`crate::identity::models::grant_for`].
#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
#[async_trait]
pub trait PlatformAdminRepository: Send + Sync {
    /// Everyone with a platform role, ordered by e-mail (a bound role shows its account's current address).
    ///
    /// # Errors
    /// [`RepoError::Backend`] when the store fails.
    async fn list(&self) -> Result<Vec<PlatformAdmin>, RepoError>;

    /// The role bound to this account (a pending role is nobody's).
    ///
    /// # Errors
    /// [`RepoError::Backend`] when the store fails.
    async fn role_of(&self, user: UserId) -> Result<Option<PlatformRole>, RepoError>;

    /// Gives the address the role, or changes the role that answers for it (keeping its `added_at` and
    /// `added_by`); answers the entry as stored. A new role, or a pending one, binds at once to the account
    /// `binding` allows; otherwise it waits for the address to be proven. Guarded in the same transaction:
    /// refuses to turn the last bound `admin` into a `reviewer`.
    ///
    /// # Errors
    /// [`RepoError::Conflict`] when it would leave no admin; [`RepoError::Backend`] when the store fails.
    async fn grant(
        &self,
        email: &EmailAddress,
        role: PlatformRole,
        added_by: Option<EmailAddress>,
        binding: GrantBinding,
        now: DateTime<Utc>,
        audit: &AuditEntry,
    ) -> Result<PlatformAdmin, RepoError>;

    /// Removes the role that answers for the address. Guarded in the same transaction: refuses to remove
    /// the last bound `admin`.
    ///
    /// # Errors
    /// [`RepoError::NotFound`] when the address has no role; [`RepoError::Conflict`] when it is the last
    /// admin; [`RepoError::Backend`] when the store fails.
    async fn remove(&self, email: &EmailAddress, audit: &AuditEntry) -> Result<(), RepoError>;

    /// Adds a configured address (`PORTAL_ADMIN_EMAILS`) as an `admin` once: in one transaction, records the
    /// address as seeded and, unless it has a role already, grants `admin` bound as
    /// [`GrantBinding::ProvenAccount`] allows. An address seeded before is left alone, even when its role
    /// was revoked since. Answers the role added, `None` when nothing was; `audit` is appended (in the same
    /// transaction) only when a role was added.
    ///
    /// # Errors
    /// [`RepoError::Backend`] when the store fails.
    async fn seed(
        &self,
        email: &EmailAddress,
        now: DateTime<Utc>,
        audit: &AuditEntry,
    ) -> Result<Option<PlatformAdmin>, RepoError>;

    /// Stores `token_hash` as the only first-admin setup token, valid until `expires_at`, unless an account
    /// holds the `admin` role already (then every stored token is removed). Answers whether it was stored.
    ///
    /// # Errors
    /// [`RepoError::Backend`] when the store fails.
    async fn replace_setup_token(
        &self,
        token_hash: &str,
        expires_at: DateTime<Utc>,
    ) -> Result<bool, RepoError>;

    /// In one transaction guarded as a grant is: uses up the setup token with this digest if it has not
    /// expired at `now`, and, while no account holds the `admin` role, makes the account `user` an `admin`
    /// (raising its role when it has one). Every stored token is removed once an admin exists. `audit` is
    /// appended in the same transaction when the role was given ([`SetupClaim::Granted`]).
    ///
    /// # Errors
    /// [`RepoError::NotFound`] when the account does not exist; [`RepoError::Backend`] when the store fails.
    async fn claim_setup_token(
        &self,
        token_hash: &str,
        user: UserId,
        now: DateTime<Utc>,
        audit: &AuditEntry,
    ) -> Result<SetupClaim, RepoError>;
}
