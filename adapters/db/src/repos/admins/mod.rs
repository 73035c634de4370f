//! The platform admins and reviewers (`platform_admins`, with the addresses `PORTAL_ADMIN_EMAILS` seeded in
//! `platform_admin_seeds`), guarded so that at least one bound `admin` remains.
//!
//! A row is bound to an account (`user_id`) or pending for the address in `email`. A bound row is listed
//! under its account's current address. `bind_waiting_role` is how the account repository binds a pending
//! row in the transaction that proves an address.

mod setup;
mod stored;

pub(super) use self::stored::parse_role;

use super::audit::record_and_queue_events;
use async_trait::async_trait;
use chrono::{DateTime, Utc};
use diesel::prelude::*;
use domain::audit::AuditEntry;
use domain::common::{EmailAddress, PlatformRole, RepoError, UserId};
use domain::identity::models::{GrantBinding, PlatformAdmin, SetupClaim, grant_for, would_leave_no_admin};
use domain::identity::ports::PlatformAdminRepository;
use uuid::Uuid;

use self::stored::{AdminRow, load_all, load_all_for_change, lock_for_change};
use crate::convert::{backend, db_error, parse_stored, to_millis};
use crate::schema::{accounts, platform_admin_seeds, platform_admins};
use crate::{Db, DbConnection};

/// The conflict of a change that would leave no admin.
pub const LAST_ADMIN: &str = "last admin";

/// The account a role given to `email` binds to at once under `binding`, if any.
fn account_to_bind(
    conn: &mut DbConnection,
    email: &EmailAddress,
    binding: GrantBinding,
) -> Result<Option<String>, RepoError> {
    let found: Option<(String, Option<i64>)> = accounts::table
        .filter(accounts::email.eq(email.as_str()))
        .select((accounts::id, accounts::email_proven_at))
        .first(conn)
        .optional()
        .map_err(backend("finding the account of a platform role"))?;
    Ok(found.and_then(|(id, proven_at)| match binding {
        GrantBinding::AnyAccount => Some(id),
        GrantBinding::ProvenAccount => proven_at.map(|_| id),
    }))
}

/// Stores a new role for `email`, bound as `binding` allows; answers it as listed.
fn insert_role(
    conn: &mut DbConnection,
    email: &EmailAddress,
    role: PlatformRole,
    added_by: Option<&EmailAddress>,
    binding: GrantBinding,
    now: DateTime<Utc>,
) -> Result<PlatformAdmin, RepoError> {
    let row = AdminRow {
        id: Uuid::new_v4().to_string(),
        email: email.as_str().to_owned(),
        user_id: account_to_bind(conn, email, binding)?,
        role: role.code().to_owned(),
        added_at: to_millis(now),
        added_by: added_by.map(|e| e.as_str().to_owned()),
    };
    diesel::insert_into(platform_admins::table)
        .values(&row)
        .execute(conn)
        .map_err(db_error("adding a platform admin", "platform_admin"))?;
    // The address is the account's (accounts compare e-mails lower-cased, as EmailAddress stores them).
    row.into_domain(None)
}

/// Binds the role waiting for `email` to the account `user`, which has just proven that address, in the
/// caller's transaction. An account that holds a role already keeps it (promoted to `admin` when the
/// waiting role was `admin`), and the waiting role is used up.
///
/// # Errors
/// [`RepoError::Backend`] when the store fails.
pub(crate) fn bind_waiting_role(conn: &mut DbConnection, user: &str, email: &str) -> Result<(), RepoError> {
    lock_for_change(conn)?;
    let waiting: Option<AdminRow> = platform_admins::table
        .filter(platform_admins::user_id.is_null())
        .filter(platform_admins::email.eq(email))
        .select(AdminRow::as_select())
        .first(conn)
        .optional()
        .map_err(backend("reading a pending platform role"))?;
    let Some(waiting) = waiting else {
        return Ok(());
    };
    let held: Option<AdminRow> = platform_admins::table
        .filter(platform_admins::user_id.eq(user))
        .select(AdminRow::as_select())
        .first(conn)
        .optional()
        .map_err(backend("reading a platform role"))?;
    let Some(held) = held else {
        return diesel::update(platform_admins::table.find(&waiting.id))
            .set(platform_admins::user_id.eq(user))
            .execute(conn)
            .map_err(backend("binding a platform role"))
            .map(drop);
    };
    if parse_role(&waiting.role)? == PlatformRole::Admin && parse_role(&held.role)? != PlatformRole::Admin {
        diesel::update(platform_admins::table.find(&held.id))
            .set(platform_admins::role.eq(PlatformRole::Admin.code()))
            .execute(conn)
            .map_err(backend("changing a platform role"))?;
    }
    diesel::delete(platform_admins::table.find(&waiting.id))
        .execute(conn)
        .map_err(backend("removing a used pending platform role"))
        .map(drop)
}
/// [`PlatformAdminRepository`] on the `platform_admins` and `platform_admin_seeds` tables (and
/// `platform_setup_tokens`).
#[derive(Debug, Clone)]
pub struct DieselPlatformAdminRepository {
    db: Db,
}

impl DieselPlatformAdminRepository {
    #[must_use]
    pub const fn new(db: Db) -> Self {
        Self { db }
    }
}

#[async_trait]
impl PlatformAdminRepository for DieselPlatformAdminRepository {
    async fn list(&self) -> Result<Vec<PlatformAdmin>, RepoError> {
        self.db
            .read(|conn| Ok(load_all(conn)?.into_iter().map(|(_, admin)| admin).collect()))
            .await
    }

    async fn role_of(&self, user: UserId) -> Result<Option<PlatformRole>, RepoError> {
        // Every authenticated request asks: a lookup by key.
        self.db
            .lookup(move |conn| {
                platform_admins::table
                    .filter(platform_admins::user_id.eq(user.to_string()))
                    .select(platform_admins::role)
                    .first::<String>(conn)
                    .optional()
                    .map_err(backend("reading a platform role"))?
                    .map(|role| parse_role(&role))
                    .transpose()
            })
            .await
    }

    async fn grant(
        &self,
        email: &EmailAddress,
        role: PlatformRole,
        added_by: Option<EmailAddress>,
        binding: GrantBinding,
        now: DateTime<Utc>,
        audit: &AuditEntry,
    ) -> Result<PlatformAdmin, RepoError> {
        let (email, audit) = (email.clone(), audit.clone());
        self.db
            .write(move |conn| {
                record_and_queue_events(conn, std::slice::from_ref(&audit))?;
                let entries = load_all_for_change(conn)?;
                let admins: Vec<PlatformAdmin> = entries.iter().map(|(_, a)| a.clone()).collect();
                let Some(target) = grant_for(&admins, &email) else {
                    return insert_role(conn, &email, role, added_by.as_ref(), binding, now);
                };
                if would_leave_no_admin(&admins, target, Some(role)) {
                    return Err(RepoError::Conflict(LAST_ADMIN.to_owned()));
                }
                let index = admins
                    .iter()
                    .position(|a| std::ptr::eq(a, target))
                    .unwrap_or_default();
                let id = entries[index].0.clone();
                let mut changed = PlatformAdmin {
                    role,
                    ..target.clone()
                };
                if !changed.is_bound()
                    && let Some(user) = account_to_bind(conn, &email, binding)?
                {
                    diesel::update(platform_admins::table.find(&id))
                        .set(platform_admins::user_id.eq(&user))
                        .execute(conn)
                        .map_err(db_error("binding a platform role", "platform_admin"))?;
                    changed.user_id = Some(parse_stored("accounts.id", &user, str::parse::<UserId>)?);
                }
                diesel::update(platform_admins::table.find(&id))
                    .set(platform_admins::role.eq(role.code()))
                    .execute(conn)
                    .map_err(backend("changing a platform role"))?;
                Ok(changed)
            })
            .await
    }

    async fn remove(&self, email: &EmailAddress, audit: &AuditEntry) -> Result<(), RepoError> {
        let (email, audit) = (email.clone(), audit.clone());
        self.db
            .write(move |conn| {
                record_and_queue_events(conn, std::slice::from_ref(&audit))?;
                let entries = load_all_for_change(conn)?;
                let admins: Vec<PlatformAdmin> = entries.iter().map(|(_, a)| a.clone()).collect();
                let Some(target) = grant_for(&admins, &email) else {
                    return Err(RepoError::NotFound);
                };
                if would_leave_no_admin(&admins, target, None) {
                    return Err(RepoError::Conflict(LAST_ADMIN.to_owned()));
                }
                let index = admins
                    .iter()
                    .position(|a| std::ptr::eq(a, target))
                    .unwrap_or_default();
                diesel::delete(platform_admins::table.find(&entries[index].0))
                    .execute(conn)
                    .map_err(backend("removing a platform admin"))
                    .map(drop)
            })
            .await
    }

    async fn seed(
        &self,
        email: &EmailAddress,
        now: DateTime<Utc>,
        audit: &AuditEntry,
    ) -> Result<Option<PlatformAdmin>, RepoError> {
        let (email, audit) = (email.clone(), audit.clone());
        self.db
            .write(move |conn| {
                let entries = load_all_for_change(conn)?;
                let seeded_before: i64 = platform_admin_seeds::table
                    .find(email.as_str())
                    .count()
                    .get_result(conn)
                    .map_err(backend("reading the seeded platform admins"))?;
                if seeded_before > 0 {
                    return Ok(None);
                }
                diesel::insert_into(platform_admin_seeds::table)
                    .values((
                        platform_admin_seeds::email.eq(email.as_str()),
                        platform_admin_seeds::seeded_at.eq(to_millis(now)),
                    ))
                    .execute(conn)
                    .map_err(db_error(
                        "recording a seeded platform admin",
                        "platform_admin_seed",
                    ))?;
                let admins: Vec<PlatformAdmin> = entries.into_iter().map(|(_, a)| a).collect();
                if grant_for(&admins, &email).is_some() {
                    return Ok(None);
                }
                let added = insert_role(
                    conn,
                    &email,
                    PlatformRole::Admin,
                    None,
                    GrantBinding::ProvenAccount,
                    now,
                )?;
                record_and_queue_events(conn, std::slice::from_ref(&audit))?;
                Ok(Some(added))
            })
            .await
    }

    async fn replace_setup_token(
        &self,
        token_hash: &str,
        expires_at: DateTime<Utc>,
    ) -> Result<bool, RepoError> {
        let token_hash = token_hash.to_owned();
        self.db
            .write(move |conn| setup::replace_token(conn, &token_hash, expires_at))
            .await
    }

    async fn claim_setup_token(
        &self,
        token_hash: &str,
        user: UserId,
        now: DateTime<Utc>,
        audit: &AuditEntry,
    ) -> Result<SetupClaim, RepoError> {
        let (token_hash, audit) = (token_hash.to_owned(), audit.clone());
        self.db
            .write(move |conn| setup::claim_token(conn, &token_hash, user, now, &audit))
            .await
    }
}
