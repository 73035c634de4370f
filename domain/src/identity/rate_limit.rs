//! Rate limits of the identity endpoints (PRODUCT.md §1: per IP and per account on sign-in, sign-up, OTP,
//! recover and verify; 429 with `Retry-After`; sliding windows; counters shared by every instance).
//!
//! Each counter is a fixed window plus the window before it, and an attempt is weighed against
//! `previous × (share of the current window still to come) + current`: a sliding-window estimate that needs
//! two integers per key and window, so a burst at the end of one window and the start of the next cannot
//! double the allowance. The counters live behind [`RateLimitStore`] (the database, so that several
//! instances share them); the HTTP adapter asks [`RateLimiter::check`] before each limited action.

use async_trait::async_trait;
use chrono::{DateTime, Duration, TimeZone, Utc};
use std::sync::Arc;

use crate::common::secrets::digest_secret;
use crate::common::{Clock, RepoError};

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

/// At most `max` attempts per sliding window of `window_secs` seconds.
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

    /// The sliding-window estimate of attempts in the last `window_secs` at `now`, this attempt included.
    #[must_use]
    pub fn estimate(&self, counts: WindowCounts, now: DateTime<Utc>) -> f64 {
        let window_ms = (self.window_secs.max(1) * 1000) as f64;
        let elapsed_ms = (now - self.window_start(now)).num_milliseconds() as f64;
        let still_to_come = (1.0 - elapsed_ms / window_ms).clamp(0.0, 1.0);
        f64::from(counts.previous) * still_to_come + f64::from(counts.current)
    }

    /// The decision for an attempt that brought the counters to `counts` (this attempt included).
    #[must_use]
    pub fn decide(&self, counts: WindowCounts, now: DateTime<Utc>) -> RateDecision {
        let estimate = self.estimate(counts, now);
        let max = f64::from(self.max);
        if estimate <= max {
            let remaining = (max - estimate).floor();
            // `remaining` lies in 0..=max, a u32.
            #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
            let remaining = remaining as u32;
            return RateDecision::Allowed { remaining };
        }
        RateDecision::Limited {
            retry_after_secs: self.retry_after_sliding(counts, now),
        }
    }

    /// Whole seconds (at least 1) until one more attempt would be allowed, if nothing else is attempted.
    #[must_use]
    pub fn retry_after_sliding(&self, counts: WindowCounts, now: DateTime<Utc>) -> u64 {
        let window = (self.window_secs.max(1) * 1000) as f64;
        let elapsed = (now - self.window_start(now)).num_milliseconds() as f64;
        // The next attempt is allowed when estimate + 1 <= max.
        let room = f64::from(self.max) - 1.0;
        let wait_ms = if f64::from(counts.current) <= room {
            // Within this window, once the previous window's weight has decayed enough.
            let previous = f64::from(counts.previous);
            if previous <= 0.0 {
                0.0
            } else {
                let share = 1.0 - (room - f64::from(counts.current)) / previous;
                (share * window - elapsed).max(0.0)
            }
        } else {
            // In the next window, where this window's count becomes the decaying previous one.
            let current = f64::from(counts.current);
            let share = if room <= 0.0 && current > 0.0 {
                1.0
            } else {
                (1.0 - room / current).clamp(0.0, 1.0)
            };
            (window - elapsed) + share * window
        };
        let secs = (wait_ms / 1000.0).ceil().max(1.0);
        // At most two windows: far below u64::MAX.
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        let secs = secs as u64;
        secs
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

/// The longest window of any limit kept in the shared counters, the identity limits' or another context's
/// (the invitation e-mails of an account per day, `orgs::invite_limits`): pruning keeps two of it.
pub const SHARED_COUNTER_LONGEST_WINDOW_SECS: i64 = 24 * HOUR;

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

    /// The counter key of a client address (already reduced to its /64 for IPv6 by the HTTP adapter),
    /// e.g. `sign_in:ip:203.0.113.9`.
    #[must_use]
    pub fn ip_key(action: AuthAction, ip: &str) -> String {
        format!("{}:ip:{}", action.as_str(), ip.trim())
    }

    /// The counter key of an e-mail address (lower-cased, trimmed), whether or not it has an account.
    #[must_use]
    pub fn account_key(action: AuthAction, email: &str) -> String {
        format!("{}:account:{}", action.as_str(), email.trim().to_lowercase())
    }
}

/// The attempts counted for one key: in the fixed window holding `now`, and in the window before it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct WindowCounts {
    pub previous: u32,
    pub current: u32,
}

/// Counters shared by every instance of the server.
#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
#[async_trait]
pub trait RateLimitStore: Send + Sync {
    /// Atomically (also across instances) adds one to the counter of `key` in the window that starts at
    /// `window_start`, and answers that count (this hit included) with the count of the window that
    /// started `window_secs` earlier (0 when none). `key` is opaque (a digest).
    ///
    /// # Errors
    /// [`RepoError::Backend`] when the store fails.
    async fn hit(
        &self,
        key: &str,
        window_start: DateTime<Utc>,
        window_secs: i64,
    ) -> Result<WindowCounts, RepoError>;

    /// Deletes the counters of windows that started before `cutoff`; answers how many went.
    ///
    /// # Errors
    /// [`RepoError::Backend`] when the store fails.
    async fn prune_before(&self, cutoff: DateTime<Utc>) -> Result<u64, RepoError>;
}

/// Counts limited attempts and decides whether each may go on.
pub struct RateLimiter {
    store: Arc<dyn RateLimitStore>,
    clock: Arc<dyn Clock>,
    policy: RateLimitPolicy,
}

impl RateLimiter {
    #[must_use]
    pub fn new(store: Arc<dyn RateLimitStore>, clock: Arc<dyn Clock>, policy: RateLimitPolicy) -> Self {
        Self { store, clock, policy }
    }

    #[must_use]
    pub const fn policy(&self) -> &RateLimitPolicy {
        &self.policy
    }

    /// Counts an attempt of `action` from the client address `ip` naming `email` (when it names one) and
    /// answers whether it may go on. The address's counter is checked first; a refused address does not
    /// count against the e-mail, so one client cannot use up another's allowance beyond its own limit.
    ///
    /// # Errors
    /// [`RepoError`] when the counters cannot be read or written.
    pub async fn check(
        &self,
        action: AuthAction,
        ip: &str,
        email: Option<&str>,
    ) -> Result<RateDecision, RepoError> {
        let limits = self.policy.limits(action);
        let by_ip = self
            .count(limits.per_ip, &RateLimitPolicy::ip_key(action, ip))
            .await?;
        if by_ip.is_limited() {
            return Ok(by_ip);
        }
        let Some(email) = email.map(str::trim).filter(|e| !e.is_empty()) else {
            return Ok(by_ip);
        };
        let by_account = self
            .count(limits.per_account, &RateLimitPolicy::account_key(action, email))
            .await?;
        Ok(match (by_ip, by_account) {
            (_, limited @ RateDecision::Limited { .. }) => limited,
            (RateDecision::Allowed { remaining: a }, RateDecision::Allowed { remaining: b }) => {
                RateDecision::Allowed { remaining: a.min(b) }
            }
            (limited, _) => limited,
        })
    }

    /// Deletes counters too old to matter (older than two of the longest window, the other contexts' limits
    /// in the same store included: [`SHARED_COUNTER_LONGEST_WINDOW_SECS`]).
    ///
    /// # Errors
    /// [`RepoError`] when the store fails.
    pub async fn prune(&self) -> Result<u64, RepoError> {
        let longest = [
            self.policy.sign_in,
            self.policy.sign_up,
            self.policy.otp,
            self.policy.recover,
            self.policy.verify,
        ]
        .iter()
        .flat_map(|l| [l.per_ip.window_secs, l.per_account.window_secs])
        .max()
        .unwrap_or(3600)
        .max(SHARED_COUNTER_LONGEST_WINDOW_SECS);
        let cutoff = self.clock.now() - Duration::seconds(2 * longest);
        self.store.prune_before(cutoff).await
    }

    async fn count(&self, limit: Limit, key: &str) -> Result<RateDecision, RepoError> {
        let now = self.clock.now();
        // Keys are stored as digests: the counters hold no e-mail or client address.
        let counts = self
            .store
            .hit(&digest_secret(key), limit.window_start(now), limit.window_secs)
            .await?;
        Ok(limit.decide(counts, now))
    }
}

impl RateDecision {
    #[must_use]
    pub const fn is_limited(&self) -> bool {
        matches!(self, Self::Limited { .. })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{block_on, noon};
    use std::sync::Mutex;

    fn counts(previous: u32, current: u32) -> WindowCounts {
        WindowCounts { previous, current }
    }

    #[test]
    fn attempts_up_to_the_limit_are_allowed_with_the_remaining_count() {
        let limit = Limit::new(3, 60);
        assert_eq!(
            limit.decide(counts(0, 1), noon()),
            RateDecision::Allowed { remaining: 2 }
        );
        assert_eq!(
            limit.decide(counts(0, 3), noon()),
            RateDecision::Allowed { remaining: 0 }
        );
    }

    #[test]
    fn the_attempt_over_the_limit_with_no_earlier_window_waits_until_the_window_ends() {
        let limit = Limit::new(3, 15 * MINUTE);
        // noon is aligned on a 15-minute window; 100.5 s in, 799.5 s remain, rounded up; then the full
        // count of this window decays through the next: (4 - 2) / 4 of it must pass before a 4th try.
        let now = noon() + Duration::milliseconds(100_500);
        assert_eq!(limit.window_start(now), noon());
        let RateDecision::Limited { retry_after_secs } = limit.decide(counts(0, 4), now) else {
            panic!("not limited")
        };
        assert_eq!(retry_after_secs, 800 + 450);
    }

    #[test]
    fn the_previous_window_weighs_by_the_share_of_the_current_one_still_to_come() {
        let limit = Limit::new(10, 100);
        let start = Utc.timestamp_opt(1_000_000, 0).unwrap();
        // A quarter into the window, three quarters of the previous window's 8 still count: 6 + 4 = 10.
        let quarter = start + Duration::seconds(25);
        assert_eq!(limit.estimate(counts(8, 4), quarter), 10.0);
        assert_eq!(
            limit.decide(counts(8, 4), quarter),
            RateDecision::Allowed { remaining: 0 }
        );
        assert!(limit.decide(counts(8, 5), quarter).is_limited());
        // Half-way through, 4 + 5 = 9 is allowed again.
        assert_eq!(
            limit.decide(counts(8, 5), start + Duration::seconds(50)),
            RateDecision::Allowed { remaining: 1 }
        );
    }

    #[test]
    fn a_burst_across_a_window_boundary_does_not_double_the_allowance() {
        let limit = Limit::new(5, 60);
        let boundary = noon();
        // Five at the very end of one window, then one right after the boundary: 5 × ~1 + 1 > 5.
        assert!(
            limit
                .decide(counts(5, 1), boundary + Duration::seconds(1))
                .is_limited()
        );
    }

    #[test]
    fn retry_after_is_when_the_next_attempt_would_be_allowed() {
        let limit = Limit::new(10, 100);
        let start = Utc.timestamp_opt(1_000_000, 0).unwrap();
        let quarter = start + Duration::seconds(25);
        // 8 previous, 5 current at 25 s: the next one needs 8 × share + 6 <= 10, share <= 1/2: at 50 s.
        assert_eq!(limit.retry_after_sliding(counts(8, 5), quarter), 25);
        let RateDecision::Limited { retry_after_secs } = limit.decide(counts(8, 5), quarter) else {
            panic!("not limited")
        };
        assert!(
            !limit
                .decide(counts(8, 6), quarter + Duration::seconds(25))
                .is_limited()
        );
        assert!(
            limit
                .decide(counts(8, 6), quarter + Duration::seconds(24))
                .is_limited()
        );
        assert_eq!(retry_after_secs, 25);
        assert!(limit.retry_after_sliding(counts(0, 0), start) >= 1);
    }

    #[test]
    fn counter_keys_name_the_action_and_the_subject() {
        assert_eq!(
            RateLimitPolicy::ip_key(AuthAction::SignIn, "203.0.113.9"),
            "sign_in:ip:203.0.113.9"
        );
        assert_eq!(
            RateLimitPolicy::account_key(AuthAction::Verify, " Dev@Example.com"),
            "verify:account:dev@example.com"
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

    /// An in-memory store: fixed-window counters by (key, window start).
    #[derive(Default)]
    struct MemoryStore(Mutex<Vec<(String, i64, u32)>>);

    #[async_trait]
    impl RateLimitStore for MemoryStore {
        async fn hit(
            &self,
            key: &str,
            window_start: DateTime<Utc>,
            window_secs: i64,
        ) -> Result<WindowCounts, RepoError> {
            let mut rows = self.0.lock().unwrap();
            let start = window_start.timestamp();
            let current = match rows.iter_mut().find(|(k, s, _)| k == key && *s == start) {
                Some(row) => {
                    row.2 += 1;
                    row.2
                }
                None => {
                    rows.push((key.to_owned(), start, 1));
                    1
                }
            };
            let previous = rows
                .iter()
                .find(|(k, s, _)| k == key && *s == start - window_secs)
                .map_or(0, |row| row.2);
            Ok(WindowCounts { previous, current })
        }

        async fn prune_before(&self, cutoff: DateTime<Utc>) -> Result<u64, RepoError> {
            let mut rows = self.0.lock().unwrap();
            let before = rows.len();
            rows.retain(|(_, s, _)| *s >= cutoff.timestamp());
            Ok((before - rows.len()) as u64)
        }
    }

    fn limiter(store: Arc<MemoryStore>) -> RateLimiter {
        let policy = RateLimitPolicy {
            sign_in: ActionLimits {
                per_ip: Limit::new(4, 60),
                per_account: Limit::new(2, 60),
            },
            ..RateLimitPolicy::default()
        };
        RateLimiter::new(store, Arc::new(crate::testing::fixed_clock()), policy)
    }

    #[test]
    fn the_limiter_refuses_an_account_over_its_limit_and_keeps_others_apart() {
        let limiter = limiter(Arc::new(MemoryStore::default()));
        let check = |email: &'static str| {
            block_on(limiter.check(AuthAction::SignIn, "10.0.0.1", Some(email))).unwrap()
        };
        assert!(!check("a@x.io").is_limited());
        assert!(!check("A@x.io ").is_limited());
        assert!(check("a@x.io").is_limited());
        assert!(!check("b@x.io").is_limited());
        // The address's own limit (4) is now reached too.
        assert!(check("c@x.io").is_limited());
    }

    #[test]
    fn the_limiter_stores_digests_not_addresses() {
        let store = Arc::new(MemoryStore::default());
        let limiter = limiter(Arc::clone(&store));
        block_on(limiter.check(AuthAction::SignIn, "10.0.0.1", Some("a@x.io"))).unwrap();
        let rows = store.0.lock().unwrap();
        assert_eq!(rows.len(), 2);
        assert!(
            rows.iter()
                .all(|(key, _, _)| key.len() == 64 && !key.contains('@') && !key.contains("10.0"))
        );
    }

    #[test]
    fn pruning_removes_counters_older_than_two_windows() {
        let store = Arc::new(MemoryStore::default());
        store
            .0
            .lock()
            .unwrap()
            .push(("old".into(), (noon() - Duration::hours(49)).timestamp(), 3));
        let limiter = limiter(Arc::clone(&store));
        block_on(limiter.check(AuthAction::SignIn, "10.0.0.1", None)).unwrap();
        assert_eq!(block_on(limiter.prune()).unwrap(), 1);
        assert_eq!(store.0.lock().unwrap().len(), 1);
    }

    #[test]
    fn pruning_keeps_the_daily_counters_of_other_contexts_for_two_days() {
        let store = Arc::new(MemoryStore::default());
        store
            .0
            .lock()
            .unwrap()
            .push(("daily".into(), (noon() - Duration::hours(20)).timestamp(), 3));
        let limiter = limiter(Arc::clone(&store));
        assert_eq!(block_on(limiter.prune()).unwrap(), 0);
        assert_eq!(store.0.lock().unwrap().len(), 1);
    }
}
