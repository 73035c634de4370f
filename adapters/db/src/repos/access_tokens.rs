//! Personal access tokens (`access_tokens`). The read every token-authenticated request makes takes the
//! token, its owner's address and protection and, for a request naming an organization, the owner's
//! standing there, in one statement (as a session's read does).

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use diesel::prelude::*;
use domain::audit::AuditEntry;
use domain::common::{EmailAddress, OrgId, RepoError, UserId};
use domain::identity::SessionProof;
use domain::identity::models::Aal;
use domain::mail::OutgoingEmail;
use domain::tokens::{AccessToken, AccessTokenRepository, OrgStanding, OwnedToken, Scopes, TokenRead};
use uuid::Uuid;

use super::protection::{ProtectionRow, from_row, org_standing, protection};
use crate::connection::on_backend;
use crate::convert::{backend, db_error, from_millis, from_millis_opt, parse_stored, to_millis};
use crate::schema::{access_tokens, accounts, org_members};
use crate::{Db, DbConnection, outbox_rows};

#[derive(Debug, Clone, Queryable, Selectable, Insertable)]
#[diesel(table_name = access_tokens)]
struct TokenRow {
    id: String,
    user_id: String,
    org_id: Option<String>,
    name: String,
    scopes: String,
    secret_digest: String,
    created_at: i64,
    expires_at: i64,
    revoked_at: Option<i64>,
    expiry_recorded: bool,
    last_used_at: Option<i64>,
    last_used_ip: Option<String>,
    made_aal: String,
    made_first_factor_at: Option<i64>,
    made_by_family: Option<String>,
    made_raised_by: Option<String>,
}

impl TokenRow {
    fn new(token: &AccessToken, secret_digest: &str) -> Self {
        Self {
            id: token.id.to_string(),
            user_id: token.user_id.to_string(),
            org_id: token.org_id.map(|org| org.to_string()),
            name: token.name.clone(),
            scopes: token.scopes.to_stored(),
            secret_digest: secret_digest.to_owned(),
            created_at: to_millis(token.created_at),
            expires_at: to_millis(token.expires_at),
            revoked_at: token.revoked_at.map(to_millis),
            expiry_recorded: false,
            last_used_at: token.last_used_at.map(to_millis),
            last_used_ip: token.last_used_ip.clone(),
            made_aal: token.made_with.aal.code().to_owned(),
            made_first_factor_at: Some(to_millis(token.made_with.first_factor_at)),
            made_by_family: token.made_with.family.map(|family| family.to_string()),
            made_raised_by: token.made_with.raised_by.map(|way_in| way_in.to_string()),
        }
    }

    fn into_domain(self) -> Result<AccessToken, RepoError> {
        let created_at = from_millis(self.created_at)?;
        let uuid = |column: &'static str, value: Option<String>| {
            value
                .map(|text| parse_stored(column, &text, Uuid::parse_str))
                .transpose()
        };
        let made_with = SessionProof {
            aal: parse_stored("access_tokens.made_aal", &self.made_aal, |text| {
                Aal::parse(text).ok_or("not a level")
            })?,
            first_factor_at: from_millis_opt(self.made_first_factor_at)?.unwrap_or(created_at),
            family: uuid("access_tokens.made_by_family", self.made_by_family)?,
            raised_by: uuid("access_tokens.made_raised_by", self.made_raised_by)?,
        };
        Ok(AccessToken {
            id: parse_stored("access_tokens.id", &self.id, Uuid::parse_str)?,
            user_id: parse_stored("access_tokens.user_id", &self.user_id, str::parse::<UserId>)?,
            org_id: self
                .org_id
                .map(|org| parse_stored("access_tokens.org_id", &org, str::parse::<OrgId>))
                .transpose()?,
            name: self.name,
            scopes: parse_stored("access_tokens.scopes", &self.scopes, |text| {
                Scopes::parse(text.split(' '))
            })?,
            created_at,
            expires_at: from_millis(self.expires_at)?,
            revoked_at: from_millis_opt(self.revoked_at)?,
            last_used_at: from_millis_opt(self.last_used_at)?,
            last_used_ip: self.last_used_ip,
            made_with,
        })
    }
}

/// [`AccessTokenRepository`] on `access_tokens`.
#[derive(Debug, Clone)]
pub struct DieselAccessTokenRepository {
    db: Db,
}

impl DieselAccessTokenRepository {
    #[must_use]
    pub const fn new(db: Db) -> Self {
        Self { db }
    }
}

fn rows_into(rows: Vec<TokenRow>) -> Result<Vec<AccessToken>, RepoError> {
    rows.into_iter().map(TokenRow::into_domain).collect()
}

/// The token `id` with its owner's address and protection: what every read of a request starts from.
type Found = (TokenRow, String, Option<i64>, ProtectionRow);

fn read_token(conn: &mut DbConnection, id: &str) -> Result<Option<Found>, RepoError> {
    let protection = protection!(access_tokens::user_id);
    on_backend!(conn, c => access_tokens::table
        .inner_join(accounts::table)
        .filter(access_tokens::id.eq(id))
        .select((TokenRow::as_select(), accounts::email, accounts::email_proven_at, protection))
        .first(c)
        .optional())
    .map_err(backend("reading an access token"))
}

type FoundInOrg = (
    TokenRow,
    String,
    Option<i64>,
    ProtectionRow,
    Option<String>,
    Option<bool>,
    Option<i64>,
);

fn read_token_in_org(conn: &mut DbConnection, id: &str, org: &str) -> Result<Option<FoundInOrg>, RepoError> {
    let protection = protection!(access_tokens::user_id);
    let (org_role, requires_two_factor, revision) = org_standing!(access_tokens::user_id, org);
    on_backend!(conn, c => access_tokens::table
        .inner_join(accounts::table)
        .filter(access_tokens::id.eq(id))
        .select((
            TokenRow::as_select(),
            accounts::email,
            accounts::email_proven_at,
            protection,
            org_role,
            requires_two_factor,
            revision,
        ))
        .first(c)
        .optional())
    .map_err(backend("reading an access token with its organization"))
}

fn token_read(
    row: TokenRow,
    email: &str,
    proven_at: Option<i64>,
    protection: ProtectionRow,
) -> Result<TokenRead, RepoError> {
    let secret_digest = row.secret_digest.clone();
    Ok(TokenRead {
        token: row.into_domain()?,
        secret_digest,
        owner_email: parse_stored("accounts.email", email, EmailAddress::parse)?,
        owner_proven_at: from_millis_opt(proven_at)?,
        protection: from_row(protection),
        org: None,
    })
}

#[async_trait]
impl AccessTokenRepository for DieselAccessTokenRepository {
    async fn insert(
        &self,
        token: &AccessToken,
        secret_digest: &str,
        cap: usize,
        notice: &OutgoingEmail,
        audit: &[AuditEntry],
    ) -> Result<bool, RepoError> {
        let row = TokenRow::new(token, secret_digest);
        let (notice, audit, now) = (notice.clone(), audit.to_vec(), token.created_at);
        self.db
            .write(move |conn| {
                // The cap is decided inside this write: PostgreSQL holds the owner's row until the commit
                // (concurrent creations of one account queue here), SQLite's one writer runs one at a time.
                super::sessions::lock_account(conn, &row.user_id)?;
                let active: i64 = access_tokens::table
                    .filter(access_tokens::user_id.eq(&row.user_id))
                    .filter(access_tokens::revoked_at.is_null())
                    .filter(access_tokens::expires_at.gt(to_millis(now)))
                    .count()
                    .get_result(conn)
                    .map_err(backend("counting an account's active access tokens"))?;
                if usize::try_from(active).unwrap_or(usize::MAX) >= cap {
                    return Ok(false);
                }
                diesel::insert_into(access_tokens::table)
                    .values(&row)
                    .execute(conn)
                    .map_err(db_error("storing an access token", "access_token_id"))?;
                outbox_rows::enqueue(conn, std::slice::from_ref(&notice), now)?;
                super::audit::record_and_queue_events(conn, &audit)?;
                Ok(true)
            })
            .await
    }

    async fn list_for_user(&self, user: UserId) -> Result<Vec<AccessToken>, RepoError> {
        self.db
            .read(move |conn| {
                let rows = access_tokens::table
                    .filter(access_tokens::user_id.eq(user.to_string()))
                    .order((access_tokens::created_at.desc(), access_tokens::id))
                    .select(TokenRow::as_select())
                    .load(conn)
                    .map_err(backend("listing an account's access tokens"))?;
                rows_into(rows)
            })
            .await
    }

    async fn list_for_org(&self, org: OrgId) -> Result<Vec<OwnedToken>, RepoError> {
        self.db
            .read(move |conn| {
                let org = org.to_string();
                let members = org_members::table
                    .filter(org_members::org_id.eq(org.clone()))
                    .select(org_members::user_id);
                let rows: Vec<(TokenRow, String)> = access_tokens::table
                    .inner_join(accounts::table)
                    .filter(
                        access_tokens::org_id.eq(&org).or(access_tokens::org_id
                            .is_null()
                            .and(access_tokens::user_id.eq_any(members))),
                    )
                    .order((access_tokens::created_at.desc(), access_tokens::id))
                    .select((TokenRow::as_select(), accounts::email))
                    .load(conn)
                    .map_err(backend("listing an organization's access tokens"))?;
                rows.into_iter()
                    .map(|(row, owner_email)| {
                        Ok(OwnedToken {
                            token: row.into_domain()?,
                            owner_email,
                        })
                    })
                    .collect()
            })
            .await
    }

    async fn find(&self, id: Uuid) -> Result<Option<AccessToken>, RepoError> {
        self.db
            .read(move |conn| {
                access_tokens::table
                    .find(id.to_string())
                    .select(TokenRow::as_select())
                    .first(conn)
                    .optional()
                    .map_err(backend("reading an access token"))?
                    .map(TokenRow::into_domain)
                    .transpose()
            })
            .await
    }

    async fn revoke(&self, id: Uuid, at: DateTime<Utc>, audit: &[AuditEntry]) -> Result<bool, RepoError> {
        let audit = audit.to_vec();
        self.db
            .write(move |conn| {
                let revoked = diesel::update(
                    access_tokens::table
                        .find(id.to_string())
                        .filter(access_tokens::revoked_at.is_null()),
                )
                .set(access_tokens::revoked_at.eq(to_millis(at)))
                .execute(conn)
                .map_err(backend("revoking an access token"))?;
                if revoked == 1 {
                    super::audit::record_and_queue_events(conn, &audit)?;
                }
                Ok(revoked == 1)
            })
            .await
    }

    async fn read_for_request(&self, id: Uuid, org: Option<OrgId>) -> Result<Option<TokenRead>, RepoError> {
        // PostgreSQL keeps no revision in the organization's row: the session cache knows it from the apps'
        // notices (taken after its sync round, before the caller reads the apps), so that a token's app
        // list is answered from the kept list as a session's is.
        let kept_revision = match (org, self.db.live_cache()) {
            (Some(org), Some(cache)) => cache.apps_revision(org.0).await,
            _ => None,
        };
        self.db
            .lookup(move |conn| {
                let id = id.to_string();
                let Some(org) = org else {
                    return read_token(conn, &id)?
                        .map(|(row, email, proven_at, protection)| {
                            token_read(row, &email, proven_at, protection)
                        })
                        .transpose();
                };
                let Some((row, email, proven_at, protection, role, requires, revision)) =
                    read_token_in_org(conn, &id, &org.to_string())?
                else {
                    return Ok(None);
                };
                let apps_revision = match conn {
                    DbConnection::Postgres(_) => {
                        kept_revision.unwrap_or_else(crate::live_cache::fresh_revision)
                    }
                    DbConnection::Sqlite(_) => revision.map_or(0, i64::unsigned_abs),
                };
                let mut read = token_read(row, &email, proven_at, protection)?;
                read.org = Some(OrgStanding {
                    org,
                    role: role.as_deref().map(super::orgs::parse_role).transpose()?,
                    requires_two_factor: requires.unwrap_or(false),
                    apps_revision,
                });
                Ok(Some(read))
            })
            .await
    }

    async fn record_use(&self, id: Uuid, at: DateTime<Utc>, ip: Option<String>) -> Result<(), RepoError> {
        self.db
            .write(move |conn| {
                diesel::update(access_tokens::table.find(id.to_string()))
                    .set((
                        access_tokens::last_used_at.eq(to_millis(at)),
                        access_tokens::last_used_ip.eq(ip),
                    ))
                    .execute(conn)
                    .map(drop)
                    .map_err(backend("recording an access token's use"))
            })
            .await
    }

    async fn expired_unrecorded(&self, now: DateTime<Utc>) -> Result<Vec<AccessToken>, RepoError> {
        self.db
            .read(move |conn| {
                let rows = access_tokens::table
                    .filter(access_tokens::expiry_recorded.eq(false))
                    .filter(access_tokens::revoked_at.is_null())
                    .filter(access_tokens::expires_at.le(to_millis(now)))
                    .order(access_tokens::expires_at)
                    .limit(500)
                    .select(TokenRow::as_select())
                    .load(conn)
                    .map_err(backend("listing expired access tokens"))?;
                rows_into(rows)
            })
            .await
    }

    async fn record_expiry(&self, id: Uuid, audit: &[AuditEntry]) -> Result<bool, RepoError> {
        let audit = audit.to_vec();
        self.db
            .write(move |conn| {
                let marked = diesel::update(
                    access_tokens::table
                        .find(id.to_string())
                        .filter(access_tokens::expiry_recorded.eq(false)),
                )
                .set(access_tokens::expiry_recorded.eq(true))
                .execute(conn)
                .map_err(backend("recording an access token's expiry"))?;
                if marked == 1 {
                    super::audit::record_and_queue_events(conn, &audit)?;
                }
                Ok(marked == 1)
            })
            .await
    }
}
