//! Second factors (PRODUCT.md §1a): TOTP factors of the built-in identity service, Supabase Auth's MFA API
//! (`POST /factors`, `POST /factors/{id}/challenge`, `POST /factors/{id}/verify`, `DELETE /factors/{id}`).
//!
//! - Enrolling answers the secret once (base32 and an `otpauth://` URI); it is stored sealed
//!   ([`totp`]). The factor stays `unverified` until a code of it is verified.
//! - A challenge lives five minutes and is verified from the client address that asked for it.
//! - Verifying a code (one step of drift either way) raises the session to `aal2`: the session's live
//!   refresh token is rotated into one that carries the second step, so refreshing keeps the level. Each
//!   code works once: the factor keeps the last step used, and a code of that step or an earlier one is
//!   refused.
//! - The first verification of a factor signs out the account's other `aal1` sessions (as Supabase Auth
//!   does on every verification): whoever had only the password keeps no session.
//! - Removing a verified factor needs an `aal2` session; the sessions that passed it drop to `aal1`.
//! - Recovery codes are the `recovery_code` factor ([`recovery`]); it is never challenged.
//! - A `webauthn` factor ([`webauthn`]) is a WebAuthn credential registered by its first challenge
//!   (`create`) and asserted by the next ones (`request`); it needs the server's relying party (passkeys on).
//!
//! The service and what its use cases share are here; enrolling and removing a factor is in `enroll.rs`,
//! a factor's challenge in `challenge.rs`, checking its answer and raising the session in `verify.rs`.

mod challenge;
mod enroll;
mod models;
pub mod recovery;
mod reset;
pub mod totp;
mod verify;
pub mod webauthn;

pub use models::{
    CHALLENGE_TTL_SECS, ENROLLMENT_WINDOW_SECS, EnrollRequest, Enrollment, Factor, FactorCeremony,
    FactorCeremonyKind, FactorChallenge, FactorStatus, FactorType, FactorUse, TotpEnrollment,
    WebAuthnCredential,
};
pub use recovery::{RecoveryCodeSet, RecoveryCodesStatus};
pub use reset::{FactorResetError, ResetNotice, operator_reset};
pub use webauthn::{ChallengeStarted, FactorAnswer, RelyingPartyClaim, WebAuthnAnswer};

use std::sync::Arc;
use uuid::Uuid;

use crate::common::{RepoError, SecretGenerator};
use crate::identity::assurance::Action;
use crate::identity::digests::DigestKey;
use crate::identity::errors::IdentityError;
use crate::identity::ports::{
    FactorRepository, RecoveryCodeRepository, RefreshTokenRepository, SessionListRepository, WebAuthnCeremony,
};
use crate::identity::sessions::SessionIssuer;
use crate::identity::sessions::tokens::AccessTokenClaims;

/// How many factors (verified or not) an account may hold (Supabase Auth's default).
pub const MAX_FACTORS: usize = 10;
/// The [`RepoError::Conflict`] of a store that refused a factor beyond [`MAX_FACTORS`] (counted inside the
/// write that adds it).
pub const CONFLICT_TOO_MANY_FACTORS: &str = "too_many_factors";
/// The longest friendly name kept.
pub const MAX_FRIENDLY_NAME_CHARS: usize = 100;

/// Second factors: TOTP and `webauthn` factors, their challenges and answers, and recovery codes. An answer
/// (and a challenge's start) is checked only inside the attempt guard ([`crate::identity::attempts::Guarded`]).
pub struct FactorService {
    issuer: Arc<SessionIssuer>,
    factors: Arc<dyn FactorRepository>,
    recovery_codes: Arc<dyn RecoveryCodeRepository>,
    refresh_tokens: Arc<dyn RefreshTokenRepository>,
    session_list: Arc<dyn SessionListRepository>,
    secrets: Arc<dyn SecretGenerator>,
    /// The key that seals factor secrets and digests recovery codes (a value from the server secret).
    digest_key: DigestKey,
    /// The WebAuthn ceremonies of `webauthn` factors (`None`: no relying party, the factors are off).
    webauthn: Option<Arc<dyn WebAuthnCeremony>>,
}

/// The ports of [`FactorService`] beside the issuer.
pub struct FactorPorts {
    pub factors: Arc<dyn FactorRepository>,
    pub recovery_codes: Arc<dyn RecoveryCodeRepository>,
    pub refresh_tokens: Arc<dyn RefreshTokenRepository>,
    pub session_list: Arc<dyn SessionListRepository>,
    pub secrets: Arc<dyn SecretGenerator>,
    pub digest_key: DigestKey,
    pub webauthn: Option<Arc<dyn WebAuthnCeremony>>,
}

impl FactorService {
    #[must_use]
    pub fn new(issuer: Arc<SessionIssuer>, ports: FactorPorts) -> Self {
        Self {
            issuer,
            factors: ports.factors,
            recovery_codes: ports.recovery_codes,
            refresh_tokens: ports.refresh_tokens,
            session_list: ports.session_list,
            secrets: ports.secrets,
            digest_key: ports.digest_key,
            webauthn: ports.webauthn,
        }
    }
}

impl FactorService {
    /// Whether the session may answer a challenge of `factor`: always for a verified factor (that is how
    /// a session reaches `aal2`); for an unverified one, answering finishes a new way in, which the
    /// assurance rule decides (a password alone finishes none on a protected account).
    /// The current token of the session of `claims`, while the session is live (that token is usable).
    ///
    /// # Errors
    /// [`IdentityError::SessionNotFound`] when it ended; a port failure.
    async fn session_still_live(
        &self,
        claims: &AccessTokenClaims,
    ) -> Result<crate::identity::models::RefreshToken, IdentityError> {
        let Some(head) = self.refresh_tokens.current_of_family(claims.session_id).await? else {
            return Err(IdentityError::SessionNotFound);
        };
        if head.user_id != claims.sub || head.check_usable(self.issuer.now()).is_err() {
            return Err(IdentityError::SessionNotFound);
        }
        Ok(head)
    }

    async fn may_answer(&self, claims: &AccessTokenClaims, factor: &Factor) -> Result<(), IdentityError> {
        if factor.is_verified() {
            return Ok(());
        }
        self.issuer
            .require(
                claims,
                Action::FinishWayIn,
                false,
                IdentityError::Aal2RequiredToEnroll,
            )
            .await
            .map(drop)
    }

    /// Removes the challenge `challenge` (it took as many wrong answers as it may): a new one is needed.
    ///
    /// # Errors
    /// A port failure.
    pub(in crate::identity) async fn retire_challenge(&self, challenge: Uuid) -> Result<(), IdentityError> {
        Ok(self.factors.delete_challenge(challenge).await?)
    }

    /// One of the account's factors; one left unfinished is removed and not found.
    async fn owned_factor(
        &self,
        claims: &AccessTokenClaims,
        factor_id: Uuid,
    ) -> Result<Factor, IdentityError> {
        let factor = self
            .factors
            .find(claims.sub, factor_id)
            .await?
            .ok_or(IdentityError::FactorNotFound)?;
        let now = self.issuer.now();
        if factor.is_abandoned(now) {
            self.factors.delete(claims.sub, factor.id, now, None).await?;
            return Err(IdentityError::FactorNotFound);
        }
        Ok(factor)
    }
}

/// [`IdentityError::TooManyFactors`] for a store's refusal of a factor beyond [`MAX_FACTORS`] (factors
/// added at once, each counted inside its own write), the port's error otherwise.
pub(in crate::identity) fn beyond_max_factors(error: RepoError) -> IdentityError {
    match error {
        RepoError::Conflict(what) if what == CONFLICT_TOO_MANY_FACTORS => IdentityError::TooManyFactors,
        other => other.into(),
    }
}

#[cfg(test)]
mod factor_tests;
#[cfg(test)]
mod webauthn_tests;
