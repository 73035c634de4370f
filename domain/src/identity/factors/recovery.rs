//! Recovery codes (PRODUCT.md §1a), served as Supabase Auth's `recovery_code` factor (auth-js
//! `mfa.recoveryCodes`): `GET|POST|DELETE /factors/recovery-codes`, `POST /factors/recovery-codes/verify`
//! and `POST /factors/recovery-codes/regenerate`.
//!
//! - An account holds at most one set of [`RECOVERY_CODE_COUNT`] codes, and only next to another verified
//!   factor (recovery codes are never the only factor). Making or remaking a set needs an `aal2` session;
//!   the codes are answered once and stored as keyed digests ([`DigestKey::recovery_code`]).
//! - Remaking a set retires every code of the old one at once; the factor keeps its id and name.
//! - A code works once. Verifying one raises the session to `aal2` as a TOTP challenge does (`amr`
//!   `mfa/recovery_code`), signs out the account's other `aal1` sessions, and e-mails the owner.
//!
//! [`DigestKey::recovery_code`]: crate::identity::digests::DigestKey::recovery_code

use uuid::Uuid;

use super::FactorService;
use super::{Factor, FactorStatus, FactorType, MAX_FACTORS, MAX_FRIENDLY_NAME_CHARS};
use crate::common::secrets::digest_secret;
use crate::common::{FieldErrors, RepoError, UserId};
use crate::identity::assurance::Action;
use crate::identity::attempts::Guarded;
use crate::identity::errors::IdentityError;
use crate::identity::models::{OPAQUE_TOKEN_BYTES, SecondFactorMethod, SecondStep};
use crate::identity::ports::RecoveryCodeCounts;
use crate::identity::sessions::Session;
use crate::identity::sessions::tokens::AccessTokenClaims;
use crate::mail::templates::SecurityChange;

/// How many codes a set holds.
pub const RECOVERY_CODE_COUNT: usize = 10;
/// Characters in a code (5 bits each: 80 bits).
pub const RECOVERY_CODE_CHARS: usize = 16;
/// The name of a set when none is given (Supabase Auth's default).
pub const DEFAULT_RECOVERY_CODES_NAME: &str = "Recovery codes";
/// The alphabet of codes: digits and lowercase letters without `i`, `l`, `o`, `u` (32 symbols).
const ALPHABET: &[u8; 32] = b"0123456789abcdefghjkmnpqrstvwxyz";

/// A new set of codes, answered once.
#[derive(Debug, Clone)]
pub struct RecoveryCodeSet {
    pub factor: Factor,
    /// In canonical form (lowercase, no separators).
    pub codes: Vec<String>,
}

/// The state of an account's set (never its codes).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RecoveryCodesStatus {
    pub factor_id: Uuid,
    pub counts: RecoveryCodeCounts,
}

/// A code from random bytes (one character from the low five bits of each byte: no bias).
#[must_use]
pub fn recovery_code_from(bytes: &[u8]) -> String {
    bytes
        .iter()
        .take(RECOVERY_CODE_CHARS)
        .map(|byte| char::from(ALPHABET[usize::from(byte & 0x1f)]))
        .collect()
}

/// A code as typed, in canonical form: letter case, whitespace and `-` separators are ignored.
#[must_use]
pub fn canonical_recovery_code(typed: &str) -> String {
    typed
        .chars()
        .filter(|c| !c.is_whitespace() && *c != '-')
        .flat_map(char::to_lowercase)
        .collect()
}

impl FactorService {
    /// The account's `recovery_code` factor, if it has one.
    async fn recovery_factor(&self, user: UserId) -> Result<Option<Factor>, IdentityError> {
        Ok(self
            .factors
            .list_for_user(user)
            .await?
            .into_iter()
            .find(|f| f.factor_type == FactorType::RecoveryCode))
    }

    /// `GET /factors/recovery-codes`: how many codes the set holds and how many are unused (any level).
    ///
    /// # Errors
    /// [`IdentityError::FactorNotFound`] when the account has no set; a port failure.
    pub async fn recovery_codes_status(
        &self,
        claims: &AccessTokenClaims,
    ) -> Result<RecoveryCodesStatus, IdentityError> {
        let factor = self
            .recovery_factor(claims.sub)
            .await?
            .ok_or(IdentityError::FactorNotFound)?;
        let counts = self.recovery_codes.counts(factor.id).await?;
        Ok(RecoveryCodesStatus {
            factor_id: factor.id,
            counts,
        })
    }

    /// `POST /factors/recovery-codes`: the account's first set.
    ///
    /// # Errors
    /// [`IdentityError::Aal2RequiredToEnroll`] from an `aal1` session; [`IdentityError::Validation`]
    /// (`friendly_name`); [`IdentityError::FactorNameConflict`]; [`IdentityError::RecoveryCodesExist`];
    /// [`IdentityError::RecoveryCodesSoleFactor`] without another verified factor;
    /// [`IdentityError::TooManyFactors`]; a port failure.
    pub async fn generate_recovery_codes(
        &self,
        claims: &AccessTokenClaims,
        friendly_name: Option<&str>,
    ) -> Result<RecoveryCodeSet, IdentityError> {
        let live = self
            .issuer
            .require(
                claims,
                Action::AddWayIn,
                false,
                IdentityError::Aal2RequiredToEnroll,
            )
            .await?;
        let name = friendly_name
            .map(str::trim)
            .filter(|n| !n.is_empty())
            .unwrap_or(DEFAULT_RECOVERY_CODES_NAME);
        if name.chars().count() > MAX_FRIENDLY_NAME_CHARS {
            return Err(IdentityError::Validation(FieldErrors::single(
                "friendly_name",
                format!("friendly_name must be at most {MAX_FRIENDLY_NAME_CHARS} characters"),
            )));
        }
        let existing = self.factors.list_for_user(claims.sub).await?;
        if existing.iter().any(|f| f.factor_type == FactorType::RecoveryCode) {
            return Err(IdentityError::RecoveryCodesExist);
        }
        if !live.protection.is_protected() {
            return Err(IdentityError::RecoveryCodesSoleFactor);
        }
        if existing.iter().any(|f| f.friendly_name.as_deref() == Some(name)) {
            return Err(IdentityError::FactorNameConflict(name.to_owned()));
        }
        if existing.len() >= MAX_FACTORS {
            return Err(IdentityError::TooManyFactors);
        }
        let now = self.issuer.now();
        let factor = Factor {
            id: Uuid::new_v4(),
            user_id: claims.sub,
            factor_type: FactorType::RecoveryCode,
            status: FactorStatus::Verified,
            friendly_name: Some(name.to_owned()),
            sealed_secret: String::new(),
            webauthn: None,
            last_used_step: None,
            created_at: now,
            updated_at: now,
            last_challenged_at: None,
        };
        match self.store_new_codes(claims, factor, true).await {
            Err(IdentityError::Repo(RepoError::Duplicate(_))) => Err(IdentityError::RecoveryCodesExist),
            Err(IdentityError::Repo(error)) => Err(super::beyond_max_factors(error)),
            other => other,
        }
    }

    /// `POST /factors/recovery-codes/regenerate`: a new set in place of the old one, whose codes stop
    /// working at once.
    ///
    /// # Errors
    /// [`IdentityError::Aal2RequiredToEnroll`] from an `aal1` session; [`IdentityError::FactorNotFound`]
    /// when the account has no set; a port failure.
    pub async fn regenerate_recovery_codes(
        &self,
        claims: &AccessTokenClaims,
    ) -> Result<RecoveryCodeSet, IdentityError> {
        self.issuer
            .require(
                claims,
                Action::AddWayIn,
                false,
                IdentityError::Aal2RequiredToEnroll,
            )
            .await?;
        let factor = self
            .recovery_factor(claims.sub)
            .await?
            .ok_or(IdentityError::FactorNotFound)?;
        match self.store_new_codes(claims, factor, false).await {
            Err(IdentityError::Repo(RepoError::NotFound)) => Err(IdentityError::FactorNotFound),
            other => other,
        }
    }

    async fn store_new_codes(
        &self,
        claims: &AccessTokenClaims,
        factor: Factor,
        create: bool,
    ) -> Result<RecoveryCodeSet, IdentityError> {
        let now = self.issuer.now();
        let codes: Vec<String> = (0..RECOVERY_CODE_COUNT)
            .map(|_| recovery_code_from(&self.secrets.random_bytes(RECOVERY_CODE_CHARS)))
            .collect();
        let hashes: Vec<String> = codes
            .iter()
            .map(|code| self.digest_key.recovery_code(factor.id, code))
            .collect();
        let notice = self
            .issuer
            .security_notice(&claims.email, SecurityChange::RecoveryCodesGenerated, now);
        self.recovery_codes
            .replace(&factor, create, &hashes, now, Some(notice))
            .await?;
        Ok(RecoveryCodeSet { factor, codes })
    }

    /// `POST /factors/recovery-codes/verify`: a right, unused code is spent and the session raised to
    /// `aal2` (a new token pair of the same session); the account's other `aal1` sessions end.
    ///
    /// # Errors
    /// [`IdentityError::FactorNotFound`] when the account has no set; [`IdentityError::RecoveryCodeInvalid`]
    /// for a wrong or used code; [`IdentityError::SessionNotFound`] when the session ended; a port failure.
    pub async fn verify_recovery_code(
        &self,
        _guarded: Guarded,
        claims: &AccessTokenClaims,
        typed: &str,
    ) -> Result<Session, IdentityError> {
        let factor = self
            .recovery_factor(claims.sub)
            .await?
            .ok_or(IdentityError::FactorNotFound)?;
        let code = canonical_recovery_code(typed);
        if code.chars().count() != RECOVERY_CODE_CHARS {
            return Err(IdentityError::RecoveryCodeInvalid);
        }
        let now = self.issuer.now();
        let Some(head) = self.refresh_tokens.current_of_family(claims.session_id).await? else {
            return Err(IdentityError::SessionNotFound);
        };
        if head.user_id != claims.sub || head.check_usable(now).is_err() {
            return Err(IdentityError::SessionNotFound);
        }
        let account = self.issuer.account(claims.sub).await?;
        let counts = self.recovery_codes.counts(factor.id).await?;
        let notice = self.issuer.security_notice(
            &account.email,
            SecurityChange::RecoveryCodeUsed {
                remaining: counts.remaining.saturating_sub(1),
            },
            now,
        );
        let hash = self.digest_key.recovery_code(factor.id, &code);
        if !self
            .recovery_codes
            .use_code(factor.id, &hash, now, Some(notice))
            .await?
        {
            return Err(IdentityError::RecoveryCodeInvalid);
        }
        let refresh_secret = self.secrets.token_hex(OPAQUE_TOKEN_BYTES);
        let raised = head.raised(
            digest_secret(&refresh_secret),
            SecondStep {
                method: SecondFactorMethod::RecoveryCode,
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
        // Whoever reached aal1 with the password alone keeps no session (as Supabase Auth does).
        self.session_list
            .end_aal1_sessions(claims.sub, Some(claims.session_id), now, None)
            .await?;
        let user = self.issuer.user_record(account).await?;
        self.issuer.session_for(user, &raised, refresh_secret).await
    }

    /// `DELETE /factors/recovery-codes`: removes the set (as `DELETE /factors/{id}` of it).
    ///
    /// # Errors
    /// [`IdentityError::FactorNotFound`] when the account has no set;
    /// [`IdentityError::Aal2RequiredToUnenroll`] from an `aal1` session; a port failure.
    pub async fn unenroll_recovery_codes(&self, claims: &AccessTokenClaims) -> Result<Uuid, IdentityError> {
        let factor = self
            .recovery_factor(claims.sub)
            .await?
            .ok_or(IdentityError::FactorNotFound)?;
        self.unenroll_factor(claims, factor.id).await
    }
}

#[cfg(test)]
#[path = "recovery_tests.rs"]
mod tests;
