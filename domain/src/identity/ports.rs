//! Ports of the identity context: token signing, password hashing and the stores of accounts, provider
//! links, refresh tokens, e-mail codes and platform admins.

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use serde_json::Value;
use uuid::Uuid;

use crate::audit::AuditEntry;
use crate::common::{EmailAddress, PlatformRole, RepoError, UserId};
use crate::identity::factors::{Factor, FactorChallenge};
use crate::identity::models::{
    Account, ExternalIdentity, GrantBinding, LiveSession, OneTimeCode, OtpPurpose, PlatformAdmin,
    RefreshToken, SetupClaim,
};
use crate::identity::sessions::tokens::{AccessTokenClaims, CoreTokenClaims, TokenError};
use crate::mail::OutgoingEmail;

/// Signs and verifies the two token kinds, each with its own key.
#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
#[async_trait]
pub trait TokenSigner: Send + Sync {
    /// Signs a core token with the core key.
    ///
    /// # Errors
    /// [`TokenError::Signing`] when no core key is available.
    async fn sign_core(&self, claims: &CoreTokenClaims) -> Result<String, TokenError>;

    /// Verifies a core token's signature with the core key and its claims with
    /// [`CoreTokenClaims::check`] at `now`.
    ///
    /// # Errors
    /// [`TokenError::Expired`] when well signed but expired; [`TokenError::Invalid`] for anything else
    /// (malformed, another key — an access token —, another audience or `typ`).
    async fn verify_core(&self, token: &str, now: DateTime<Utc>) -> Result<CoreTokenClaims, TokenError>;

    /// Signs an identity access token with the identity key.
    ///
    /// # Errors
    /// [`TokenError::Signing`] when this adapter cannot sign (a hosted identity service signs its own).
    async fn sign_access(&self, claims: &AccessTokenClaims) -> Result<String, TokenError>;

    /// Verifies an identity access token (the built-in service's key, or the hosted service's secret or
    /// JWKS) and its claims with [`AccessTokenClaims::check`] at `now`.
    ///
    /// # Errors
    /// [`TokenError::Expired`] when well signed but expired; [`TokenError::Invalid`] for anything else
    /// (malformed, the core key — a core token —, another audience or role).
    async fn verify_access(&self, token: &str, now: DateTime<Utc>) -> Result<AccessTokenClaims, TokenError>;
}

/// The password hasher failed (not: the password was wrong).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("password hashing failed: {0}")]
pub struct PasswordHashError(pub String);

/// Slow, salted password hashing (argon2id in production, tiny parameters in tests).
#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
#[async_trait]
pub trait PasswordHasher: Send + Sync {
    /// A self-describing hash (PHC string) of the password with a fresh salt.
    ///
    /// # Errors
    /// [`PasswordHashError`] when the hasher fails.
    async fn hash(&self, password: &str) -> Result<String, PasswordHashError>;

    /// Whether the password matches the hash: `Ok(false)` for a wrong password.
    ///
    /// # Errors
    /// [`PasswordHashError`] only when the stored hash cannot be read or the hasher fails.
    async fn verify(&self, password: &str, hash: &str) -> Result<bool, PasswordHashError>;

    /// Spends the time of one [`PasswordHasher::verify`] against a real hash and discards the result. Called
    /// when the e-mail has no account (or no password), so that the answer's timing does not tell.
    async fn waste_verify(&self, password: &str);
}

/// Accounts of the built-in identity service (and the local accounts of a hosted one's users).
///
/// Every write that makes an account's address proven (creating it proven, [`Self::prove_email`],
/// [`Self::change_email`] to a proven address) binds, in the same transaction, the platform role waiting
/// for that address (see [`PlatformAdminRepository`]), so a pending role goes to the first account that
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

    /// Replaces the password hash (`None` removes the password) and sets `updated_at`.
    ///
    /// # Errors
    /// [`RepoError::NotFound`] when there is no such account; [`RepoError::Backend`] when the store fails.
    async fn set_password(
        &self,
        id: UserId,
        password_hash: Option<String>,
        now: DateTime<Utc>,
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
    /// [`PlatformAdminRepository::role_of`] answers for `head.user_id`) and whether the account has a
    /// verified second factor, read at once: authenticating a request needs them all, and each read of its
    /// own is a round trip to the database.
    ///
    /// # Errors
    /// [`RepoError::Backend`] when the store fails.
    async fn current_of_family_with_role(&self, family_id: Uuid) -> Result<Option<LiveSession>, RepoError>;

    /// Revokes every token of the family (idempotent; an unknown family is not an error).
    ///
    /// # Errors
    /// [`RepoError::Backend`] when the store fails.
    async fn revoke_family(&self, family_id: Uuid, now: DateTime<Utc>) -> Result<(), RepoError>;

    /// Revokes every token of the user, except those of `keep_family` when given (idempotent).
    ///
    /// # Errors
    /// [`RepoError::Backend`] when the store fails.
    async fn revoke_all_for_user(
        &self,
        user: UserId,
        keep_family: Option<Uuid>,
        now: DateTime<Utc>,
    ) -> Result<(), RepoError>;

    /// Deletes tokens of families started before `cutoff` (past the 30-day limit) and revoked tokens older
    /// than `cutoff`; answers how many rows went.
    ///
    /// # Errors
    /// [`RepoError::Backend`] when the store fails.
    async fn prune_before(&self, cutoff: DateTime<Utc>) -> Result<u64, RepoError>;
}

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

/// The second factors of accounts and their challenges (`factors`, `factor_challenges`).
#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
#[async_trait]
pub trait FactorRepository: Send + Sync {
    /// Stores a new factor.
    ///
    /// # Errors
    /// [`RepoError::Duplicate`] when the id exists; [`RepoError::Backend`] when the store fails.
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

    /// In one transaction: removes `user`'s factor `id` with its challenges, and drops the sessions that
    /// passed it to `aal1` (their refresh tokens forget the second step). `false` when there was none.
    ///
    /// # Errors
    /// [`RepoError::Backend`] when the store fails.
    async fn delete(&self, user: UserId, id: Uuid) -> Result<bool, RepoError>;

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

    /// The compare-and-set of a right code, in one transaction: marks the challenge verified only if it
    /// was not, sets the factor's `last_used_step` to `step` only if it was lower (or unset), marks the
    /// factor verified, and removes the account's other unverified factors of the same type. `false`
    /// (and nothing changed) when the challenge was already verified or the step already used.
    ///
    /// # Errors
    /// [`RepoError::Backend`] when the store fails.
    async fn complete_verification(
        &self,
        factor_id: Uuid,
        challenge_id: Uuid,
        step: i64,
        now: DateTime<Utc>,
    ) -> Result<bool, RepoError>;
}
