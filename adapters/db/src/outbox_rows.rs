//! Writing e-mails to the outbox inside another repository's transaction, so that a change and the e-mail
//! it causes are committed together (PRODUCT.md §2).

use chrono::{DateTime, Utc};
use diesel::prelude::*;
use domain::common::RepoError;
use domain::mail::OutgoingEmail;

use crate::DbConnection;
use crate::convert::{db_error, to_millis};
use crate::schema::email_outbox;

/// Inserts `emails` into the outbox, due at once. Call it inside the `db.write` closure of the change that
/// causes them.
///
/// # Errors
/// [`RepoError::Backend`] when the insert fails (the caller's transaction then rolls back).
pub fn enqueue(
    conn: &mut DbConnection,
    emails: &[OutgoingEmail],
    now: DateTime<Utc>,
) -> Result<(), RepoError> {
    let at = to_millis(now);
    for email in emails {
        diesel::insert_into(email_outbox::table)
            .values((
                email_outbox::id.eq(uuid::Uuid::new_v4().to_string()),
                email_outbox::kind.eq(email.kind.code()),
                email_outbox::recipient.eq(email.to.as_str()),
                email_outbox::subject.eq(&email.subject),
                email_outbox::body.eq(&email.text),
                email_outbox::link.eq(email.link.as_deref()),
                email_outbox::created_at.eq(at),
                email_outbox::attempts.eq(0),
                email_outbox::next_attempt_at.eq(at),
            ))
            .execute(conn)
            .map_err(db_error("writing an e-mail to the outbox", "outbox_id"))?;
    }
    Ok(())
}
