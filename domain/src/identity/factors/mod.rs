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

mod models;
pub mod recovery;
mod reset;
pub mod totp;

pub use models::{EnrollRequest, Factor, FactorChallenge, FactorStatus, FactorType, TotpEnrollment};
pub use recovery::{RecoveryCodeSet, RecoveryCodesStatus};
pub use reset::{FactorResetError, ResetNotice, operator_reset};

use uuid::Uuid;

use crate::common::secrets::digest_secret;
use crate::common::{FieldErrors, RepoError, UserId};
use crate::identity::errors::IdentityError;
use crate::identity::models::{Aal, SecondFactorMethod, SecondStep};
use crate::identity::sessions::tokens::AccessTokenClaims;
use crate::identity::sessions::{IdentityService, Session};
use crate::mail::templates::SecurityChange;
use totp::{NONCE_BYTES, SECRET_BYTES, TotpSecret};

/// How many factors (verified or not) an account may hold (Supabase Auth's default).
pub const MAX_FACTORS: usize = 10;
/// How long a challenge may be verified (Supabase Auth's default).
pub const CHALLENGE_TTL_SECS: i64 = 300;
/// The longest friendly name kept.
pub const MAX_FRIENDLY_NAME_CHARS: usize = 100;

impl IdentityService {
    /// The factors of an account (for `GET /user`'s `factors`).
    pub(in crate::identity) async fn factors_of(&self, user: UserId) -> Result<Vec<Factor>, IdentityError> {
        Ok(self.factors.list_for_user(user).await?)
    }

    /// `POST /factors`: enrolls a TOTP factor (unverified until a code of it is verified).
    ///
    /// # Errors
    /// [`IdentityError::Validation`] (`factor_type`, `friendly_name`, `issuer`);
    /// [`IdentityError::FactorTypeNotEnabled`] for `phone` or `webauthn`;
    /// [`IdentityError::FactorNameConflict`]; [`IdentityError::TooManyFactors`];
    /// [`IdentityError::Aal2RequiredToEnroll`] when the account has a verified factor and the session is
    /// `aal1`; [`IdentityError::UserNotFound`]; a port failure.
    pub async fn enroll_factor(
        &self,
        claims: &AccessTokenClaims,
        request: EnrollRequest<'_>,
    ) -> Result<TotpEnrollment, IdentityError> {
        let factor_type = match request.factor_type {
            "totp" => FactorType::Totp,
            "phone" => return Err(IdentityError::FactorTypeNotEnabled("phone")),
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
        let account = self
            .accounts
            .get(claims.sub)
            .await?
            .ok_or(IdentityError::UserNotFound)?;
        let existing = self.factors.list_for_user(account.id).await?;
        if let Some(name) = friendly_name
            && existing.iter().any(|f| f.friendly_name.as_deref() == Some(name))
        {
            return Err(IdentityError::FactorNameConflict(name.to_owned()));
        }
        if existing.len() >= MAX_FACTORS {
            return Err(IdentityError::TooManyFactors);
        }
        if existing.iter().any(Factor::is_verified) && session_aal(claims) < Aal::Aal2 {
            return Err(IdentityError::Aal2RequiredToEnroll);
        }
        let issuer = match request.issuer.map(str::trim).filter(|i| !i.is_empty()) {
            Some(issuer) => issuer.to_owned(),
            None => url::Url::parse(&self.config.public_url)
                .ok()
                .and_then(|u| u.host_str().map(str::to_owned))
                .unwrap_or_else(|| "devportal".to_owned()),
        };
        let now = self.clock.now();
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
        };
        self.factors.insert(&factor).await?;
        Ok(TotpEnrollment {
            factor,
            secret: secret.base32(),
            uri,
        })
    }

    /// `POST /factors/{id}/challenge`, from the client address `ip`.
    ///
    /// # Errors
    /// [`IdentityError::FactorNotFound`] unless the factor is the account's; a port failure.
    pub async fn challenge_factor(
        &self,
        claims: &AccessTokenClaims,
        factor_id: Uuid,
        ip: &str,
    ) -> Result<(Factor, FactorChallenge), IdentityError> {
        let factor = self.owned_factor(claims, factor_id).await?;
        if factor.factor_type != FactorType::Totp {
            return Err(IdentityError::RecoveryCodesNotChallenged);
        }
        let challenge = FactorChallenge {
            id: Uuid::new_v4(),
            factor_id: factor.id,
            created_at: self.clock.now(),
            verified_at: None,
            ip_address: ip.to_owned(),
        };
        self.factors.insert_challenge(&challenge).await?;
        Ok((factor, challenge))
    }

    /// `POST /factors/{id}/verify`: checks `code` against the challenge and, when right, verifies the
    /// factor and answers a new token pair of the same session at `aal2`.
    ///
    /// # Errors
    /// [`IdentityError::FactorNotFound`]; [`IdentityError::ChallengeNotFound`];
    /// [`IdentityError::ChallengeIpMismatch`] (also for a challenge already verified);
    /// [`IdentityError::ChallengeExpired`]; [`IdentityError::TotpCodeInvalid`] for a wrong code or one
    /// already used; [`IdentityError::SessionNotFound`] when the session ended; a port failure.
    pub async fn verify_factor(
        &self,
        claims: &AccessTokenClaims,
        factor_id: Uuid,
        challenge_id: Uuid,
        code: &str,
        ip: &str,
    ) -> Result<Session, IdentityError> {
        let factor = self.owned_factor(claims, factor_id).await?;
        if factor.factor_type != FactorType::Totp {
            return Err(IdentityError::RecoveryCodesNotChallenged);
        }
        let challenge = self
            .factors
            .find_challenge(factor.id, challenge_id)
            .await?
            .ok_or(IdentityError::ChallengeNotFound)?;
        if challenge.verified_at.is_some() || challenge.ip_address != ip {
            return Err(IdentityError::ChallengeIpMismatch);
        }
        let now = self.clock.now();
        if now >= challenge.expires_at() {
            self.factors.delete_challenge(challenge.id).await?;
            return Err(IdentityError::ChallengeExpired(challenge.id));
        }
        let secret = TotpSecret::open(&self.digest_key, factor.id, &factor.sealed_secret)
            .map_err(|error| IdentityError::Repo(RepoError::backend("opening a factor's secret", error)))?;
        let Some(step) = secret.matching_step(code, now.timestamp()) else {
            return Err(IdentityError::TotpCodeInvalid);
        };
        if factor.last_used_step.is_some_and(|last| step <= last) {
            return Err(IdentityError::TotpCodeInvalid);
        }
        let Some(head) = self.refresh_tokens.current_of_family(claims.session_id).await? else {
            return Err(IdentityError::SessionNotFound);
        };
        if head.user_id != claims.sub || head.check_usable(now).is_err() {
            return Err(IdentityError::SessionNotFound);
        }
        let account = self
            .accounts
            .get(claims.sub)
            .await?
            .ok_or(IdentityError::UserNotFound)?;
        // Confirming a new factor changes how the account signs in: its owner is told.
        let notice = (!factor.is_verified()).then(|| {
            self.security_notice(
                &account.email,
                SecurityChange::FactorAdded(factor.display_name()),
                now,
            )
        });
        // The step and the challenge are taken in one compare-and-set: a second verification of the
        // same code (or challenge) racing this one finds them used.
        if !self
            .factors
            .complete_verification(factor.id, challenge.id, step, now, notice)
            .await?
        {
            return Err(IdentityError::TotpCodeInvalid);
        }
        let refresh_secret = self
            .secrets
            .token_hex(crate::identity::models::OPAQUE_TOKEN_BYTES);
        let raised = head.raised(
            digest_secret(&refresh_secret),
            SecondStep {
                method: SecondFactorMethod::Totp,
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
                .end_aal1_sessions(claims.sub, claims.session_id, now)
                .await?;
        }
        let user = self.user_record(account).await?;
        self.session_for(user, &raised, refresh_secret).await
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
        if factor.is_verified() && session_aal(claims) < Aal::Aal2 {
            return Err(IdentityError::Aal2RequiredToUnenroll);
        }
        // Removing a confirmed factor changes how the account signs in: its owner is told.
        let now = self.clock.now();
        let notice = if factor.is_verified() {
            let account = self
                .accounts
                .get(claims.sub)
                .await?
                .ok_or(IdentityError::UserNotFound)?;
            let change = SecurityChange::FactorRemoved(factor.display_name());
            Some(self.security_notice(&account.email, change, now))
        } else {
            None
        };
        if !self.factors.delete(claims.sub, factor.id, now, notice).await? {
            return Err(IdentityError::FactorNotFound);
        }
        Ok(factor.id)
    }

    async fn owned_factor(
        &self,
        claims: &AccessTokenClaims,
        factor_id: Uuid,
    ) -> Result<Factor, IdentityError> {
        self.factors
            .find(claims.sub, factor_id)
            .await?
            .ok_or(IdentityError::FactorNotFound)
    }
}

/// The assurance level an access token states (`aal1` for anything else).
#[must_use]
pub fn session_aal(claims: &AccessTokenClaims) -> Aal {
    Aal::parse(&claims.aal).unwrap_or(Aal::Aal1)
}

#[cfg(test)]
mod factor_tests;
