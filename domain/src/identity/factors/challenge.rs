//! `POST /factors/{id}/challenge`: a factor's challenge, and the challenge that may still be answered.

use uuid::Uuid;

use super::FactorService;
use super::{ChallengeStarted, Factor, FactorChallenge, FactorType, RelyingPartyClaim};
use crate::identity::attempts::Guarded;
use crate::identity::errors::IdentityError;
use crate::identity::sessions::tokens::AccessTokenClaims;

impl FactorService {
    /// `POST /factors/{id}/challenge`, from the client address `ip`. A `webauthn` factor's challenge
    /// carries the options of its ceremony ([`webauthn`](super::webauthn)), for the relying party the client names.
    ///
    /// # Errors
    /// [`IdentityError::FactorNotFound`] unless the factor is the account's; for a `webauthn` factor as
    /// [`Self::challenge_webauthn_factor`]; a port failure.
    pub async fn challenge_factor(
        &self,
        _guarded: Guarded,
        claims: &AccessTokenClaims,
        factor_id: Uuid,
        ip: &str,
        relying_party: &RelyingPartyClaim,
    ) -> Result<ChallengeStarted, IdentityError> {
        let factor = self.owned_factor(claims, factor_id).await?;
        self.may_answer(claims, &factor).await?;
        match factor.factor_type {
            FactorType::Totp => {}
            FactorType::WebAuthn => {
                return self
                    .challenge_webauthn_factor(claims, factor, ip, relying_party)
                    .await;
            }
            FactorType::RecoveryCode => return Err(IdentityError::RecoveryCodesNotChallenged),
        }
        let challenge = FactorChallenge {
            id: Uuid::new_v4(),
            factor_id: factor.id,
            created_at: self.issuer.now(),
            verified_at: None,
            ip_address: ip.to_owned(),
            webauthn: None,
        };
        self.factors.insert_challenge(&challenge).await?;
        Ok(ChallengeStarted {
            factor,
            challenge,
            webauthn: None,
        })
    }

    /// The challenge `challenge_id` of `factor`, when it may still be verified from `ip` at `now`.
    ///
    /// # Errors
    /// [`IdentityError::ChallengeNotFound`]; [`IdentityError::ChallengeIpMismatch`] (also for a challenge
    /// already verified); [`IdentityError::ChallengeExpired`] (and the challenge is removed); a port
    /// failure.
    pub(super) async fn live_challenge(
        &self,
        factor: &Factor,
        challenge_id: Uuid,
        ip: &str,
        now: chrono::DateTime<chrono::Utc>,
    ) -> Result<FactorChallenge, IdentityError> {
        let challenge = self
            .factors
            .find_challenge(factor.id, challenge_id)
            .await?
            .ok_or(IdentityError::ChallengeNotFound)?;
        if challenge.verified_at.is_some() || challenge.ip_address != ip {
            return Err(IdentityError::ChallengeIpMismatch);
        }
        if now >= challenge.expires_at() {
            self.factors.delete_challenge(challenge.id).await?;
            return Err(IdentityError::ChallengeExpired(challenge.id));
        }
        Ok(challenge)
    }
}
