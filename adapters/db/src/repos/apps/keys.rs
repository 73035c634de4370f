//! The digest of an app's API key (`app_api_keys`): stored at registration, replaced on rotation.

use diesel::prelude::*;
use domain::audit::AuditEntry;
use domain::common::{OrgId, RepoError};

use crate::DbConnection;
use crate::convert::{backend, db_error};
use crate::repos::audit::record_and_queue_events;
use crate::schema::{app_api_keys, apps};

/// Stores the key digest of an app that has none, created at `created_at` (milliseconds).
pub(super) fn insert_key(
    conn: &mut DbConnection,
    package: &str,
    key_hash: &str,
    created_at: i64,
) -> Result<(), RepoError> {
    diesel::insert_into(app_api_keys::table)
        .values((
            app_api_keys::package_name.eq(package),
            app_api_keys::key_hash.eq(key_hash),
            app_api_keys::created_at.eq(created_at),
        ))
        .execute(conn)
        .map_err(db_error("storing an app's key digest", "key_hash"))?;
    Ok(())
}

/// Replaces the key digest of the organization's app.
pub(super) fn replace_key_hash(
    conn: &mut DbConnection,
    org: OrgId,
    package: &str,
    key_hash: &str,
    audit: &AuditEntry,
) -> Result<(), RepoError> {
    let org = org.to_string();
    // Lock the app row in this org first: a move or delete committing between the check and
    // the key update must not hand the new key to an org that no longer owns the app. The lock's update
    // answers the app's `updatedAt`, which a missing key row is stored with (no read for it).
    let updated_at = diesel::update(
        apps::table
            .filter(apps::package_name.eq(package))
            .filter(apps::org_id.eq(&org)),
    )
    .set(apps::org_id.eq(apps::org_id))
    .returning(apps::updated_at)
    .get_result::<i64>(conn)
    .optional()
    .map_err(backend("locking an app"))?
    .ok_or(RepoError::NotFound)?;
    let replaced = diesel::update(app_api_keys::table.filter(app_api_keys::package_name.eq(package)))
        .set(app_api_keys::key_hash.eq(key_hash))
        .execute(conn)
        .map_err(db_error("replacing an app's key digest", "key_hash"))?;
    if replaced == 0 {
        // An app without a key row (never written by `insert`) gets one.
        insert_key(conn, package, key_hash, updated_at)?;
    }
    record_and_queue_events(conn, std::slice::from_ref(audit))
}
