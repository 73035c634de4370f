//! Single-use e-mail codes and link tokens, and the failed-code counts.

use async_trait::async_trait;
use chrono::{DateTime, Utc};

use crate::common::{EmailAddress, RepoError};
use crate::identity::models::{OneTimeCode, OtpPurpose};
use crate::mail::OutgoingEmail;

/// Single-use e-mail codes and link tokens, stored as digests, and the count of failed typed codes per
/// address (in the store, so that every instance shares it).
#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
#[async_trait]
pub trait OneTimeCodeRepository: Send + Sync {
    /// In one transaction: retires (marks used at the new codes' `created_at`) every unused code of the same
    /// e-mail and purpose, stores the codes (a link token and a six-digit code of one request) and puts the
    /// e-mail that carries them in the outbox. So only the newest request of an address and purpose works.
    ///
    /// # Errors
    /// [`RepoError::Duplicate`]`("one_time_code")` when a code's id exists (digests may repeat);
    /// [`RepoError::Backend`] when the store fails (then nothing is retired or stored, and no e-mail).
    async fn insert_with_email(&self, codes: &[OneTimeCode], email: &OutgoingEmail) -> Result<(), RepoError>;

    /// Compare-and-set: if a code with this digest and purpose is unused and `now < expires_at`, marks it —
    /// and every other unused code of the same e-mail and purpose — used at `now`, clears the failed-code
    /// count of its e-mail, and answers it (with `used_at` set). `None` when there is no such usable code,
    /// so a code works once.
    ///
    /// # Errors
    /// [`RepoError::Backend`] when the store fails.
    async fn consume(
        &self,
        code_hash: &str,
        purpose: OtpPurpose,
        now: DateTime<Utc>,
    ) -> Result<Option<OneTimeCode>, RepoError>;

    /// The pending password hash of the e-mail's newest usable sign-up code (unused, `now < expires_at`), if
    /// any: the password an unconfirmed sign-up chose.
    ///
    /// # Errors
    /// [`RepoError::Backend`] when the store fails.
    async fn pending_password(
        &self,
        email: &EmailAddress,
        now: DateTime<Utc>,
    ) -> Result<Option<String>, RepoError>;

    /// Counts one failed typed code for the e-mail at `now`, atomically across instances. A count whose last
    /// failure is [`FAILED_CODES_FORGOTTEN_AFTER_MINUTES`](crate::identity::models::FAILED_CODES_FORGOTTEN_AFTER_MINUTES) or more before `now` starts again. On reaching
    /// [`MAX_FAILED_CODES`](crate::identity::models::MAX_FAILED_CODES), in the same transaction, marks every unused
    /// *typed* code of the e-mail for one of `purposes` used at `now` (links stay usable) and clears the
    /// count; answers `true` then.
    ///
    /// # Errors
    /// [`RepoError::Backend`] when the store fails.
    async fn record_failed_code(
        &self,
        email: &EmailAddress,
        purposes: &[OtpPurpose],
        now: DateTime<Utc>,
    ) -> Result<bool, RepoError>;

    /// Deletes codes that expired before `cutoff` and failed-code counts whose last failure was before
    /// `cutoff`; answers how many rows went.
    ///
    /// # Errors
    /// [`RepoError::Backend`] when the store fails.
    async fn prune_expired(&self, cutoff: DateTime<Utc>) -> Result<u64, RepoError>;
}
