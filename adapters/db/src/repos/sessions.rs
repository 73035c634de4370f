//! Refresh tokens (`refresh_tokens`): stored as digests, grouped in families (sessions), rotated with a
//! compare-and-set so that a token is exchanged once.

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use diesel::prelude::*;
use domain::common::{OrgId, RepoError, UserId};
use domain::identity::models::{
    AuthMethod, LiveSession, LiveSessionInOrg, RefreshToken, SecondFactorMethod, SecondStep,
};
use domain::identity::ports::RefreshTokenRepository;
use domain::mail::OutgoingEmail;
use uuid::Uuid;

use crate::convert::{backend, db_error, from_millis, from_millis_opt, parse_stored, to_millis};
use crate::outbox_rows;
use crate::schema::{access_tokens, accounts, refresh_tokens, session_clients};
use crate::{Db, DbConnection};

/// The conflict a second use of a refresh token answers.
pub const ALREADY_USED: &str = "already used";

#[derive(Queryable, Selectable, Insertable)]
#[diesel(table_name = refresh_tokens)]
pub(crate) struct RefreshTokenRow {
    token_hash: String,
    family_id: String,
    user_id: String,
    created_at: i64,
    last_used_at: i64,
    family_started_at: i64,
    revoked_at: Option<i64>,
    replaced_by: Option<String>,
    method: String,
    second_factor_method: Option<String>,
    second_factor_id: Option<String>,
    second_factor_at: Option<i64>,
}

impl RefreshTokenRow {
    fn from_domain(token: &RefreshToken) -> Self {
        Self {
            token_hash: token.token_hash.clone(),
            family_id: token.family_id.to_string(),
            user_id: token.user_id.to_string(),
            created_at: to_millis(token.created_at),
            last_used_at: to_millis(token.last_used_at),
            family_started_at: to_millis(token.family_started_at),
            revoked_at: token.revoked_at.map(to_millis),
            replaced_by: token.replaced_by.clone(),
            method: token.method.code().to_owned(),
            second_factor_method: token.second_step.map(|s| s.method.code().to_owned()),
            second_factor_id: token
                .second_step
                .and_then(|s| s.factor_id)
                .map(|id| id.to_string()),
            second_factor_at: token.second_step.map(|s| to_millis(s.at)),
        }
    }

    pub(super) fn into_domain(self) -> Result<RefreshToken, RepoError> {
        Ok(RefreshToken {
            family_id: parse_stored("refresh_tokens.family_id", &self.family_id, Uuid::parse_str)?,
            user_id: parse_stored("refresh_tokens.user_id", &self.user_id, str::parse::<UserId>)?,
            method: parse_stored("refresh_tokens.method", &self.method, |m| {
                AuthMethod::parse(m).ok_or("unknown sign-in method")
            })?,
            created_at: from_millis(self.created_at)?,
            last_used_at: from_millis(self.last_used_at)?,
            family_started_at: from_millis(self.family_started_at)?,
            revoked_at: from_millis_opt(self.revoked_at)?,
            second_step: match (self.second_factor_method.as_deref(), self.second_factor_at) {
                (Some(method), Some(at)) => Some(SecondStep {
                    method: parse_stored("refresh_tokens.second_factor_method", method, |m| {
                        SecondFactorMethod::parse(m).ok_or("unknown second factor")
                    })?,
                    factor_id: self
                        .second_factor_id
                        .as_deref()
                        .map(|id| parse_stored("refresh_tokens.second_factor_id", id, Uuid::parse_str))
                        .transpose()?,
                    at: from_millis(at)?,
                }),
                _ => None,
            },
            replaced_by: self.replaced_by,
            token_hash: self.token_hash,
        })
    }
}

fn insert_token(conn: &mut DbConnection, row: &RefreshTokenRow) -> Result<(), RepoError> {
    diesel::insert_into(refresh_tokens::table)
        .values(row)
        .execute(conn)
        .map_err(db_error("storing a refresh token", "token_hash"))
        .map(drop)
}

/// PostgreSQL: serialises one user's session changes on their account row (rotation and revocation both
/// take it first), so that a revocation which starts while a rotation is in flight runs after it commits and
/// also revokes the token it rotated in. (At READ COMMITTED the revoking UPDATE would otherwise miss it.)
/// SQLite: nothing to do, one writer at a time.
pub(super) fn lock_account(conn: &mut DbConnection, user: &str) -> Result<(), RepoError> {
    if let DbConnection::Postgres(pg) = conn {
        accounts::table
            .find(user)
            .select(accounts::id)
            .for_no_key_update()
            .load::<String>(pg)
            .map_err(backend("locking the account's sessions"))?;
    }
    Ok(())
}

/// [`RefreshTokenRepository`] on the `refresh_tokens` table.
#[derive(Debug, Clone)]
pub struct DieselRefreshTokenRepository {
    db: Db,
}

impl DieselRefreshTokenRepository {
    #[must_use]
    pub const fn new(db: Db) -> Self {
        Self { db }
    }
}

#[async_trait]
impl RefreshTokenRepository for DieselRefreshTokenRepository {
    async fn insert(&self, token: &RefreshToken) -> Result<(), RepoError> {
        let row = RefreshTokenRow::from_domain(token);
        self.db.write(move |conn| insert_token(conn, &row)).await
    }

    async fn find_by_hash(&self, token_hash: &str) -> Result<Option<RefreshToken>, RepoError> {
        let token_hash = token_hash.to_owned();
        self.db
            .read(move |conn| {
                refresh_tokens::table
                    .find(token_hash)
                    .select(RefreshTokenRow::as_select())
                    .first(conn)
                    .optional()
                    .map_err(backend("reading a refresh token"))?
                    .map(RefreshTokenRow::into_domain)
                    .transpose()
            })
            .await
    }

    async fn rotate(
        &self,
        old_hash: &str,
        successor: &RefreshToken,
        now: DateTime<Utc>,
    ) -> Result<(), RepoError> {
        let old_hash = old_hash.to_owned();
        let row = RefreshTokenRow::from_domain(successor);
        self.db
            .write(move |conn| {
                lock_account(conn, &row.user_id)?;
                // The compare-and-set: on PostgreSQL a concurrent rotation waits for the row lock and then
                // finds `replaced_by` set; on SQLite writers are serialised.
                let changed = diesel::update(
                    refresh_tokens::table
                        .find(&old_hash)
                        .filter(refresh_tokens::replaced_by.is_null())
                        .filter(refresh_tokens::revoked_at.is_null()),
                )
                .set((
                    refresh_tokens::replaced_by.eq(&row.token_hash),
                    refresh_tokens::last_used_at.eq(to_millis(now)),
                ))
                .execute(conn)
                .map_err(backend("rotating a refresh token"))?;
                if changed == 0 {
                    let exists: i64 = refresh_tokens::table
                        .find(&old_hash)
                        .count()
                        .get_result(conn)
                        .map_err(backend("reading a refresh token"))?;
                    return Err(if exists > 0 {
                        RepoError::Conflict(ALREADY_USED.to_owned())
                    } else {
                        RepoError::NotFound
                    });
                }
                insert_token(conn, &row)
            })
            .await
    }

    async fn current_of_family(&self, family_id: Uuid) -> Result<Option<RefreshToken>, RepoError> {
        // Every authenticated request asks: a lookup by key.
        self.db
            .lookup(move |conn| {
                refresh_tokens::table
                    .filter(refresh_tokens::family_id.eq(family_id.to_string()))
                    .filter(refresh_tokens::replaced_by.is_null())
                    .filter(refresh_tokens::revoked_at.is_null())
                    .order(refresh_tokens::created_at.desc())
                    .select(RefreshTokenRow::as_select())
                    .first(conn)
                    .optional()
                    .map_err(backend("reading a session"))?
                    .map(RefreshTokenRow::into_domain)
                    .transpose()
            })
            .await
    }

    async fn current_of_family_with_role(&self, family_id: Uuid) -> Result<Option<LiveSession>, RepoError> {
        // Every authenticated request asks: one lookup by key, or none when memory may be trusted.
        let read = self
            .db
            .lookup(move |conn| super::live_sessions::with_role(conn, &family_id.to_string()));
        match self.db.live_cache() {
            Some(cache) => cache.session(family_id, read).await,
            None => read.await,
        }
    }

    async fn current_of_family_in_org(
        &self,
        family_id: Uuid,
        org: OrgId,
    ) -> Result<Option<LiveSessionInOrg>, RepoError> {
        // Every organization-scoped request asks: one lookup by key, all it needs in one statement, or none
        // when memory may be trusted.
        let read = self
            .db
            .lookup(move |conn| super::live_sessions::in_org(conn, &family_id.to_string(), &org.to_string()));
        match self.db.live_cache() {
            Some(cache) => cache.in_org(family_id, org.0, read).await,
            None => read.await,
        }
    }

    async fn revoke_family(&self, family_id: Uuid, now: DateTime<Utc>) -> Result<(), RepoError> {
        self.db
            .write(move |conn| {
                let owner: Option<String> = refresh_tokens::table
                    .filter(refresh_tokens::family_id.eq(family_id.to_string()))
                    .select(refresh_tokens::user_id)
                    .first(conn)
                    .optional()
                    .map_err(backend("reading a session's owner"))?;
                let Some(owner) = owner else { return Ok(()) };
                lock_account(conn, &owner)?;
                diesel::update(
                    refresh_tokens::table
                        .filter(refresh_tokens::family_id.eq(family_id.to_string()))
                        .filter(refresh_tokens::revoked_at.is_null()),
                )
                .set(refresh_tokens::revoked_at.eq(to_millis(now)))
                .execute(conn)
                .map_err(backend("revoking a session"))
                .map(drop)
            })
            .await
    }

    async fn end_stolen_family(&self, family_id: Uuid, now: DateTime<Utc>) -> Result<(), RepoError> {
        self.db
            .write(move |conn| {
                super::session_list::end_families(conn, &[family_id.to_string()], now).map(drop)
            })
            .await
    }

    async fn revoke_all_for_user(
        &self,
        user: UserId,
        keep_family: Option<Uuid>,
        now: DateTime<Utc>,
        notice: Option<OutgoingEmail>,
    ) -> Result<(), RepoError> {
        self.db
            .write(move |conn| {
                lock_account(conn, &user.to_string())?;
                let keep = keep_family.map(|family| family.to_string()).unwrap_or_default();
                // Every session of the account still on record — live, or ended within the 30 days
                // refresh tokens are kept (an intruder who signs its own session out first is still
                // found) — but the kept one.
                let families: Vec<String> = refresh_tokens::table
                    .filter(refresh_tokens::user_id.eq(user.to_string()))
                    .filter(refresh_tokens::family_id.ne(keep))
                    .select(refresh_tokens::family_id)
                    .distinct()
                    .load(conn)
                    .map_err(backend("reading a user's sessions"))?;
                let ended = super::session_list::end_families(conn, &families, now)?;
                // The owner is told only when a session was in fact ended.
                match &notice {
                    Some(notice) if ended > 0 => {
                        outbox_rows::enqueue(conn, std::slice::from_ref(notice), now)
                    }
                    _ => Ok(()),
                }
            })
            .await
    }

    async fn prune_before(&self, cutoff: DateTime<Utc>) -> Result<u64, RepoError> {
        let cutoff = to_millis(cutoff);
        self.db
            .write(move |conn| {
                let pruned = diesel::delete(
                    refresh_tokens::table.filter(
                        refresh_tokens::family_started_at
                            .lt(cutoff)
                            .or(refresh_tokens::revoked_at.lt(cutoff)),
                    ),
                )
                .execute(conn)
                .map_err(backend("pruning refresh tokens"))?;
                // A client last seen before the cutoff belongs to a session that started before it.
                diesel::delete(session_clients::table.filter(session_clients::last_used_at.lt(cutoff)))
                    .execute(conn)
                    .map_err(backend("pruning session clients"))?;
                Ok(pruned as u64)
            })
            .await
    }
}

/// Removing a way in (a factor or a passkey, by its id) lowers the sessions it raised: their live heads
/// forget the second step, so they are `aal1` from the next request on. One statement for every kind of
/// way in.
pub(super) fn lower_sessions_raised_by(conn: &mut DbConnection, way_in: &str) -> Result<(), RepoError> {
    diesel::update(
        refresh_tokens::table
            .filter(refresh_tokens::second_factor_id.eq(way_in))
            .filter(refresh_tokens::replaced_by.is_null())
            .filter(refresh_tokens::revoked_at.is_null()),
    )
    .set((
        refresh_tokens::second_factor_method.eq(None::<String>),
        refresh_tokens::second_factor_id.eq(None::<String>),
        refresh_tokens::second_factor_at.eq(None::<i64>),
    ))
    .execute(conn)
    .map_err(backend("lowering the sessions a removed way in raised"))?;
    // A personal access token made by such a session recorded the step: it is lowered with them.
    diesel::update(access_tokens::table.filter(access_tokens::made_raised_by.eq(way_in)))
        .set((
            access_tokens::made_aal.eq(domain::identity::models::Aal::Aal1.code()),
            access_tokens::made_raised_by.eq(None::<String>),
        ))
        .execute(conn)
        .map(drop)
        .map_err(backend("lowering the access tokens a removed way in raised"))
}
