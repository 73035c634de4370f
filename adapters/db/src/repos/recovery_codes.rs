//! Recovery codes (`recovery_codes`) of an account's `recovery_code` factor, stored as keyed digests. A
//! code is spent with one conditional update (`used_at IS NULL`), so that it works once even when two uses
//! race; a new set replaces the old one in one transaction.

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use diesel::prelude::*;
use domain::common::RepoError;
use domain::identity::factors::{Factor, FactorType};
use domain::identity::ports::{RecoveryCodeCounts, RecoveryCodeRepository};
use domain::mail::OutgoingEmail;
use uuid::Uuid;

use crate::convert::{backend, db_error, to_millis};
use crate::outbox_rows;
use crate::schema::{factors, recovery_codes};
use crate::{Db, DbConnection};

/// The error a second set of an account answers.
pub const DUPLICATE_SET: &str = "recovery_code";

#[derive(Insertable)]
#[diesel(table_name = recovery_codes)]
struct RecoveryCodeRow {
    id: String,
    factor_id: String,
    code_hash: String,
    created_at: i64,
    used_at: Option<i64>,
}

/// [`RecoveryCodeRepository`] on the `recovery_codes` table (and `factors` for the set's factor).
#[derive(Debug, Clone)]
pub struct DieselRecoveryCodeRepository {
    db: Db,
}

impl DieselRecoveryCodeRepository {
    #[must_use]
    pub const fn new(db: Db) -> Self {
        Self { db }
    }
}

/// Stores the set's factor, refusing a second `recovery_code` factor of the account.
fn insert_factor(conn: &mut DbConnection, factor: &Factor) -> Result<(), RepoError> {
    let user = factor.user_id.to_string();
    super::factors::refuse_beyond_max_factors(conn, &user)?;
    super::sessions::lock_account(conn, &user)?;
    let existing: i64 = factors::table
        .filter(factors::user_id.eq(&user))
        .filter(factors::factor_type.eq(FactorType::RecoveryCode.code()))
        .count()
        .get_result(conn)
        .map_err(backend("reading an account's recovery codes"))?;
    if existing > 0 {
        return Err(RepoError::Duplicate(DUPLICATE_SET));
    }
    diesel::insert_into(factors::table)
        .values((
            factors::id.eq(factor.id.to_string()),
            factors::user_id.eq(&user),
            factors::factor_type.eq(factor.factor_type.code()),
            factors::status.eq(factor.status.code()),
            factors::friendly_name.eq(&factor.friendly_name),
            factors::sealed_secret.eq(&factor.sealed_secret),
            factors::last_used_step.eq(factor.last_used_step),
            factors::created_at.eq(to_millis(factor.created_at)),
            factors::updated_at.eq(to_millis(factor.updated_at)),
            factors::last_challenged_at.eq(factor.last_challenged_at.map(to_millis)),
        ))
        .execute(conn)
        .map_err(db_error("storing the recovery codes' factor", DUPLICATE_SET))
        .map(drop)
}

#[async_trait]
impl RecoveryCodeRepository for DieselRecoveryCodeRepository {
    async fn replace(
        &self,
        factor: &Factor,
        create: bool,
        code_hashes: &[String],
        now: DateTime<Utc>,
        notice: Option<OutgoingEmail>,
    ) -> Result<(), RepoError> {
        let factor = factor.clone();
        let at = to_millis(now);
        let rows: Vec<RecoveryCodeRow> = code_hashes
            .iter()
            .map(|hash| RecoveryCodeRow {
                id: Uuid::new_v4().to_string(),
                factor_id: factor.id.to_string(),
                code_hash: hash.clone(),
                created_at: at,
                used_at: None,
            })
            .collect();
        self.db
            .write(move |conn| {
                let id = factor.id.to_string();
                if create {
                    insert_factor(conn, &factor)?;
                } else {
                    // Lock the factor row (PostgreSQL) and check that it is still there.
                    let touched = diesel::update(
                        factors::table
                            .find(&id)
                            .filter(factors::user_id.eq(factor.user_id.to_string())),
                    )
                    .set(factors::updated_at.eq(at))
                    .execute(conn)
                    .map_err(backend("renewing the recovery codes' factor"))?;
                    if touched == 0 {
                        return Err(RepoError::NotFound);
                    }
                }
                diesel::delete(recovery_codes::table.filter(recovery_codes::factor_id.eq(&id)))
                    .execute(conn)
                    .map_err(backend("retiring recovery codes"))?;
                // One row at a time: a batch insert does not compile through the multi-backend connection.
                for row in &rows {
                    diesel::insert_into(recovery_codes::table)
                        .values(row)
                        .execute(conn)
                        .map_err(backend("storing recovery codes"))?;
                }
                if let Some(notice) = &notice {
                    outbox_rows::enqueue(conn, std::slice::from_ref(notice), now)?;
                }
                Ok(())
            })
            .await
    }

    async fn counts(&self, factor_id: Uuid) -> Result<RecoveryCodeCounts, RepoError> {
        self.db
            .read(move |conn| {
                let used: Vec<Option<i64>> = recovery_codes::table
                    .filter(recovery_codes::factor_id.eq(factor_id.to_string()))
                    .select(recovery_codes::used_at)
                    .load(conn)
                    .map_err(backend("counting recovery codes"))?;
                Ok(RecoveryCodeCounts {
                    total: used.len(),
                    remaining: used.iter().filter(|u| u.is_none()).count(),
                })
            })
            .await
    }

    async fn use_code(
        &self,
        factor_id: Uuid,
        code_hash: &str,
        now: DateTime<Utc>,
        notice: Option<OutgoingEmail>,
    ) -> Result<bool, RepoError> {
        let code_hash = code_hash.to_owned();
        self.db
            .write(move |conn| {
                let spent = diesel::update(
                    recovery_codes::table
                        .filter(recovery_codes::factor_id.eq(factor_id.to_string()))
                        .filter(recovery_codes::code_hash.eq(&code_hash))
                        .filter(recovery_codes::used_at.is_null()),
                )
                .set(recovery_codes::used_at.eq(to_millis(now)))
                .execute(conn)
                .map_err(backend("spending a recovery code"))?;
                if spent == 0 {
                    return Ok(false);
                }
                if let Some(notice) = &notice {
                    outbox_rows::enqueue(conn, std::slice::from_ref(notice), now)?;
                }
                Ok(true)
            })
            .await
    }
}
