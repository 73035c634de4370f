//! The reads of apps: one app by name (in an organization, or any), the listings, the organization's
//! revision, the per-status counts and the lookups by API key digest and share token.

use diesel::prelude::*;
use domain::apps::status::StatusCounts;
use domain::apps::{App, AppStoreStatus};
use domain::common::{OrgId, RepoError};
use domain::media::ImageLinks;

use super::rows::AppRow;
use crate::DbConnection;
use crate::connection::on_backend;
use crate::convert::backend;
use crate::schema::{app_api_keys, app_share_tokens, apps, organizations};

fn rows_to_apps(rows: Vec<AppRow>, links: &ImageLinks) -> Result<Vec<App>, RepoError> {
    rows.into_iter().map(|row| row.into_app(links)).collect()
}

fn into_app(row: Option<AppRow>, links: &ImageLinks) -> Result<Option<App>, RepoError> {
    row.map(|row| row.into_app(links)).transpose()
}

/// The organization's app, if it has one by that name.
pub(super) fn load_in_org(
    conn: &mut DbConnection,
    org: &str,
    package: &str,
    links: &ImageLinks,
) -> Result<Option<App>, RepoError> {
    apps::table
        .filter(apps::package_name.eq(package))
        .filter(apps::org_id.eq(org))
        .select(AppRow::as_select())
        .first(conn)
        .optional()
        .map_err(backend("reading an app"))
        .and_then(|row| into_app(row, links))
}

/// Any app by package name.
pub(super) fn load_any(
    conn: &mut DbConnection,
    package: &str,
    links: &ImageLinks,
) -> Result<Option<App>, RepoError> {
    apps::table
        .filter(apps::package_name.eq(package))
        .select(AppRow::as_select())
        .first(conn)
        .optional()
        .map_err(backend("reading an app"))
        .and_then(|row| into_app(row, links))
}

/// The organization's apps, newest first.
pub(super) fn list_in_org(
    conn: &mut DbConnection,
    org: OrgId,
    links: &ImageLinks,
) -> Result<Vec<App>, RepoError> {
    let rows = apps::table
        .filter(apps::org_id.eq(org.to_string()))
        .order((apps::created_at.desc(), apps::package_name.asc()))
        .select(AppRow::as_select())
        .load(conn)
        .map_err(backend("listing an organization's apps"))?;
    rows_to_apps(rows, links)
}

/// The revision of the organization's apps.
pub(super) fn revision(conn: &mut DbConnection, org: OrgId) -> Result<u64, RepoError> {
    // Kept by the triggers of the apps table (migration `apps_revision`) on SQLite. An organization that
    // is gone has no apps: revision 0. PostgreSQL announces app writes instead of counting them in the
    // organization's row (migration `apps_revision_by_notice`): a revision read from it is a fresh number,
    // with which nothing kept is used again (the session cache knows the revision from the notices).
    if matches!(conn, DbConnection::Postgres(_)) {
        return Ok(crate::live_cache::fresh_revision());
    }
    let org = org.to_string();
    let revision: Option<i64> = on_backend!(conn, c => organizations::table
        .find(&org)
        .select(organizations::apps_revision)
        .first(c)
        .optional())
    .map_err(backend("reading the revision of an organization's apps"))?;
    Ok(revision.map_or(0, i64::unsigned_abs))
}

/// Every app with the store status, the least recently updated first.
pub(super) fn list_by_status(
    conn: &mut DbConnection,
    status: AppStoreStatus,
    links: &ImageLinks,
) -> Result<Vec<App>, RepoError> {
    let rows = apps::table
        .filter(apps::app_store_status.eq(status.code()))
        .order((apps::updated_at.asc(), apps::package_name.asc()))
        .select(AppRow::as_select())
        .load(conn)
        .map_err(backend("listing apps by status"))?;
    rows_to_apps(rows, links)
}

/// How many apps have each store status (legacy spellings counted as the status they read as).
pub(super) fn counts(conn: &mut DbConnection) -> Result<StatusCounts, RepoError> {
    let per_status: Vec<(String, i64)> = apps::table
        .group_by(apps::app_store_status)
        .select((apps::app_store_status, diesel::dsl::count_star()))
        .load(conn)
        .map_err(backend("counting apps by status"))?;
    let mut counts = StatusCounts::default();
    for (status, count) in per_status {
        let count = u64::try_from(count).map_err(|e| RepoError::backend("counting apps by status", e))?;
        let slot = match AppStoreStatus::parse_lossy(&status) {
            AppStoreStatus::Development => &mut counts.development,
            AppStoreStatus::Submitted => &mut counts.submitted,
            AppStoreStatus::Published => &mut counts.published,
            AppStoreStatus::Rejected => &mut counts.rejected,
        };
        *slot += count;
    }
    Ok(counts)
}

/// The app whose API key has this digest.
pub(super) fn find_by_key_hash(
    conn: &mut DbConnection,
    key_hash: &str,
    links: &ImageLinks,
) -> Result<Option<App>, RepoError> {
    apps::table
        .inner_join(app_api_keys::table)
        .filter(app_api_keys::key_hash.eq(key_hash))
        .select(AppRow::as_select())
        .first(conn)
        .optional()
        .map_err(backend("finding an app by key"))
        .and_then(|row| into_app(row, links))
}

/// The app shared through this token.
pub(super) fn find_by_share_token(
    conn: &mut DbConnection,
    token: &str,
    links: &ImageLinks,
) -> Result<Option<App>, RepoError> {
    apps::table
        .inner_join(app_share_tokens::table)
        .filter(app_share_tokens::token.eq(token))
        .select(AppRow::as_select())
        .first(conn)
        .optional()
        .map_err(backend("finding an app by share token"))
        .and_then(|row| into_app(row, links))
}

/// The share token of the organization's app, if it has one.
pub(super) fn share_token(
    conn: &mut DbConnection,
    org: OrgId,
    package: &str,
) -> Result<Option<String>, RepoError> {
    app_share_tokens::table
        .inner_join(apps::table)
        .filter(apps::package_name.eq(package))
        .filter(apps::org_id.eq(org.to_string()))
        .select(app_share_tokens::token)
        .first::<String>(conn)
        .optional()
        .map_err(backend("reading an app's share token"))
}
