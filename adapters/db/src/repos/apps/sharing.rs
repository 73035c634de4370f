//! Sharing an app: its visibility to the organization, its tester list and its share token
//! (`app_share_tokens`).

use diesel::prelude::*;
use domain::audit::AuditEntry;
use domain::common::{OrgId, RepoError};

use super::lock_in_org;
use crate::DbConnection;
use crate::convert::{backend, db_error};
use crate::repos::audit::record_and_queue_events;
use crate::schema::{app_share_tokens, apps};

/// [`RepoError::NotFound`] when the update touched no row, else the audit entry appended.
fn audited_if_changed(conn: &mut DbConnection, changed: usize, audit: &AuditEntry) -> Result<(), RepoError> {
    if changed == 0 {
        Err(RepoError::NotFound)
    } else {
        record_and_queue_events(conn, std::slice::from_ref(audit))
    }
}

/// Shows the organization's app to the whole organization or hides it, at `at` (milliseconds).
pub(super) fn set_visibility(
    conn: &mut DbConnection,
    org: OrgId,
    package: &str,
    shared_with_organization: bool,
    at: i64,
    audit: &AuditEntry,
) -> Result<(), RepoError> {
    let changed = diesel::update(
        apps::table
            .filter(apps::package_name.eq(package))
            .filter(apps::org_id.eq(org.to_string())),
    )
    .set((
        apps::shared_with_organization.eq(shared_with_organization),
        apps::updated_at.eq(at),
    ))
    .execute(conn)
    .map_err(backend("setting an app's visibility"))?;
    audited_if_changed(conn, changed, audit)
}

/// Replaces the tester list (`emails` as stored JSON) of the organization's app, at `at` (milliseconds).
pub(super) fn set_share_emails(
    conn: &mut DbConnection,
    org: OrgId,
    package: &str,
    emails: &str,
    at: i64,
    audit: &AuditEntry,
) -> Result<(), RepoError> {
    let changed = diesel::update(
        apps::table
            .filter(apps::package_name.eq(package))
            .filter(apps::org_id.eq(org.to_string())),
    )
    .set((apps::shared_with_emails.eq(emails), apps::updated_at.eq(at)))
    .execute(conn)
    .map_err(backend("setting an app's tester list"))?;
    audited_if_changed(conn, changed, audit)
}

fn insert_token(conn: &mut DbConnection, package: &str, token: &str, at: i64) -> Result<(), RepoError> {
    diesel::insert_into(app_share_tokens::table)
        .values((
            app_share_tokens::package_name.eq(package),
            app_share_tokens::token.eq(token),
            app_share_tokens::created_at.eq(at),
        ))
        .execute(conn)
        .map_err(db_error("storing an app's share token", "share_token"))?;
    Ok(())
}

/// The app's share token: the one stored, or `token`, stored now.
pub(super) fn create_share_token(
    conn: &mut DbConnection,
    org: OrgId,
    package: &str,
    token: String,
    at: i64,
) -> Result<String, RepoError> {
    // The row lock makes a concurrent creator wait here, then see the token stored first.
    lock_in_org(conn, &org.to_string(), package)?;
    let existing = app_share_tokens::table
        .filter(app_share_tokens::package_name.eq(package))
        .select(app_share_tokens::token)
        .first::<String>(conn)
        .optional()
        .map_err(backend("reading an app's share token"))?;
    if let Some(existing) = existing {
        return Ok(existing);
    }
    insert_token(conn, package, &token, at)?;
    Ok(token)
}

/// Replaces the app's share token with `token`.
pub(super) fn replace_share_token(
    conn: &mut DbConnection,
    org: OrgId,
    package: &str,
    token: &str,
    at: i64,
    audit: &AuditEntry,
) -> Result<(), RepoError> {
    lock_in_org(conn, &org.to_string(), package)?;
    diesel::delete(app_share_tokens::table.filter(app_share_tokens::package_name.eq(package)))
        .execute(conn)
        .map_err(backend("removing an app's share token"))?;
    insert_token(conn, package, token, at)?;
    record_and_queue_events(conn, std::slice::from_ref(audit))
}
