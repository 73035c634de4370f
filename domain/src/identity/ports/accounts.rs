//! Accounts of the identity service and their links to external (OIDC) identities.

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use serde_json::Value;

use crate::common::{EmailAddress, RepoError, UserId};
use crate::identity::models::{Account, ExternalIdentity};
use crate::mail::OutgoingEmail;

/// Accounts of the built-in identity service (and the local accounts of a hosted one's users).
///
/// Every write that makes an account's address proven (creating it proven, [`Self::prove_email`],
/// [`Self::change_email`] to a proven address) binds, in the same transaction, the platform role waiting
/// for that address (see [`PlatformAdminRepository`](super::PlatformAdminRepository)), so a pending role goes to the first account that
/// proves the address and to no other.
#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
#[async_trait]
pub trait AccountRepository: Send + Sync {
    /// Stores a new account (binding a waiting platform role when it is stored proven).
    ///
    /// # Errors
    /// [`RepoError::Duplicate`]`("email")` when an account has this e-mail; [`RepoError::Backend`] when the
    /// store fails.
    async fn create(&self, account: &Account) -> Result<(), RepoError>;

    /// The account with this e-mail (already lower-cased by [`EmailAddress`]).
    ///
    /// # Errors
    /// [`RepoError::Backend`] when the store fails.
    async fn find_by_email(&self, email: &EmailAddress) -> Result<Option<Account>, RepoError>;

    /// The account with this id.
    ///
    /// # Errors
    /// [`RepoError::Backend`] when the store fails.
    async fn get(&self, id: UserId) -> Result<Option<Account>, RepoError>;

    /// Replaces the password hash (`None` removes the password) and sets `updated_at`; `notice`, when
    /// given, goes to the outbox in the same transaction (the owner's security e-mail).
    ///
    /// # Errors
    /// [`RepoError::NotFound`] when there is no such account; [`RepoError::Backend`] when the store fails.
    async fn set_password(
        &self,
        id: UserId,
        password_hash: Option<String>,
        now: DateTime<Utc>,
        notice: Option<OutgoingEmail>,
    ) -> Result<(), RepoError>;

    /// Sets `email_confirmed_at` to `now` unless it is already set (idempotent).
    ///
    /// # Errors
    /// [`RepoError::NotFound`] when there is no such account; [`RepoError::Backend`] when the store fails.
    async fn confirm_email(&self, id: UserId, now: DateTime<Utc>) -> Result<(), RepoError>;

    /// Records that the address was proven: sets `email_proven_at`, and `email_confirmed_at` when unset, to
    /// `now` (the first proof is kept), and binds the platform role waiting for the address to this account.
    ///
    /// # Errors
    /// [`RepoError::NotFound`] when there is no such account; [`RepoError::Backend`] when the store fails.
    async fn prove_email(&self, id: UserId, now: DateTime<Utc>) -> Result<(), RepoError>;

    /// Sets `last_sign_in_at` to `now`.
    ///
    /// # Errors
    /// [`RepoError::NotFound`] when there is no such account; [`RepoError::Backend`] when the store fails.
    async fn touch_sign_in(&self, id: UserId, now: DateTime<Utc>) -> Result<(), RepoError>;

    /// Replaces the display name and profile, sets `updated_at`, and answers the account as stored.
    ///
    /// # Errors
    /// [`RepoError::NotFound`] when there is no such account; [`RepoError::Backend`] when the store fails.
    async fn update_profile(
        &self,
        id: UserId,
        display_name: Option<String>,
        profile: &Value,
        now: DateTime<Utc>,
    ) -> Result<Account, RepoError>;

    /// Replaces the e-mail, sets `email_confirmed_at` and `email_proven_at` to `proven_at` (`None`: the new
    /// address is not proven) and `updated_at` to `now`; a proven address binds the platform role waiting
    /// for it. Used for a hosted identity service's users, whose address changes there. Platform roles
    /// already bound stay with the account.
    ///
    /// # Errors
    /// [`RepoError::Duplicate`]`("email")` when another account has the e-mail; [`RepoError::NotFound`] when
    /// there is no such account; [`RepoError::Backend`] when the store fails.
    async fn change_email(
        &self,
        id: UserId,
        email: &EmailAddress,
        proven_at: Option<DateTime<Utc>>,
        now: DateTime<Utc>,
    ) -> Result<(), RepoError>;
}

/// Links between accounts and external (OIDC) identities.
#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
#[async_trait]
pub trait IdentityLinkRepository: Send + Sync {
    /// The link of this provider identity.
    ///
    /// # Errors
    /// [`RepoError::Backend`] when the store fails.
    async fn find(&self, issuer: &str, subject: &str) -> Result<Option<ExternalIdentity>, RepoError>;

    /// Stores a link.
    ///
    /// # Errors
    /// [`RepoError::Duplicate`]`("identity")` when `(issuer, subject)` is already linked;
    /// [`RepoError::Backend`] when the store fails.
    async fn link(&self, identity: &ExternalIdentity) -> Result<(), RepoError>;

    /// Every identity linked to the account, oldest first.
    ///
    /// # Errors
    /// [`RepoError::Backend`] when the store fails.
    async fn list_for_user(&self, user: UserId) -> Result<Vec<ExternalIdentity>, RepoError>;
}
