//! Entities of the built-in identity service (PRODUCT.md §1) and of the platform-admin list (§5), with the
//! pure rules that decide whether a refresh token or a one-time code may still be used.

use chrono::{DateTime, Duration, Utc};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::fmt;
use uuid::Uuid;

use crate::common::{EmailAddress, PlatformRole, UserId};

/// How long an access token of the identity service lives (seconds), as Supabase Auth's default.
pub const ACCESS_TOKEN_TTL_SECS: i64 = 3600;
/// How long a core token lives (seconds): one hour (PRODUCT.md §1).
pub const CORE_TOKEN_TTL_SECS: i64 = 3600;
/// A session whose refresh token was not used for this long has ended (7 days idle).
pub const REFRESH_IDLE_TIMEOUT_DAYS: i64 = 7;
/// A session ends this long after it started, however often it was refreshed (30 days absolute).
pub const REFRESH_ABSOLUTE_TIMEOUT_DAYS: i64 = 30;
/// E-mail codes and links are valid this long (15 minutes).
pub const ONE_TIME_CODE_TTL_MINUTES: i64 = 15;
/// This many failed typed codes for one address (counted by every instance together) use up the live typed
/// codes of that address for the purposes tried (never its links); a successful code clears the count.
pub const MAX_FAILED_CODES: u32 = 5;
/// Failed typed codes are forgotten this long after the last one (by then every code they could have been
/// aimed at has expired).
pub const FAILED_CODES_FORGOTTEN_AFTER_MINUTES: i64 = ONE_TIME_CODE_TTL_MINUTES;
/// Random bytes in a refresh token and in an e-mail link token (256 bits).
pub const OPAQUE_TOKEN_BYTES: usize = 32;

/// An account of the built-in identity service.
///
/// `Debug` never prints the password hash.
#[derive(Clone, PartialEq)]
pub struct Account {
    pub id: UserId,
    /// Unique (compared lower-cased, as [`EmailAddress`] stores it).
    pub email: EmailAddress,
    /// `None` for accounts that only sign in with a provider or an e-mail link.
    pub password_hash: Option<String>,
    /// When the address became usable: at sign-up when no mailer is configured, else when proven.
    pub email_confirmed_at: Option<DateTime<Utc>>,
    /// When somebody first showed they own the address: a link or code from an e-mail was used, or a provider
    /// (or a hosted identity service) asserted a verified e-mail. Never set by the no-mailer confirmation at
    /// sign-up. Linking a provider identity and binding a platform role need it.
    pub email_proven_at: Option<DateTime<Utc>>,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
    pub last_sign_in_at: Option<DateTime<Utc>>,
    /// Taken from the profile's `display_name`, `full_name` or `name` (see [`display_name_of`]).
    pub display_name: Option<String>,
    /// The user's own metadata (Supabase `user_metadata`): always a JSON object.
    pub profile: Value,
}

impl Account {
    /// A new, unconfirmed account without a password.
    #[must_use]
    pub fn new(email: EmailAddress, now: DateTime<Utc>) -> Self {
        Self {
            id: UserId::new(),
            email,
            password_hash: None,
            email_confirmed_at: None,
            email_proven_at: None,
            created_at: now,
            updated_at: now,
            last_sign_in_at: None,
            display_name: None,
            profile: Value::Object(serde_json::Map::new()),
        }
    }

    #[must_use]
    pub const fn is_confirmed(&self) -> bool {
        self.email_confirmed_at.is_some()
    }

    /// Whether somebody showed they own the address (see `email_proven_at`).
    #[must_use]
    pub const fn is_proven(&self) -> bool {
        self.email_proven_at.is_some()
    }
}

impl fmt::Debug for Account {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Account")
            .field("id", &self.id)
            .field("email", &self.email)
            .field(
                "password_hash",
                &self.password_hash.as_ref().map(|_| "<redacted>"),
            )
            .field("email_confirmed_at", &self.email_confirmed_at)
            .field("email_proven_at", &self.email_proven_at)
            .field("created_at", &self.created_at)
            .field("updated_at", &self.updated_at)
            .field("last_sign_in_at", &self.last_sign_in_at)
            .field("display_name", &self.display_name)
            .field("profile", &self.profile)
            .finish()
    }
}

/// Longest display name kept (characters).
pub const MAX_DISPLAY_NAME_CHARS: usize = 100;
/// Largest profile accepted, serialised (bytes).
pub const MAX_PROFILE_BYTES: usize = 16 * 1024;

/// The display name a profile carries: its `display_name`, else `full_name`, else `name` string, trimmed,
/// cut at 100 characters; `None` when none is a non-empty string.
#[must_use]
pub fn display_name_of(profile: &Value) -> Option<String> {
    ["display_name", "full_name", "name"].iter().find_map(|key| {
        let text = profile.get(key)?.as_str()?.trim();
        (!text.is_empty()).then(|| text.chars().take(MAX_DISPLAY_NAME_CHARS).collect())
    })
}

/// Why a profile change was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum ProfileError {
    #[error("User data must be a JSON object")]
    NotAnObject,
    #[error("User data is too large")]
    TooLarge,
}

/// Merges a profile change into a profile the way Supabase Auth merges `data`: shallowly, key by key; a
/// `null` value removes the key.
///
/// # Errors
/// [`ProfileError::NotAnObject`] when the change is not a JSON object; [`ProfileError::TooLarge`] when the
/// result is larger than 16 KiB serialised.
pub fn merge_profile(existing: &Value, change: &Value) -> Result<Value, ProfileError> {
    let change = change.as_object().ok_or(ProfileError::NotAnObject)?;
    let mut merged = existing.as_object().cloned().unwrap_or_default();
    for (key, value) in change {
        if value.is_null() {
            merged.remove(key);
        } else {
            merged.insert(key.clone(), value.clone());
        }
    }
    let merged = Value::Object(merged);
    if merged.to_string().len() > MAX_PROFILE_BYTES {
        return Err(ProfileError::TooLarge);
    }
    Ok(merged)
}

/// How a session was started; becomes the `amr` claim of its access tokens (Supabase method names).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum AuthMethod {
    #[serde(rename = "password")]
    Password,
    /// A six-digit code typed from an e-mail.
    #[serde(rename = "otp")]
    Otp,
    #[serde(rename = "magiclink")]
    MagicLink,
    #[serde(rename = "recovery")]
    Recovery,
    /// The sign-up confirmation link.
    #[serde(rename = "email/signup")]
    EmailSignup,
    #[serde(rename = "oauth")]
    OAuth,
}

impl AuthMethod {
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Password => "password",
            Self::Otp => "otp",
            Self::MagicLink => "magiclink",
            Self::Recovery => "recovery",
            Self::EmailSignup => "email/signup",
            Self::OAuth => "oauth",
        }
    }

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

    #[must_use]
    pub fn parse(value: &str) -> Option<Self> {
        [
            Self::Password,
            Self::Otp,
            Self::MagicLink,
            Self::Recovery,
            Self::EmailSignup,
            Self::OAuth,
        ]
        .into_iter()
        .find(|m| m.as_str() == value)
    }
}

/// An account's identity at an external OpenID Connect provider, found by `(issuer, subject)`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExternalIdentity {
    /// The provider's issuer URL.
    pub issuer: String,
    /// The provider's `sub`.
    pub subject: String,
    /// The provider's short name (`google`, `apple`, `github`, `azure`).
    pub provider: String,
    pub user_id: UserId,
    pub email: Option<EmailAddress>,
    pub email_verified: bool,
    pub linked_at: DateTime<Utc>,
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

/// The authenticator assurance level of a session (Supabase's `aal` claim): `aal1` after one factor
/// (password, e-mail link or code, provider), `aal2` after a second one as well.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Aal {
    Aal1,
    Aal2,
}

impl Aal {
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Aal1 => "aal1",
            Self::Aal2 => "aal2",
        }
    }

    #[must_use]
    pub fn parse(value: &str) -> Option<Self> {
        match value {
            "aal1" => Some(Self::Aal1),
            "aal2" => Some(Self::Aal2),
            _ => None,
        }
    }
}

/// How a session passed its second factor (an `amr` method of Supabase's).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SecondFactorMethod {
    /// A code of an authenticator app.
    Totp,
}

impl SecondFactorMethod {
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Totp => "totp",
        }
    }

    #[must_use]
    pub fn parse(value: &str) -> Option<Self> {
        (value == "totp").then_some(Self::Totp)
    }
}

/// The second factor a session passed: how, with which factor, and when.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SecondStep {
    pub method: SecondFactorMethod,
    pub factor_id: Option<Uuid>,
    pub at: DateTime<Utc>,
}

/// A session's live head, read with what authenticating a product request needs of its account.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LiveSession {
    pub head: RefreshToken,
    /// The platform role bound to the account.
    pub role: Option<PlatformRole>,
    /// Whether the account has a verified second factor (then an `aal1` session is not enough).
    pub has_verified_factor: bool,
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

/// A platform admin or reviewer (PRODUCT.md §5).
///
/// A role belongs to an account, not to an address: once *bound* (`user_id` set) it follows that account,
/// and a later account with the same address (after an e-mail change) does not inherit it. A role given
/// to an address that no suitable account has yet is *pending*: it binds to the first account that proves
/// the address (see [`GrantBinding`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PlatformAdmin {
    /// The bound account's current address; for a pending role, the address it waits for.
    pub email: EmailAddress,
    /// The account holding the role; `None` while pending.
    pub user_id: Option<UserId>,
    pub role: PlatformRole,
    pub added_at: DateTime<Utc>,
    /// `None` when seeded from configuration or the command line.
    pub added_by: Option<EmailAddress>,
}

impl PlatformAdmin {
    /// Bound to an account (not waiting for a proven address).
    #[must_use]
    pub const fn is_bound(&self) -> bool {
        self.user_id.is_some()
    }
}

/// What using the first-admin setup link did ([`crate::identity::admins::setup`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SetupClaim {
    /// The caller is now a platform `admin` (the link is used up).
    Granted(PlatformAdmin),
    /// No unexpired link has this token (never issued, used already, replaced by a newer start, expired).
    Invalid,
    /// An account holds the `admin` role already: the link is void (and removed).
    AdminExists,
}

/// Which account a role given to an address binds to at once; without one it stays pending until an
/// account proves the address.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GrantBinding {
    /// Only an account whose address is proven (an admin in the panel, `PORTAL_ADMIN_EMAILS`): an address
    /// anybody could have signed up with when no mailer is configured must not carry a role to them.
    ProvenAccount,
    /// Any account that has the address (`app-server admin grant`: the operator vouches for that account).
    AnyAccount,
}

/// The role that answers for `email` in `admins`: the role bound to the account that has the address,
/// else the pending role waiting for it. Adapters and the service use the same rule.
#[must_use]
pub fn grant_for<'a>(admins: &'a [PlatformAdmin], email: &EmailAddress) -> Option<&'a PlatformAdmin> {
    admins
        .iter()
        .filter(|a| &a.email == email)
        .min_by_key(|a| !a.is_bound())
}

/// Whether changing `target` to `new_role` (`None` = removing it) would leave the platform without any
/// bound `admin` (a pending admin cannot act, so it does not count). Adapters and the service use the same
/// rule.
#[must_use]
pub fn would_leave_no_admin(
    admins: &[PlatformAdmin],
    target: &PlatformAdmin,
    new_role: Option<PlatformRole>,
) -> bool {
    if new_role == Some(PlatformRole::Admin) || !target.is_bound() || target.role != PlatformRole::Admin {
        return false;
    }
    let acting_admins = admins
        .iter()
        .filter(|a| a.is_bound() && a.role == PlatformRole::Admin)
        .count();
    acting_admins <= 1
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::noon;
    use serde_json::json;

    fn email(text: &str) -> EmailAddress {
        EmailAddress::parse(text).unwrap()
    }

    fn token(now: DateTime<Utc>) -> RefreshToken {
        RefreshToken::start("h1".into(), UserId::new(), AuthMethod::Password, now)
    }

    #[test]
    fn an_accounts_debug_output_hides_the_password_hash() {
        let mut account = Account::new(email("a@b.co"), noon());
        account.password_hash = Some("$argon2id$secret".into());
        let printed = format!("{account:?}");
        assert!(!printed.contains("argon2id"));
        assert!(printed.contains("<redacted>"));
    }

    #[test]
    fn a_new_account_is_unconfirmed_with_an_empty_profile() {
        let account = Account::new(email("a@b.co"), noon());
        assert!(!account.is_confirmed() && !account.is_proven());
        assert_eq!(account.profile, json!({}));
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
    fn a_one_time_code_is_valid_for_fifteen_minutes_and_once() {
        let mut code = OneTimeCode::issue(OtpPurpose::MagicLink, email("a@b.co"), "h".into(), noon());
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

    #[test]
    fn auth_methods_round_trip_through_their_supabase_names() {
        for method in [AuthMethod::Password, AuthMethod::EmailSignup, AuthMethod::OAuth] {
            assert_eq!(AuthMethod::parse(method.as_str()), Some(method));
            assert_eq!(serde_json::to_value(method).unwrap(), json!(method.as_str()));
        }
        assert_eq!(AuthMethod::parse("sms"), None);
    }

    #[test]
    fn profile_changes_merge_shallowly_and_null_removes_a_key() {
        let merged = merge_profile(&json!({"a": 1, "b": 2}), &json!({"b": null, "c": 3})).unwrap();
        assert_eq!(merged, json!({"a": 1, "c": 3}));
    }

    #[test]
    fn a_profile_change_must_be_a_small_object() {
        assert_eq!(
            merge_profile(&json!({}), &json!([1])),
            Err(ProfileError::NotAnObject)
        );
        let huge = json!({"bio": "x".repeat(MAX_PROFILE_BYTES)});
        assert_eq!(merge_profile(&json!({}), &huge), Err(ProfileError::TooLarge));
    }

    #[test]
    fn the_display_name_comes_from_display_name_then_full_name_then_name() {
        assert_eq!(
            display_name_of(&json!({"name": "N", "full_name": " Ada "})),
            Some("Ada".into())
        );
        assert_eq!(
            display_name_of(&json!({"display_name": "D", "name": "N"})),
            Some("D".into())
        );
        assert_eq!(display_name_of(&json!({"name": "  "})), None);
        let long = display_name_of(&json!({"name": "é".repeat(150)})).unwrap();
        assert_eq!(long.chars().count(), MAX_DISPLAY_NAME_CHARS);
    }

    fn admin(text: &str, role: PlatformRole) -> PlatformAdmin {
        PlatformAdmin {
            email: email(text),
            user_id: Some(UserId::new()),
            role,
            added_at: noon(),
            added_by: None,
        }
    }

    fn pending(text: &str, role: PlatformRole) -> PlatformAdmin {
        PlatformAdmin {
            user_id: None,
            ..admin(text, role)
        }
    }

    #[test]
    fn removing_or_demoting_the_only_admin_would_leave_no_admin() {
        let admins = [
            admin("a@x.io", PlatformRole::Admin),
            admin("r@x.io", PlatformRole::Reviewer),
        ];
        assert!(would_leave_no_admin(&admins, &admins[0], None));
        assert!(would_leave_no_admin(
            &admins,
            &admins[0],
            Some(PlatformRole::Reviewer)
        ));
        assert!(!would_leave_no_admin(&admins, &admins[1], None));
        assert!(!would_leave_no_admin(
            &admins,
            &admins[0],
            Some(PlatformRole::Admin)
        ));
    }

    #[test]
    fn removing_one_of_two_admins_leaves_an_admin() {
        let admins = [
            admin("a@x.io", PlatformRole::Admin),
            admin("b@x.io", PlatformRole::Admin),
        ];
        assert!(!would_leave_no_admin(&admins, &admins[0], None));
    }

    #[test]
    fn a_pending_admin_does_not_count_and_may_always_go() {
        let admins = [
            admin("a@x.io", PlatformRole::Admin),
            pending("p@x.io", PlatformRole::Admin),
        ];
        assert!(would_leave_no_admin(&admins, &admins[0], None));
        assert!(!would_leave_no_admin(&admins, &admins[1], None));
        let only_pending = [pending("p@x.io", PlatformRole::Admin)];
        assert!(!would_leave_no_admin(&only_pending, &only_pending[0], None));
    }

    #[test]
    fn the_role_for_an_address_is_the_bound_one_before_a_pending_one() {
        let admins = [
            pending("a@x.io", PlatformRole::Admin),
            admin("a@x.io", PlatformRole::Reviewer),
            pending("b@x.io", PlatformRole::Reviewer),
        ];
        assert_eq!(grant_for(&admins, &email("a@x.io")), Some(&admins[1]));
        assert_eq!(grant_for(&admins, &email("b@x.io")), Some(&admins[2]));
        assert_eq!(grant_for(&admins, &email("c@x.io")), None);
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
