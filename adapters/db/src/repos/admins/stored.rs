//! The stored form of a platform role, and the reads and the lock the changes share.

use diesel::connection::SimpleConnection;
use diesel::prelude::*;
use domain::common::{EmailAddress, PlatformRole, RepoError, UserId};
use domain::identity::models::PlatformAdmin;

use crate::DbConnection;
use crate::convert::{backend, from_millis, parse_stored};
use crate::schema::{accounts, platform_admins};

#[derive(Queryable, Selectable, Insertable)]
#[diesel(table_name = platform_admins)]
pub(super) struct AdminRow {
    pub(super) id: String,
    pub(super) email: String,
    pub(super) user_id: Option<String>,
    pub(super) role: String,
    pub(super) added_at: i64,
    pub(super) added_by: Option<String>,
}

impl AdminRow {
    /// The entry, listed under `account_email` when bound (the account's current address).
    pub(super) fn into_domain(self, account_email: Option<String>) -> Result<PlatformAdmin, RepoError> {
        let shown = account_email.unwrap_or(self.email);
        Ok(PlatformAdmin {
            email: parse_stored("platform_admins.email", &shown, EmailAddress::parse)?,
            user_id: self
                .user_id
                .map(|id| parse_stored("platform_admins.user_id", &id, str::parse::<UserId>))
                .transpose()?,
            role: parse_role(&self.role)?,
            added_at: from_millis(self.added_at)?,
            added_by: self
                .added_by
                .map(|e| parse_stored("platform_admins.added_by", &e, EmailAddress::parse))
                .transpose()?,
        })
    }
}

pub(in crate::repos) fn parse_role(stored: &str) -> Result<PlatformRole, RepoError> {
    parse_stored("platform_admins.role", stored, |r| {
        PlatformRole::parse(r).ok_or("unknown platform role")
    })
}

/// Every entry with its row id, ordered by the address shown, a bound entry before a pending one.
pub(super) fn load_all(conn: &mut DbConnection) -> Result<Vec<(String, PlatformAdmin)>, RepoError> {
    let mut entries = platform_admins::table
        .left_join(accounts::table)
        .select((AdminRow::as_select(), accounts::email.nullable()))
        .load::<(AdminRow, Option<String>)>(conn)
        .map_err(backend("listing platform admins"))?
        .into_iter()
        .map(|(row, account_email)| Ok((row.id.clone(), row.into_domain(account_email)?)))
        .collect::<Result<Vec<_>, RepoError>>()?;
    entries
        .sort_by(|(_, a), (_, b)| (a.email.as_str(), !a.is_bound()).cmp(&(b.email.as_str(), !b.is_bound())));
    Ok(entries)
}

/// On PostgreSQL, locks the table against other writers, so that two concurrent changes cannot each see
/// another admin and together remove both, and a grant and a proof of the same address cannot miss each
/// other (SQLite already serialises writers).
pub(super) fn lock_for_change(conn: &mut DbConnection) -> Result<(), RepoError> {
    if let DbConnection::Postgres(pg) = conn {
        pg.batch_execute("LOCK TABLE platform_admins IN SHARE ROW EXCLUSIVE MODE")
            .map_err(backend("locking the platform admins"))?;
    }
    Ok(())
}

/// Loads the list for a guarded change, after [`lock_for_change`].
pub(super) fn load_all_for_change(
    conn: &mut DbConnection,
) -> Result<Vec<(String, PlatformAdmin)>, RepoError> {
    lock_for_change(conn)?;
    load_all(conn)
}
