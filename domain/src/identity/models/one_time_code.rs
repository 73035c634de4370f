//! Single-use e-mail codes and link tokens, and what each is for.

use chrono::{DateTime, Duration, Utc};
use serde::{Deserialize, Serialize};
use uuid::Uuid;

use super::ONE_TIME_CODE_TTL_MINUTES;
use super::session::AuthMethod;
use crate::common::EmailAddress;

/// What an e-mail code or link is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OtpPurpose {
    Signup,
    MagicLink,
    Recovery,
    /// Reserved: changing the e-mail address is not offered yet (see `IdentityError::EmailChangeUnsupported`).
    EmailChange,
}

impl OtpPurpose {
    /// The `type` of Supabase's `/verify` for this purpose.
    #[must_use]
    pub const fn verify_type(self) -> &'static str {
        match self {
            Self::Signup => "signup",
            Self::MagicLink => "magiclink",
            Self::Recovery => "recovery",
            Self::EmailChange => "email_change",
        }
    }

    /// The `amr` method of a session started by this code.
    #[must_use]
    pub const fn auth_method(self, typed_code: bool) -> AuthMethod {
        match (self, typed_code) {
            (Self::Recovery, _) => AuthMethod::Recovery,
            (_, true) => AuthMethod::Otp,
            (Self::Signup, false) => AuthMethod::EmailSignup,
            (Self::MagicLink | Self::EmailChange, false) => AuthMethod::MagicLink,
        }
    }
}

/// A single-use e-mail code or link token, stored as a digest.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OneTimeCode {
    pub id: Uuid,
    pub purpose: OtpPurpose,
    pub email: EmailAddress,
    pub code_hash: String,
    pub created_at: DateTime<Utc>,
    /// `created_at` + 15 minutes.
    pub expires_at: DateTime<Utc>,
    pub used_at: Option<DateTime<Utc>>,
    /// For a sign-up of an unconfirmed address: the argon2 hash of the password chosen in *that* sign-up.
    /// An unconfirmed account holds no password; this one is installed only when this code is verified
    /// from the browser that signed up (see `browser_hash`).
    pub pending_password_hash: Option<String>,
    /// For a sign-up: the digest of the random value the sign-up answer left in the browser that made it
    /// (a cookie). Its pending password is installed only when the code comes back with that value, so
    /// confirming from another browser never installs a password chosen by someone else.
    pub browser_hash: Option<String>,
    /// A six-digit code typed by the user (not a link's token): wrong typed codes retire only these, so
    /// nobody can kill the owner's e-mailed link by typing wrong codes for the address.
    pub typed: bool,
}

impl OneTimeCode {
    /// A fresh code valid for 15 minutes.
    #[must_use]
    pub fn issue(purpose: OtpPurpose, email: EmailAddress, code_hash: String, now: DateTime<Utc>) -> Self {
        Self {
            id: Uuid::new_v4(),
            purpose,
            email,
            code_hash,
            created_at: now,
            expires_at: now + Duration::minutes(ONE_TIME_CODE_TTL_MINUTES),
            used_at: None,
            pending_password_hash: None,
            browser_hash: None,
            typed: false,
        }
    }

    /// As [`Self::issue`], for a six-digit code the user types.
    #[must_use]
    pub fn issue_typed(
        purpose: OtpPurpose,
        email: EmailAddress,
        code_hash: String,
        now: DateTime<Utc>,
    ) -> Self {
        Self {
            typed: true,
            ..Self::issue(purpose, email, code_hash, now)
        }
    }

    /// Unused and not yet expired (a code expires at exactly `expires_at`).
    #[must_use]
    pub fn is_usable(&self, now: DateTime<Utc>) -> bool {
        self.used_at.is_none() && now < self.expires_at
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::noon;

    #[test]
    fn a_one_time_code_is_valid_for_fifteen_minutes_and_once() {
        let email = EmailAddress::parse("a@b.co").unwrap();
        let mut code = OneTimeCode::issue(OtpPurpose::MagicLink, email, "h".into(), noon());
        assert_eq!(code.expires_at, noon() + Duration::minutes(15));
        assert!(code.is_usable(noon() + Duration::minutes(14)));
        assert!(!code.is_usable(noon() + Duration::minutes(15)));
        code.used_at = Some(noon());
        assert!(!code.is_usable(noon()));
    }

    #[test]
    fn a_code_purpose_gives_the_supabase_verify_type_and_session_method() {
        assert_eq!(OtpPurpose::Signup.verify_type(), "signup");
        assert_eq!(OtpPurpose::MagicLink.verify_type(), "magiclink");
        assert_eq!(OtpPurpose::Recovery.verify_type(), "recovery");
        assert_eq!(OtpPurpose::Signup.auth_method(false), AuthMethod::EmailSignup);
        assert_eq!(OtpPurpose::MagicLink.auth_method(true), AuthMethod::Otp);
        assert_eq!(OtpPurpose::Recovery.auth_method(true), AuthMethod::Recovery);
    }
}
