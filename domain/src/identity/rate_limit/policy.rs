//! What is limited and how much: the actions, their limits, and the sign-in delay.

use super::Limit;
use crate::common::code_enum;

code_enum! {
    /// A limited identity action.
    pub enum AuthAction: "A limited identity action." {
        SignIn => "sign_in",
        SignUp => "sign_up",
        /// Magic link / one-time code e-mail.
        Otp => "otp",
        /// Password-recovery e-mail.
        Recover => "recover",
        /// Using a link or typing a code.
        Verify => "verify",
        /// A second-factor challenge or verification (TOTP code, recovery code): failures are counted as a
        /// password sign-in's are ([`super::RateLimiter::reserve_failure`]).
        SecondFactor => "second_factor",
    }
}

impl AuthAction {
    /// Whether the action sends e-mail (its refusal says so: `over_email_send_rate_limit`).
    #[must_use]
    pub const fn sends_email(self) -> bool {
        matches!(self, Self::Otp | Self::Recover)
    }
}

/// The limits of one action.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ActionLimits {
    /// Counted per client IP address.
    pub per_ip: Limit,
    /// Counted per (e-mail address the attempt names, client address), whether or not the address has an
    /// account: another client's attempts never use it up. For sign-in it counts failed attempts only.
    pub per_account: Limit,
    /// Counted per e-mail address across every client, when set. For sign-in it counts failures and only
    /// slows further attempts down ([`sign_in_delay`]); for e-mails sent it is a ceiling that a client
    /// which signed in to the account before gets past.
    pub per_address: Option<Limit>,
}

/// The limits of every identity action.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RateLimitPolicy {
    pub sign_in: ActionLimits,
    pub sign_up: ActionLimits,
    pub otp: ActionLimits,
    pub recover: ActionLimits,
    pub verify: ActionLimits,
    pub second_factor: ActionLimits,
}

pub(super) const MINUTE: i64 = 60;
pub(super) const HOUR: i64 = 60 * MINUTE;
/// A client that signed in to an account is known to it for this long (one to two such windows).
const KNOWN_CLIENT_WINDOW_SECS: i64 = 30 * 24 * HOUR;
/// The marker of a client known to an account: counted, never refusing.
pub(super) const KNOWN_CLIENT: Limit = Limit::new(u32::MAX, KNOWN_CLIENT_WINDOW_SECS);
/// Each failed sign-in of an account beyond its per-address allowance adds this much to the next attempt's
/// wait, up to [`MAX_SIGN_IN_DELAY_MS`].
const SIGN_IN_DELAY_STEP_MS: u64 = 250;
const MAX_SIGN_IN_DELAY_MS: u64 = 5_000;

/// How long a sign-in waits before it is tried, when `estimate` failures (sliding window) weigh on the
/// account from every client together and `limit` of them are free: nothing up to the limit, then a
/// quarter of a second more per failure, at most five seconds. Never a refusal: the owner's right
/// password still signs in.
#[must_use]
pub fn sign_in_delay(limit: Limit, estimate: f64) -> std::time::Duration {
    let over = (estimate - f64::from(limit.max)).floor();
    if over <= 0.0 {
        return std::time::Duration::ZERO;
    }
    // `over` is positive and bounded by the counters (u32), so it fits.
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    let over = over as u64;
    std::time::Duration::from_millis((over * SIGN_IN_DELAY_STEP_MS).min(MAX_SIGN_IN_DELAY_MS))
}

/// Wrong second-factor answers (TOTP codes, WebAuthn factor ceremonies, recovery codes) an account takes
/// from every client together in a sliding hour: beyond it every answer is refused until the hour has
/// passed, the account's `aal1` sessions end and the owner is told (far below NIST SP 800-63B's 100
/// consecutive failures). Only someone who has the password can cause them, so this never refuses the
/// owner's password sign-in.
pub const SECOND_FACTOR_ACCOUNT_CEILING: Limit = Limit::new(10, HOUR);

/// Wrong answers one second-factor challenge takes before it is removed (a new challenge is needed).
pub const WRONG_ANSWERS_PER_CHALLENGE: Limit = Limit::new(3, 5 * MINUTE);

/// Whether a password sign-in may be tried.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SignInGate {
    /// Try it after waiting `delay` (zero unless the account has many recent failures), holding the
    /// (account, client) pair's unit: a failure keeps it, anything else gives it back.
    Go {
        delay: std::time::Duration,
        held: super::Held,
    },
    /// Refuse with 429 and `Retry-After: retry_after_secs`.
    Limited { retry_after_secs: u64 },
}

impl Default for RateLimitPolicy {
    /// Sign-in: 30 attempts per IP and 10 failures per (account, IP) per 15 minutes; beyond 10 failures
    /// per account from all IPs together, each attempt waits 0.25 s more per failure (at most 5 s).
    /// Sign-up: 10 per IP and 5 per (address, IP) per hour. E-mail sending (OTP, recover): 10 per IP and 5
    /// per (address, IP) per hour, and at most 20 per address per hour unless the client signed in to the
    /// account before. Verify: 30 per IP and 10 per (address, IP) per 15 minutes; five wrong typed codes
    /// retire the address's typed codes (see `codes`), so a six-digit code survives at most 5 guesses.
    /// Second factor: 30 attempts per IP and 10 failures per (account, IP) per 15 minutes, three wrong
    /// answers per challenge, and [`SECOND_FACTOR_ACCOUNT_CEILING`] per account from every client.
    fn default() -> Self {
        Self {
            sign_in: ActionLimits {
                per_ip: Limit::new(30, 15 * MINUTE),
                per_account: Limit::new(10, 15 * MINUTE),
                per_address: Some(Limit::new(10, 15 * MINUTE)),
            },
            sign_up: ActionLimits {
                per_ip: Limit::new(10, HOUR),
                per_account: Limit::new(5, HOUR),
                per_address: None,
            },
            otp: ActionLimits {
                per_ip: Limit::new(10, HOUR),
                per_account: Limit::new(5, HOUR),
                per_address: Some(Limit::new(20, HOUR)),
            },
            recover: ActionLimits {
                per_ip: Limit::new(10, HOUR),
                per_account: Limit::new(5, HOUR),
                per_address: Some(Limit::new(20, HOUR)),
            },
            verify: ActionLimits {
                per_ip: Limit::new(30, 15 * MINUTE),
                per_account: Limit::new(10, 15 * MINUTE),
                per_address: None,
            },
            second_factor: ActionLimits {
                per_ip: Limit::new(30, 15 * MINUTE),
                per_account: Limit::new(10, 15 * MINUTE),
                // The account's wrong answers from every client meet a ceiling instead
                // ([`SECOND_FACTOR_ACCOUNT_CEILING`]): only someone with the password can cause them.
                per_address: None,
            },
        }
    }
}

impl RateLimitPolicy {
    #[must_use]
    pub const fn limits(&self, action: AuthAction) -> ActionLimits {
        match action {
            AuthAction::SignIn => self.sign_in,
            AuthAction::SignUp => self.sign_up,
            AuthAction::Otp => self.otp,
            AuthAction::Recover => self.recover,
            AuthAction::Verify => self.verify,
            AuthAction::SecondFactor => self.second_factor,
        }
    }

    /// The counter key of a client address (already reduced to its /64 for IPv6 by the HTTP adapter),
    /// e.g. `sign_in:ip:203.0.113.9`.
    #[must_use]
    pub fn ip_key(action: AuthAction, ip: &str) -> String {
        format!("{}:ip:{}", action.code(), ip.trim())
    }

    /// The counter key of an e-mail address (lower-cased, trimmed), whether or not it has an account.
    #[must_use]
    pub fn account_key(action: AuthAction, email: &str) -> String {
        format!("{}:account:{}", action.code(), email.trim().to_lowercase())
    }

    /// The counter key of an (e-mail address, client address) pair.
    #[must_use]
    pub fn account_client_key(action: AuthAction, email: &str, ip: &str) -> String {
        format!("{}:ip:{}", Self::account_key(action, email), ip.trim())
    }

    /// The key that marks a client as having signed in to the account of `email`.
    #[must_use]
    pub fn known_client_key(email: &str, ip: &str) -> String {
        format!("known:{}:ip:{}", email.trim().to_lowercase(), ip.trim())
    }
}
