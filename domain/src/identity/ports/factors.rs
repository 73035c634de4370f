//! Second factors and their challenges.

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use uuid::Uuid;

use crate::common::{RepoError, UserId};
use crate::identity::factors::{Factor, FactorChallenge, FactorUse};
use crate::mail::OutgoingEmail;

/// The second factors of accounts and their challenges (`factors`, `factor_challenges`).
#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
#[async_trait]
pub trait FactorRepository: Send + Sync {
    /// Stores a new factor.
    ///
    /// # Errors
    /// [`RepoError::Duplicate`] when the id exists; [`RepoError::Conflict`]`(`[`CONFLICT_TOO_MANY_FACTORS`]`)`
    /// when the account has [`MAX_FACTORS`] factors already, counted inside the write that adds this one;
    /// [`RepoError::Backend`] when the store fails.
    ///
    /// [`CONFLICT_TOO_MANY_FACTORS`]: crate::identity::factors::CONFLICT_TOO_MANY_FACTORS
    /// [`MAX_FACTORS`]: crate::identity::factors::MAX_FACTORS
    async fn insert(&self, factor: &Factor) -> Result<(), RepoError>;

    /// The account's factors, oldest first.
    ///
    /// # Errors
    /// [`RepoError::Backend`] when the store fails.
    async fn list_for_user(&self, user: UserId) -> Result<Vec<Factor>, RepoError>;

    /// The factor `id` when it is `user`'s.
    ///
    /// # Errors
    /// [`RepoError::Backend`] when the store fails.
    async fn find(&self, user: UserId, id: Uuid) -> Result<Option<Factor>, RepoError>;

    /// In one transaction: removes `user`'s factor `id` with its challenges, drops the sessions that
    /// passed it to `aal1` (their refresh tokens forget the second step), and puts `notice` (the owner's
    /// security e-mail, due at `now`), when given, in the outbox. `false` (and nothing written) when there
    /// was none.
    ///
    /// # Errors
    /// [`RepoError::Backend`] when the store fails.
    async fn delete(
        &self,
        user: UserId,
        id: Uuid,
        now: DateTime<Utc>,
        notice: Option<OutgoingEmail>,
    ) -> Result<bool, RepoError>;

    /// Stores a challenge and sets its factor's `last_challenged_at` to its creation.
    ///
    /// # Errors
    /// [`RepoError::Backend`] when the store fails.
    async fn insert_challenge(&self, challenge: &FactorChallenge) -> Result<(), RepoError>;

    /// The challenge `id` of factor `factor_id`.
    ///
    /// # Errors
    /// [`RepoError::Backend`] when the store fails.
    async fn find_challenge(&self, factor_id: Uuid, id: Uuid) -> Result<Option<FactorChallenge>, RepoError>;

    /// Removes a challenge (an expired one).
    ///
    /// # Errors
    /// [`RepoError::Backend`] when the store fails.
    async fn delete_challenge(&self, id: Uuid) -> Result<(), RepoError>;

    /// The compare-and-set of a right answer, in one transaction: marks the challenge verified only if it
    /// was not; takes `used` only if it is still free ([`FactorUse::TotpStep`]: sets the factor's
    /// `last_used_step` only if it was lower or unset; [`FactorUse::WebAuthnRegistered`]: stores the
    /// credential only if the factor holds none; [`FactorUse::WebAuthnAsserted`]: moves the credential's
    /// sign count only if it is still `old`); marks the factor verified, removes the account's other
    /// unverified factors of the same type, and puts `notice` (the owner's security e-mail), when given, in
    /// the outbox. `false` (and nothing changed) when the challenge was already verified or `used` taken.
    ///
    /// # Errors
    /// [`RepoError::Backend`] when the store fails.
    async fn complete_verification(
        &self,
        factor_id: Uuid,
        challenge_id: Uuid,
        used: FactorUse,
        now: DateTime<Utc>,
        notice: Option<OutgoingEmail>,
    ) -> Result<bool, RepoError>;
}
