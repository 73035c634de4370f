//! Recovery codes: the single-use codes of an account's `recovery_code` factor.

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use uuid::Uuid;

use crate::common::RepoError;
use crate::identity::factors::Factor;
use crate::mail::OutgoingEmail;

/// How many codes a set holds and how many are still unused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RecoveryCodeCounts {
    pub total: usize,
    pub remaining: usize,
}

/// The recovery codes of accounts (`recovery_codes`), stored as keyed digests.
#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
#[async_trait]
pub trait RecoveryCodeRepository: Send + Sync {
    /// In one transaction: stores `factor` (the account's `recovery_code` factor) when it does not exist
    /// yet, removes every code of it, stores `code_hashes` as its new unused codes (created `now`), and puts
    /// `notice` (the owner's security e-mail), when given, in the outbox.
    ///
    /// # Errors
    /// [`RepoError::Duplicate`]`("recovery_code")` when `create` is set and the account already has a
    /// `recovery_code` factor; [`RepoError::Conflict`]`(`[`CONFLICT_TOO_MANY_FACTORS`]`)` when `create` is set
    /// and the account has [`MAX_FACTORS`] factors (counted inside this write); [`RepoError::NotFound`] when
    /// `create` is not set and the factor is gone;
    /// [`RepoError::Backend`] when the store fails.
    ///
    /// [`CONFLICT_TOO_MANY_FACTORS`]: crate::identity::factors::CONFLICT_TOO_MANY_FACTORS
    /// [`MAX_FACTORS`]: crate::identity::factors::MAX_FACTORS
    async fn replace(
        &self,
        factor: &Factor,
        create: bool,
        code_hashes: &[String],
        now: DateTime<Utc>,
        notice: Option<OutgoingEmail>,
    ) -> Result<(), RepoError>;

    /// How many codes the factor has, and how many are unused.
    ///
    /// # Errors
    /// [`RepoError::Backend`] when the store fails.
    async fn counts(&self, factor_id: Uuid) -> Result<RecoveryCodeCounts, RepoError>;

    /// The compare-and-set of a right code: marks the unused code `code_hash` of the factor used at `now`
    /// and puts `notice`, when given, in the outbox, in one transaction. `false` (nothing changed) when the
    /// factor has no such unused code (wrong, or used already, or raced by another use).
    ///
    /// # Errors
    /// [`RepoError::Backend`] when the store fails.
    async fn use_code(
        &self,
        factor_id: Uuid,
        code_hash: &str,
        now: DateTime<Utc>,
        notice: Option<OutgoingEmail>,
    ) -> Result<bool, RepoError>;
}
