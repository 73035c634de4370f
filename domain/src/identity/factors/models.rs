//! A second factor and its challenges, as stored, and what enrolling one asks for and answers.

use chrono::{DateTime, Duration, Utc};
use uuid::Uuid;

use super::CHALLENGE_TTL_SECS;
use crate::common::UserId;

/// The kind of a factor. TOTP, and the account's set of recovery codes (Supabase's `recovery_code` factor:
/// verified from the start, never challenged; its codes are in the
/// [`RecoveryCodeRepository`](crate::identity::ports::RecoveryCodeRepository)).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FactorType {
    Totp,
    RecoveryCode,
}

impl FactorType {
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Totp => "totp",
            Self::RecoveryCode => "recovery_code",
        }
    }

    #[must_use]
    pub fn parse(value: &str) -> Option<Self> {
        [Self::Totp, Self::RecoveryCode]
            .into_iter()
            .find(|t| t.as_str() == value)
    }
}

/// Whether a code of the factor was ever verified.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FactorStatus {
    Unverified,
    Verified,
}

impl FactorStatus {
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Unverified => "unverified",
            Self::Verified => "verified",
        }
    }

    #[must_use]
    pub fn parse(value: &str) -> Option<Self> {
        match value {
            "unverified" => Some(Self::Unverified),
            "verified" => Some(Self::Verified),
            _ => None,
        }
    }
}

/// A second factor of an account.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Factor {
    pub id: Uuid,
    pub user_id: UserId,
    pub factor_type: FactorType,
    pub status: FactorStatus,
    pub friendly_name: Option<String>,
    /// The TOTP secret, sealed ([`TotpSecret::seal`](super::totp::TotpSecret::seal)).
    pub sealed_secret: String,
    /// The TOTP step of the last code verified; a code of this step or an earlier one is refused.
    pub last_used_step: Option<i64>,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
    pub last_challenged_at: Option<DateTime<Utc>>,
}

impl Factor {
    #[must_use]
    pub fn is_verified(&self) -> bool {
        self.status == FactorStatus::Verified
    }

    /// Its name as the owner gave it, else what it is.
    #[must_use]
    pub fn display_name(&self) -> &str {
        match self.friendly_name.as_deref().map(str::trim) {
            Some(name) if !name.is_empty() => name,
            _ if self.factor_type == FactorType::RecoveryCode => "Recovery codes",
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
}

impl FactorChallenge {
    #[must_use]
    pub fn expires_at(&self) -> DateTime<Utc> {
        self.created_at + Duration::seconds(CHALLENGE_TTL_SECS)
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
