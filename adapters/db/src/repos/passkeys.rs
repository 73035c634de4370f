//! Passkeys (`passkeys`) and the WebAuthn ceremonies in flight (`webauthn_challenges`). A ceremony is
//! taken by deleting its row, and a sign-in moves the signature counter with a compare-and-set, so that
//! neither works twice even when two verifications race.

use async_trait::async_trait;
use chrono::{DateTime, Duration, Utc};
use diesel::prelude::*;
use domain::common::{RepoError, UserId};
use domain::identity::passkeys::{
    CHALLENGE_TTL_SECS, CONFLICT_TOO_MANY_PASSKEYS, CeremonyKind, MAX_PASSKEYS, Passkey, WebAuthnChallenge,
};
use domain::identity::ports::PasskeyRepository;
use domain::mail::OutgoingEmail;
use uuid::Uuid;

use crate::convert::{backend, db_error, from_millis, from_millis_opt, parse_stored, to_millis};
use crate::outbox_rows;
use crate::schema::{passkeys, webauthn_challenges};
use crate::{Db, DbConnection};

#[derive(Queryable, Selectable, Insertable)]
#[diesel(table_name = passkeys)]
struct PasskeyRow {
    id: String,
    user_id: String,
    credential_id: String,
    public_key: String,
    sign_count: i64,
    friendly_name: Option<String>,
    created_at: i64,
    last_used_at: Option<i64>,
}

impl PasskeyRow {
    fn from_domain(passkey: &Passkey) -> Self {
        Self {
            id: passkey.id.to_string(),
            user_id: passkey.user_id.to_string(),
            credential_id: passkey.credential_id.clone(),
            public_key: passkey.public_key.clone(),
            sign_count: passkey.sign_count,
            friendly_name: passkey.friendly_name.clone(),
            created_at: to_millis(passkey.created_at),
            last_used_at: passkey.last_used_at.map(to_millis),
        }
    }

    fn into_domain(self) -> Result<Passkey, RepoError> {
        Ok(Passkey {
            id: parse_stored("passkeys.id", &self.id, Uuid::parse_str)?,
            user_id: parse_stored("passkeys.user_id", &self.user_id, str::parse::<UserId>)?,
            credential_id: self.credential_id,
            public_key: self.public_key,
            sign_count: self.sign_count,
            friendly_name: self.friendly_name,
            created_at: from_millis(self.created_at)?,
            last_used_at: from_millis_opt(self.last_used_at)?,
        })
    }
}

#[derive(Queryable, Selectable, Insertable)]
#[diesel(table_name = webauthn_challenges)]
struct ChallengeRow {
    id: String,
    user_id: Option<String>,
    kind: String,
    state: String,
    created_at: i64,
}

impl ChallengeRow {
    fn into_domain(self) -> Result<WebAuthnChallenge, RepoError> {
        Ok(WebAuthnChallenge {
            id: parse_stored("webauthn_challenges.id", &self.id, Uuid::parse_str)?,
            user_id: self
                .user_id
                .as_deref()
                .map(|u| parse_stored("webauthn_challenges.user_id", u, str::parse::<UserId>))
                .transpose()?,
            kind: parse_stored("webauthn_challenges.kind", &self.kind, |k| {
                CeremonyKind::parse(k).ok_or("unknown ceremony")
            })?,
            state: self.state,
            created_at: from_millis(self.created_at)?,
        })
    }
}

/// [`PasskeyRepository`] on the `passkeys` and `webauthn_challenges` tables.
#[derive(Debug, Clone)]
pub struct DieselPasskeyRepository {
    db: Db,
}

impl DieselPasskeyRepository {
    #[must_use]
    pub const fn new(db: Db) -> Self {
        Self { db }
    }
}

fn find_row(conn: &mut DbConnection, user: &str, id: &str) -> Result<Option<Passkey>, RepoError> {
    passkeys::table
        .find(id)
        .filter(passkeys::user_id.eq(user))
        .select(PasskeyRow::as_select())
        .first(conn)
        .optional()
        .map_err(backend("reading a passkey"))?
        .map(PasskeyRow::into_domain)
        .transpose()
}

#[async_trait]
impl PasskeyRepository for DieselPasskeyRepository {
    async fn insert_challenge(&self, challenge: &WebAuthnChallenge) -> Result<(), RepoError> {
        let row = ChallengeRow {
            id: challenge.id.to_string(),
            user_id: challenge.user_id.map(|u| u.to_string()),
            kind: challenge.kind.code().to_owned(),
            state: challenge.state.clone(),
            created_at: to_millis(challenge.created_at),
        };
        self.db
            .write(move |conn| {
                diesel::insert_into(webauthn_challenges::table)
                    .values(&row)
                    .execute(conn)
                    .map_err(db_error("storing a WebAuthn challenge", "id"))
                    .map(drop)
            })
            .await
    }

    async fn take_challenge(
        &self,
        id: Uuid,
        kind: CeremonyKind,
        user: Option<UserId>,
    ) -> Result<Option<WebAuthnChallenge>, RepoError> {
        self.db
            .write(move |conn| {
                let id = id.to_string();
                let mut query = webauthn_challenges::table
                    .find(&id)
                    .filter(webauthn_challenges::kind.eq(kind.code()))
                    .into_boxed();
                query = match user {
                    Some(user) => query.filter(webauthn_challenges::user_id.eq(user.to_string())),
                    None => query.filter(webauthn_challenges::user_id.is_null()),
                };
                let Some(row) = query
                    .select(ChallengeRow::as_select())
                    .first(conn)
                    .optional()
                    .map_err(backend("reading a WebAuthn challenge"))?
                else {
                    return Ok(None);
                };
                // Whoever deletes the row took it: a racing verification deletes nothing.
                let taken = diesel::delete(webauthn_challenges::table.find(&id))
                    .execute(conn)
                    .map_err(backend("taking a WebAuthn challenge"))?;
                if taken == 0 {
                    return Ok(None);
                }
                row.into_domain().map(Some)
            })
            .await
    }

    async fn prune_challenges(&self, now: DateTime<Utc>) -> Result<u64, RepoError> {
        let before = to_millis(now - Duration::seconds(CHALLENGE_TTL_SECS));
        self.db
            .write(move |conn| {
                diesel::delete(webauthn_challenges::table.filter(webauthn_challenges::created_at.lt(before)))
                    .execute(conn)
                    .map_err(backend("removing expired WebAuthn challenges"))
                    .map(|n| n as u64)
            })
            .await
    }

    async fn insert(
        &self,
        passkey: &Passkey,
        notice: &OutgoingEmail,
        now: DateTime<Utc>,
    ) -> Result<(), RepoError> {
        let row = PasskeyRow::from_domain(passkey);
        let notice = notice.clone();
        self.db
            .write(move |conn| {
                // Counted under the account's cap lock, in the transaction that adds one.
                super::caps::lock_cap(conn, "passkeys", &row.user_id)?;
                let count: i64 = passkeys::table
                    .filter(passkeys::user_id.eq(&row.user_id))
                    .count()
                    .get_result(conn)
                    .map_err(backend("counting an account's passkeys"))?;
                if usize::try_from(count).unwrap_or(usize::MAX) >= MAX_PASSKEYS {
                    return Err(RepoError::Conflict(CONFLICT_TOO_MANY_PASSKEYS.to_owned()));
                }
                diesel::insert_into(passkeys::table)
                    .values(&row)
                    .execute(conn)
                    .map_err(db_error("storing a passkey", "credential_id"))?;
                outbox_rows::enqueue(conn, std::slice::from_ref(&notice), now)
            })
            .await
    }

    async fn list_for_user(&self, user: UserId) -> Result<Vec<Passkey>, RepoError> {
        self.db
            .read(move |conn| {
                passkeys::table
                    .filter(passkeys::user_id.eq(user.to_string()))
                    .order((passkeys::created_at.asc(), passkeys::id.asc()))
                    .select(PasskeyRow::as_select())
                    .load(conn)
                    .map_err(backend("reading an account's passkeys"))?
                    .into_iter()
                    .map(PasskeyRow::into_domain)
                    .collect()
            })
            .await
    }

    async fn find_by_credential(&self, credential_id: &str) -> Result<Option<Passkey>, RepoError> {
        let credential_id = credential_id.to_owned();
        self.db
            .lookup(move |conn| {
                passkeys::table
                    .filter(passkeys::credential_id.eq(&credential_id))
                    .select(PasskeyRow::as_select())
                    .first(conn)
                    .optional()
                    .map_err(backend("reading a passkey by credential"))?
                    .map(PasskeyRow::into_domain)
                    .transpose()
            })
            .await
    }

    async fn record_use(
        &self,
        id: Uuid,
        old_count: i64,
        new_count: i64,
        now: DateTime<Utc>,
    ) -> Result<bool, RepoError> {
        self.db
            .write(move |conn| {
                diesel::update(
                    passkeys::table
                        .find(id.to_string())
                        .filter(passkeys::sign_count.eq(old_count)),
                )
                .set((
                    passkeys::sign_count.eq(new_count),
                    passkeys::last_used_at.eq(to_millis(now)),
                ))
                .execute(conn)
                .map_err(backend("recording a passkey's use"))
                .map(|n| n == 1)
            })
            .await
    }

    async fn rename(&self, user: UserId, id: Uuid, name: &str) -> Result<Option<Passkey>, RepoError> {
        let name = name.to_owned();
        self.db
            .write(move |conn| {
                let (user, id) = (user.to_string(), id.to_string());
                diesel::update(passkeys::table.find(&id).filter(passkeys::user_id.eq(&user)))
                    .set(passkeys::friendly_name.eq(&name))
                    .execute(conn)
                    .map_err(backend("renaming a passkey"))?;
                find_row(conn, &user, &id)
            })
            .await
    }

    async fn delete(
        &self,
        user: UserId,
        id: Uuid,
        notice: &OutgoingEmail,
        now: DateTime<Utc>,
    ) -> Result<bool, RepoError> {
        let notice = notice.clone();
        self.db
            .write(move |conn| {
                let id = id.to_string();
                let removed = diesel::delete(
                    passkeys::table
                        .find(&id)
                        .filter(passkeys::user_id.eq(user.to_string())),
                )
                .execute(conn)
                .map_err(backend("removing a passkey"))?;
                if removed == 0 {
                    return Ok(false);
                }
                // The sessions that signed in or stepped up with this passkey drop to aal1.
                super::sessions::lower_sessions_raised_by(conn, &id)?;
                outbox_rows::enqueue(conn, std::slice::from_ref(&notice), now)?;
                Ok(true)
            })
            .await
    }
}
