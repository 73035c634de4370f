//! Entities of the built-in identity service (PRODUCT.md §1) and of the platform-admin list (§5), with the
//! pure rules that decide whether a refresh token or a one-time code may still be used.
//!
//! One file per concept: [`account`] (the account, its profile and linked provider identities), [`session`]
//! (how a session started, its refresh tokens and assurance level), [`one_time_code`] (e-mail codes and
//! links) and [`platform_admin`] (the platform roles and the rules of the admin list).

pub mod account;
pub mod one_time_code;
pub mod platform_admin;
pub mod session;

pub use account::{
    Account, ExternalIdentity, MAX_DISPLAY_NAME_CHARS, MAX_PROFILE_BYTES, ProfileError, display_name_of,
    merge_profile,
};
pub use one_time_code::{OneTimeCode, OtpPurpose};
pub use platform_admin::{
    AddedThrough, GrantBinding, PlatformAdmin, SetupClaim, grant_for, would_leave_no_admin,
};
pub use session::{
    Aal, AuthMethod, LiveSession, LiveSessionInOrg, MAX_USER_AGENT_CHARS, RefreshRefusal, RefreshToken,
    SecondFactorMethod, SecondStep, SessionClient,
};

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
