//! Passkeys (PRODUCT.md §1a): Supabase Auth's passkey API (`/passkeys/registration/options|verify`,
//! `/passkeys/authentication/options|verify`, `GET /passkeys`, `PATCH|DELETE /passkeys/{id}`).
//!
//! - A passkey is a discoverable WebAuthn credential with user verification: it signs its account in on its
//!   own, at `aal2` (`amr` `passkey`), and counts as the account's second factor (an `aal1` session of an
//!   account with a passkey is asked to step up).
//! - The ceremony's state is kept server-side ([`WebAuthnChallenge`]) for five minutes and works once.
//! - A sign-in's signature counter must grow (unless the authenticator keeps none): one that stands still
//!   or goes back is refused as a possible clone.
//! - Adding a passkey to an account that has a second factor, and removing one, need an `aal2` session:
//!   a stolen password alone adds no way in and removes none. Both e-mail the owner, in the change's own
//!   transaction.

mod ceremony;
mod models;

pub use ceremony::PasskeyClaim;
pub use models::{
    CHALLENGE_TTL_SECS, CeremonyKind, CeremonyOptions, MAX_NAME_CHARS, Passkey, WebAuthnChallenge,
    passkey_name,
};

use std::sync::Arc;
use uuid::Uuid;

use crate::common::RepoError;
use crate::identity::assurance::Action;
use crate::identity::errors::IdentityError;
use crate::identity::models::Account;
use crate::identity::ports::{CeremonyError, PasskeyRepository, WebAuthnCeremony};
use crate::identity::rate_limit::VolumeLimits;
use crate::identity::sessions::SessionIssuer;
use crate::identity::sessions::tokens::AccessTokenClaims;
use crate::mail::templates::SecurityChange;

/// How many passkeys an account may hold (Supabase Auth's default).
pub const MAX_PASSKEYS: usize = 10;
/// The [`RepoError::Conflict`](crate::common::RepoError::Conflict) of a store that refused a passkey beyond
/// [`MAX_PASSKEYS`] (counted inside the write that adds it).
pub const CONFLICT_TOO_MANY_PASSKEYS: &str = "too_many_passkeys";

/// The passkey use cases, beside the identity service whose sessions they start.
pub struct PasskeyService {
    identity: Arc<SessionIssuer>,
    passkeys: Arc<dyn PasskeyRepository>,
    ceremony: Arc<dyn WebAuthnCeremony>,
    /// A sign-in's ceremony admits the client's request first.
    limits: VolumeLimits,
}

impl PasskeyService {
    #[must_use]
    pub fn new(
        identity: Arc<SessionIssuer>,
        passkeys: Arc<dyn PasskeyRepository>,
        ceremony: Arc<dyn WebAuthnCeremony>,
        limits: VolumeLimits,
    ) -> Self {
        Self {
            identity,
            passkeys,
            ceremony,
            limits,
        }
    }

    /// `GET /passkeys`: the account's passkeys, oldest first.
    ///
    /// # Errors
    /// A port failure.
    pub async fn list(&self, claims: &AccessTokenClaims) -> Result<Vec<Passkey>, IdentityError> {
        Ok(self.passkeys.list_for_user(claims.sub).await?)
    }

    /// `PATCH /passkeys/{id}`: renames one of the account's passkeys.
    ///
    /// # Errors
    /// [`IdentityError::Validation`] (`friendly_name`); [`IdentityError::PasskeyNotFound`]; a port failure.
    pub async fn rename(
        &self,
        claims: &AccessTokenClaims,
        id: Uuid,
        name: &str,
    ) -> Result<Passkey, IdentityError> {
        // A name is not a way in: the session that just added the passkey names it (Account Security
        // registers, then renames), also when the passkey made the account protected.
        let name = passkey_name(name).map_err(IdentityError::Validation)?;
        self.passkeys
            .rename(claims.sub, id, &name)
            .await?
            .ok_or(IdentityError::PasskeyNotFound)
    }

    /// `DELETE /passkeys/{id}`: removes one of the account's passkeys (from an `aal2` session); the
    /// sessions that signed in or stepped up with it drop to `aal1`; the owner is told.
    ///
    /// # Errors
    /// [`IdentityError::PasskeyNotFound`]; [`IdentityError::Aal2RequiredForPasskeys`]; a port failure.
    pub async fn delete(&self, claims: &AccessTokenClaims, id: Uuid) -> Result<Passkey, IdentityError> {
        let passkey = self
            .passkeys
            .list_for_user(claims.sub)
            .await?
            .into_iter()
            .find(|p| p.id == id)
            .ok_or(IdentityError::PasskeyNotFound)?;
        self.identity
            .require(
                claims,
                Action::RemoveWayIn,
                false,
                IdentityError::Aal2RequiredForPasskeys,
            )
            .await?;
        let account = self.account(claims).await?;
        let now = self.identity.now();
        let notice = self.identity.security_notice(
            &account.email,
            SecurityChange::PasskeyRemoved(passkey.display_name()),
            now,
        );
        if !self.passkeys.delete(claims.sub, id, &notice, now).await? {
            return Err(IdentityError::PasskeyNotFound);
        }
        Ok(passkey)
    }

    async fn account(&self, claims: &AccessTokenClaims) -> Result<Account, IdentityError> {
        self.identity
            .accounts
            .get(claims.sub)
            .await?
            .ok_or(IdentityError::UserNotFound)
    }
}

/// The operator's reset (`app-server factors reset EMAIL`) for a user who lost their passkeys: removes
/// every passkey of the account (its sessions drop to `aal1`), each removal with its notice to the owner.
/// Answers the passkeys removed.
///
/// # Errors
/// A store failure.
pub async fn operator_remove_all(
    passkeys: &dyn PasskeyRepository,
    account: &Account,
    public_url: &str,
    at: chrono::DateTime<chrono::Utc>,
) -> Result<Vec<Passkey>, RepoError> {
    let link = format!("{}/account/security", public_url.trim_end_matches('/'));
    let mut removed = Vec::new();
    for passkey in passkeys.list_for_user(account.id).await? {
        let change = SecurityChange::PasskeyRemoved(passkey.display_name());
        let notice = crate::mail::templates::security_notice(&account.email, change, at, &link);
        if passkeys.delete(account.id, passkey.id, &notice, at).await? {
            removed.push(passkey);
        }
    }
    Ok(removed)
}

/// A ceremony's failure: the browser's answer is refused as Supabase Auth refuses it, the server's own
/// failure is a 500.
fn ceremony_error(error: CeremonyError) -> IdentityError {
    match error {
        CeremonyError::Rejected(_) => IdentityError::WebAuthnVerificationFailed,
        CeremonyError::Internal(reason) => {
            IdentityError::Repo(RepoError::backend("a WebAuthn ceremony", reason))
        }
    }
}

#[cfg(test)]
mod passkey_tests;
