//! `POST /factors/{id}/verify`: a TOTP code checked against its challenge, and a right answer raising the
//! session to `aal2` (shared with `webauthn` factors).

use uuid::Uuid;

use super::FactorService;
use super::totp::TotpSecret;
use super::{Factor, FactorAnswer, FactorChallenge, FactorType, FactorUse};
use crate::common::secrets::digest_secret;
use crate::common::{FieldErrors, RepoError};
use crate::identity::attempts::Guarded;
use crate::identity::errors::IdentityError;
use crate::identity::models::{SecondFactorMethod, SecondStep};
use crate::identity::sessions::Session;
use crate::identity::sessions::tokens::AccessTokenClaims;
use crate::mail::templates::SecurityChange;

impl FactorService {
    /// `POST /factors/{id}/verify`: checks the answer (a TOTP code, or a `webauthn` factor's ceremony)
    /// against the challenge and, when right, verifies the factor and answers a new token pair of the
    /// same session at `aal2`.
    ///
    /// # Errors
    /// [`IdentityError::FactorNotFound`]; [`IdentityError::Validation`] for an answer of another kind than
    /// the factor; [`IdentityError::ChallengeNotFound`];
    /// [`IdentityError::ChallengeIpMismatch`] (also for a challenge already verified);
    /// [`IdentityError::ChallengeExpired`]; [`IdentityError::TotpCodeInvalid`] for a wrong code or one
    /// already used; [`IdentityError::SessionNotFound`] when the session ended; for a `webauthn` factor as
    /// [`Self::verify_webauthn_factor`]; a port failure.
    pub async fn verify_factor(
        &self,
        _guarded: Guarded,
        claims: &AccessTokenClaims,
        factor_id: Uuid,
        challenge_id: Uuid,
        answer: FactorAnswer<'_>,
        ip: &str,
    ) -> Result<Session, IdentityError> {
        let factor = self.owned_factor(claims, factor_id).await?;
        self.may_answer(claims, &factor).await?;
        // Inside the attempt, before the answer is checked: a session that ended meanwhile (the answer
        // that reached the account's ceiling ended it, or a sign-out everywhere) has its answers refused
        // unchecked, so that they cannot go on guessing with the units they reserved.
        self.session_still_live(claims).await?;
        let code = match (factor.factor_type, answer) {
            (FactorType::Totp, FactorAnswer::Code(code)) => code,
            (FactorType::WebAuthn, FactorAnswer::WebAuthn(answer)) => {
                return self
                    .verify_webauthn_factor(claims, factor, challenge_id, answer, ip)
                    .await;
            }
            (FactorType::Totp, FactorAnswer::WebAuthn(_)) => {
                return Err(IdentityError::Validation(FieldErrors::single(
                    "code",
                    "Code needs to be non-empty",
                )));
            }
            (FactorType::WebAuthn, FactorAnswer::Code(_)) => {
                return Err(IdentityError::Validation(FieldErrors::single(
                    "webauthn",
                    "WebAuthn config required",
                )));
            }
            (FactorType::RecoveryCode, _) => return Err(IdentityError::RecoveryCodesNotChallenged),
        };
        let now = self.issuer.now();
        let challenge = self.live_challenge(&factor, challenge_id, ip, now).await?;
        let secret = TotpSecret::open(&self.digest_key, factor.id, &factor.sealed_secret)
            .map_err(|error| IdentityError::Repo(RepoError::backend("opening a factor's secret", error)))?;
        let Some(step) = secret.matching_step(code, now.timestamp()) else {
            return Err(IdentityError::TotpCodeInvalid);
        };
        if factor.last_used_step.is_some_and(|last| step <= last) {
            return Err(IdentityError::TotpCodeInvalid);
        }
        self.pass_second_factor(
            claims,
            &factor,
            &challenge,
            FactorUse::TotpStep(step),
            SecondFactorMethod::Totp,
            IdentityError::TotpCodeInvalid,
        )
        .await
    }

    /// A right answer to `challenge`: takes it and `used` in one compare-and-set (`lost` when another
    /// verification took them first), raises the session to `aal2` by `method`, and, for a new factor,
    /// tells the owner and ends the account's other `aal1` sessions.
    ///
    /// # Errors
    /// `lost`; [`IdentityError::SessionNotFound`] when the session ended; a port failure.
    pub(super) async fn pass_second_factor(
        &self,
        claims: &AccessTokenClaims,
        factor: &Factor,
        challenge: &FactorChallenge,
        used: FactorUse,
        method: SecondFactorMethod,
        lost: IdentityError,
    ) -> Result<Session, IdentityError> {
        let now = self.issuer.now();
        let head = self.session_still_live(claims).await?;
        let account = self.issuer.account(claims.sub).await?;
        // Confirming a new factor changes how the account signs in: its owner is told.
        let notice = (!factor.is_verified()).then(|| {
            self.issuer.security_notice(
                &account.email,
                SecurityChange::FactorAdded(factor.display_name()),
                now,
            )
        });
        // The step (or credential, or counter) and the challenge are taken in one compare-and-set: a second
        // verification of the same code (or challenge) racing this one finds them used.
        if !self
            .factors
            .complete_verification(factor.id, challenge.id, used, now, notice)
            .await?
        {
            return Err(lost);
        }
        let refresh_secret = self
            .secrets
            .token_hex(crate::identity::models::OPAQUE_TOKEN_BYTES);
        let raised = head.raised(
            digest_secret(&refresh_secret),
            SecondStep {
                method,
                factor_id: Some(factor.id),
                at: now,
            },
            now,
        );
        match self.refresh_tokens.rotate(&head.token_hash, &raised, now).await {
            Ok(()) => {}
            Err(RepoError::Conflict(_) | RepoError::NotFound) => return Err(IdentityError::SessionNotFound),
            Err(other) => return Err(other.into()),
        }
        if !factor.is_verified() {
            // A new factor: whoever signed in with the password alone keeps no session.
            self.session_list
                .end_aal1_sessions(claims.sub, Some(claims.session_id), now, None)
                .await?;
        }
        let user = self.issuer.user_record(account).await?;
        self.issuer.session_for(user, &raised, refresh_secret).await
    }
}
