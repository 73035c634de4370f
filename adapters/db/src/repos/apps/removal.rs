//! Deleting an app with every row that hangs off it: images, key, share token, review events and uptime
//! data.

use diesel::prelude::*;
use domain::audit::AuditEntry;
use domain::common::{ImageId, OrgId, RepoError};

use super::lock_in_org;
use crate::DbConnection;
use crate::convert::{backend, parse_stored};
use crate::repos::audit::record_and_queue_events;
use crate::schema::{
    app_api_keys, app_share_tokens, apps, images, review_events, uptime_checks, uptime_daily, uptime_monitor,
    uptime_state_changes,
};

/// Deletes the organization's app and its dependent rows; answers the ids of the images removed.
pub(super) fn delete(
    conn: &mut DbConnection,
    org: OrgId,
    package: &str,
    audit: &AuditEntry,
) -> Result<Vec<ImageId>, RepoError> {
    let org = org.to_string();
    lock_in_org(conn, &org, package)?;
    let removed = delete_images(conn, &org, package)?;
    let context = "deleting an app's dependent rows";
    diesel::delete(app_api_keys::table.filter(app_api_keys::package_name.eq(package)))
        .execute(conn)
        .map_err(backend(context))?;
    diesel::delete(app_share_tokens::table.filter(app_share_tokens::package_name.eq(package)))
        .execute(conn)
        .map_err(backend(context))?;
    diesel::delete(review_events::table.filter(review_events::package_name.eq(package)))
        .execute(conn)
        .map_err(backend(context))?;
    diesel::delete(uptime_monitor::table.filter(uptime_monitor::package_name.eq(package)))
        .execute(conn)
        .map_err(backend(context))?;
    diesel::delete(uptime_checks::table.filter(uptime_checks::package_name.eq(package)))
        .execute(conn)
        .map_err(backend(context))?;
    diesel::delete(uptime_daily::table.filter(uptime_daily::package_name.eq(package)))
        .execute(conn)
        .map_err(backend(context))?;
    diesel::delete(uptime_state_changes::table.filter(uptime_state_changes::package_name.eq(package)))
        .execute(conn)
        .map_err(backend(context))?;
    let deleted = diesel::delete(
        apps::table
            .filter(apps::package_name.eq(package))
            .filter(apps::org_id.eq(&org)),
    )
    .execute(conn)
    .map_err(backend("deleting an app"))?;
    if deleted == 0 {
        return Err(RepoError::NotFound);
    }
    record_and_queue_events(conn, std::slice::from_ref(audit))?;
    Ok(removed)
}

/// Deletes the app's images; answers their ids, oldest first.
fn delete_images(conn: &mut DbConnection, org: &str, package: &str) -> Result<Vec<ImageId>, RepoError> {
    let image_ids: Vec<String> = images::table
        .filter(images::org_id.eq(org))
        .filter(images::app_package.eq(package))
        .order((images::created_at.asc(), images::id.asc()))
        .select(images::id)
        .load(conn)
        .map_err(backend("listing an app's images"))?;
    let removed = image_ids
        .iter()
        .map(|id| parse_stored("images.id", id, str::parse::<ImageId>))
        .collect::<Result<Vec<_>, _>>()?;
    diesel::delete(
        images::table
            .filter(images::org_id.eq(org))
            .filter(images::app_package.eq(package)),
    )
    .execute(conn)
    .map_err(backend("deleting an app's images"))?;
    Ok(removed)
}
