//! The two WebAuthn ceremonies: registering a passkey on a signed-in account, and signing in with one.

use chrono::Duration;
use uuid::Uuid;

use super::{
    CHALLENGE_TTL_SECS, CeremonyKind, CeremonyOptions, MAX_PASSKEYS, Passkey, PasskeyService,
    WebAuthnChallenge, ceremony_error,
};
use crate::common::RepoError;
use crate::identity::assurance::Action;
use crate::identity::attempts::Guarded;
use crate::identity::errors::IdentityError;
use crate::identity::models::{Account, AuthMethod, SecondFactorMethod, SecondStep};
use crate::identity::rate_limit::AuthAction;
use crate::identity::sessions::Session;
use crate::identity::sessions::tokens::AccessTokenClaims;
use crate::mail::templates::SecurityChange;

/// A passkey sign-in's answer, identified (not yet verified): the passkey it names and its account.
#[derive(Debug, Clone)]
pub struct PasskeyClaim {
    pub passkey: Passkey,
    pub account: Account,
}

impl PasskeyService {
    /// `POST /passkeys/registration/options`: the options of a new discoverable credential for the
    /// signed-in account, and the challenge that verifies the browser's answer.
    ///
    /// # Errors
    /// [`IdentityError::TooManyPasskeys`]; [`IdentityError::Aal2RequiredForPasskeys`] when the account has
    /// a passkey or a verified factor and the session is `aal1`; [`IdentityError::UserNotFound`]; a port
    /// failure.
    pub async fn registration_options(
        &self,
        claims: &AccessTokenClaims,
    ) -> Result<CeremonyOptions, IdentityError> {
        let account = self.account(claims).await?;
        let existing = self.may_register(claims).await?;
        let exclude: Vec<String> = existing.into_iter().map(|p| p.credential_id).collect();
        let start = self
            .ceremony
            .start_registration(account.id, account.email.as_str(), &exclude)
            .map_err(ceremony_error)?;
        self.keep(Some(account), CeremonyKind::Registration, start).await
    }

    /// `POST /passkeys/registration/verify`: verifies the browser's answer to the challenge and stores
    /// the passkey (named "Passkey" until renamed); the owner is told.
    ///
    /// # Errors
    /// [`IdentityError::WebAuthnChallengeNotFound`] (unknown, another account's, or used);
    /// [`IdentityError::WebAuthnChallengeExpired`]; [`IdentityError::WebAuthnVerificationFailed`];
    /// [`IdentityError::WebAuthnCredentialExists`]; as [`Self::registration_options`].
    pub async fn registration_verify(
        &self,
        claims: &AccessTokenClaims,
        challenge_id: Uuid,
        credential: &serde_json::Value,
    ) -> Result<Passkey, IdentityError> {
        let challenge = self
            .passkeys
            .take_challenge(challenge_id, CeremonyKind::Registration, Some(claims.sub))
            .await?
            .ok_or(IdentityError::WebAuthnChallengeNotFound)?;
        let now = self.identity.now();
        if now >= challenge.expires_at() {
            return Err(IdentityError::WebAuthnChallengeExpired);
        }
        let registered = self
            .ceremony
            .finish_registration(&challenge.state, credential)
            .map_err(ceremony_error)?;
        self.may_register(claims).await?;
        let account = self.account(claims).await?;
        let passkey = Passkey {
            id: Uuid::new_v4(),
            user_id: account.id,
            credential_id: registered.credential_id,
            public_key: registered.public_key,
            sign_count: i64::from(registered.sign_count),
            friendly_name: Some("Passkey".to_owned()),
            created_at: now,
            last_used_at: None,
        };
        let notice = self.identity.security_notice(
            &account.email,
            SecurityChange::PasskeyAdded(passkey.display_name()),
            now,
        );
        match self.passkeys.insert(&passkey, &notice, now).await {
            Ok(()) => Ok(passkey),
            Err(RepoError::Duplicate(_)) => Err(IdentityError::WebAuthnCredentialExists),
            Err(RepoError::Conflict(what)) if what == super::CONFLICT_TOO_MANY_PASSKEYS => {
                Err(IdentityError::TooManyPasskeys)
            }
            Err(other) => Err(other.into()),
        }
    }

    /// The account's passkeys, when it may add one: fewer than [`MAX_PASSKEYS`], and what the assurance
    /// rule asks of a session that adds a way in.
    async fn may_register(&self, claims: &AccessTokenClaims) -> Result<Vec<Passkey>, IdentityError> {
        let existing = self.passkeys.list_for_user(claims.sub).await?;
        if existing.len() >= MAX_PASSKEYS {
            return Err(IdentityError::TooManyPasskeys);
        }
        self.identity
            .require(
                claims,
                Action::AddWayIn,
                false,
                IdentityError::Aal2RequiredForPasskeys,
            )
            .await?;
        Ok(existing)
    }

    /// `POST /passkeys/authentication/options`: the options of a sign-in with any discoverable
    /// credential, and the challenge that verifies the browser's answer.
    ///
    /// # Errors
    /// [`IdentityError::RateLimited`] past the sign-in volume of `client`; a port failure.
    pub async fn authentication_options(&self, client: &str) -> Result<CeremonyOptions, IdentityError> {
        self.limits.admit(AuthAction::SignIn, client, None).await?;
        let start = self.ceremony.start_authentication().map_err(ceremony_error)?;
        // Anyone may ask for these options: the ceremonies nobody finished go here, not in a job.
        self.passkeys.prune_challenges(self.identity.now()).await?;
        self.keep(None, CeremonyKind::Authentication, start).await
    }

    /// The first half of `POST /passkeys/authentication/verify`: the passkey and account the answer
    /// names (so that the caller can apply the account's sign-in limits before anything is verified).
    ///
    /// # Errors
    /// [`IdentityError::WebAuthnVerificationFailed`] for a malformed answer, an unknown credential, or a
    /// user handle that is not the passkey's account; [`IdentityError::RateLimited`] past the sign-in
    /// volume of `client`; a port failure.
    pub async fn identify(
        &self,
        client: &str,
        credential: &serde_json::Value,
    ) -> Result<PasskeyClaim, IdentityError> {
        self.limits.admit(AuthAction::SignIn, client, None).await?;
        let claim = self.ceremony.claim(credential).map_err(ceremony_error)?;
        let passkey = self
            .passkeys
            .find_by_credential(&claim.credential_id)
            .await?
            .ok_or(IdentityError::WebAuthnVerificationFailed)?;
        if claim.user.is_some_and(|user| user != passkey.user_id) {
            return Err(IdentityError::WebAuthnVerificationFailed);
        }
        let account = self
            .identity
            .accounts
            .get(passkey.user_id)
            .await?
            .ok_or(IdentityError::WebAuthnVerificationFailed)?;
        Ok(PasskeyClaim { passkey, account })
    }

    /// The second half of `POST /passkeys/authentication/verify`: takes the challenge, verifies the
    /// answer with the passkey's public key and its signature counter, and starts a session at `aal2`.
    ///
    /// # Errors
    /// [`IdentityError::WebAuthnChallengeNotFound`] (unknown or used);
    /// [`IdentityError::WebAuthnChallengeExpired`]; [`IdentityError::WebAuthnVerificationFailed`] (a
    /// signature that does not verify, a counter that did not grow, a sign-in that lost a race);
    /// [`IdentityError::EmailNotConfirmed`]; a port failure.
    pub async fn sign_in(
        &self,
        _guarded: Guarded,
        challenge_id: Uuid,
        credential: &serde_json::Value,
        claim: PasskeyClaim,
    ) -> Result<Session, IdentityError> {
        let challenge = self
            .passkeys
            .take_challenge(challenge_id, CeremonyKind::Authentication, None)
            .await?
            .ok_or(IdentityError::WebAuthnChallengeNotFound)?;
        let now = self.identity.now();
        if now >= challenge.expires_at() {
            return Err(IdentityError::WebAuthnChallengeExpired);
        }
        let PasskeyClaim { passkey, account } = claim;
        let verified = self
            .ceremony
            .finish_authentication(&challenge.state, credential, &passkey.public_key)
            .map_err(ceremony_error)?;
        if !passkey.sign_count_follows(verified.sign_count) {
            return Err(IdentityError::WebAuthnVerificationFailed);
        }
        if !account.is_confirmed() {
            return Err(IdentityError::EmailNotConfirmed);
        }
        if !self
            .passkeys
            .record_use(
                passkey.id,
                passkey.sign_count,
                i64::from(verified.sign_count),
                now,
            )
            .await?
        {
            return Err(IdentityError::WebAuthnVerificationFailed);
        }
        let step = SecondStep {
            method: SecondFactorMethod::Passkey,
            factor_id: Some(passkey.id),
            at: now,
        };
        self.identity
            .start_session_with(account, AuthMethod::Passkey, Some(step))
            .await
    }

    async fn keep(
        &self,
        account: Option<Account>,
        kind: CeremonyKind,
        start: crate::identity::ports::CeremonyStart,
    ) -> Result<CeremonyOptions, IdentityError> {
        let now = self.identity.now();
        let challenge = WebAuthnChallenge {
            id: Uuid::new_v4(),
            user_id: account.map(|a| a.id),
            kind,
            state: start.state,
            created_at: now,
        };
        self.passkeys.insert_challenge(&challenge).await?;
        Ok(CeremonyOptions {
            challenge_id: challenge.id,
            options: start.options,
            expires_at: now + Duration::seconds(CHALLENGE_TTL_SECS),
        })
    }
}
