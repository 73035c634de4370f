//! Passkeys: the store of an account's WebAuthn credentials and of the ceremonies in flight
//! ([`PasskeyRepository`]), and the WebAuthn ceremony itself ([`WebAuthnCeremony`], the cryptography of
//! an adapter; the domain only carries its options and state as opaque values).

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use uuid::Uuid;

use crate::common::{RepoError, UserId};
use crate::identity::passkeys::{CeremonyKind, Passkey, WebAuthnChallenge};
use crate::mail::OutgoingEmail;

/// The passkeys of accounts (`passkeys`) and the WebAuthn ceremonies in flight (`webauthn_challenges`).
#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
#[async_trait]
pub trait PasskeyRepository: Send + Sync {
    /// Stores a ceremony's state until it is taken or expires.
    ///
    /// # Errors
    /// [`RepoError::Backend`] when the store fails.
    async fn insert_challenge(&self, challenge: &WebAuthnChallenge) -> Result<(), RepoError>;

    /// Takes (reads and removes, in one statement's transaction) the challenge `id` of kind `kind`, of
    /// `user` when given (a registration) or of nobody (a passkey sign-in): a challenge works once, even
    /// when two verifications race. `None` when there is none (or it was taken).
    ///
    /// # Errors
    /// [`RepoError::Backend`] when the store fails.
    async fn take_challenge(
        &self,
        id: Uuid,
        kind: CeremonyKind,
        user: Option<UserId>,
    ) -> Result<Option<WebAuthnChallenge>, RepoError>;

    /// Removes the challenges that expired before `now`; answers how many.
    ///
    /// # Errors
    /// [`RepoError::Backend`] when the store fails.
    async fn prune_challenges(&self, now: DateTime<Utc>) -> Result<u64, RepoError>;

    /// In one transaction: stores a new passkey and puts `notice` (the owner's security e-mail, due at
    /// `now`) in the outbox.
    ///
    /// # Errors
    /// [`RepoError::Duplicate`] when the credential id is registered already (to any account);
    /// [`RepoError::Conflict`]`(`[`CONFLICT_TOO_MANY_PASSKEYS`]`)` when the account has [`MAX_PASSKEYS`]
    /// passkeys already, counted inside the write that adds this one; [`RepoError::Backend`] when the
    /// store fails.
    ///
    /// [`CONFLICT_TOO_MANY_PASSKEYS`]: crate::identity::passkeys::CONFLICT_TOO_MANY_PASSKEYS
    /// [`MAX_PASSKEYS`]: crate::identity::passkeys::MAX_PASSKEYS
    async fn insert(
        &self,
        passkey: &Passkey,
        notice: &OutgoingEmail,
        now: DateTime<Utc>,
    ) -> Result<(), RepoError>;

    /// The account's passkeys, oldest first.
    ///
    /// # Errors
    /// [`RepoError::Backend`] when the store fails.
    async fn list_for_user(&self, user: UserId) -> Result<Vec<Passkey>, RepoError>;

    /// The passkey of a credential id (base64url), whoever's it is.
    ///
    /// # Errors
    /// [`RepoError::Backend`] when the store fails.
    async fn find_by_credential(&self, credential_id: &str) -> Result<Option<Passkey>, RepoError>;

    /// The compare-and-set of a sign-in: sets the passkey's sign count to `new_count` and its last use to
    /// `now` only if its count is still `old_count`. `false` (nothing changed) when another sign-in took
    /// it first or the passkey is gone.
    ///
    /// # Errors
    /// [`RepoError::Backend`] when the store fails.
    async fn record_use(
        &self,
        id: Uuid,
        old_count: i64,
        new_count: i64,
        now: DateTime<Utc>,
    ) -> Result<bool, RepoError>;

    /// Renames `user`'s passkey `id`; answers it renamed, or `None` when the account has none of this id.
    ///
    /// # Errors
    /// [`RepoError::Backend`] when the store fails.
    async fn rename(&self, user: UserId, id: Uuid, name: &str) -> Result<Option<Passkey>, RepoError>;

    /// In one transaction: removes `user`'s passkey `id`, drops the sessions that passed it to `aal1`
    /// (their refresh tokens forget the second step) and puts `notice` in the outbox. `false` (and
    /// nothing written) when there was none.
    ///
    /// # Errors
    /// [`RepoError::Backend`] when the store fails.
    async fn delete(
        &self,
        user: UserId,
        id: Uuid,
        notice: &OutgoingEmail,
        now: DateTime<Utc>,
    ) -> Result<bool, RepoError>;
}

/// The options a ceremony sends to the browser (`navigator.credentials.create`/`get`, as JSON) and the
/// state the server keeps until the answer comes back.
#[derive(Debug, Clone, PartialEq)]
pub struct CeremonyStart {
    /// `PublicKeyCredentialCreationOptionsJSON` or `PublicKeyCredentialRequestOptionsJSON`.
    pub options: serde_json::Value,
    /// Opaque to the domain; stored with the challenge.
    pub state: String,
}

/// A credential that a registration ceremony verified.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RegisteredCredential {
    /// The credential id, base64url without padding.
    pub credential_id: String,
    /// The public key and what else the ceremony needs to verify a sign-in later; opaque to the domain.
    pub public_key: String,
    /// The authenticator's signature counter at registration (0 when it keeps none).
    pub sign_count: u32,
}

/// Who a sign-in's answer says it is, read before anything is verified.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AssertionClaim {
    /// The credential id, base64url without padding.
    pub credential_id: String,
    /// The user handle the authenticator stored (the account's id).
    pub user: Option<UserId>,
}

/// A sign-in's answer, verified.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct VerifiedAssertion {
    /// The authenticator's signature counter now (0 when it keeps none).
    pub sign_count: u32,
}

/// Why a ceremony failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CeremonyError {
    /// The browser's answer is malformed or does not verify (wrong challenge, origin, signature, no user
    /// verification…).
    #[error("the WebAuthn answer does not verify: {0}")]
    Rejected(String),
    /// The server could not start or finish the ceremony (its stored state does not read).
    #[error("the WebAuthn ceremony failed: {0}")]
    Internal(String),
}

/// Where WebAuthn credentials of this server work: the relying party's id and the one origin accepted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RelyingPartyInfo {
    /// The RP id (a host name).
    pub id: String,
    /// The origin as a browser writes it (`https://portal.example.com`, no trailing slash).
    pub origin: String,
}

/// The WebAuthn ceremonies of passkeys (discoverable credentials, user verification required) and of
/// `webauthn` factors (a credential asserted by id, user verification preferred), with the relying party of
/// the portal's public URL.
#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
pub trait WebAuthnCeremony: Send + Sync {
    /// Starts registering a discoverable credential for `user` (named `email` in the authenticator),
    /// excluding the credentials it has (base64url ids).
    ///
    /// # Errors
    /// [`CeremonyError::Internal`].
    fn start_registration(
        &self,
        user: UserId,
        email: &str,
        exclude: &[String],
    ) -> Result<CeremonyStart, CeremonyError>;

    /// Verifies the browser's `RegistrationResponseJSON` against the stored state.
    ///
    /// # Errors
    /// [`CeremonyError::Rejected`] for an answer that does not verify; [`CeremonyError::Internal`].
    fn finish_registration(
        &self,
        state: &str,
        credential: &serde_json::Value,
    ) -> Result<RegisteredCredential, CeremonyError>;

    /// Starts a sign-in with any discoverable credential of this relying party.
    ///
    /// # Errors
    /// [`CeremonyError::Internal`].
    fn start_authentication(&self) -> Result<CeremonyStart, CeremonyError>;

    /// Reads the credential id and user handle of the browser's `AuthenticationResponseJSON`.
    ///
    /// # Errors
    /// [`CeremonyError::Rejected`] for a malformed answer.
    fn claim(&self, credential: &serde_json::Value) -> Result<AssertionClaim, CeremonyError>;

    /// Verifies the browser's answer against the stored state and the passkey's public key.
    ///
    /// # Errors
    /// [`CeremonyError::Rejected`] for an answer that does not verify; [`CeremonyError::Internal`].
    fn finish_authentication(
        &self,
        state: &str,
        credential: &serde_json::Value,
        public_key: &str,
    ) -> Result<VerifiedAssertion, CeremonyError>;

    /// The relying party every ceremony uses.
    fn relying_party(&self) -> RelyingPartyInfo;

    /// Starts registering a `webauthn` factor's credential for `user` (named `email` in the
    /// authenticator): not necessarily discoverable, user verification preferred, excluding the
    /// credentials it has (base64url ids).
    ///
    /// # Errors
    /// [`CeremonyError::Internal`].
    fn start_factor_registration(
        &self,
        user: UserId,
        email: &str,
        exclude: &[String],
    ) -> Result<CeremonyStart, CeremonyError>;

    /// Verifies the browser's `RegistrationResponseJSON` to [`Self::start_factor_registration`].
    ///
    /// # Errors
    /// [`CeremonyError::Rejected`] for an answer that does not verify; [`CeremonyError::Internal`].
    fn finish_factor_registration(
        &self,
        state: &str,
        credential: &serde_json::Value,
    ) -> Result<RegisteredCredential, CeremonyError>;

    /// Starts an assertion with the one credential `public_key` (what a factor registration answered):
    /// its id is the only one allowed.
    ///
    /// # Errors
    /// [`CeremonyError::Internal`] (also when `public_key` does not read).
    fn start_factor_authentication(&self, public_key: &str) -> Result<CeremonyStart, CeremonyError>;

    /// Verifies the browser's `AuthenticationResponseJSON` to [`Self::start_factor_authentication`]
    /// (another credential than the one allowed does not verify).
    ///
    /// # Errors
    /// [`CeremonyError::Rejected`] for an answer that does not verify; [`CeremonyError::Internal`].
    fn finish_factor_authentication(
        &self,
        state: &str,
        credential: &serde_json::Value,
    ) -> Result<VerifiedAssertion, CeremonyError>;
}
