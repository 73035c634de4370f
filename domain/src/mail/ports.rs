//! Ports of the mail context: the mailer that delivers one e-mail, and the outbox e-mails wait in.

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use uuid::Uuid;

use super::OutgoingEmail;
use crate::common::RepoError;

/// Why a delivery failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct MailError {
    /// `true` when trying again later may succeed (connection refused, timeout, 4xx SMTP reply); `false` when
    /// it never will (5xx SMTP reply such as an unknown mailbox, a message the server refuses).
    pub transient: bool,
    /// What went wrong, for the outbox row and the logs. Never contains credentials.
    pub message: String,
}

impl MailError {
    #[must_use]
    pub fn transient(message: impl Into<String>) -> Self {
        Self {
            transient: true,
            message: message.into(),
        }
    }

    #[must_use]
    pub fn permanent(message: impl Into<String>) -> Self {
        Self {
            transient: false,
            message: message.into(),
        }
    }
}

/// Delivers one e-mail (SMTP; or, without SMTP configured, a logger that writes the subject and link).
#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
#[async_trait]
pub trait Mailer: Send + Sync {
    /// Sends the e-mail now.
    ///
    /// # Errors
    /// [`MailError`] with `transient` set as documented there.
    async fn send(&self, email: &OutgoingEmail) -> Result<(), MailError>;
}

/// An e-mail waiting in the outbox.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutboxEntry {
    pub id: Uuid,
    pub email: OutgoingEmail,
    /// Failed delivery attempts so far (0 for a new entry).
    pub attempts: u32,
    /// When the entry was due when it was claimed.
    pub next_attempt_at: DateTime<Utc>,
    pub created_at: DateTime<Utc>,
}

/// What waits in the outbox: the e-mails neither sent nor given up, and when the oldest of them was queued.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct OutboxBacklog {
    pub pending: u64,
    /// `None` when nothing waits.
    pub oldest_created_at: Option<DateTime<Utc>>,
}

impl OutboxBacklog {
    /// How long the oldest waiting e-mail has waited at `now` (zero when nothing waits, or for a clock that
    /// went back).
    #[must_use]
    pub fn oldest_age(&self, now: DateTime<Utc>) -> chrono::Duration {
        self.oldest_created_at
            .map_or(chrono::Duration::zero(), |created| {
                (now - created).max(chrono::Duration::zero())
            })
    }
}

/// The outbox table. Entries are written by the repositories of the changes that cause them (in the same
/// transaction); this port is what the delivery worker uses.
///
/// An entry is *due* when it is neither sent nor given up and its `next_attempt_at` is at or before now.
#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
#[async_trait]
pub trait OutboxRepository: Send + Sync {
    /// Claims up to `limit` due entries, oldest `next_attempt_at` first, and leases them: in the same
    /// statement their `next_attempt_at` becomes `lease_until`, so no other instance claims them until the
    /// lease ends (PostgreSQL: `FOR UPDATE SKIP LOCKED`). An entry whose worker died becomes due again when
    /// its lease ends, so delivery is at least once.
    ///
    /// # Errors
    /// [`RepoError::Backend`] when the store fails.
    async fn claim_due(
        &self,
        now: DateTime<Utc>,
        limit: u32,
        lease_until: DateTime<Utc>,
    ) -> Result<Vec<OutboxEntry>, RepoError>;

    /// Gives back a claimed entry that was not tried (the worker is stopping): its lease ends and it is due
    /// again at `due_at` (when it was due before the claim), so that the next worker sends it at once
    /// instead of after the lease. An entry no longer leased (sent, given up, or claimed anew after its
    /// lease ran out) is left as it is.
    ///
    /// # Errors
    /// [`RepoError::Backend`] when the store fails.
    async fn release(&self, id: Uuid, due_at: DateTime<Utc>) -> Result<(), RepoError>;

    /// Records a successful delivery; the entry is never claimed again.
    ///
    /// # Errors
    /// [`RepoError::NotFound`] when there is no such entry; [`RepoError::Backend`] when the store fails.
    async fn mark_sent(&self, id: Uuid, now: DateTime<Utc>) -> Result<(), RepoError>;

    /// Records a failed attempt: sets the attempt count, the next due time and the last error.
    ///
    /// # Errors
    /// [`RepoError::NotFound`] when there is no such entry; [`RepoError::Backend`] when the store fails.
    async fn mark_failed(
        &self,
        id: Uuid,
        attempts: u32,
        next_attempt_at: DateTime<Utc>,
        error: &str,
    ) -> Result<(), RepoError>;

    /// Counts the entries neither sent nor given up (due, leased or waiting for a retry) and finds the
    /// oldest one's `created_at`: what operators watch (`/metrics`).
    ///
    /// # Errors
    /// [`RepoError::Backend`] when the store fails.
    async fn backlog(&self) -> Result<OutboxBacklog, RepoError>;

    /// Stops trying: the entry keeps its attempt count and last error and is never claimed again.
    ///
    /// # Errors
    /// [`RepoError::NotFound`] when there is no such entry; [`RepoError::Backend`] when the store fails.
    async fn give_up(
        &self,
        id: Uuid,
        attempts: u32,
        error: &str,
        now: DateTime<Utc>,
    ) -> Result<(), RepoError>;
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    #[test]
    fn an_empty_outbox_has_no_age() {
        let now = Utc.with_ymd_and_hms(2026, 5, 1, 12, 0, 0).unwrap();
        assert_eq!(OutboxBacklog::default().oldest_age(now), chrono::Duration::zero());
    }

    #[test]
    fn the_age_is_how_long_the_oldest_entry_has_waited() {
        let now = Utc.with_ymd_and_hms(2026, 5, 1, 12, 0, 0).unwrap();
        let backlog = OutboxBacklog {
            pending: 3,
            oldest_created_at: Some(now - chrono::Duration::seconds(90)),
        };
        assert_eq!(backlog.oldest_age(now), chrono::Duration::seconds(90));
        let future = OutboxBacklog {
            pending: 1,
            oldest_created_at: Some(now + chrono::Duration::seconds(5)),
        };
        assert_eq!(future.oldest_age(now), chrono::Duration::zero());
    }
}
