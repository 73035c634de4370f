//! Single-use e-mail codes and link tokens (`one_time_codes`), stored as digests, and the count of failed
//! typed codes per address (`failed_codes`), shared by every instance.

use async_trait::async_trait;
use chrono::{DateTime, Duration, Utc};
use diesel::prelude::*;
use diesel::upsert::excluded;
use domain::common::{EmailAddress, RepoError};
use domain::identity::models::{
    FAILED_CODES_FORGOTTEN_AFTER_MINUTES, MAX_FAILED_CODES, OneTimeCode, OtpPurpose,
};
use domain::identity::ports::OneTimeCodeRepository;
use domain::mail::OutgoingEmail;
use uuid::Uuid;

use crate::convert::{backend, db_error, from_millis, from_millis_opt, parse_stored, to_millis};
use crate::outbox_rows;
use crate::schema::{failed_codes, one_time_codes};
use crate::{Db, DbConnection};

/// The stored text of a purpose.
const fn purpose_text(purpose: OtpPurpose) -> &'static str {
    match purpose {
        OtpPurpose::Signup => "signup",
        OtpPurpose::MagicLink => "magic_link",
        OtpPurpose::Recovery => "recovery",
        OtpPurpose::EmailChange => "email_change",
    }
}

fn parse_purpose(text: &str) -> Result<OtpPurpose, &'static str> {
    [
        OtpPurpose::Signup,
        OtpPurpose::MagicLink,
        OtpPurpose::Recovery,
        OtpPurpose::EmailChange,
    ]
    .into_iter()
    .find(|p| purpose_text(*p) == text)
    .ok_or("unknown purpose")
}

#[derive(Queryable, Selectable, Insertable)]
#[diesel(table_name = one_time_codes)]
struct CodeRow {
    id: String,
    purpose: String,
    email: String,
    code_hash: String,
    created_at: i64,
    expires_at: i64,
    used_at: Option<i64>,
    pending_password_hash: Option<String>,
    browser_hash: Option<String>,
    typed: bool,
}

impl CodeRow {
    fn from_domain(code: &OneTimeCode) -> Self {
        Self {
            id: code.id.to_string(),
            purpose: purpose_text(code.purpose).to_owned(),
            email: code.email.as_str().to_owned(),
            code_hash: code.code_hash.clone(),
            created_at: to_millis(code.created_at),
            expires_at: to_millis(code.expires_at),
            used_at: code.used_at.map(to_millis),
            pending_password_hash: code.pending_password_hash.clone(),
            browser_hash: code.browser_hash.clone(),
            typed: code.typed,
        }
    }

    fn into_domain(self) -> Result<OneTimeCode, RepoError> {
        Ok(OneTimeCode {
            id: parse_stored("one_time_codes.id", &self.id, Uuid::parse_str)?,
            purpose: parse_stored("one_time_codes.purpose", &self.purpose, parse_purpose)?,
            email: parse_stored("one_time_codes.email", &self.email, EmailAddress::parse)?,
            code_hash: self.code_hash,
            created_at: from_millis(self.created_at)?,
            expires_at: from_millis(self.expires_at)?,
            used_at: from_millis_opt(self.used_at)?,
            pending_password_hash: self.pending_password_hash,
            browser_hash: self.browser_hash,
            typed: self.typed,
        })
    }
}

/// [`OneTimeCodeRepository`] on the `one_time_codes` table; e-mails go to `email_outbox`.
#[derive(Debug, Clone)]
pub struct DieselOneTimeCodeRepository {
    db: Db,
}

impl DieselOneTimeCodeRepository {
    #[must_use]
    pub const fn new(db: Db) -> Self {
        Self { db }
    }
}

/// The inner answer of a consume whose code was taken by a concurrent consume: rolls the transaction back.
const LOST_RACE: &str = "one-time code used concurrently";

/// Marks every unused code of the e-mail and purpose used at `at`.
fn retire(conn: &mut DbConnection, email: &str, purpose: &str, at: i64) -> Result<usize, RepoError> {
    diesel::update(one_time_codes::table)
        .filter(one_time_codes::email.eq(email))
        .filter(one_time_codes::used_at.is_null())
        .filter(one_time_codes::purpose.eq(purpose))
        .set(one_time_codes::used_at.eq(at))
        .execute(conn)
        .map_err(backend("retiring one-time codes"))
}

/// Adds one to the failures of the e-mail (atomic on both databases) and answers the new count.
fn count_failure(conn: &mut DbConnection, email: &str, at: i64) -> Result<i64, RepoError> {
    let upsert = diesel::insert_into(failed_codes::table)
        .values((
            failed_codes::email.eq(email),
            failed_codes::failures.eq(1_i64),
            failed_codes::last_failed_at.eq(at),
        ))
        .on_conflict(failed_codes::email)
        .do_update()
        .set((
            failed_codes::failures.eq(failed_codes::failures + excluded(failed_codes::failures)),
            failed_codes::last_failed_at.eq(excluded(failed_codes::last_failed_at)),
        ))
        .returning(failed_codes::failures);
    match conn {
        DbConnection::Sqlite(c) => upsert.get_result(c),
        DbConnection::Postgres(c) => upsert.get_result(c),
    }
    .map_err(backend("counting a failed code"))
}

#[async_trait]
impl OneTimeCodeRepository for DieselOneTimeCodeRepository {
    async fn insert_with_email(&self, codes: &[OneTimeCode], email: &OutgoingEmail) -> Result<(), RepoError> {
        let rows: Vec<CodeRow> = codes.iter().map(CodeRow::from_domain).collect();
        // The e-mail is due when the codes were issued (the service's clock).
        let now = codes.first().map_or_else(Utc::now, |c| c.created_at);
        let email = email.clone();
        self.db
            .write(move |conn| {
                // Only the newest request of an address and purpose works.
                for row in &rows {
                    retire(conn, &row.email, &row.purpose, row.created_at)?;
                }
                for row in &rows {
                    diesel::insert_into(one_time_codes::table)
                        .values(row)
                        .execute(conn)
                        .map_err(db_error("storing a one-time code", "one_time_code"))?;
                }
                outbox_rows::enqueue(conn, std::slice::from_ref(&email), now)
            })
            .await
    }

    async fn consume(
        &self,
        code_hash: &str,
        purpose: OtpPurpose,
        now: DateTime<Utc>,
    ) -> Result<Option<OneTimeCode>, RepoError> {
        let code_hash = code_hash.to_owned();
        let at = to_millis(now);
        let result = self
            .db
            .write(move |conn| {
                let Some(found) = one_time_codes::table
                    .filter(one_time_codes::code_hash.eq(&code_hash))
                    .filter(one_time_codes::purpose.eq(purpose_text(purpose)))
                    .filter(one_time_codes::used_at.is_null())
                    .filter(one_time_codes::expires_at.gt(at))
                    .select(CodeRow::as_select())
                    .first(conn)
                    .optional()
                    .map_err(backend("finding a one-time code"))?
                else {
                    return Ok(None);
                };
                // One statement marks the code and its unused siblings (same e-mail and purpose); a concurrent
                // consume of any of them waits for the row locks and then finds them used.
                let marked: Vec<String> = diesel::update(
                    one_time_codes::table
                        .filter(one_time_codes::email.eq(&found.email))
                        .filter(one_time_codes::purpose.eq(&found.purpose))
                        .filter(one_time_codes::used_at.is_null()),
                )
                .set(one_time_codes::used_at.eq(at))
                .returning(one_time_codes::id)
                .get_results(conn)
                .map_err(backend("using a one-time code"))?;
                if !marked.contains(&found.id) {
                    // Another consume used it first; undo marking codes issued since.
                    return Err(RepoError::Conflict(LOST_RACE.to_owned()));
                }
                diesel::delete(failed_codes::table.find(&found.email))
                    .execute(conn)
                    .map_err(backend("clearing failed codes"))?;
                let mut code = found.into_domain()?;
                code.used_at = Some(now);
                Ok(Some(code))
            })
            .await;
        match result {
            Err(RepoError::Conflict(reason)) if reason == LOST_RACE => Ok(None),
            other => other,
        }
    }

    async fn pending_password(
        &self,
        email: &EmailAddress,
        now: DateTime<Utc>,
    ) -> Result<Option<String>, RepoError> {
        let email = email.as_str().to_owned();
        let at = to_millis(now);
        self.db
            .read(move |conn| {
                one_time_codes::table
                    .filter(one_time_codes::email.eq(&email))
                    .filter(one_time_codes::purpose.eq(purpose_text(OtpPurpose::Signup)))
                    .filter(one_time_codes::used_at.is_null())
                    .filter(one_time_codes::expires_at.gt(at))
                    .order(one_time_codes::created_at.desc())
                    .select(one_time_codes::pending_password_hash)
                    .first::<Option<String>>(conn)
                    .optional()
                    .map(Option::flatten)
                    .map_err(backend("reading a pending sign-up password"))
            })
            .await
    }

    async fn record_failed_code(
        &self,
        email: &EmailAddress,
        purposes: &[OtpPurpose],
        now: DateTime<Utc>,
    ) -> Result<bool, RepoError> {
        let email = email.as_str().to_owned();
        let purposes: Vec<&'static str> = purposes.iter().map(|p| purpose_text(*p)).collect();
        let at = to_millis(now);
        let forgotten = to_millis(now - Duration::minutes(FAILED_CODES_FORGOTTEN_AFTER_MINUTES));
        self.db
            .write(move |conn| {
                diesel::delete(
                    failed_codes::table
                        .filter(failed_codes::email.eq(&email))
                        .filter(failed_codes::last_failed_at.le(forgotten)),
                )
                .execute(conn)
                .map_err(backend("forgetting old failed codes"))?;
                if count_failure(conn, &email, at)? < i64::from(MAX_FAILED_CODES) {
                    return Ok(false);
                }
                diesel::update(one_time_codes::table)
                    .filter(one_time_codes::email.eq(&email))
                    .filter(one_time_codes::used_at.is_null())
                    .filter(one_time_codes::typed.eq(true))
                    .filter(one_time_codes::purpose.eq_any(&purposes))
                    .set(one_time_codes::used_at.eq(at))
                    .execute(conn)
                    .map_err(backend("retiring typed codes"))?;
                diesel::delete(failed_codes::table.find(&email))
                    .execute(conn)
                    .map_err(backend("clearing failed codes"))?;
                Ok(true)
            })
            .await
    }

    async fn prune_expired(&self, cutoff: DateTime<Utc>) -> Result<u64, RepoError> {
        let cutoff = to_millis(cutoff);
        self.db
            .write(move |conn| {
                let codes =
                    diesel::delete(one_time_codes::table.filter(one_time_codes::expires_at.lt(cutoff)))
                        .execute(conn)
                        .map_err(backend("pruning one-time codes"))?;
                let failures =
                    diesel::delete(failed_codes::table.filter(failed_codes::last_failed_at.lt(cutoff)))
                        .execute(conn)
                        .map_err(backend("pruning failed codes"))?;
                Ok((codes + failures) as u64)
            })
            .await
    }
}
