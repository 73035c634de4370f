//! Rate limits of the identity endpoints (PRODUCT.md §1: per IP and per account on sign-in, sign-up, OTP,
//! recover and verify; 429 with `Retry-After`). The HTTP adapter counts; this file says how much is allowed
//! and computes the answer of a fixed-window counter.

use chrono::{DateTime, Duration, TimeZone, Utc};

/// A limited identity action.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AuthAction {
    SignIn,
    SignUp,
    /// Magic link / one-time code e-mail.
    Otp,
    /// Password-recovery e-mail.
    Recover,
    /// Using a link or typing a code.
    Verify,
}

impl AuthAction {
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::SignIn => "sign_in",
            Self::SignUp => "sign_up",
            Self::Otp => "otp",
            Self::Recover => "recover",
            Self::Verify => "verify",
        }
    }
}

/// At most `max` attempts per fixed window of `window_secs` seconds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limit {
    pub max: u32,
    pub window_secs: i64,
}

/// The answer to one attempt.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RateDecision {
    Allowed {
        remaining: u32,
    },
    /// Refuse with 429 and `Retry-After: retry_after_secs`.
    Limited {
        retry_after_secs: u64,
    },
}

impl Limit {
    #[must_use]
    pub const fn new(max: u32, window_secs: i64) -> Self {
        Self { max, window_secs }
    }

    /// The start of the window holding `now` (windows are aligned on the Unix epoch).
    #[must_use]
    pub fn window_start(&self, now: DateTime<Utc>) -> DateTime<Utc> {
        let window = self.window_secs.max(1);
        let start = now.timestamp().div_euclid(window) * window;
        Utc.timestamp_opt(start, 0).single().unwrap_or(now)
    }

    /// Whole seconds until the window holding `now` ends, rounded up, at least 1.
    #[must_use]
    pub fn retry_after(&self, now: DateTime<Utc>) -> u64 {
        let end = self.window_start(now) + Duration::seconds(self.window_secs.max(1));
        let left = end - now;
        let secs = left.num_seconds() + i64::from(left.subsec_nanos() > 0);
        u64::try_from(secs.max(1)).unwrap_or(1)
    }

    /// The decision for an attempt that made the window's counter `count` (this attempt included).
    #[must_use]
    pub fn decide(&self, count: u32, now: DateTime<Utc>) -> RateDecision {
        if count <= self.max {
            RateDecision::Allowed {
                remaining: self.max - count,
            }
        } else {
            RateDecision::Limited {
                retry_after_secs: self.retry_after(now),
            }
        }
    }
}

/// The two limits of one action.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ActionLimits {
    /// Counted per client IP address.
    pub per_ip: Limit,
    /// Counted per e-mail address the attempt names (whether or not it has an account).
    pub per_account: Limit,
}

/// The limits of every identity action.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RateLimitPolicy {
    pub sign_in: ActionLimits,
    pub sign_up: ActionLimits,
    pub otp: ActionLimits,
    pub recover: ActionLimits,
    pub verify: ActionLimits,
}

const MINUTE: i64 = 60;
const HOUR: i64 = 60 * MINUTE;

impl Default for RateLimitPolicy {
    /// Sign-in: 30 per IP and 10 per account per 15 minutes. Sign-up: 10 per IP and 5 per address per hour.
    /// E-mail sending (OTP, recover): 10 per IP and 5 per address per hour (one e-mail per 12 minutes at
    /// most, on average). Verify: 30 per IP and 10 per address per 15 minutes, so a six-digit code valid 15
    /// minutes survives at most 10 guesses (a 1 in 100 000 chance).
    fn default() -> Self {
        Self {
            sign_in: ActionLimits {
                per_ip: Limit::new(30, 15 * MINUTE),
                per_account: Limit::new(10, 15 * MINUTE),
            },
            sign_up: ActionLimits {
                per_ip: Limit::new(10, HOUR),
                per_account: Limit::new(5, HOUR),
            },
            otp: ActionLimits {
                per_ip: Limit::new(10, HOUR),
                per_account: Limit::new(5, HOUR),
            },
            recover: ActionLimits {
                per_ip: Limit::new(10, HOUR),
                per_account: Limit::new(5, HOUR),
            },
            verify: ActionLimits {
                per_ip: Limit::new(30, 15 * MINUTE),
                per_account: Limit::new(10, 15 * MINUTE),
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
        }
    }

    /// The counter key of a per-IP window, e.g. `sign_in:ip:203.0.113.9:1773576000`.
    #[must_use]
    pub fn ip_key(&self, action: AuthAction, ip: &str, now: DateTime<Utc>) -> String {
        let start = self.limits(action).per_ip.window_start(now).timestamp();
        format!("{}:ip:{ip}:{start}", action.as_str())
    }

    /// The counter key of a per-account window (the address lower-cased).
    #[must_use]
    pub fn account_key(&self, action: AuthAction, email: &str, now: DateTime<Utc>) -> String {
        let start = self.limits(action).per_account.window_start(now).timestamp();
        format!(
            "{}:account:{}:{start}",
            action.as_str(),
            email.trim().to_lowercase()
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::noon;

    #[test]
    fn attempts_up_to_the_limit_are_allowed_with_the_remaining_count() {
        let limit = Limit::new(3, 60);
        assert_eq!(limit.decide(1, noon()), RateDecision::Allowed { remaining: 2 });
        assert_eq!(limit.decide(3, noon()), RateDecision::Allowed { remaining: 0 });
    }

    #[test]
    fn the_attempt_over_the_limit_waits_until_the_window_ends() {
        let limit = Limit::new(3, 15 * MINUTE);
        // noon is aligned on a 15-minute window; 100.5 s in, 799.5 s remain, rounded up.
        let now = noon() + Duration::milliseconds(100_500);
        assert_eq!(limit.window_start(now), noon());
        assert_eq!(
            limit.decide(4, now),
            RateDecision::Limited {
                retry_after_secs: 800
            }
        );
    }

    #[test]
    fn retry_after_is_at_least_one_second_and_a_full_window_at_its_start() {
        let limit = Limit::new(1, 60);
        assert_eq!(limit.retry_after(noon()), 60);
        assert_eq!(limit.retry_after(noon() + Duration::seconds(59)), 1);
        assert_eq!(limit.retry_after(noon() + Duration::milliseconds(59_999)), 1);
    }

    #[test]
    fn a_new_window_starts_a_new_counter_key() {
        let policy = RateLimitPolicy::default();
        let before = policy.ip_key(AuthAction::SignIn, "203.0.113.9", noon() - Duration::seconds(1));
        let at = policy.ip_key(AuthAction::SignIn, "203.0.113.9", noon());
        assert_ne!(before, at);
        assert_eq!(at, format!("sign_in:ip:203.0.113.9:{}", noon().timestamp()));
        assert_eq!(
            policy.account_key(AuthAction::Verify, " Dev@Example.com", noon()),
            format!("verify:account:dev@example.com:{}", noon().timestamp())
        );
    }

    #[test]
    fn the_default_policy_is_stricter_per_account_than_per_ip_for_every_action() {
        let policy = RateLimitPolicy::default();
        for action in [
            AuthAction::SignIn,
            AuthAction::SignUp,
            AuthAction::Otp,
            AuthAction::Recover,
            AuthAction::Verify,
        ] {
            let limits = policy.limits(action);
            assert!(limits.per_account.max < limits.per_ip.max, "{}", action.as_str());
            assert!(limits.per_account.max >= 5, "{}", action.as_str());
        }
        assert_eq!(
            policy.limits(AuthAction::Verify).per_account,
            Limit::new(10, 15 * MINUTE)
        );
    }
}
