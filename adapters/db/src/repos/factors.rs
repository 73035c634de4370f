//! Second factors (`factors`) and their challenges (`factor_challenges`). A verification takes the
//! challenge and the TOTP step (or the `webauthn` factor's credential slot, or its signature counter) with
//! one compare-and-set each, in one transaction, so that an answer works once even when two verifications
//! race.

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use diesel::prelude::*;
use domain::common::{RepoError, UserId};
use domain::identity::factors::{
    CONFLICT_TOO_MANY_FACTORS, Factor, FactorCeremony, FactorCeremonyKind, FactorChallenge, FactorStatus,
    FactorType, FactorUse, MAX_FACTORS, WebAuthnCredential,
};
use domain::identity::ports::FactorRepository;
use uuid::Uuid;

use crate::convert::{backend, db_error, from_millis, from_millis_opt, parse_stored, to_millis};
use crate::outbox_rows;
use crate::schema::{factor_challenges, factors, recovery_codes};
use crate::{Db, DbConnection};
use domain::mail::OutgoingEmail;

#[derive(Queryable, Selectable, Insertable)]
#[diesel(table_name = factors)]
struct FactorRow {
    id: String,
    user_id: String,
    factor_type: String,
    status: String,
    friendly_name: Option<String>,
    sealed_secret: String,
    last_used_step: Option<i64>,
    created_at: i64,
    updated_at: i64,
    last_challenged_at: Option<i64>,
    webauthn_credential_id: Option<String>,
    webauthn_public_key: Option<String>,
    webauthn_sign_count: Option<i64>,
}

impl FactorRow {
    fn from_domain(factor: &Factor) -> Self {
        Self {
            id: factor.id.to_string(),
            user_id: factor.user_id.to_string(),
            factor_type: factor.factor_type.code().to_owned(),
            status: factor.status.code().to_owned(),
            friendly_name: factor.friendly_name.clone(),
            sealed_secret: factor.sealed_secret.clone(),
            last_used_step: factor.last_used_step,
            created_at: to_millis(factor.created_at),
            updated_at: to_millis(factor.updated_at),
            last_challenged_at: factor.last_challenged_at.map(to_millis),
            webauthn_credential_id: factor.webauthn.as_ref().map(|c| c.credential_id.clone()),
            webauthn_public_key: factor.webauthn.as_ref().map(|c| c.public_key.clone()),
            webauthn_sign_count: factor.webauthn.as_ref().map(|c| c.sign_count),
        }
    }

    fn into_domain(self) -> Result<Factor, RepoError> {
        Ok(Factor {
            id: parse_stored("factors.id", &self.id, Uuid::parse_str)?,
            user_id: parse_stored("factors.user_id", &self.user_id, str::parse::<UserId>)?,
            factor_type: parse_stored("factors.factor_type", &self.factor_type, |t| {
                FactorType::parse(t).ok_or("unknown factor type")
            })?,
            status: parse_stored("factors.status", &self.status, |s| {
                FactorStatus::parse(s).ok_or("unknown factor status")
            })?,
            friendly_name: self.friendly_name,
            sealed_secret: self.sealed_secret,
            last_used_step: self.last_used_step,
            created_at: from_millis(self.created_at)?,
            updated_at: from_millis(self.updated_at)?,
            last_challenged_at: from_millis_opt(self.last_challenged_at)?,
            webauthn: match (self.webauthn_credential_id, self.webauthn_public_key) {
                (Some(credential_id), Some(public_key)) => Some(WebAuthnCredential {
                    credential_id,
                    public_key,
                    sign_count: self.webauthn_sign_count.unwrap_or(0),
                }),
                _ => None,
            },
        })
    }
}

#[derive(Queryable, Selectable, Insertable)]
#[diesel(table_name = factor_challenges)]
struct ChallengeRow {
    id: String,
    factor_id: String,
    created_at: i64,
    verified_at: Option<i64>,
    ip_address: String,
    webauthn_kind: Option<String>,
    webauthn_state: Option<String>,
}

impl ChallengeRow {
    fn into_domain(self) -> Result<FactorChallenge, RepoError> {
        let webauthn = match (self.webauthn_kind, self.webauthn_state) {
            (Some(kind), Some(state)) => Some(FactorCeremony {
                kind: parse_stored("factor_challenges.webauthn_kind", &kind, |k| {
                    FactorCeremonyKind::parse(k).ok_or("unknown ceremony")
                })?,
                state,
            }),
            _ => None,
        };
        Ok(FactorChallenge {
            id: parse_stored("factor_challenges.id", &self.id, Uuid::parse_str)?,
            factor_id: parse_stored("factor_challenges.factor_id", &self.factor_id, Uuid::parse_str)?,
            created_at: from_millis(self.created_at)?,
            verified_at: from_millis_opt(self.verified_at)?,
            ip_address: self.ip_address,
            webauthn,
        })
    }
}

/// [`FactorRepository`] on the `factors` and `factor_challenges` tables.
#[derive(Debug, Clone)]
pub struct DieselFactorRepository {
    db: Db,
}

impl DieselFactorRepository {
    #[must_use]
    pub const fn new(db: Db) -> Self {
        Self { db }
    }
}

fn rows_of(conn: &mut DbConnection, user: &str) -> Result<Vec<Factor>, RepoError> {
    factors::table
        .filter(factors::user_id.eq(user))
        .order((factors::created_at.asc(), factors::id.asc()))
        .select(FactorRow::as_select())
        .load(conn)
        .map_err(backend("reading an account's factors"))?
        .into_iter()
        .map(FactorRow::into_domain)
        .collect()
}

/// Refuses one more factor of `user` when the account has [`MAX_FACTORS`] already: counted under the
/// account's cap lock, in the transaction that adds it.
///
/// # Errors
/// [`RepoError::Conflict`]`(`[`CONFLICT_TOO_MANY_FACTORS`]`)`; [`RepoError::Backend`].
pub(super) fn refuse_beyond_max_factors(conn: &mut DbConnection, user: &str) -> Result<(), RepoError> {
    super::caps::lock_cap(conn, "factors", user)?;
    let count: i64 = factors::table
        .filter(factors::user_id.eq(user))
        .count()
        .get_result(conn)
        .map_err(backend("counting an account's factors"))?;
    if usize::try_from(count).unwrap_or(usize::MAX) >= MAX_FACTORS {
        return Err(RepoError::Conflict(CONFLICT_TOO_MANY_FACTORS.to_owned()));
    }
    Ok(())
}

#[async_trait]
impl FactorRepository for DieselFactorRepository {
    async fn insert(&self, factor: &Factor) -> Result<(), RepoError> {
        let row = FactorRow::from_domain(factor);
        self.db
            .write(move |conn| {
                refuse_beyond_max_factors(conn, &row.user_id)?;
                diesel::insert_into(factors::table)
                    .values(&row)
                    .execute(conn)
                    .map_err(db_error("storing a factor", "id"))
                    .map(drop)
            })
            .await
    }

    async fn list_for_user(&self, user: UserId) -> Result<Vec<Factor>, RepoError> {
        self.db.read(move |conn| rows_of(conn, &user.to_string())).await
    }

    async fn find(&self, user: UserId, id: Uuid) -> Result<Option<Factor>, RepoError> {
        self.db
            .lookup(move |conn| {
                factors::table
                    .find(id.to_string())
                    .filter(factors::user_id.eq(user.to_string()))
                    .select(FactorRow::as_select())
                    .first(conn)
                    .optional()
                    .map_err(backend("reading a factor"))?
                    .map(FactorRow::into_domain)
                    .transpose()
            })
            .await
    }

    async fn delete(
        &self,
        user: UserId,
        id: Uuid,
        now: DateTime<Utc>,
        notice: Option<OutgoingEmail>,
    ) -> Result<bool, RepoError> {
        self.db
            .write(move |conn| {
                let id = id.to_string();
                diesel::delete(factor_challenges::table.filter(factor_challenges::factor_id.eq(&id)))
                    .execute(conn)
                    .map_err(backend("removing a factor's challenges"))?;
                diesel::delete(recovery_codes::table.filter(recovery_codes::factor_id.eq(&id)))
                    .execute(conn)
                    .map_err(backend("removing a factor's recovery codes"))?;
                let removed = diesel::delete(
                    factors::table
                        .find(&id)
                        .filter(factors::user_id.eq(user.to_string())),
                )
                .execute(conn)
                .map_err(backend("removing a factor"))?;
                if removed == 0 {
                    return Ok(false);
                }
                // The sessions that passed this factor drop to aal1 (their live tokens forget it).
                super::sessions::lower_sessions_raised_by(conn, &id)?;
                if let Some(notice) = &notice {
                    outbox_rows::enqueue(conn, std::slice::from_ref(notice), now)?;
                }
                Ok(true)
            })
            .await
    }

    async fn insert_challenge(&self, challenge: &FactorChallenge) -> Result<(), RepoError> {
        let row = ChallengeRow {
            id: challenge.id.to_string(),
            factor_id: challenge.factor_id.to_string(),
            created_at: to_millis(challenge.created_at),
            verified_at: challenge.verified_at.map(to_millis),
            ip_address: challenge.ip_address.clone(),
            webauthn_kind: challenge.webauthn.as_ref().map(|c| c.kind.code().to_owned()),
            webauthn_state: challenge.webauthn.as_ref().map(|c| c.state.clone()),
        };
        self.db
            .write(move |conn| {
                diesel::insert_into(factor_challenges::table)
                    .values(&row)
                    .execute(conn)
                    .map_err(db_error("storing a challenge", "id"))?;
                diesel::update(factors::table.find(&row.factor_id))
                    .set(factors::last_challenged_at.eq(row.created_at))
                    .execute(conn)
                    .map_err(backend("recording a factor's challenge"))
                    .map(drop)
            })
            .await
    }

    async fn find_challenge(&self, factor_id: Uuid, id: Uuid) -> Result<Option<FactorChallenge>, RepoError> {
        self.db
            .lookup(move |conn| {
                factor_challenges::table
                    .find(id.to_string())
                    .filter(factor_challenges::factor_id.eq(factor_id.to_string()))
                    .select(ChallengeRow::as_select())
                    .first(conn)
                    .optional()
                    .map_err(backend("reading a challenge"))?
                    .map(ChallengeRow::into_domain)
                    .transpose()
            })
            .await
    }

    async fn delete_challenge(&self, id: Uuid) -> Result<(), RepoError> {
        self.db
            .write(move |conn| {
                diesel::delete(factor_challenges::table.find(id.to_string()))
                    .execute(conn)
                    .map_err(backend("removing a challenge"))
                    .map(drop)
            })
            .await
    }

    async fn complete_verification(
        &self,
        factor_id: Uuid,
        challenge_id: Uuid,
        used: FactorUse,
        now: DateTime<Utc>,
        notice: Option<OutgoingEmail>,
    ) -> Result<bool, RepoError> {
        self.db
            .write(move |conn| {
                let (factor, at) = (factor_id.to_string(), to_millis(now));
                // The step (credential slot, counter) first: on PostgreSQL a racing verification waits for
                // this row's lock and then finds it taken.
                let verified = (
                    factors::status.eq(FactorStatus::Verified.code()),
                    factors::updated_at.eq(at),
                );
                let took_step = match &used {
                    FactorUse::TotpStep(step) => diesel::update(
                        factors::table.find(&factor).filter(
                            factors::last_used_step
                                .is_null()
                                .or(factors::last_used_step.lt(*step)),
                        ),
                    )
                    .set((factors::last_used_step.eq(*step), verified))
                    .execute(conn),
                    FactorUse::WebAuthnRegistered(credential) => diesel::update(
                        factors::table
                            .find(&factor)
                            .filter(factors::webauthn_credential_id.is_null()),
                    )
                    .set((
                        factors::webauthn_credential_id.eq(&credential.credential_id),
                        factors::webauthn_public_key.eq(&credential.public_key),
                        factors::webauthn_sign_count.eq(credential.sign_count),
                        verified,
                    ))
                    .execute(conn),
                    FactorUse::WebAuthnAsserted { old, new } => diesel::update(
                        factors::table
                            .find(&factor)
                            .filter(factors::webauthn_credential_id.is_not_null())
                            .filter(factors::webauthn_sign_count.eq(*old)),
                    )
                    .set((factors::webauthn_sign_count.eq(*new), verified))
                    .execute(conn),
                }
                .map_err(backend("taking a factor's answer"))?;
                if took_step == 0 {
                    return Ok(false);
                }
                let took_challenge = diesel::update(
                    factor_challenges::table
                        .find(challenge_id.to_string())
                        .filter(factor_challenges::factor_id.eq(&factor))
                        .filter(factor_challenges::verified_at.is_null()),
                )
                .set(factor_challenges::verified_at.eq(at))
                .execute(conn)
                .map_err(backend("verifying a challenge"))?;
                if took_challenge == 0 {
                    // Nothing may stay changed: the transaction rolls back on an error only.
                    return Err(RepoError::Conflict("challenge already verified".to_owned()));
                }
                let (user, kind): (String, String) = factors::table
                    .find(&factor)
                    .select((factors::user_id, factors::factor_type))
                    .first(conn)
                    .map_err(backend("reading a verified factor"))?;
                let unverified: Vec<String> = factors::table
                    .filter(factors::user_id.eq(&user))
                    .filter(factors::factor_type.eq(&kind))
                    .filter(factors::status.eq(FactorStatus::Unverified.code()))
                    .filter(factors::id.ne(&factor))
                    .select(factors::id)
                    .load(conn)
                    .map_err(backend("reading unverified factors"))?;
                diesel::delete(
                    factor_challenges::table.filter(factor_challenges::factor_id.eq_any(&unverified)),
                )
                .execute(conn)
                .map_err(backend("removing unverified factors' challenges"))?;
                diesel::delete(factors::table.filter(factors::id.eq_any(&unverified)))
                    .execute(conn)
                    .map_err(backend("removing unverified factors"))?;
                if let Some(notice) = &notice {
                    outbox_rows::enqueue(conn, std::slice::from_ref(notice), now)?;
                }
                Ok(true)
            })
            .await
            .or_else(|error| match error {
                RepoError::Conflict(_) => Ok(false),
                other => Err(other),
            })
    }
}
