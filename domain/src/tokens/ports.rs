//! The store of personal access tokens.

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use uuid::Uuid;

use super::models::{AccessToken, OwnedToken, TokenRead};
use crate::audit::AuditEntry;
use crate::common::{OrgId, RepoError, UserId};
use crate::mail::OutgoingEmail;

/// Personal access tokens (`access_tokens`).
#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
#[async_trait]
pub trait AccessTokenRepository: Send + Sync {
    /// In one transaction: stores `token` with the keyed digest of its secret, puts `notice` in the
    /// outbox and appends `audit` — unless its owner already has `cap` tokens that are neither revoked
    /// nor expired, counted inside the same write (concurrent creations cannot pass the cap together):
    /// then nothing is written and the answer is `false`.
    ///
    /// # Errors
    /// [`RepoError::Backend`] when the store fails.
    async fn insert(
        &self,
        token: &AccessToken,
        secret_digest: &str,
        cap: usize,
        notice: &OutgoingEmail,
        audit: &[AuditEntry],
    ) -> Result<bool, RepoError>;

    /// The account's tokens, newest first (revoked and expired ones included).
    ///
    /// # Errors
    /// [`RepoError::Backend`] when the store fails.
    async fn list_for_user(&self, user: UserId) -> Result<Vec<AccessToken>, RepoError>;

    /// The tokens that act in `org`: bound to it, or to every organization of an owner who is a member
    /// of it; newest first, with their owners' addresses.
    ///
    /// # Errors
    /// [`RepoError::Backend`] when the store fails.
    async fn list_for_org(&self, org: OrgId) -> Result<Vec<OwnedToken>, RepoError>;

    /// Token `id`, `None` when there is none.
    ///
    /// # Errors
    /// [`RepoError::Backend`] when the store fails.
    async fn find(&self, id: Uuid) -> Result<Option<AccessToken>, RepoError>;

    /// Revokes token `id` at `at` unless it is revoked already, appending `audit` in the same
    /// transaction: whether it was revoked now.
    ///
    /// # Errors
    /// [`RepoError::Backend`] when the store fails.
    async fn revoke(&self, id: Uuid, at: DateTime<Utc>, audit: &[AuditEntry]) -> Result<bool, RepoError>;

    /// What authenticating a request with token `id` needs (see [`TokenRead`]), for a request naming
    /// `org` with the owner's standing there; `None` when there is no such token.
    ///
    /// # Errors
    /// [`RepoError::Backend`] when the store fails.
    async fn read_for_request(&self, id: Uuid, org: Option<OrgId>) -> Result<Option<TokenRead>, RepoError>;

    /// Records a use of token `id` at `at` from `ip`.
    ///
    /// # Errors
    /// [`RepoError::Backend`] when the store fails.
    async fn record_use(&self, id: Uuid, at: DateTime<Utc>, ip: Option<String>) -> Result<(), RepoError>;

    /// The tokens that expired by `now` and whose expiry is not recorded yet.
    ///
    /// # Errors
    /// [`RepoError::Backend`] when the store fails.
    async fn expired_unrecorded(&self, now: DateTime<Utc>) -> Result<Vec<AccessToken>, RepoError>;

    /// Records that token `id` expired, appending `audit` in the same transaction (nothing when it was
    /// recorded already): whether it was recorded now.
    ///
    /// # Errors
    /// [`RepoError::Backend`] when the store fails.
    async fn record_expiry(&self, id: Uuid, audit: &[AuditEntry]) -> Result<bool, RepoError>;
}
