//! Registering an app (its row and its first API key digest) and editing its fields under a
//! compare-and-set on the store status.

use diesel::prelude::*;
use domain::apps::AppStoreStatus;
use domain::audit::AuditEntry;
use domain::common::{OrgId, RepoError};
use domain::review::ReviewEvent;

use super::keys::insert_key;
use super::rows::{AppEdit, AppRow};
use super::status::{missing_or_conflict, status_reads_as};
use crate::DbConnection;
use crate::convert::{backend, db_error};
use crate::repos::audit::record_and_queue_events;
use crate::repos::reviews::insert_event;
use crate::schema::apps;

/// Stores the new app and the digest of its key, created at `created_at` (milliseconds).
pub(super) fn insert(
    conn: &mut DbConnection,
    row: &AppRow,
    package: &str,
    key_hash: &str,
    created_at: i64,
    audit: &AuditEntry,
) -> Result<(), RepoError> {
    diesel::insert_into(apps::table)
        .values(row)
        .execute(conn)
        .map_err(db_error("storing an app", "package_name"))?;
    insert_key(conn, package, key_hash, created_at)?;
    record_and_queue_events(conn, std::slice::from_ref(audit))
}

/// Writes the editable fields of the organization's app, provided its store status is still `expected`:
/// one conditional update, which reads nothing before it.
pub(super) fn update(
    conn: &mut DbConnection,
    org: OrgId,
    package: &str,
    edit: &AppEdit,
    expected: AppStoreStatus,
    events: &[ReviewEvent],
    audit: &AuditEntry,
) -> Result<(), RepoError> {
    let org = org.to_string();
    let changed = diesel::update(
        apps::table
            .filter(apps::package_name.eq(package))
            .filter(apps::org_id.eq(&org))
            .filter(status_reads_as(expected)),
    )
    .set(edit)
    .execute(conn)
    .map_err(backend("updating an app"))?;
    if changed == 0 {
        return Err(missing_or_conflict(conn, &org, package));
    }
    for event in events {
        insert_event(conn, event)?;
    }
    record_and_queue_events(conn, std::slice::from_ref(audit))
}
