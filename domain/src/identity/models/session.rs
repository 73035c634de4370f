//! Sessions: how one started, its rotating refresh tokens with the idle and absolute timeouts, and its
//! authenticator assurance level.

use crate::common::code_enum;
use chrono::{DateTime, Duration, Utc};
use uuid::Uuid;

use super::{REFRESH_ABSOLUTE_TIMEOUT_DAYS, REFRESH_IDLE_TIMEOUT_DAYS};
use crate::common::{PlatformRole, UserId};
use crate::membership::OrgRole;

code_enum! {
    /// How a session was started; becomes the `amr` claim of its access tokens (Supabase method names).
    pub enum AuthMethod: "How a session was started; becomes the `amr` claim of its access tokens (Supabase method names)." {
        Password => "password",
        /// A six-digit code typed from an e-mail.
        Otp => "otp",
        MagicLink => "magiclink",
        Recovery => "recovery",
        /// The sign-up confirmation link.
        EmailSignup => "email/signup",
        OAuth => "oauth",
        /// A passkey (a discoverable WebAuthn credential with user verification): `aal2` on its own.
        Passkey => "passkey",
    }
}

impl AuthMethod {
    /// Whether a session started this way shows that the user reads the account's mailbox: the link or code
    /// came in an e-mail to the address (written to the server log when no mailer is configured, which only
    /// the operator reads).
    #[must_use]
    pub const fn proves_email(self) -> bool {
        matches!(
            self,
            Self::Otp | Self::MagicLink | Self::Recovery | Self::EmailSignup
        )
    }
}

/// A stored refresh token. The token itself is never stored, only its SHA-256 digest.
///
/// A *family* is one session: every rotation issues a successor in the same family; the family id is the
/// session id of the access tokens.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RefreshToken {
    pub token_hash: String,
    pub family_id: Uuid,
    pub user_id: UserId,
    /// How the session started; carried over on rotation.
    pub method: AuthMethod,
    pub created_at: DateTime<Utc>,
    /// When this token was issued or last presented.
    pub last_used_at: DateTime<Utc>,
    pub family_started_at: DateTime<Utc>,
    pub revoked_at: Option<DateTime<Utc>>,
    /// The digest of the token that replaced this one; `Some` means this one was used.
    pub replaced_by: Option<String>,
    /// The second factor the session passed (`Some` makes it `aal2`); carried over on rotation.
    pub second_step: Option<SecondStep>,
}

code_enum! {
    /// The authenticator assurance level of a session (Supabase's `aal` claim): `aal1` after one factor
    /// (password, e-mail link or code, provider), `aal2` after a second one as well.
    #[derive(PartialOrd, Ord)]
    pub enum Aal: "The authenticator assurance level of a session (Supabase's `aal` claim): `aal1` after one factor\n(password, e-mail link or code, provider), `aal2` after a second one as well." {
        Aal1 => "aal1",
        Aal2 => "aal2",
    }
}

code_enum! {
    /// How a session passed its second factor (an `amr` method of Supabase's).
    pub enum SecondFactorMethod: "How a session passed its second factor (an `amr` method of Supabase's)." {
        /// A code of an authenticator app.
        Totp => "totp",
        /// One of the account's single-use recovery codes.
        RecoveryCode => "mfa/recovery_code",
        /// A passkey (the sign-in itself, or a step-up with one).
        Passkey => "passkey",
        /// A `webauthn` factor (Supabase's `mfa/webauthn`).
        WebAuthn => "mfa/webauthn",
    }
}

/// The second factor a session passed: how, with which factor, and when.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SecondStep {
    pub method: SecondFactorMethod,
    pub factor_id: Option<Uuid>,
    pub at: DateTime<Utc>,
}

/// The client a session was last used from, as the HTTP adapter saw it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionClient {
    /// The `User-Agent` header, at most [`MAX_USER_AGENT_CHARS`] characters.
    pub user_agent: Option<String>,
    /// The client address through the trusted proxies.
    pub ip_address: Option<String>,
    pub last_used_at: DateTime<Utc>,
}

/// The longest user agent kept for a session.
pub const MAX_USER_AGENT_CHARS: usize = 512;

impl SessionClient {
    /// The client of a request at `now`; the user agent is cut to [`MAX_USER_AGENT_CHARS`] characters.
    #[must_use]
    pub fn seen(user_agent: Option<&str>, ip_address: Option<String>, now: DateTime<Utc>) -> Self {
        Self {
            user_agent: user_agent
                .map(str::trim)
                .filter(|ua| !ua.is_empty())
                .map(|ua| ua.chars().take(MAX_USER_AGENT_CHARS).collect()),
            ip_address,
            last_used_at: now,
        }
    }
}

/// A session's live head, read with what authenticating a product request needs of its account.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LiveSession {
    pub head: RefreshToken,
    /// The platform role bound to the account.
    pub role: Option<PlatformRole>,
    /// What protects the account beyond its first factor (then an `aal1` session is not enough).
    pub protection: crate::identity::assurance::Protection,
}

/// [`LiveSession`] with what the same statement read of one organization: the head's account's role in it
/// (`None`: not a member, or no such organization), whether it requires a second factor (PRODUCT.md §1a;
/// `false` when there is no such organization) and the revision of its apps (0 when there is no such
/// organization).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LiveSessionInOrg {
    pub live: LiveSession,
    pub org_role: Option<OrgRole>,
    pub org_requires_two_factor: bool,
    pub apps_revision: u64,
}

/// Why a refresh token may not be used.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RefreshRefusal {
    /// The session was signed out or revoked.
    Revoked,
    /// The token was already exchanged: presenting it again is reuse (the whole family must be revoked).
    Reused,
    /// Not used for 7 days.
    Idle,
    /// The session started more than 30 days ago.
    TooOld,
}

impl RefreshToken {
    /// The first token of a new session.
    #[must_use]
    pub fn start(token_hash: String, user_id: UserId, method: AuthMethod, now: DateTime<Utc>) -> Self {
        Self {
            token_hash,
            family_id: Uuid::new_v4(),
            user_id,
            method,
            created_at: now,
            last_used_at: now,
            family_started_at: now,
            revoked_at: None,
            replaced_by: None,
            second_step: None,
        }
    }

    /// The assurance level of the session.
    #[must_use]
    pub const fn aal(&self) -> Aal {
        if self.second_step.is_some() {
            Aal::Aal2
        } else {
            Aal::Aal1
        }
    }

    /// The successor of this token in the same session.
    #[must_use]
    pub fn successor(&self, token_hash: String, now: DateTime<Utc>) -> Self {
        Self {
            token_hash,
            family_id: self.family_id,
            user_id: self.user_id,
            method: self.method,
            created_at: now,
            last_used_at: now,
            family_started_at: self.family_started_at,
            revoked_at: None,
            replaced_by: None,
            second_step: self.second_step,
        }
    }

    /// The successor of this token in the same session, raised to `aal2` by `step`.
    #[must_use]
    pub fn raised(&self, token_hash: String, step: SecondStep, now: DateTime<Utc>) -> Self {
        Self {
            second_step: Some(step),
            ..self.successor(token_hash, now)
        }
    }

    /// Whether this token may be exchanged now. Revocation is checked first, then reuse, then the idle and
    /// absolute timeouts.
    ///
    /// # Errors
    /// The [`RefreshRefusal`] that applies.
    pub fn check_usable(&self, now: DateTime<Utc>) -> Result<(), RefreshRefusal> {
        if self.revoked_at.is_some() {
            return Err(RefreshRefusal::Revoked);
        }
        if self.replaced_by.is_some() {
            return Err(RefreshRefusal::Reused);
        }
        if now - self.family_started_at >= Duration::days(REFRESH_ABSOLUTE_TIMEOUT_DAYS) {
            return Err(RefreshRefusal::TooOld);
        }
        if now - self.last_used_at >= Duration::days(REFRESH_IDLE_TIMEOUT_DAYS) {
            return Err(RefreshRefusal::Idle);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::noon;
    use serde_json::json;

    fn token(now: DateTime<Utc>) -> RefreshToken {
        RefreshToken::start("h1".into(), UserId::new(), AuthMethod::Password, now)
    }

    #[test]
    fn a_fresh_refresh_token_is_usable() {
        assert_eq!(token(noon()).check_usable(noon()), Ok(()));
    }

    #[test]
    fn a_refresh_token_unused_for_seven_days_is_idle() {
        let t = token(noon());
        assert_eq!(
            t.check_usable(noon() + Duration::days(7) - Duration::seconds(1)),
            Ok(())
        );
        assert_eq!(
            t.check_usable(noon() + Duration::days(7)),
            Err(RefreshRefusal::Idle)
        );
    }

    #[test]
    fn a_session_ends_thirty_days_after_it_started_even_when_refreshed_daily() {
        let first = token(noon());
        let later = noon() + Duration::days(30);
        let recent = first.successor("h2".into(), later - Duration::days(1));
        assert_eq!(recent.family_id, first.family_id);
        assert_eq!(recent.check_usable(later), Err(RefreshRefusal::TooOld));
        assert_eq!(recent.check_usable(later - Duration::seconds(1)), Ok(()));
    }

    #[test]
    fn a_replaced_refresh_token_is_reuse_and_a_revoked_one_is_revoked() {
        let mut t = token(noon());
        t.replaced_by = Some("h2".into());
        assert_eq!(t.check_usable(noon()), Err(RefreshRefusal::Reused));
        t.revoked_at = Some(noon());
        assert_eq!(t.check_usable(noon()), Err(RefreshRefusal::Revoked));
    }

    #[test]
    fn auth_methods_round_trip_through_their_supabase_names() {
        for method in [AuthMethod::Password, AuthMethod::EmailSignup, AuthMethod::OAuth] {
            assert_eq!(AuthMethod::parse(method.code()), Some(method));
            assert_eq!(serde_json::to_value(method).unwrap(), json!(method.code()));
        }
        assert_eq!(AuthMethod::parse("sms"), None);
    }

    #[test]
    fn only_sessions_from_an_emailed_link_or_code_prove_the_address() {
        assert!(AuthMethod::Otp.proves_email());
        assert!(AuthMethod::MagicLink.proves_email());
        assert!(AuthMethod::Recovery.proves_email());
        assert!(AuthMethod::EmailSignup.proves_email());
        assert!(!AuthMethod::Password.proves_email());
        assert!(!AuthMethod::OAuth.proves_email());
    }
}
