//! Delivering the outbox (PRODUCT.md §2): claim what is due, send it, retry transient failures with an
//! exponential backoff, give up on permanent ones or after too many attempts. An SMTP outage loses nothing
//! and blocks no request: the e-mails wait in the outbox.

use chrono::Duration;
use std::sync::Arc;

use super::ports::{Mailer, OutboxEntry, OutboxRepository};
use crate::common::{Clock, RepoError};

/// Longest error text stored with an entry (characters).
pub const MAX_ERROR_LEN: usize = 500;

/// How the outbox retries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RetryPolicy {
    /// Delay after the first failure; doubled after each further one.
    pub base_delay: Duration,
    /// The delay never exceeds this.
    pub max_delay: Duration,
    /// After this many failed attempts the entry is given up.
    pub max_attempts: u32,
    /// Entries claimed per run.
    pub batch_size: u32,
    /// How long a claim keeps other instances away; longer than sending a batch can take.
    pub lease: Duration,
}

impl Default for RetryPolicy {
    /// 30 s doubling up to 1 h, 10 attempts, batches of 50, a 5-minute lease.
    fn default() -> Self {
        Self {
            base_delay: Duration::seconds(30),
            max_delay: Duration::hours(1),
            max_attempts: 10,
            batch_size: 50,
            lease: Duration::minutes(5),
        }
    }
}

impl RetryPolicy {
    /// The wait after the `failures`-th failed attempt (1-based): `base × 2^(failures−1)`, at most `max_delay`.
    #[must_use]
    pub fn backoff(&self, failures: u32) -> Duration {
        let exponent = failures.saturating_sub(1).min(30);
        let factor = 1_i32 << exponent;
        self.base_delay
            .checked_mul(factor)
            .map_or(self.max_delay, |delay| delay.min(self.max_delay))
    }
}

/// What one delivery run did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct DeliveryReport {
    pub claimed: usize,
    pub sent: usize,
    /// Failed transiently and scheduled for another attempt.
    pub retried: usize,
    /// Failed permanently or too often; never tried again.
    pub given_up: usize,
    /// Claimed but not tried because the worker is stopping; given back, due at once.
    pub released: usize,
}

/// The delivery worker's use case. The worker calls [`OutboxService::deliver_due`] on a timer.
pub struct OutboxService {
    outbox: Arc<dyn OutboxRepository>,
    mailer: Arc<dyn Mailer>,
    clock: Arc<dyn Clock>,
    policy: RetryPolicy,
}

fn shorten(message: &str) -> String {
    message.chars().take(MAX_ERROR_LEN).collect()
}

impl OutboxService {
    #[must_use]
    pub fn new(
        outbox: Arc<dyn OutboxRepository>,
        mailer: Arc<dyn Mailer>,
        clock: Arc<dyn Clock>,
        policy: RetryPolicy,
    ) -> Self {
        Self {
            outbox,
            mailer,
            clock,
            policy,
        }
    }

    #[must_use]
    pub const fn policy(&self) -> &RetryPolicy {
        &self.policy
    }

    /// Claims the due entries (leased so that several instances never send one twice), sends each and
    /// records the outcome: sent; failed transiently (retried after [`RetryPolicy::backoff`]); or given up
    /// (a permanent failure, or the `max_attempts`-th failure).
    ///
    /// # Errors
    /// The first [`RepoError`] of the outbox. Entries claimed but not yet recorded stay leased and become
    /// due again when the lease ends (delivery is at least once).
    pub async fn deliver_due(&self) -> Result<DeliveryReport, RepoError> {
        self.deliver_due_until(&|| false).await
    }

    /// As [`Self::deliver_due`], but once `stopping` answers `true` (asked before each e-mail) the entries
    /// not yet tried are released ([`OutboxRepository::release`]) instead of sent: a worker that is asked to
    /// stop finishes the e-mail in hand and gives the rest back, so that they do not wait for their lease
    /// after a restart. (A worker that dies keeps its claims until the lease ends.)
    ///
    /// # Errors
    /// As [`Self::deliver_due`].
    pub async fn deliver_due_until(
        &self,
        stopping: &(dyn Fn() -> bool + Sync),
    ) -> Result<DeliveryReport, RepoError> {
        let now = self.clock.now();
        let entries = self
            .outbox
            .claim_due(now, self.policy.batch_size, now + self.policy.lease)
            .await?;
        let mut report = DeliveryReport {
            claimed: entries.len(),
            ..DeliveryReport::default()
        };
        let mut entries = entries.into_iter();
        for entry in entries.by_ref() {
            if stopping() {
                self.outbox.release(entry.id, entry.next_attempt_at).await?;
                report.released += 1;
                break;
            }
            self.deliver(entry, &mut report).await?;
        }
        for entry in entries {
            self.outbox.release(entry.id, entry.next_attempt_at).await?;
            report.released += 1;
        }
        Ok(report)
    }

    async fn deliver(&self, entry: OutboxEntry, report: &mut DeliveryReport) -> Result<(), RepoError> {
        let result = self.mailer.send(&entry.email).await;
        let now = self.clock.now();
        match result {
            Ok(()) => {
                self.outbox.mark_sent(entry.id, now).await?;
                report.sent += 1;
            }
            Err(error) => {
                let attempts = entry.attempts.saturating_add(1);
                let message = shorten(&error.message);
                if error.transient && attempts < self.policy.max_attempts {
                    let next = now + self.policy.backoff(attempts);
                    self.outbox
                        .mark_failed(entry.id, attempts, next, &message)
                        .await?;
                    report.retried += 1;
                } else {
                    self.outbox.give_up(entry.id, attempts, &message, now).await?;
                    report.given_up += 1;
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::common::EmailAddress;
    use crate::mail::ports::{MailError, MockMailer, MockOutboxRepository};
    use crate::mail::templates;
    use crate::testing::{block_on, fixed_clock, noon};
    use mockall::predicate::eq;
    use uuid::Uuid;

    fn entry(attempts: u32) -> OutboxEntry {
        let to = EmailAddress::parse("dev@example.com").unwrap();
        OutboxEntry {
            id: Uuid::new_v4(),
            email: templates::magic_link(&to, "https://portal.example.com/x", 15),
            attempts,
            next_attempt_at: noon(),
            created_at: noon(),
        }
    }

    fn service(outbox: MockOutboxRepository, mailer: MockMailer) -> OutboxService {
        OutboxService::new(
            Arc::new(outbox),
            Arc::new(mailer),
            Arc::new(fixed_clock()),
            RetryPolicy::default(),
        )
    }

    fn claiming(entries: Vec<OutboxEntry>) -> MockOutboxRepository {
        let mut outbox = MockOutboxRepository::new();
        outbox
            .expect_claim_due()
            .with(eq(noon()), eq(50), eq(noon() + Duration::minutes(5)))
            .times(1)
            .return_once(move |_, _, _| Ok(entries));
        outbox
    }

    #[test]
    fn a_stopping_worker_sends_the_email_in_hand_and_releases_the_rest() {
        let entries: Vec<OutboxEntry> = (0..4).map(|_| entry(0)).collect();
        let first = entries[0].id;
        let rest: Vec<Uuid> = entries[1..].iter().map(|e| e.id).collect();
        let mut outbox = claiming(entries);
        outbox
            .expect_mark_sent()
            .with(eq(first), eq(noon()))
            .times(1)
            .returning(|_, _| Ok(()));
        let released = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let seen = released.clone();
        outbox.expect_release().times(3).returning(move |id, due| {
            assert_eq!(due, noon(), "due again when it was due before the claim");
            seen.lock().unwrap().push(id);
            Ok(())
        });
        let mut mailer = MockMailer::new();
        let sent = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let flag = sent.clone();
        mailer.expect_send().times(1).returning(move |_| {
            flag.store(true, std::sync::atomic::Ordering::SeqCst);
            Ok(())
        });
        // The stop arrives while the first e-mail is being sent.
        let stopping = move || sent.load(std::sync::atomic::Ordering::SeqCst);
        let report = block_on(service(outbox, mailer).deliver_due_until(&stopping)).unwrap();
        assert_eq!((report.claimed, report.sent, report.released), (4, 1, 3));
        assert_eq!(*released.lock().unwrap(), rest);
    }

    #[test]
    fn the_backoff_starts_at_thirty_seconds_and_doubles() {
        let policy = RetryPolicy::default();
        assert_eq!(policy.backoff(1), Duration::seconds(30));
        assert_eq!(policy.backoff(2), Duration::seconds(60));
        assert_eq!(policy.backoff(3), Duration::seconds(120));
        assert_eq!(policy.backoff(7), Duration::seconds(1920));
    }

    #[test]
    fn the_backoff_is_capped_at_one_hour() {
        let policy = RetryPolicy::default();
        assert_eq!(policy.backoff(8), Duration::hours(1));
        assert_eq!(policy.backoff(u32::MAX), Duration::hours(1));
    }

    #[test]
    fn due_entries_are_claimed_with_a_lease_sent_and_marked_sent() {
        let first = entry(0);
        let mut outbox = claiming(vec![first.clone(), entry(2)]);
        outbox.expect_mark_sent().times(2).returning(|_, at| {
            assert_eq!(at, noon());
            Ok(())
        });
        let mut mailer = MockMailer::new();
        mailer.expect_send().times(2).returning(|_| Ok(()));
        let report = block_on(service(outbox, mailer).deliver_due()).unwrap();
        assert_eq!(
            report,
            DeliveryReport {
                claimed: 2,
                sent: 2,
                retried: 0,
                given_up: 0,
                released: 0
            }
        );
    }

    #[test]
    fn a_transient_failure_is_retried_after_the_backoff() {
        let failing = entry(2);
        let id = failing.id;
        let mut outbox = claiming(vec![failing]);
        outbox
            .expect_mark_failed()
            .with(
                eq(id),
                eq(3),
                eq(noon() + Duration::seconds(120)),
                eq("connection refused"),
            )
            .times(1)
            .returning(|_, _, _, _| Ok(()));
        let mut mailer = MockMailer::new();
        mailer
            .expect_send()
            .returning(|_| Err(MailError::transient("connection refused")));
        let report = block_on(service(outbox, mailer).deliver_due()).unwrap();
        assert_eq!(report.retried, 1);
        assert_eq!(report.sent + report.given_up, 0);
    }

    #[test]
    fn a_permanent_failure_is_given_up_at_once() {
        let failing = entry(0);
        let id = failing.id;
        let mut outbox = claiming(vec![failing]);
        outbox
            .expect_give_up()
            .with(eq(id), eq(1), eq("550 mailbox unavailable"), eq(noon()))
            .times(1)
            .returning(|_, _, _, _| Ok(()));
        let mut mailer = MockMailer::new();
        mailer
            .expect_send()
            .returning(|_| Err(MailError::permanent("550 mailbox unavailable")));
        let report = block_on(service(outbox, mailer).deliver_due()).unwrap();
        assert_eq!(report.given_up, 1);
    }

    #[test]
    fn the_tenth_failed_attempt_gives_up() {
        let failing = entry(9);
        let mut outbox = claiming(vec![failing]);
        outbox
            .expect_give_up()
            .withf(|_, attempts, _, _| *attempts == 10)
            .times(1)
            .returning(|_, _, _, _| Ok(()));
        let mut mailer = MockMailer::new();
        mailer
            .expect_send()
            .returning(|_| Err(MailError::transient("timeout")));
        let report = block_on(service(outbox, mailer).deliver_due()).unwrap();
        assert_eq!(report.given_up, 1);
        assert_eq!(report.retried, 0);
    }

    #[test]
    fn a_long_error_is_shortened_before_it_is_stored() {
        let mut outbox = claiming(vec![entry(0)]);
        outbox
            .expect_mark_failed()
            .withf(|_, _, _, error| error.chars().count() == MAX_ERROR_LEN)
            .times(1)
            .returning(|_, _, _, _| Ok(()));
        let mut mailer = MockMailer::new();
        mailer
            .expect_send()
            .returning(|_| Err(MailError::transient("e".repeat(2000))));
        assert!(block_on(service(outbox, mailer).deliver_due()).is_ok());
    }

    #[test]
    fn an_empty_outbox_sends_nothing() {
        let outbox = claiming(Vec::new());
        let report = block_on(service(outbox, MockMailer::new()).deliver_due()).unwrap();
        assert_eq!(report, DeliveryReport::default());
    }

    #[test]
    fn a_failing_outbox_is_reported() {
        let mut outbox = MockOutboxRepository::new();
        outbox
            .expect_claim_due()
            .returning(|_, _, _| Err(RepoError::backend("claim", "database down")));
        let result = block_on(service(outbox, MockMailer::new()).deliver_due());
        assert!(matches!(result, Err(RepoError::Backend { .. })));
    }

    #[test]
    fn a_mail_error_displays_its_message() {
        assert_eq!(MailError::transient("timeout").to_string(), "timeout");
        assert!(!MailError::permanent("no").transient);
    }
}
