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

mod models;
pub mod recovery;
mod reset;
pub mod totp;
pub mod webauthn;

pub use models::{
    CHALLENGE_TTL_SECS, ENROLLMENT_WINDOW_SECS, EnrollRequest, Enrollment, Factor, FactorCeremony,
    FactorCeremonyKind, FactorChallenge, FactorStatus, FactorType, FactorUse, TotpEnrollment,
    WebAuthnCredential,
};
pub use recovery::{RecoveryCodeSet, RecoveryCodesStatus};
pub use reset::{FactorResetError, ResetNotice, operator_reset};
pub use webauthn::{ChallengeStarted, FactorAnswer, RelyingPartyClaim, WebAuthnAnswer};

use uuid::Uuid;

use crate::common::secrets::digest_secret;
use crate::common::{FieldErrors, RepoError};
use crate::identity::assurance::Action;
use crate::identity::attempts::Guarded;
use crate::identity::errors::IdentityError;
use crate::identity::models::{SecondFactorMethod, SecondStep};
use crate::identity::sessions::tokens::AccessTokenClaims;
use std::sync::Arc;

use crate::common::SecretGenerator;
use crate::identity::digests::DigestKey;
use crate::identity::ports::{
    FactorRepository, RecoveryCodeRepository, RefreshTokenRepository, SessionListRepository, WebAuthnCeremony,
};
use crate::identity::sessions::{Session, SessionIssuer};
use crate::mail::templates::SecurityChange;
use totp::{NONCE_BYTES, SECRET_BYTES, TotpSecret};

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
    /// `POST /factors`: enrolls a TOTP factor (unverified until a code of it is verified), or a `webauthn`
    /// factor (unverified until its first challenge registers a credential).
    ///
    /// # Errors
    /// [`IdentityError::Validation`] (`factor_type`, `friendly_name`, `issuer`);
    /// [`IdentityError::FactorTypeNotEnabled`] for `phone`, and for `webauthn` without a relying party;
    /// [`IdentityError::FactorNameConflict`]; [`IdentityError::TooManyFactors`];
    /// [`IdentityError::Aal2RequiredToEnroll`] when the account has a verified factor and the session is
    /// `aal1`; [`IdentityError::UserNotFound`]; a port failure.
    pub async fn enroll_factor(
        &self,
        claims: &AccessTokenClaims,
        request: EnrollRequest<'_>,
    ) -> Result<Enrollment, IdentityError> {
        let factor_type = match request.factor_type {
            "totp" => FactorType::Totp,
            "phone" => return Err(IdentityError::FactorTypeNotEnabled("phone")),
            "webauthn" if self.webauthn.is_some() => FactorType::WebAuthn,
            "webauthn" => return Err(IdentityError::FactorTypeNotEnabled("webauthn")),
            _ => {
                return Err(IdentityError::Validation(FieldErrors::single(
                    "factor_type",
                    "factor_type needs to be totp, phone, or webauthn",
                )));
            }
        };
        let friendly_name = request.friendly_name.map(str::trim).filter(|n| !n.is_empty());
        if friendly_name.is_some_and(|n| n.chars().count() > MAX_FRIENDLY_NAME_CHARS) {
            return Err(IdentityError::Validation(FieldErrors::single(
                "friendly_name",
                format!("friendly_name must be at most {MAX_FRIENDLY_NAME_CHARS} characters"),
            )));
        }
        let account = self.issuer.account(claims.sub).await?;
        let existing = self.issuer.factors_of(account.id).await?;
        if let Some(name) = friendly_name
            && existing.iter().any(|f| f.friendly_name.as_deref() == Some(name))
        {
            return Err(IdentityError::FactorNameConflict(name.to_owned()));
        }
        if existing.len() >= MAX_FACTORS {
            return Err(IdentityError::TooManyFactors);
        }
        self.issuer
            .require(
                claims,
                Action::AddWayIn,
                false,
                IdentityError::Aal2RequiredToEnroll,
            )
            .await?;
        let now = self.issuer.now();
        if factor_type == FactorType::WebAuthn {
            let factor = Factor {
                id: Uuid::new_v4(),
                user_id: account.id,
                factor_type,
                status: FactorStatus::Unverified,
                friendly_name: friendly_name.map(str::to_owned),
                sealed_secret: String::new(),
                last_used_step: None,
                created_at: now,
                updated_at: now,
                last_challenged_at: None,
                webauthn: None,
            };
            self.factors.insert(&factor).await.map_err(beyond_max_factors)?;
            return Ok(Enrollment::WebAuthn(factor));
        }
        let issuer = match request.issuer.map(str::trim).filter(|i| !i.is_empty()) {
            Some(issuer) => issuer.to_owned(),
            None => url::Url::parse(&self.issuer.config().public_url)
                .ok()
                .and_then(|u| u.host_str().map(str::to_owned))
                .unwrap_or_else(|| "devportal".to_owned()),
        };
        let secret = TotpSecret::new(self.secrets.random_bytes(SECRET_BYTES));
        let uri = secret
            .uri(&issuer, account.email.as_str())
            .map_err(|error| IdentityError::Validation(FieldErrors::single("issuer", error.to_string())))?;
        let id = Uuid::new_v4();
        let factor = Factor {
            id,
            user_id: account.id,
            factor_type,
            status: FactorStatus::Unverified,
            friendly_name: friendly_name.map(str::to_owned),
            sealed_secret: secret.seal(&self.digest_key, id, &self.secrets.random_bytes(NONCE_BYTES)),
            last_used_step: None,
            created_at: now,
            updated_at: now,
            last_challenged_at: None,
            webauthn: None,
        };
        self.factors.insert(&factor).await.map_err(beyond_max_factors)?;
        Ok(Enrollment::Totp(TotpEnrollment {
            factor,
            secret: secret.base32(),
            uri,
        }))
    }

    /// `POST /factors/{id}/challenge`, from the client address `ip`. A `webauthn` factor's challenge
    /// carries the options of its ceremony ([`webauthn`]), for the relying party the client names.
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

    /// The challenge `challenge_id` of `factor`, when it may still be verified from `ip` at `now`.
    ///
    /// # Errors
    /// [`IdentityError::ChallengeNotFound`]; [`IdentityError::ChallengeIpMismatch`] (also for a challenge
    /// already verified); [`IdentityError::ChallengeExpired`] (and the challenge is removed); a port
    /// failure.
    async fn live_challenge(
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

    /// A right answer to `challenge`: takes it and `used` in one compare-and-set (`lost` when another
    /// verification took them first), raises the session to `aal2` by `method`, and, for a new factor,
    /// tells the owner and ends the account's other `aal1` sessions.
    ///
    /// # Errors
    /// `lost`; [`IdentityError::SessionNotFound`] when the session ended; a port failure.
    async fn pass_second_factor(
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

    /// `DELETE /factors/{id}`: removes the factor; the sessions that passed it drop to `aal1`.
    ///
    /// # Errors
    /// [`IdentityError::FactorNotFound`]; [`IdentityError::Aal2RequiredToUnenroll`] for a verified factor
    /// from an `aal1` session; a port failure.
    pub async fn unenroll_factor(
        &self,
        claims: &AccessTokenClaims,
        factor_id: Uuid,
    ) -> Result<Uuid, IdentityError> {
        let factor = self.owned_factor(claims, factor_id).await?;
        // Also an unfinished one: a password alone does not undo what the owner is adding.
        self.issuer
            .require(
                claims,
                Action::RemoveWayIn,
                false,
                IdentityError::Aal2RequiredToUnenroll,
            )
            .await?;
        // Removing a confirmed factor changes how the account signs in: its owner is told.
        let now = self.issuer.now();
        let notice = if factor.is_verified() {
            let account = self.issuer.account(claims.sub).await?;
            let change = SecurityChange::FactorRemoved(factor.display_name());
            Some(self.issuer.security_notice(&account.email, change, now))
        } else {
            None
        };
        if !self.factors.delete(claims.sub, factor.id, now, notice).await? {
            return Err(IdentityError::FactorNotFound);
        }
        Ok(factor.id)
    }

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
