//! The platform admins and reviewers (`platform_admins`), guarded so that at least one `admin` remains.

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use diesel::connection::SimpleConnection;
use diesel::prelude::*;
use domain::common::{EmailAddress, PlatformRole, RepoError};
use domain::identity::models::{PlatformAdmin, would_leave_no_admin};
use domain::identity::ports::PlatformAdminRepository;

use crate::convert::{backend, db_error, from_millis, parse_stored, to_millis};
use crate::schema::platform_admins;
use crate::{Db, DbConnection};

/// The conflict of a change that would leave no admin.
pub const LAST_ADMIN: &str = "last admin";

#[derive(Queryable, Selectable, Insertable)]
#[diesel(table_name = platform_admins)]
struct AdminRow {
    email: String,
    role: String,
    added_at: i64,
    added_by: Option<String>,
}

impl AdminRow {
    fn into_domain(self) -> Result<PlatformAdmin, RepoError> {
        Ok(PlatformAdmin {
            email: parse_stored("platform_admins.email", &self.email, EmailAddress::parse)?,
            role: parse_stored("platform_admins.role", &self.role, |r| {
                PlatformRole::parse(r).ok_or("unknown platform role")
            })?,
            added_at: from_millis(self.added_at)?,
            added_by: self
                .added_by
                .map(|e| parse_stored("platform_admins.added_by", &e, EmailAddress::parse))
                .transpose()?,
        })
    }
}

fn load_all(conn: &mut DbConnection) -> Result<Vec<PlatformAdmin>, RepoError> {
    platform_admins::table
        .order(platform_admins::email.asc())
        .select(AdminRow::as_select())
        .load(conn)
        .map_err(backend("listing platform admins"))?
        .into_iter()
        .map(AdminRow::into_domain)
        .collect()
}

/// Loads the list for a guarded change. On PostgreSQL the table is locked against other writers first, so
/// that two concurrent changes cannot each see another admin and together remove both (SQLite already
/// serialises writers).
fn load_all_for_change(conn: &mut DbConnection) -> Result<Vec<PlatformAdmin>, RepoError> {
    if let DbConnection::Postgres(pg) = conn {
        pg.batch_execute("LOCK TABLE platform_admins IN SHARE ROW EXCLUSIVE MODE")
            .map_err(backend("locking the platform admins"))?;
    }
    load_all(conn)
}

/// [`PlatformAdminRepository`] on the `platform_admins` table.
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
        self.db.read(load_all).await
    }

    async fn get(&self, email: &EmailAddress) -> Result<Option<PlatformAdmin>, RepoError> {
        let email = email.as_str().to_owned();
        self.db
            .read(move |conn| {
                platform_admins::table
                    .find(email)
                    .select(AdminRow::as_select())
                    .first(conn)
                    .optional()
                    .map_err(backend("reading a platform admin"))?
                    .map(AdminRow::into_domain)
                    .transpose()
            })
            .await
    }

    async fn upsert(
        &self,
        email: &EmailAddress,
        role: PlatformRole,
        added_by: Option<EmailAddress>,
        now: DateTime<Utc>,
    ) -> Result<PlatformAdmin, RepoError> {
        let email = email.clone();
        self.db
            .write(move |conn| {
                let admins = load_all_for_change(conn)?;
                if would_leave_no_admin(&admins, &email, Some(role)) {
                    return Err(RepoError::Conflict(LAST_ADMIN.to_owned()));
                }
                if let Some(existing) = admins.into_iter().find(|a| a.email == email) {
                    diesel::update(platform_admins::table.find(email.as_str()))
                        .set(platform_admins::role.eq(role.as_str()))
                        .execute(conn)
                        .map_err(backend("changing a platform role"))?;
                    return Ok(PlatformAdmin { role, ..existing });
                }
                let row = AdminRow {
                    email: email.as_str().to_owned(),
                    role: role.as_str().to_owned(),
                    added_at: to_millis(now),
                    added_by: added_by.as_ref().map(|e| e.as_str().to_owned()),
                };
                diesel::insert_into(platform_admins::table)
                    .values(&row)
                    .execute(conn)
                    .map_err(db_error("adding a platform admin", "email"))?;
                row.into_domain()
            })
            .await
    }

    async fn remove(&self, email: &EmailAddress) -> Result<(), RepoError> {
        let email = email.clone();
        self.db
            .write(move |conn| {
                let admins = load_all_for_change(conn)?;
                if !admins.iter().any(|a| a.email == email) {
                    return Err(RepoError::NotFound);
                }
                if would_leave_no_admin(&admins, &email, None) {
                    return Err(RepoError::Conflict(LAST_ADMIN.to_owned()));
                }
                diesel::delete(platform_admins::table.find(email.as_str()))
                    .execute(conn)
                    .map_err(backend("removing a platform admin"))
                    .map(drop)
            })
            .await
    }
}
