//! The account's sessions as its owner sees them: `session_clients` (the client each session was last
//! used from) beside the live heads of `refresh_tokens`; ending one session, or the `aal1` ones.

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use diesel::prelude::*;
use domain::common::{RepoError, UserId};
use domain::identity::models::SessionClient;
use domain::identity::ports::{ListedSession, SessionListRepository};
use domain::mail::OutgoingEmail;
use std::collections::HashMap;
use uuid::Uuid;

use super::sessions::{RefreshTokenRow, lock_account};
use crate::convert::{backend, from_millis, to_millis};
use crate::outbox_rows;
use crate::schema::{access_tokens, refresh_tokens, session_clients};
use crate::{Db, DbConnection};

#[derive(Queryable, Selectable)]
#[diesel(table_name = session_clients)]
struct ClientRow {
    family_id: String,
    user_agent: Option<String>,
    ip_address: Option<String>,
    last_used_at: i64,
}

/// [`SessionListRepository`] on `session_clients` and `refresh_tokens`.
#[derive(Debug, Clone)]
pub struct DieselSessionListRepository {
    db: Db,
}

impl DieselSessionListRepository {
    #[must_use]
    pub const fn new(db: Db) -> Self {
        Self { db }
    }
}

/// What ends with a session, written once: every recovery that ends sessions (sign out everywhere or the
/// others, a password reset, an address proven by its mailbox, the second-factor ceiling, ending one
/// session from the list, an operator's factor reset) ends them here, and with each family the personal
/// access tokens it made — an intruder's token dies with the intruder's session. Answers how many refresh
/// tokens were revoked.
pub(super) fn end_families(
    conn: &mut DbConnection,
    families: &[String],
    now: DateTime<Utc>,
) -> Result<usize, RepoError> {
    if families.is_empty() {
        return Ok(0);
    }
    diesel::update(
        access_tokens::table
            .filter(access_tokens::made_by_family.eq_any(families))
            .filter(access_tokens::revoked_at.is_null()),
    )
    .set(access_tokens::revoked_at.eq(to_millis(now)))
    .execute(conn)
    .map_err(backend("revoking the access tokens of ended sessions"))?;
    diesel::update(
        refresh_tokens::table
            .filter(refresh_tokens::family_id.eq_any(families))
            .filter(refresh_tokens::revoked_at.is_null()),
    )
    .set(refresh_tokens::revoked_at.eq(to_millis(now)))
    .execute(conn)
    .map_err(backend("ending sessions"))
}

#[async_trait]
impl SessionListRepository for DieselSessionListRepository {
    async fn record_client(
        &self,
        family: Uuid,
        user: UserId,
        client: &SessionClient,
    ) -> Result<(), RepoError> {
        let client = client.clone();
        self.db
            .write(move |conn| {
                let family = family.to_string();
                let values = || {
                    (
                        session_clients::user_id.eq(user.to_string()),
                        session_clients::user_agent.eq(client.user_agent.clone()),
                        session_clients::ip_address.eq(client.ip_address.clone()),
                        session_clients::last_used_at.eq(to_millis(client.last_used_at)),
                    )
                };
                // Select, then update or insert (no ON CONFLICT through the multi-backend connection);
                // the write transaction keeps it atomic.
                let updated = diesel::update(session_clients::table.find(&family))
                    .set(values())
                    .execute(conn)
                    .map_err(backend("recording a session's client"))?;
                if updated == 0 {
                    diesel::insert_into(session_clients::table)
                        .values((session_clients::family_id.eq(&family), values()))
                        .execute(conn)
                        .map_err(backend("recording a session's client"))?;
                }
                Ok(())
            })
            .await
    }

    async fn list_live(&self, user: UserId) -> Result<Vec<ListedSession>, RepoError> {
        self.db
            .read(move |conn| {
                let user = user.to_string();
                let heads: Vec<RefreshTokenRow> = refresh_tokens::table
                    .filter(refresh_tokens::user_id.eq(&user))
                    .filter(refresh_tokens::replaced_by.is_null())
                    .filter(refresh_tokens::revoked_at.is_null())
                    .order((refresh_tokens::created_at.desc(), refresh_tokens::family_id.asc()))
                    .select(RefreshTokenRow::as_select())
                    .load(conn)
                    .map_err(backend("listing an account's sessions"))?;
                let mut clients: HashMap<String, ClientRow> = session_clients::table
                    .filter(session_clients::user_id.eq(&user))
                    .select(ClientRow::as_select())
                    .load(conn)
                    .map_err(backend("reading an account's session clients"))?
                    .into_iter()
                    .map(|row| (row.family_id.clone(), row))
                    .collect();
                let mut seen = std::collections::HashSet::new();
                let mut listed = Vec::with_capacity(heads.len());
                for row in heads {
                    let head = row.into_domain()?;
                    // One head per family (a family has one live token; keep the newest if not).
                    if !seen.insert(head.family_id) {
                        continue;
                    }
                    let client = clients
                        .remove(&head.family_id.to_string())
                        .map(|c| -> Result<SessionClient, RepoError> {
                            Ok(SessionClient {
                                user_agent: c.user_agent,
                                ip_address: c.ip_address,
                                last_used_at: from_millis(c.last_used_at)?,
                            })
                        })
                        .transpose()?;
                    listed.push(ListedSession { head, client });
                }
                Ok(listed)
            })
            .await
    }

    async fn end_session(
        &self,
        user: UserId,
        family: Uuid,
        now: DateTime<Utc>,
        notice: Option<OutgoingEmail>,
    ) -> Result<bool, RepoError> {
        self.db
            .write(move |conn| {
                let user = user.to_string();
                lock_account(conn, &user)?;
                let family = family.to_string();
                let live: i64 = refresh_tokens::table
                    .filter(refresh_tokens::family_id.eq(&family))
                    .filter(refresh_tokens::user_id.eq(&user))
                    .filter(refresh_tokens::replaced_by.is_null())
                    .filter(refresh_tokens::revoked_at.is_null())
                    .count()
                    .get_result(conn)
                    .map_err(backend("reading a session"))?;
                if live == 0 {
                    return Ok(false);
                }
                end_families(conn, std::slice::from_ref(&family), now)?;
                if let Some(notice) = &notice {
                    outbox_rows::enqueue(conn, std::slice::from_ref(notice), now)?;
                }
                Ok(true)
            })
            .await
    }

    async fn end_aal1_sessions(
        &self,
        user: UserId,
        keep: Option<Uuid>,
        now: DateTime<Utc>,
        notice: Option<OutgoingEmail>,
    ) -> Result<u64, RepoError> {
        self.db
            .write(move |conn| {
                let user = user.to_string();
                lock_account(conn, &user)?;
                let keep = keep.map(|family| family.to_string()).unwrap_or_default();
                let families: Vec<String> = refresh_tokens::table
                    .filter(refresh_tokens::user_id.eq(&user))
                    .filter(refresh_tokens::replaced_by.is_null())
                    .filter(refresh_tokens::revoked_at.is_null())
                    .filter(refresh_tokens::second_factor_method.is_null())
                    .filter(refresh_tokens::family_id.ne(keep))
                    .select(refresh_tokens::family_id)
                    .distinct()
                    .load(conn)
                    .map_err(backend("reading an account's aal1 sessions"))?;
                end_families(conn, &families, now)?;
                if let Some(notice) = &notice {
                    crate::outbox_rows::enqueue(conn, std::slice::from_ref(notice), now)?;
                }
                Ok(families.len() as u64)
            })
            .await
    }

    async fn active_access_tokens(&self, user: UserId, now: DateTime<Utc>) -> Result<Vec<String>, RepoError> {
        self.db
            .read(move |conn| {
                access_tokens::table
                    .filter(access_tokens::user_id.eq(user.to_string()))
                    .filter(access_tokens::revoked_at.is_null())
                    .filter(access_tokens::expires_at.gt(to_millis(now)))
                    .order((access_tokens::created_at.desc(), access_tokens::id))
                    .select(access_tokens::name)
                    .load(conn)
                    .map_err(backend("listing an account's active access tokens"))
            })
            .await
    }
}
