//! `POST /factors` and `DELETE /factors/{id}`: enrolling a TOTP or `webauthn` factor, and removing one.

use uuid::Uuid;

use super::FactorService;
use super::totp::{NONCE_BYTES, SECRET_BYTES, TotpSecret};
use super::{
    EnrollRequest, Enrollment, Factor, FactorStatus, FactorType, MAX_FACTORS, MAX_FRIENDLY_NAME_CHARS,
    TotpEnrollment, beyond_max_factors,
};
use crate::common::FieldErrors;
use crate::identity::assurance::Action;
use crate::identity::errors::IdentityError;
use crate::identity::sessions::tokens::AccessTokenClaims;
use crate::mail::templates::SecurityChange;

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
}
