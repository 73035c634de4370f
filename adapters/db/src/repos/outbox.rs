//! The e-mail outbox (`email_outbox`): [`enqueue_emails`], which the repositories of the changes that send
//! e-mail call inside their own write transaction, and [`DieselOutboxRepository`], the delivery worker's
//! port.
//!
//! Leasing without `FOR UPDATE SKIP LOCKED` (SQLite lacks it): due rows are selected, then each is claimed
//! by a conditional `UPDATE … WHERE id = ? AND <still due> AND next_attempt_at = <as read> AND attempts =
//! <as read>`; only an update that changed one row counts as a claim. On PostgreSQL a second claimant's
//! update waits for the first's transaction and then finds the row no longer due, so two instances never
//! claim the same row; on SQLite writers run one at a time.

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use diesel::prelude::*;
use domain::common::{EmailAddress, RepoError};
use domain::mail::{EmailKind, OutboxBacklog, OutboxEntry, OutboxRepository, OutgoingEmail};
use uuid::Uuid;

use crate::convert::{backend, from_millis, parse_stored, to_millis};
use crate::schema::email_outbox;
use crate::{Db, DbConnection};

/// What stays of a body once the e-mail is delivered or abandoned: bodies and links carry live secrets
/// (invitation links, sign-in links, codes), which the outbox must not keep.
const REDACTED_SENT: &str = "[delivered; the body was removed because it carried a link or code]";
const REDACTED_GIVEN_UP: &str = "[not delivered; the body was removed because it carried a link or code]";

/// The columns of a row that an [`OutboxEntry`] needs.
#[derive(Debug, Queryable, Selectable)]
#[diesel(table_name = email_outbox)]
struct OutboxRow {
    id: String,
    kind: String,
    recipient: String,
    subject: String,
    body: String,
    link: Option<String>,
    created_at: i64,
    attempts: i32,
    next_attempt_at: i64,
}

fn parse_kind(text: &str) -> Result<EmailKind, serde_json::Error> {
    serde_json::from_value(serde_json::Value::String(text.to_owned()))
}

impl OutboxRow {
    fn into_domain(self) -> Result<OutboxEntry, RepoError> {
        Ok(OutboxEntry {
            id: parse_stored("email_outbox.id", &self.id, Uuid::parse_str)?,
            email: OutgoingEmail {
                kind: parse_stored("email_outbox.kind", &self.kind, parse_kind)?,
                to: parse_stored("email_outbox.recipient", &self.recipient, EmailAddress::parse)?,
                subject: self.subject,
                text: self.body,
                link: self.link,
            },
            attempts: u32::try_from(self.attempts)
                .map_err(|e| RepoError::backend("reading the column email_outbox.attempts", e))?,
            next_attempt_at: from_millis(self.next_attempt_at)?,
            created_at: from_millis(self.created_at)?,
        })
    }
}

fn attempts_column(attempts: u32) -> Result<i32, RepoError> {
    i32::try_from(attempts).map_err(|e| RepoError::backend("storing an attempt count", e))
}

/// Writes e-mails to the outbox inside the caller's transaction (one implementation for every repository).
pub use crate::outbox_rows::enqueue as enqueue_emails;

/// [`OutboxRepository`] on `email_outbox`.
#[derive(Debug, Clone)]
pub struct DieselOutboxRepository {
    db: Db,
}

impl DieselOutboxRepository {
    #[must_use]
    pub fn new(db: Db) -> Self {
        Self { db }
    }
}

/// Claims one row read as `row`: changes it only when it is still due and unchanged since it was read.
fn claim(conn: &mut DbConnection, row: &OutboxRow, now: i64, lease_until: i64) -> Result<bool, RepoError> {
    let claimed = diesel::update(
        email_outbox::table
            .filter(email_outbox::id.eq(&row.id))
            .filter(email_outbox::sent_at.is_null())
            .filter(email_outbox::failed_at.is_null())
            .filter(email_outbox::next_attempt_at.eq(row.next_attempt_at))
            .filter(email_outbox::next_attempt_at.le(now))
            .filter(email_outbox::attempts.eq(row.attempts))
            .filter(
                email_outbox::lease_until
                    .is_null()
                    .or(email_outbox::lease_until.le(now)),
            ),
    )
    .set((
        email_outbox::lease_until.eq(Some(lease_until)),
        email_outbox::next_attempt_at.eq(lease_until),
    ))
    .execute(conn)
    .map_err(backend("leasing an outbox entry"))?;
    Ok(claimed == 1)
}

/// Changes one row by id, or [`RepoError::NotFound`].
fn expect_one(changed: usize) -> Result<(), RepoError> {
    if changed == 0 {
        Err(RepoError::NotFound)
    } else {
        Ok(())
    }
}

#[async_trait]
impl OutboxRepository for DieselOutboxRepository {
    /// The claimed entry's `next_attempt_at` is the instant it was due (as read before the claim); in the
    /// row, both `lease_until` and `next_attempt_at` become `lease_until`.
    async fn claim_due(
        &self,
        now: DateTime<Utc>,
        limit: u32,
        lease_until: DateTime<Utc>,
    ) -> Result<Vec<OutboxEntry>, RepoError> {
        let (now, lease_until) = (to_millis(now), to_millis(lease_until));
        let limit = usize::try_from(limit).unwrap_or(usize::MAX);
        self.db
            .write(move |conn| {
                let mut claimed = Vec::new();
                let mut tried: Vec<String> = Vec::new();
                while claimed.len() < limit {
                    let wanted = i64::try_from(limit - claimed.len()).unwrap_or(i64::MAX);
                    let candidates: Vec<OutboxRow> = email_outbox::table
                        .filter(email_outbox::sent_at.is_null())
                        .filter(email_outbox::failed_at.is_null())
                        .filter(email_outbox::next_attempt_at.le(now))
                        .filter(
                            email_outbox::lease_until
                                .is_null()
                                .or(email_outbox::lease_until.le(now)),
                        )
                        .filter(email_outbox::id.ne_all(&tried))
                        .order((
                            email_outbox::next_attempt_at,
                            email_outbox::created_at,
                            email_outbox::id,
                        ))
                        .limit(wanted)
                        .select(OutboxRow::as_select())
                        .load(conn)
                        .map_err(backend("reading the due outbox entries"))?;
                    if candidates.is_empty() {
                        break;
                    }
                    for row in candidates {
                        tried.push(row.id.clone());
                        if claim(conn, &row, now, lease_until)? {
                            claimed.push(row.into_domain()?);
                        }
                    }
                }
                Ok(claimed)
            })
            .await
    }

    async fn release(&self, id: Uuid, due_at: DateTime<Utc>) -> Result<(), RepoError> {
        let due_at = to_millis(due_at);
        self.db
            .write(move |conn| {
                // Still leased by this claim: not sent, not given up, its lease not taken over (a claim
                // sets `next_attempt_at` to the lease's end).
                diesel::update(
                    email_outbox::table
                        .find(id.to_string())
                        .filter(email_outbox::sent_at.is_null())
                        .filter(email_outbox::failed_at.is_null())
                        .filter(email_outbox::lease_until.is_not_null())
                        .filter(
                            email_outbox::lease_until
                                .nullable()
                                .eq(email_outbox::next_attempt_at.nullable()),
                        ),
                )
                .set((
                    email_outbox::lease_until.eq(None::<i64>),
                    email_outbox::next_attempt_at.eq(due_at),
                ))
                .execute(conn)
                .map_err(backend("releasing an outbox entry"))?;
                Ok(())
            })
            .await
    }

    async fn mark_sent(&self, id: Uuid, now: DateTime<Utc>) -> Result<(), RepoError> {
        self.db
            .write(move |conn| {
                let changed = diesel::update(email_outbox::table.find(id.to_string()))
                    .set((
                        email_outbox::sent_at.eq(Some(to_millis(now))),
                        email_outbox::lease_until.eq(None::<i64>),
                        email_outbox::body.eq(REDACTED_SENT),
                        email_outbox::link.eq(None::<String>),
                    ))
                    .execute(conn)
                    .map_err(backend("marking an outbox entry sent"))?;
                expect_one(changed)
            })
            .await
    }

    async fn mark_failed(
        &self,
        id: Uuid,
        attempts: u32,
        next_attempt_at: DateTime<Utc>,
        error: &str,
    ) -> Result<(), RepoError> {
        let error = error.to_owned();
        self.db
            .write(move |conn| {
                let changed = diesel::update(email_outbox::table.find(id.to_string()))
                    .set((
                        email_outbox::attempts.eq(attempts_column(attempts)?),
                        email_outbox::next_attempt_at.eq(to_millis(next_attempt_at)),
                        email_outbox::last_error.eq(Some(&error)),
                        email_outbox::lease_until.eq(None::<i64>),
                    ))
                    .execute(conn)
                    .map_err(backend("recording a failed delivery"))?;
                expect_one(changed)
            })
            .await
    }

    async fn give_up(
        &self,
        id: Uuid,
        attempts: u32,
        error: &str,
        now: DateTime<Utc>,
    ) -> Result<(), RepoError> {
        let error = error.to_owned();
        self.db
            .write(move |conn| {
                let changed = diesel::update(email_outbox::table.find(id.to_string()))
                    .set((
                        email_outbox::attempts.eq(attempts_column(attempts)?),
                        email_outbox::last_error.eq(Some(&error)),
                        email_outbox::failed_at.eq(Some(to_millis(now))),
                        email_outbox::lease_until.eq(None::<i64>),
                        email_outbox::body.eq(REDACTED_GIVEN_UP),
                        email_outbox::link.eq(None::<String>),
                    ))
                    .execute(conn)
                    .map_err(backend("giving up an outbox entry"))?;
                expect_one(changed)
            })
            .await
    }

    async fn backlog(&self) -> Result<OutboxBacklog, RepoError> {
        let (pending, oldest): (i64, Option<i64>) = self
            .db
            .read(|conn| {
                email_outbox::table
                    .filter(email_outbox::sent_at.is_null())
                    .filter(email_outbox::failed_at.is_null())
                    .select((
                        diesel::dsl::count_star(),
                        diesel::dsl::min(email_outbox::created_at),
                    ))
                    .first(conn)
                    .map_err(backend("measuring the outbox"))
            })
            .await?;
        Ok(OutboxBacklog {
            pending: u64::try_from(pending).unwrap_or_default(),
            oldest_created_at: oldest.map(from_millis).transpose()?,
        })
    }
}
