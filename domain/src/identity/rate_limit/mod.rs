//! Rate limits of the identity endpoints (PRODUCT.md §1: per IP and per account on sign-in, sign-up, OTP,
//! recover and verify; 429 with `Retry-After`; sliding windows; counters shared by every instance).
//!
//! Each counter is a fixed window plus the window before it, and an attempt is weighed against
//! `previous × (share of the current window still to come) + current`: a sliding-window estimate that needs
//! two integers per key and window, so a burst at the end of one window and the start of the next cannot
//! double the allowance. The counters live behind [`RateLimitStore`] (the database, so that several
//! instances share them); the HTTP adapter asks [`RateLimiter::check`] before each limited action, and
//! [`RateLimiter::reserve_failure`] before a password sign-in. A limit that refuses an attempt before it
//! is known to fail takes its unit in one conditional write ([`RateLimitStore::take`]) and gives it back
//! when the attempt does not count: never a count read at one moment and written at another.
//!
//! Nobody can lock another person out (PRODUCT.md §1): what is counted per e-mail address is counted per
//! (address, client address), so another client's attempts never use up the owner's allowance. Across
//! clients, failed sign-ins only slow the account's sign-ins down (a growing delay, never a refusal), and
//! the per-address ceiling of e-mails sent does not hold a client that signed in to the account before.

mod policy;
mod volume;
mod window;

use policy::KNOWN_CLIENT;
pub use policy::{
    ActionLimits, AuthAction, RateLimitPolicy, SECOND_FACTOR_ACCOUNT_CEILING, SignInGate,
    WRONG_ANSWERS_PER_CHALLENGE, sign_in_delay,
};
pub use volume::VolumeLimits;
pub use window::{Held, Limit, RateDecision, WindowCounts};

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use std::sync::Arc;

use crate::common::secrets::digest_secret;
use crate::common::{Clock, RepoError};

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

    /// The counts of `key` in the window that starts at `window_start` and the one before it, without
    /// counting anything (0 where there is no counter).
    ///
    /// # Errors
    /// [`RepoError::Backend`] when the store fails.
    async fn peek(
        &self,
        key: &str,
        window_start: DateTime<Utc>,
        window_secs: i64,
    ) -> Result<WindowCounts, RepoError>;

    /// In one conditional write, atomic also across instances: adds one to the counter of `key` in the
    /// window of `limit` that holds `now`, only while the count with it stays within
    /// [`Limit::allowance`] (what the limit leaves after the window before it). Answers the counts with it,
    /// or `None` when it would go over, and then nothing is counted (nothing to give back).
    ///
    /// # Errors
    /// [`RepoError::Backend`] when the store fails.
    async fn take(
        &self,
        key: &str,
        limit: Limit,
        now: DateTime<Utc>,
    ) -> Result<Option<WindowCounts>, RepoError>;

    /// Takes one off the counter of `key` in the window that starts at `window_start`, never below 0: a
    /// unit [`Self::take`] took for an attempt that did not count.
    ///
    /// # Errors
    /// [`RepoError::Backend`] when the store fails.
    async fn give_back(&self, key: &str, window_start: DateTime<Utc>) -> Result<(), RepoError>;

    /// Deletes the counters that no decision reads any more at `now` (a counter matters for two of its
    /// windows); answers how many went.
    ///
    /// # Errors
    /// [`RepoError::Backend`] when the store fails.
    async fn prune_expired(&self, now: DateTime<Utc>) -> Result<u64, RepoError>;
}

/// What reserving a second-factor answer gave ([`RateLimiter::reserve_second_factor_answer`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reservation {
    /// The answer may be checked; `last_for_account` when it took the account's last unit (a wrong one
    /// then ends the guessing), `last_for_challenge` when it took the challenge's last. A right answer
    /// gives `held` back.
    Reserved {
        last_for_account: bool,
        last_for_challenge: bool,
        held: Held,
    },
    /// The challenge took as many answers as it may.
    ChallengeUsedUp,
    /// The account is over its ceiling: refuse until `retry_after_secs` have passed.
    Refused { retry_after_secs: u64 },
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
    /// answers whether it may go on. The client address's counter is checked first, then the (e-mail,
    /// client) pair's, then the e-mail's ceiling, which a client that signed in to the account before gets
    /// past; a refused attempt counts no further, so one client cannot use up another's allowance. For a
    /// password sign-in use [`Self::reserve_failure`].
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
        let by_pair = self
            .count(
                limits.per_account,
                &RateLimitPolicy::account_client_key(action, email, ip),
            )
            .await?;
        if by_pair.is_limited() {
            return Ok(by_pair);
        }
        if let Some(ceiling) = limits.per_address {
            let by_address = self
                .count(ceiling, &RateLimitPolicy::account_key(action, email))
                .await?;
            if by_address.is_limited() && !self.is_known_client(email, ip).await? {
                return Ok(by_address);
            }
        }
        Ok(match (by_ip, by_pair) {
            (RateDecision::Allowed { remaining: a }, RateDecision::Allowed { remaining: b }) => {
                RateDecision::Allowed { remaining: a.min(b) }
            }
            (limited, _) => limited,
        })
    }

    /// Whether an attempt of `action` (a password sign-in, or any action whose failures are counted as
    /// one's) on the account of `email` from `ip` may be tried, and after what delay: the client address's
    /// attempts and the (account, client) pair's failures may refuse it; the account's failures from every
    /// client together only slow it down. The pair's unit is taken here, before the attempt runs, in one
    /// conditional write (attempts sent at once cannot all pass a count made before any of them failed):
    /// a failure keeps it and is reported with [`Self::failed`]; any other outcome gives it back
    /// ([`Self::give_back`]); a refusal takes nothing.
    ///
    /// # Errors
    /// [`RepoError`] when the counters cannot be read or written.
    pub async fn reserve_failure(
        &self,
        action: AuthAction,
        ip: &str,
        email: &str,
    ) -> Result<SignInGate, RepoError> {
        let limits = self.policy.limits(action);
        let by_ip = self
            .count(limits.per_ip, &RateLimitPolicy::ip_key(action, ip))
            .await?;
        if let RateDecision::Limited { retry_after_secs } = by_ip {
            return Ok(SignInGate::Limited { retry_after_secs });
        }
        let now = self.clock.now();
        let pair = RateLimitPolicy::account_client_key(action, email, ip);
        let held = match self.take(limits.per_account, &pair).await? {
            Ok(held) => held,
            Err(retry_after_secs) => return Ok(SignInGate::Limited { retry_after_secs }),
        };
        let delay = match limits.per_address {
            Some(limit) => {
                let everywhere = self
                    .peek(limit, &RateLimitPolicy::account_key(action, email))
                    .await?;
                sign_in_delay(limit, limit.estimate(everywhere, now))
            }
            None => std::time::Duration::ZERO,
        };
        Ok(SignInGate::Go { delay, held })
    }

    /// Counts a failure of `action` (see [`Self::reserve_failure`], which took the (account, client)
    /// pair's unit) against the account's failures from every client, where the action has such a count.
    ///
    /// # Errors
    /// [`RepoError`] when the counters cannot be written.
    pub async fn failed(&self, action: AuthAction, email: &str) -> Result<(), RepoError> {
        if let Some(limit) = self.policy.limits(action).per_address {
            self.count(limit, &RateLimitPolicy::account_key(action, email))
                .await?;
        }
        Ok(())
    }

    /// Gives back a unit taken before an attempt that did not count (a right answer, or one refused for
    /// another reason).
    ///
    /// # Errors
    /// [`RepoError`] when the counters cannot be written.
    pub async fn give_back(&self, held: &Held) -> Result<(), RepoError> {
        self.store.give_back(&held.key, held.window_start).await
    }

    /// Takes one unit of `limit` for `key` in one conditional write: the unit, or the seconds to wait.
    async fn take(&self, limit: Limit, key: &str) -> Result<Result<Held, u64>, RepoError> {
        let now = self.clock.now();
        let key = digest_secret(key);
        if self.store.take(&key, limit, now).await?.is_some() {
            return Ok(Ok(Held {
                key,
                window_start: limit.window_start(now),
            }));
        }
        let counts = self
            .store
            .peek(&key, limit.window_start(now), limit.window_secs)
            .await?;
        let with_one_more = WindowCounts {
            current: counts.current.saturating_add(1),
            ..counts
        };
        Ok(Err(limit.retry_after_sliding(with_one_more, now)))
    }

    /// Whether the account of `email` is over its ceiling of second-factor answers from every client
    /// ([`SECOND_FACTOR_ACCOUNT_CEILING`]), without counting anything: `Some(retry_after_secs)` when it is.
    ///
    /// # Errors
    /// [`RepoError`] when the counters cannot be read.
    pub async fn second_factor_ceiling(&self, email: &str) -> Result<Option<u64>, RepoError> {
        let limit = SECOND_FACTOR_ACCOUNT_CEILING;
        let held = self.peek(limit, &Self::ceiling_key(email)).await?;
        let with_one_more = WindowCounts {
            current: held.current.saturating_add(1),
            ..held
        };
        Ok(match limit.decide(with_one_more, self.clock.now()) {
            RateDecision::Limited { retry_after_secs } => Some(retry_after_secs),
            RateDecision::Allowed { .. } => None,
        })
    }

    /// Takes one unit of the account's allowance of second-factor answers before the answer is checked,
    /// in one conditional write (answers sent at once cannot all pass a count made before any of them is
    /// counted; a refused one takes nothing), and of the challenge's when the answer names one. A right
    /// answer gives the account's unit back ([`Self::give_back`]).
    ///
    /// # Errors
    /// [`RepoError`] when the counters cannot be written.
    pub async fn reserve_second_factor_answer(
        &self,
        email: &str,
        challenge: Option<uuid::Uuid>,
    ) -> Result<Reservation, RepoError> {
        let mut last_for_challenge = false;
        if let Some(challenge) = challenge {
            match self
                .count(WRONG_ANSWERS_PER_CHALLENGE, &format!("challenge:{challenge}"))
                .await?
            {
                RateDecision::Limited { .. } => return Ok(Reservation::ChallengeUsedUp),
                RateDecision::Allowed { remaining } => last_for_challenge = remaining == 0,
            }
        }
        let limit = SECOND_FACTOR_ACCOUNT_CEILING;
        let now = self.clock.now();
        let key = digest_secret(&Self::ceiling_key(email));
        let Some(taken) = self.store.take(&key, limit, now).await? else {
            let counts = self
                .store
                .peek(&key, limit.window_start(now), limit.window_secs)
                .await?;
            let with_one_more = WindowCounts {
                current: counts.current.saturating_add(1),
                ..counts
            };
            return Ok(Reservation::Refused {
                retry_after_secs: limit.retry_after_sliding(with_one_more, now),
            });
        };
        let last_for_account = taken.current >= limit.allowance(taken.previous, now);
        Ok(Reservation::Reserved {
            last_for_account,
            last_for_challenge,
            held: Held {
                key,
                window_start: limit.window_start(now),
            },
        })
    }

    fn ceiling_key(email: &str) -> String {
        format!(
            "{}:ceiling",
            RateLimitPolicy::account_key(AuthAction::SecondFactor, email)
        )
    }

    /// Remembers that the client `ip` signed in to the account of `email` (for the e-mail ceiling).
    ///
    /// # Errors
    /// [`RepoError`] when the counters cannot be written.
    pub async fn signed_in(&self, ip: &str, email: &str) -> Result<(), RepoError> {
        self.count(KNOWN_CLIENT, &RateLimitPolicy::known_client_key(email, ip))
            .await
            .map(|_| ())
    }

    async fn is_known_client(&self, email: &str, ip: &str) -> Result<bool, RepoError> {
        let counts = self
            .peek(KNOWN_CLIENT, &RateLimitPolicy::known_client_key(email, ip))
            .await?;
        Ok(counts.previous > 0 || counts.current > 0)
    }

    /// Deletes counters too old to matter.
    ///
    /// # Errors
    /// [`RepoError`] when the store fails.
    pub async fn prune(&self) -> Result<u64, RepoError> {
        self.store.prune_expired(self.clock.now()).await
    }

    async fn peek(&self, limit: Limit, key: &str) -> Result<WindowCounts, RepoError> {
        let now = self.clock.now();
        self.store
            .peek(&digest_secret(key), limit.window_start(now), limit.window_secs)
            .await
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

#[cfg(test)]
mod tests {
    use super::policy::{HOUR, MINUTE};
    use super::*;
    use crate::testing::{block_on, noon};
    use chrono::{Duration, TimeZone};

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
            assert!(limits.per_account.max < limits.per_ip.max, "{}", action.code());
            assert!(limits.per_account.max >= 5, "{}", action.code());
        }
        assert_eq!(
            policy.limits(AuthAction::Verify).per_account,
            Limit::new(10, 15 * MINUTE)
        );
    }

    type MemoryStore = crate::testing::MemoryRateLimitStore;

    fn limiter(store: Arc<MemoryStore>) -> RateLimiter {
        let policy = RateLimitPolicy {
            sign_in: ActionLimits {
                per_ip: Limit::new(4, 60),
                per_account: Limit::new(2, 60),
                per_address: None,
            },
            ..RateLimitPolicy::default()
        };
        RateLimiter::new(store, Arc::new(crate::testing::fixed_clock()), policy)
    }

    fn default_limiter() -> RateLimiter {
        RateLimiter::new(
            Arc::new(MemoryStore::default()),
            Arc::new(crate::testing::fixed_clock()),
            RateLimitPolicy::default(),
        )
    }

    #[test]
    fn a_client_guessing_passwords_is_refused_while_the_owner_elsewhere_is_only_slowed_down() {
        let limiter = default_limiter();
        let gate =
            |ip: &str, email: &str| match block_on(limiter.reserve_failure(AuthAction::SignIn, ip, email))
                .unwrap()
            {
                SignInGate::Go { delay, .. } => Some(delay),
                SignInGate::Limited { .. } => None,
            };
        // Three attackers fail ten times each: each is then refused, at its own address only.
        for attacker in ["10.0.0.1", "10.0.0.2", "10.0.0.3"] {
            for _ in 0..10 {
                assert!(gate(attacker, "owner@x.io").is_some(), "{attacker}");
                block_on(limiter.failed(AuthAction::SignIn, "owner@x.io")).unwrap();
            }
            assert!(gate(attacker, "owner@x.io").is_none(), "{attacker}");
        }
        // The owner, elsewhere, may still try: 30 failures weigh on the account, 10 of them free, so the
        // attempt waits 20 × 0.25 s, capped at 5 s. Never refused.
        assert_eq!(
            gate("192.0.2.7", "owner@x.io"),
            Some(std::time::Duration::from_secs(5))
        );
        // Another account is untouched.
        assert_eq!(gate("192.0.2.7", "other@x.io"), Some(std::time::Duration::ZERO));
    }

    #[test]
    fn a_unit_given_back_lets_one_more_attempt_through_and_a_refusal_takes_none() {
        let limiter = default_limiter();
        let reserve = || block_on(limiter.reserve_failure(AuthAction::SignIn, "10.0.0.1", "a@x.io")).unwrap();
        let SignInGate::Go { held, .. } = reserve() else {
            panic!("the first attempt is refused")
        };
        for _ in 1..10 {
            assert!(matches!(reserve(), SignInGate::Go { .. }));
        }
        // The pair's ten units are held: the eleventh is refused, and takes nothing.
        assert!(matches!(reserve(), SignInGate::Limited { .. }));
        assert!(matches!(reserve(), SignInGate::Limited { .. }));
        block_on(limiter.give_back(&held)).unwrap();
        assert!(matches!(reserve(), SignInGate::Go { .. }));
        assert!(matches!(reserve(), SignInGate::Limited { .. }));
    }

    #[test]
    fn the_allowance_is_the_highest_count_decide_allows() {
        let limit = Limit::new(10, 100);
        let start = Utc.timestamp_opt(1_000_000, 0).unwrap();
        for seconds in [0, 1, 25, 50, 99] {
            let now = start + Duration::seconds(seconds);
            for previous in [0, 1, 7, 10, 40] {
                let allowance = limit.allowance(previous, now);
                if allowance > 0 {
                    assert!(!limit.decide(counts(previous, allowance), now).is_limited());
                }
                assert!(limit.decide(counts(previous, allowance + 1), now).is_limited());
            }
        }
    }

    #[test]
    fn the_sign_in_delay_grows_with_the_failures_beyond_the_free_ones_up_to_five_seconds() {
        let limit = Limit::new(10, 15 * MINUTE);
        assert_eq!(sign_in_delay(limit, 10.0), std::time::Duration::ZERO);
        assert_eq!(sign_in_delay(limit, 11.0), std::time::Duration::from_millis(250));
        assert_eq!(sign_in_delay(limit, 14.5), std::time::Duration::from_millis(1000));
        assert_eq!(sign_in_delay(limit, 1000.0), std::time::Duration::from_secs(5));
    }

    #[test]
    fn e_mails_to_an_address_are_limited_per_client_with_a_ceiling_that_a_known_client_gets_past() {
        let limiter = default_limiter();
        let send = |ip: &str| {
            block_on(limiter.check(AuthAction::Recover, ip, Some("owner@x.io")))
                .unwrap()
                .is_limited()
        };
        block_on(limiter.signed_in("192.0.2.7", "owner@x.io")).unwrap();
        // Four clients send five each: each is then refused, and the address's ceiling of 20 is reached.
        for client in ["10.0.0.1", "10.0.0.2", "10.0.0.3", "10.0.0.4"] {
            for _ in 0..5 {
                assert!(!send(client), "{client}");
            }
            assert!(send(client), "{client}");
        }
        assert!(send("10.0.0.5"), "a new client is held by the ceiling");
        assert!(!send("192.0.2.7"), "the owner's own client gets past it");
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
                .all(|(key, _, _, _)| key.len() == 64 && !key.contains('@') && !key.contains("10.0"))
        );
    }

    #[test]
    fn pruning_removes_counters_older_than_two_of_their_windows() {
        let store = Arc::new(MemoryStore::default());
        store.0.lock().unwrap().push((
            "old".into(),
            (noon() - Duration::hours(5)).timestamp(),
            3,
            (noon() - Duration::hours(3)).timestamp(),
        ));
        let limiter = limiter(Arc::clone(&store));
        block_on(limiter.check(AuthAction::SignIn, "10.0.0.1", None)).unwrap();
        block_on(limiter.signed_in("10.0.0.1", "a@x.io")).unwrap();
        assert_eq!(block_on(limiter.prune()).unwrap(), 1);
        assert_eq!(store.0.lock().unwrap().len(), 2);
    }

    #[test]
    fn pruning_keeps_the_daily_counters_of_other_contexts_for_two_of_their_windows() {
        let store = Arc::new(MemoryStore::default());
        let day = Limit::new(100, 24 * HOUR);
        let started = noon() - Duration::hours(20);
        block_on(store.hit("daily", day.window_start(started), day.window_secs)).unwrap();
        let limiter = limiter(Arc::clone(&store));
        assert_eq!(block_on(limiter.prune()).unwrap(), 0);
        assert_eq!(store.0.lock().unwrap().len(), 1);
    }
}
