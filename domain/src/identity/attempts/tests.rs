use super::*;
use crate::common::RepoError;
use crate::identity::rate_limit::{Limit, RateLimitPolicy, RateLimitStore, WindowCounts};
use crate::identity::test_support::{Mocks, account};
use crate::testing::{block_on, fixed_clock};
use chrono::{DateTime, Utc};
use std::collections::HashMap;
use std::future::Future;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Counters in memory, as the database keeps them.
#[derive(Default)]
struct Counters(Mutex<HashMap<(String, i64), u32>>);

#[async_trait]
impl RateLimitStore for Counters {
    async fn hit(&self, key: &str, start: DateTime<Utc>, secs: i64) -> Result<WindowCounts, RepoError> {
        let mut map = self.0.lock().unwrap();
        let current = map.entry((key.to_owned(), start.timestamp())).or_default();
        *current += 1;
        let current = *current;
        let previous = map
            .get(&(key.to_owned(), start.timestamp() - secs))
            .copied()
            .unwrap_or_default();
        Ok(WindowCounts { previous, current })
    }

    async fn peek(&self, key: &str, start: DateTime<Utc>, secs: i64) -> Result<WindowCounts, RepoError> {
        let map = self.0.lock().unwrap();
        let at = |s: i64| map.get(&(key.to_owned(), s)).copied().unwrap_or_default();
        Ok(WindowCounts {
            previous: at(start.timestamp() - secs),
            current: at(start.timestamp()),
        })
    }

    async fn take(
        &self,
        key: &str,
        limit: Limit,
        now: DateTime<Utc>,
    ) -> Result<Option<WindowCounts>, RepoError> {
        let mut map = self.0.lock().unwrap();
        let start = limit.window_start(now).timestamp();
        let previous = map
            .get(&(key.to_owned(), start - limit.window_secs))
            .copied()
            .unwrap_or_default();
        let current = map.entry((key.to_owned(), start)).or_default();
        if *current >= limit.allowance(previous, now) {
            return Ok(None);
        }
        *current += 1;
        Ok(Some(WindowCounts {
            previous,
            current: *current,
        }))
    }

    async fn give_back(&self, key: &str, start: DateTime<Utc>) -> Result<(), RepoError> {
        if let Some(count) = self
            .0
            .lock()
            .unwrap()
            .get_mut(&(key.to_owned(), start.timestamp()))
        {
            *count = count.saturating_sub(1);
        }
        Ok(())
    }

    async fn prune_expired(&self, _now: DateTime<Utc>) -> Result<u64, RepoError> {
        Ok(0)
    }
}

/// Counts the pauses it is asked for.
#[derive(Default)]
struct Pauses(AtomicUsize);

#[async_trait]
impl Pause for Pauses {
    async fn pause(&self, delay: Duration) {
        if !delay.is_zero() {
            self.0.fetch_add(1, Ordering::Relaxed);
        }
    }
}

const OWNER: &str = "dev@example.com";

fn guard(mocks: Mocks) -> (AttemptGuard, Arc<Pauses>) {
    let limiter = RateLimiter::new(
        Arc::new(Counters::default()),
        Arc::new(fixed_clock()),
        RateLimitPolicy::default(),
    );
    let pauses = Arc::new(Pauses::default());
    let services = mocks.service();
    let guard = AttemptGuard::new(
        Arc::new(limiter),
        pauses.clone(),
        services.sessions,
        services.factors,
    );
    (guard, pauses)
}

fn second_factor(client: &str) -> Attempt<'_> {
    Attempt {
        proof: Proof::SecondFactor { challenge: None },
        client,
        account: OWNER,
    }
}

#[test]
fn wrong_second_factor_answers_from_many_addresses_meet_the_accounts_ceiling_once() {
    let mut mocks = Mocks::new();
    let owner = account(OWNER, true);
    mocks
        .accounts
        .expect_find_by_email()
        .returning(move |_| Ok(Some(owner.clone())));
    // The answer that reaches the ceiling ends every aal1 session and tells the owner, once.
    mocks
        .session_list
        .expect_end_aal1_sessions()
        .withf(|_, keep, _, notice| {
            keep.is_none()
                && notice
                    .as_ref()
                    .is_some_and(|mail| mail.text.contains("wrong second-factor codes"))
        })
        .times(1)
        .returning(|_, _, _, _| Ok(2));
    let (guard, _) = guard(mocks);
    let ran = AtomicUsize::new(0);
    let wrong = || async {
        ran.fetch_add(1, Ordering::Relaxed);
        Err::<(), _>(IdentityError::TotpCodeInvalid)
    };
    let ceiling = crate::identity::rate_limit::SECOND_FACTOR_ACCOUNT_CEILING.max as usize;
    // Six addresses, each well under its own limit of ten failures.
    let clients = [
        "198.51.100.1",
        "198.51.100.2",
        "198.51.100.3",
        "198.51.100.4",
        "198.51.100.5",
        "198.51.100.6",
    ];
    for (n, client) in clients.iter().cycle().take(ceiling).enumerate() {
        let answer = block_on(guard.attempt(second_factor(client), |_| wrong()));
        assert!(
            matches!(answer, Err(IdentityError::TotpCodeInvalid)),
            "answer {n}"
        );
    }
    for client in clients {
        let answer = block_on(guard.attempt(second_factor(client), |_| wrong()));
        assert!(
            matches!(answer, Err(IdentityError::RateLimited { .. })),
            "{client}"
        );
    }
    assert_eq!(
        ran.load(Ordering::Relaxed),
        ceiling,
        "a refused answer is never checked"
    );
}

#[test]
fn the_owners_password_sign_in_is_only_slowed_never_refused_by_failures_elsewhere() {
    let (guard, pauses) = guard(Mocks::new());
    for n in 0..40 {
        let client = format!("203.0.113.{}", n % 8);
        let attempt = Attempt {
            proof: Proof::FirstFactor,
            client: &client,
            account: OWNER,
        };
        let answer = block_on(guard.attempt(attempt, |_| async {
            Err::<(), _>(IdentityError::InvalidCredentials)
        }));
        assert!(
            matches!(answer, Err(IdentityError::InvalidCredentials)),
            "attempt {n}"
        );
    }
    assert!(
        pauses.0.load(Ordering::Relaxed) > 0,
        "the account's failures slow sign-ins down"
    );
    let owner = Attempt {
        proof: Proof::FirstFactor,
        client: "192.0.2.7",
        account: OWNER,
    };
    assert!(block_on(guard.attempt(owner, |_| async { Ok::<_, IdentityError>(()) })).is_ok());
}

#[test]
fn a_challenge_dies_after_its_third_wrong_answer() {
    let mocks = Mocks::new();
    let factors = mocks.factors.clone();
    let challenge = crate::identity::factors::FactorChallenge {
        id: Uuid::new_v4(),
        factor_id: Uuid::new_v4(),
        created_at: crate::testing::noon(),
        verified_at: None,
        ip_address: "198.51.100.1".into(),
        webauthn: None,
    };
    factors.challenges.lock().unwrap().push(challenge.clone());
    let (guard, _) = guard(mocks);
    let attempt = Attempt {
        proof: Proof::SecondFactor {
            challenge: Some(challenge.id),
        },
        client: "198.51.100.1",
        account: OWNER,
    };
    for n in 0..3 {
        assert_eq!(factors.challenges.lock().unwrap().len(), 1, "before answer {n}");
        let _ = block_on(guard.attempt(attempt, |_| async {
            Err::<(), _>(IdentityError::TotpCodeInvalid)
        }));
    }
    assert!(factors.challenges.lock().unwrap().is_empty());
}

#[test]
fn only_wrong_answers_count_as_failures() {
    let (guard, _) = guard(Mocks::new());
    let limit = Limit::new(10, 900).max as usize;
    for _ in 0..=limit * 2 {
        let answer = block_on(guard.attempt(second_factor("198.51.100.9"), |_| async {
            Err::<(), _>(IdentityError::ChallengeExpired(Uuid::nil()))
        }));
        assert!(matches!(answer, Err(IdentityError::ChallengeExpired(_))));
    }
}

/// A future that yields to the executor `times` times before it is ready (answers checked slowly, so that
/// every attempt sent at once has started before any has finished).
struct Yield(u32);

impl Future for Yield {
    type Output = ();
    fn poll(mut self: std::pin::Pin<&mut Self>, cx: &mut std::task::Context<'_>) -> std::task::Poll<()> {
        if self.0 == 0 {
            return std::task::Poll::Ready(());
        }
        self.0 -= 1;
        cx.waker().wake_by_ref();
        std::task::Poll::Pending
    }
}

#[test]
fn answers_sent_at_once_are_held_to_the_ceiling_and_to_a_challenges_three() {
    let mut mocks = Mocks::new();
    let owner = account(OWNER, true);
    mocks
        .accounts
        .expect_find_by_email()
        .returning(move |_| Ok(Some(owner.clone())));
    mocks
        .session_list
        .expect_end_aal1_sessions()
        .returning(|_, _, _, _| Ok(1));
    let (guard, _) = guard(mocks);
    let checked = AtomicUsize::new(0);
    let clients: Vec<String> = (0..40).map(|n| format!("198.51.100.{n}")).collect();
    let challenge = Uuid::new_v4();
    let attempts = clients.iter().enumerate().map(|(n, client)| {
        let checked = &checked;
        let attempt = Attempt {
            proof: Proof::SecondFactor {
                // The first twenty answer one challenge, the others recovery codes.
                challenge: (n < 20).then_some(challenge),
            },
            client,
            account: OWNER,
        };
        guard.attempt(attempt, move |_| async move {
            checked.fetch_add(1, Ordering::Relaxed);
            Yield(50).await;
            Err::<(), _>(IdentityError::TotpCodeInvalid)
        })
    });
    let answers = block_on(futures::future::join_all(attempts));
    let ceiling = crate::identity::rate_limit::SECOND_FACTOR_ACCOUNT_CEILING.max as usize;
    assert!(
        checked.load(Ordering::Relaxed) <= ceiling,
        "{} checked",
        checked.load(Ordering::Relaxed)
    );
    let on_the_challenge = answers[..20]
        .iter()
        .filter(|a| matches!(a, Err(IdentityError::TotpCodeInvalid)))
        .count();
    assert_eq!(on_the_challenge, 3);
}

#[test]
fn a_right_answer_gives_its_unit_back() {
    let (guard, _) = guard(Mocks::new());
    let ceiling = crate::identity::rate_limit::SECOND_FACTOR_ACCOUNT_CEILING.max;
    for _ in 0..ceiling * 3 {
        let answer = block_on(guard.attempt(second_factor("198.51.100.1"), |_| async {
            Ok::<_, IdentityError>(())
        }));
        assert!(answer.is_ok());
    }
}

/// The counters, with every call yielding to the executor first, as many times as `pattern` says (in
/// turn): attempts sent at once then reach the store in many orders, as requests on several connections
/// do. A check made in two calls is caught between them.
struct Interleaved {
    counters: Counters,
    pattern: &'static [u32],
    calls: AtomicUsize,
}

impl Interleaved {
    fn new(pattern: &'static [u32]) -> Self {
        Self {
            counters: Counters::default(),
            pattern,
            calls: AtomicUsize::new(0),
        }
    }

    fn turn(&self) -> Yield {
        let n = self.calls.fetch_add(1, Ordering::Relaxed);
        Yield(self.pattern[n % self.pattern.len()])
    }
}

#[async_trait]
impl RateLimitStore for Interleaved {
    async fn hit(&self, key: &str, start: DateTime<Utc>, secs: i64) -> Result<WindowCounts, RepoError> {
        self.turn().await;
        self.counters.hit(key, start, secs).await
    }

    async fn peek(&self, key: &str, start: DateTime<Utc>, secs: i64) -> Result<WindowCounts, RepoError> {
        self.turn().await;
        self.counters.peek(key, start, secs).await
    }

    async fn take(
        &self,
        key: &str,
        limit: Limit,
        now: DateTime<Utc>,
    ) -> Result<Option<WindowCounts>, RepoError> {
        self.turn().await;
        self.counters.take(key, limit, now).await
    }

    async fn give_back(&self, key: &str, start: DateTime<Utc>) -> Result<(), RepoError> {
        self.turn().await;
        self.counters.give_back(key, start).await
    }

    async fn prune_expired(&self, now: DateTime<Utc>) -> Result<u64, RepoError> {
        self.counters.prune_expired(now).await
    }
}

/// One row of the table below: `attempts` answers of `proof` sent at once from `clients` addresses
/// (in turn), each a wrong one unless `right_every` says every n-th is right, through a store whose calls
/// interleave as `pattern` says.
struct Burst {
    name: &'static str,
    proof: Proof,
    attempts: usize,
    clients: usize,
    right_every: Option<usize>,
    pattern: &'static [u32],
    /// At most this many wrong answers may be checked.
    at_most: usize,
}

#[test]
fn interleaved_reservations_never_check_more_wrong_answers_than_the_limit() {
    let ceiling = crate::identity::rate_limit::SECOND_FACTOR_ACCOUNT_CEILING.max as usize;
    let per_pair = RateLimitPolicy::default().sign_in.per_account.max as usize;
    let code = Proof::SecondFactor { challenge: None };
    let table = [
        Burst {
            name: "135 wrong codes from 75 addresses, calls yielding 0 to 3 times",
            proof: code,
            attempts: 135,
            clients: 75,
            right_every: None,
            pattern: &[0, 1, 2, 3],
            at_most: ceiling,
        },
        Burst {
            name: "50 wrong codes from 25 addresses, a refusal landing between a reservation's two reads",
            proof: code,
            attempts: 50,
            clients: 25,
            right_every: None,
            pattern: &[3, 0, 1, 0, 2],
            at_most: ceiling,
        },
        Burst {
            name: "50 codes from 25 addresses, every fifth right",
            proof: code,
            attempts: 50,
            clients: 25,
            right_every: Some(5),
            pattern: &[1, 0, 2],
            at_most: ceiling,
        },
        Burst {
            name: "50 wrong codes from 25 addresses, no interleaving",
            proof: code,
            attempts: 50,
            clients: 25,
            right_every: None,
            pattern: &[0],
            at_most: ceiling,
        },
        Burst {
            name: "30 wrong passwords from one address",
            proof: Proof::FirstFactor,
            attempts: 30,
            clients: 1,
            right_every: None,
            pattern: &[1, 0],
            at_most: per_pair,
        },
        Burst {
            name: "50 wrong passwords from one address, no interleaving",
            proof: Proof::FirstFactor,
            attempts: 50,
            clients: 1,
            right_every: None,
            pattern: &[0],
            at_most: per_pair,
        },
    ];
    for row in table {
        let mut mocks = Mocks::new();
        let owner = account(OWNER, true);
        mocks
            .accounts
            .expect_find_by_email()
            .returning(move |_| Ok(Some(owner.clone())));
        mocks
            .session_list
            .expect_end_aal1_sessions()
            .returning(|_, _, _, _| Ok(1));
        let limiter = RateLimiter::new(
            Arc::new(Interleaved::new(row.pattern)),
            Arc::new(fixed_clock()),
            RateLimitPolicy::default(),
        );
        let services = mocks.service();
        let guard = AttemptGuard::new(
            Arc::new(limiter),
            Arc::new(Pauses::default()),
            services.sessions,
            services.factors,
        );
        let wrong_checked = AtomicUsize::new(0);
        let clients: Vec<String> = (0..row.clients).map(|n| format!("198.51.100.{n}")).collect();
        let attempts = (0..row.attempts).map(|n| {
            let wrong_checked = &wrong_checked;
            let right = row.right_every.is_some_and(|every| n % every == 0);
            let attempt = Attempt {
                proof: row.proof,
                client: &clients[n % clients.len()],
                account: OWNER,
            };
            guard.attempt(attempt, move |_| async move {
                Yield(2).await;
                if right {
                    return Ok(());
                }
                wrong_checked.fetch_add(1, Ordering::Relaxed);
                Err(match row.proof {
                    Proof::FirstFactor => IdentityError::InvalidCredentials,
                    _ => IdentityError::TotpCodeInvalid,
                })
            })
        });
        let answers = block_on(futures::future::join_all(attempts));
        let checked = wrong_checked.load(Ordering::Relaxed);
        assert!(
            checked <= row.at_most,
            "{}: {checked} wrong answers checked",
            row.name
        );
        assert!(checked > 0, "{}: nothing was checked", row.name);
        let refused = answers
            .iter()
            .filter(|a| matches!(a, Err(IdentityError::RateLimited { .. })))
            .count();
        assert!(refused > 0, "{}: nothing was refused", row.name);
    }
}
