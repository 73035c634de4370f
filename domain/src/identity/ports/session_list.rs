//! The account's sessions as its owner sees them: the client each was last used from, listing, and ending
//! one or the `aal1` ones.

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use uuid::Uuid;

use crate::common::{RepoError, UserId};
use crate::identity::models::{RefreshToken, SessionClient};
use crate::mail::OutgoingEmail;

/// A live session of an account: its live refresh token (head) and the client it was last used from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ListedSession {
    pub head: RefreshToken,
    /// `None` for a session started before clients were recorded.
    pub client: Option<SessionClient>,
}

/// The sessions (refresh-token families) of accounts, with their clients (`session_clients`).
#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
#[async_trait]
pub trait SessionListRepository: Send + Sync {
    /// Records that the session `family` of `user` was used by `client` (creates or replaces its row).
    ///
    /// # Errors
    /// [`RepoError::Backend`] when the store fails.
    async fn record_client(
        &self,
        family: Uuid,
        user: UserId,
        client: &SessionClient,
    ) -> Result<(), RepoError>;

    /// The live sessions of `user` (a head that is neither replaced nor revoked), most recently used first.
    /// The idle and absolute timeouts are the caller's to apply ([`RefreshToken::check_usable`]).
    ///
    /// # Errors
    /// [`RepoError::Backend`] when the store fails.
    async fn list_live(&self, user: UserId) -> Result<Vec<ListedSession>, RepoError>;

    /// In one transaction: revokes every token of the session `family` when it is `user`'s and live, and
    /// puts `notice` (the owner's security e-mail), when given, in the outbox. `false` (nothing written)
    /// when `user` has no such live session.
    ///
    /// # Errors
    /// [`RepoError::Backend`] when the store fails.
    async fn end_session(
        &self,
        user: UserId,
        family: Uuid,
        now: DateTime<Utc>,
        notice: Option<OutgoingEmail>,
    ) -> Result<bool, RepoError>;

    /// Revokes every session of `user` whose live head has passed no second factor (`aal1`), except
    /// `keep` (when given), and puts `notice` in the outbox in the same transaction; answers how many
    /// sessions ended.
    ///
    /// # Errors
    /// [`RepoError::Backend`] when the store fails.
    async fn end_aal1_sessions(
        &self,
        user: UserId,
        keep: Option<Uuid>,
        now: DateTime<Utc>,
        notice: Option<crate::mail::OutgoingEmail>,
    ) -> Result<u64, RepoError>;

    /// The names of `user`'s personal access tokens that are neither revoked nor expired at `now`, newest
    /// first: what still works after a recovery ended the sessions (a token outlives the session that made
    /// it only when that session had ended before the recovery).
    ///
    /// # Errors
    /// [`RepoError::Backend`] when the store fails.
    async fn active_access_tokens(&self, user: UserId, now: DateTime<Utc>) -> Result<Vec<String>, RepoError>;
}
