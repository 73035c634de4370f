//! A second factor and its challenges, as stored, and what enrolling one asks for and answers.

use crate::common::code_enum;
use chrono::{DateTime, Duration, Utc};
use uuid::Uuid;

use crate::common::UserId;

/// How long a challenge may be verified (Supabase Auth's default).
pub const CHALLENGE_TTL_SECS: i64 = 300;

code_enum! {
    /// The kind of a factor. TOTP, a WebAuthn credential (a security key or a platform authenticator, Supabase's
    /// `webauthn` factor), and the account's set of recovery codes (Supabase's `recovery_code` factor: verified
    /// from the start, never challenged; its codes are in the
    /// [`RecoveryCodeRepository`](crate::identity::ports::RecoveryCodeRepository)).
    pub enum FactorType: "The kind of a factor: TOTP, a WebAuthn credential, or the account\'s set of recovery codes." {
        Totp => "totp",
        RecoveryCode => "recovery_code",
        WebAuthn => "webauthn",
    }
}

code_enum! {
    /// Whether a code of the factor was ever verified.
    pub enum FactorStatus: "Whether a code of the factor was ever verified." {
        Unverified => "unverified",
        Verified => "verified",
    }
}

/// How long an unverified factor that was never challenged waits for its first challenge (time to scan
/// a QR code and type the first code).
pub const ENROLLMENT_WINDOW_SECS: i64 = 15 * 60;

/// A second factor of an account.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Factor {
    pub id: Uuid,
    pub user_id: UserId,
    pub factor_type: FactorType,
    pub status: FactorStatus,
    pub friendly_name: Option<String>,
    /// The TOTP secret, sealed ([`TotpSecret::seal`](super::totp::TotpSecret::seal)); empty for other
    /// kinds.
    pub sealed_secret: String,
    /// The TOTP step of the last code verified; a code of this step or an earlier one is refused.
    pub last_used_step: Option<i64>,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
    pub last_challenged_at: Option<DateTime<Utc>>,
    /// The credential of a verified `webauthn` factor (`None` until its registration is verified).
    pub webauthn: Option<WebAuthnCredential>,
}

/// The WebAuthn credential of a `webauthn` factor.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WebAuthnCredential {
    /// The credential id, base64url without padding.
    pub credential_id: String,
    /// What the ceremony needs to verify an assertion (the public key), opaque to the domain.
    pub public_key: String,
    /// The authenticator's signature counter as last seen (0 when it keeps none).
    pub sign_count: i64,
}

impl WebAuthnCredential {
    /// Whether an authenticator's counter `presented` may follow the stored one (WebAuthn §6.1.1), as for a
    /// passkey: it must grow, unless the authenticator keeps no counter (both zero).
    #[must_use]
    pub fn sign_count_follows(&self, presented: u32) -> bool {
        let presented = i64::from(presented);
        (presented == 0 && self.sign_count == 0) || presented > self.sign_count
    }
}

impl Factor {
    #[must_use]
    pub fn is_verified(&self) -> bool {
        self.status == FactorStatus::Verified
    }

    /// Whether an unverified factor was left unfinished at `now`: its last challenge expired (a factor
    /// never challenged has [`ENROLLMENT_WINDOW_SECS`] from its enrollment to be challenged). Nobody may
    /// finish it any more; it is removed.
    #[must_use]
    pub fn is_abandoned(&self, now: DateTime<Utc>) -> bool {
        if self.is_verified() {
            return false;
        }
        match self.last_challenged_at {
            Some(at) => now >= at + chrono::Duration::seconds(CHALLENGE_TTL_SECS),
            None => now >= self.created_at + chrono::Duration::seconds(ENROLLMENT_WINDOW_SECS),
        }
    }

    /// Its name as the owner gave it, else what it is.
    #[must_use]
    pub fn display_name(&self) -> &str {
        match self.friendly_name.as_deref().map(str::trim) {
            Some(name) if !name.is_empty() => name,
            _ if self.factor_type == FactorType::RecoveryCode => "Recovery codes",
            _ if self.factor_type == FactorType::WebAuthn => "Security key",
            _ => "Authenticator app",
        }
    }
}

/// A challenge of a factor: what a verification answers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FactorChallenge {
    pub id: Uuid,
    pub factor_id: Uuid,
    pub created_at: DateTime<Utc>,
    pub verified_at: Option<DateTime<Utc>>,
    /// The client address that asked for it (the verification must come from the same one).
    pub ip_address: String,
    /// The WebAuthn ceremony of a `webauthn` factor's challenge (`None` for TOTP).
    pub webauthn: Option<FactorCeremony>,
}

code_enum! {
    /// Which WebAuthn ceremony a challenge of a `webauthn` factor started (Supabase's `webauthn.type`).
    pub enum FactorCeremonyKind: "Which WebAuthn ceremony a challenge of a `webauthn` factor started (Supabase's `webauthn.type`)." {
        /// Registering the factor's credential (an unverified factor): `navigator.credentials.create`.
        Create => "create",
        /// Asserting with it (a verified factor): `navigator.credentials.get`.
        Request => "request",
    }
}

/// A WebAuthn ceremony kept with its challenge until it is verified (once, within the challenge's life).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FactorCeremony {
    pub kind: FactorCeremonyKind,
    /// The ceremony's state, opaque to the domain.
    pub state: String,
}

/// What a right answer to a challenge takes, in the verification's compare-and-set.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FactorUse {
    /// A TOTP code of this step: taken only if the factor's last step used is lower (or unset).
    TotpStep(i64),
    /// A registration: the credential is stored only if the factor holds none yet.
    WebAuthnRegistered(WebAuthnCredential),
    /// An assertion: the signature counter moves from `old` to `new` only if it is still `old`.
    WebAuthnAsserted { old: i64, new: i64 },
}

impl FactorChallenge {
    #[must_use]
    pub fn expires_at(&self) -> DateTime<Utc> {
        self.created_at + Duration::seconds(CHALLENGE_TTL_SECS)
    }
}

/// A new factor, as `POST /factors` answers it.
#[derive(Debug)]
pub enum Enrollment {
    Totp(TotpEnrollment),
    /// A `webauthn` factor: its credential comes with its first challenge (`create`).
    WebAuthn(Factor),
}

impl Enrollment {
    #[must_use]
    pub const fn factor(&self) -> &Factor {
        match self {
            Self::Totp(totp) => &totp.factor,
            Self::WebAuthn(factor) => factor,
        }
    }
}

/// A new TOTP factor and its secret, answered once.
#[derive(Debug)]
pub struct TotpEnrollment {
    pub factor: Factor,
    /// The secret, base32 (to type into an app).
    pub secret: String,
    /// The `otpauth://totp/…` URI (what the QR code holds).
    pub uri: String,
}

/// What `POST /factors` asks for.
#[derive(Debug, Clone, Copy)]
pub struct EnrollRequest<'a> {
    pub factor_type: &'a str,
    pub friendly_name: Option<&'a str>,
    pub issuer: Option<&'a str>,
}
