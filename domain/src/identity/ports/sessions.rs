//! The refresh tokens that make up sessions.

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use uuid::Uuid;

use crate::common::{OrgId, RepoError, UserId};
use crate::identity::models::{LiveSession, LiveSessionInOrg, RefreshToken};
use crate::mail::OutgoingEmail;

/// Refresh tokens, stored as digests, grouped in families (sessions).
#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
#[async_trait]
pub trait RefreshTokenRepository: Send + Sync {
    /// Stores the first token of a session.
    ///
    /// # Errors
    /// [`RepoError::Duplicate`]`("token_hash")` when the digest exists; [`RepoError::Backend`] when the store
    /// fails.
    async fn insert(&self, token: &RefreshToken) -> Result<(), RepoError>;

    /// The token with this digest, used or not.
    ///
    /// # Errors
    /// [`RepoError::Backend`] when the store fails.
    async fn find_by_hash(&self, token_hash: &str) -> Result<Option<RefreshToken>, RepoError>;

    /// In one transaction: marks `old_hash` used (`replaced_by` = the successor's digest, `last_used_at` =
    /// `now`) only if it is neither replaced nor revoked, and stores the successor.
    ///
    /// # Errors
    /// [`RepoError::Conflict`] when the old token was already replaced or revoked (a concurrent or repeated
    /// use); [`RepoError::NotFound`] when it does not exist; [`RepoError::Backend`] when the store fails.
    async fn rotate(
        &self,
        old_hash: &str,
        successor: &RefreshToken,
        now: DateTime<Utc>,
    ) -> Result<(), RepoError>;

    /// The live head of a session: the token of the family that is neither replaced nor revoked (`None`
    /// when the session was signed out, revoked for reuse, or never existed). Its
    /// [`RefreshToken::check_usable`] says whether the session is idle or too old.
    ///
    /// # Errors
    /// [`RepoError::Backend`] when the store fails.
    async fn current_of_family(&self, family_id: Uuid) -> Result<Option<RefreshToken>, RepoError>;

    /// [`Self::current_of_family`] together with the platform role bound to the head's account (what
    /// [`PlatformAdminRepository::role_of`](super::PlatformAdminRepository::role_of) answers for `head.user_id`) and whether the account has a
    /// verified second factor, read at once: authenticating a request needs them all, and each read of its
    /// own is a round trip to the database.
    ///
    /// # Errors
    /// [`RepoError::Backend`] when the store fails.
    async fn current_of_family_with_role(&self, family_id: Uuid) -> Result<Option<LiveSession>, RepoError>;

    /// [`Self::current_of_family_with_role`] together with the head's account's role in `org` (what
    /// [`MemberDirectory::role_of`](crate::orgs::MemberDirectory::role_of) answers for `org` and
    /// `head.user_id`) and the revision of `org`'s apps (what
    /// [`AppRepository::revision`](crate::apps::ports::AppRepository::revision) answers), in one statement:
    /// an organization-scoped request needs them all, and each read of its own is a round trip.
    ///
    /// # Errors
    /// [`RepoError::Backend`] when the store fails.
    async fn current_of_family_in_org(
        &self,
        family_id: Uuid,
        org: OrgId,
    ) -> Result<Option<LiveSessionInOrg>, RepoError>;

    /// Revokes every token of the family (idempotent; an unknown family is not an error).
    ///
    /// # Errors
    /// [`RepoError::Backend`] when the store fails.
    async fn revoke_family(&self, family_id: Uuid, now: DateTime<Utc>) -> Result<(), RepoError>;

    /// Ends a family whose rotated refresh token was presented again (a theft signal): its refresh tokens
    /// and the personal access tokens it made, in one transaction (idempotent).
    ///
    /// # Errors
    /// [`RepoError::Backend`] when the store fails.
    async fn end_stolen_family(&self, family_id: Uuid, now: DateTime<Utc>) -> Result<(), RepoError>;

    /// Revokes every token of the user, except those of `keep_family` when given (idempotent). `notice`,
    /// when given, goes to the outbox in the same transaction if a session was ended (the owner's security
    /// e-mail).
    ///
    /// # Errors
    /// [`RepoError::Backend`] when the store fails.
    async fn revoke_all_for_user(
        &self,
        user: UserId,
        keep_family: Option<Uuid>,
        now: DateTime<Utc>,
        notice: Option<OutgoingEmail>,
    ) -> Result<(), RepoError>;

    /// Deletes tokens of families started before `cutoff` (past the 30-day limit) and revoked tokens older
    /// than `cutoff`; answers how many rows went.
    ///
    /// # Errors
    /// [`RepoError::Backend`] when the store fails.
    async fn prune_before(&self, cutoff: DateTime<Utc>) -> Result<u64, RepoError>;
}
