//! The read every authenticated request makes: a session's live head with what authorizing the request
//! needs (the platform role of its account, whether the account has a verified second factor or a
//! passkey, and for an organization-scoped request the account's role in the organization, whether the
//! organization requires a second factor and the revision of its apps), all in one statement, so that a
//! request costs one round trip to the database.

use diesel::prelude::*;
use domain::common::RepoError;
use domain::identity::models::{LiveSession, LiveSessionInOrg};

use super::protection::{ProtectionRow, from_row};
use super::sessions::RefreshTokenRow;
use crate::DbConnection;
use crate::connection::on_backend;
use crate::convert::backend;

/// What both session statements read from: the live head of `$family` (the newest token of the family that
/// is neither replaced nor revoked) joined to its account's platform role (the join adds no row:
/// `platform_admins.user_id` is unique). Every table they read is watched by the session cache
/// (`crate::live_cache::contract`; a test holds their plans to that list).
macro_rules! session_head {
    ($family:expr) => {
        crate::schema::refresh_tokens::table
            .left_join(crate::schema::platform_admins::table.on(
                crate::schema::platform_admins::user_id.eq(crate::schema::refresh_tokens::user_id.nullable()),
            ))
            .filter(crate::schema::refresh_tokens::family_id.eq($family))
            .filter(crate::schema::refresh_tokens::replaced_by.is_null())
            .filter(crate::schema::refresh_tokens::revoked_at.is_null())
            .order(crate::schema::refresh_tokens::created_at.desc())
    };
}
pub(crate) use session_head;

/// The statement of [`with_role`]: the live head, its platform role and what protects the account
/// (subqueries).
macro_rules! session_statement {
    ($family:expr) => {{
        use crate::schema::{platform_admins, refresh_tokens};
        crate::repos::live_sessions::session_head!($family).select((
            crate::repos::sessions::RefreshTokenRow::as_select(),
            platform_admins::role.nullable(),
            crate::repos::protection::protection!(refresh_tokens::user_id),
        ))
    }};
}
#[cfg(test)]
pub(crate) use session_statement;

/// The statement of [`in_org`]: [`session_statement!`] and the account's standing in `$org` (the
/// organization's id as text).
macro_rules! session_in_org_statement {
    ($family:expr, $org:expr) => {{
        use crate::schema::{platform_admins, refresh_tokens};
        let (org_role, requires_two_factor, revision) =
            crate::repos::protection::org_standing!(refresh_tokens::user_id, $org);
        crate::repos::live_sessions::session_head!($family).select((
            crate::repos::sessions::RefreshTokenRow::as_select(),
            platform_admins::role.nullable(),
            crate::repos::protection::protection!(refresh_tokens::user_id),
            org_role,
            requires_two_factor,
            revision,
        ))
    }};
}
#[cfg(test)]
pub(crate) use session_in_org_statement;

/// The live head of `family` with the platform role of its account and what protects the account.
pub(super) fn with_role(conn: &mut DbConnection, family: &str) -> Result<Option<LiveSession>, RepoError> {
    let found: Option<(RefreshTokenRow, Option<String>, ProtectionRow)> =
        on_backend!(conn, c => session_statement!(family).first(c).optional())
            .map_err(backend("reading a session and its platform role"))?;
    found
        .map(|(row, role, protection)| live(row, role, protection))
        .transpose()
}

/// [`with_role`], and in the same statement the head's account's role in `org` (a subquery by the
/// primary key of `org_members`), whether `org` requires a second factor and the revision of its apps
/// (subqueries by the primary key of `organizations`; `false` and 0 when there is no such organization,
/// the revision as `AppRepository::revision` answers).
pub(super) fn in_org(
    conn: &mut DbConnection,
    family: &str,
    org: &str,
) -> Result<Option<LiveSessionInOrg>, RepoError> {
    type Found = (
        RefreshTokenRow,
        Option<String>,
        ProtectionRow,
        Option<String>,
        Option<bool>,
        Option<i64>,
    );
    let found: Option<Found> =
        on_backend!(conn, c => session_in_org_statement!(family, org).first(c).optional())
            .map_err(backend("reading a session with its organization"))?;
    let Some((row, role, protection, org_role, requires_two_factor, revision)) = found else {
        return Ok(None);
    };
    // PostgreSQL keeps no revision in the organization's row: the session cache gives it from the apps'
    // notices, and a read it does not trust may not be kept (`crate::live_cache`).
    let revision = match conn {
        DbConnection::Postgres(_) => crate::live_cache::fresh_revision(),
        DbConnection::Sqlite(_) => revision.map_or(0, i64::unsigned_abs),
    };
    Ok(Some(LiveSessionInOrg {
        live: live(row, role, protection)?,
        org_role: org_role.as_deref().map(super::orgs::parse_role).transpose()?,
        org_requires_two_factor: requires_two_factor.unwrap_or(false),
        apps_revision: revision,
    }))
}

fn live(
    row: RefreshTokenRow,
    role: Option<String>,
    protection: ProtectionRow,
) -> Result<LiveSession, RepoError> {
    Ok(LiveSession {
        head: row.into_domain()?,
        role: role.as_deref().map(super::admins::parse_role).transpose()?,
        protection: from_row(protection),
    })
}
