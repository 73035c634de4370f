//! Store status transitions (submit, publish, reject, back to development) as compare-and-set writes, and
//! moving an app to another organization.

use diesel::prelude::*;
use domain::apps::ports::StatusChange;
use domain::apps::{App, AppStoreStatus};
use domain::audit::AuditEntry;
use domain::common::RepoError;
use domain::review::ReviewEvent;

use super::queries::load_any;
use crate::convert::{backend, db_error, to_millis};
use crate::repos::audit::append;
use crate::repos::reviews::insert_event;
use crate::schema::{apps, images};
use crate::{DbConnection, outbox_rows};

/// What a compare-and-set miss on the store status answers.
pub const STATUS_CONFLICT: &str = "status";

fn status_conflict() -> RepoError {
    RepoError::Conflict(STATUS_CONFLICT.to_owned())
}

/// The status column as stored, provided it reads as `expected` (a legacy spelling such as `development`
/// reads as its status, and the compare-and-set of a write must match what is stored, not its normalised
/// form). Read again just before the conditional update, so that a writer that committed meanwhile is a
/// conflict here too.
pub(super) fn stored_status(
    conn: &mut DbConnection,
    package: &str,
    expected: AppStoreStatus,
) -> Result<String, RepoError> {
    let stored = apps::table
        .filter(apps::package_name.eq(package))
        .select(apps::app_store_status)
        .first::<String>(conn)
        .optional()
        .map_err(backend("reading an app's store status"))?
        .ok_or(RepoError::NotFound)?;
    if AppStoreStatus::parse_lossy(&stored) == expected {
        Ok(stored)
    } else {
        Err(status_conflict())
    }
}

/// The stored status of `current` (read in the same transaction) when its status is `expected`, else
/// [`RepoError::Conflict`].
pub(super) fn expect_status(
    conn: &mut DbConnection,
    current: &App,
    expected: AppStoreStatus,
) -> Result<String, RepoError> {
    if current.app_store_status != expected {
        return Err(status_conflict());
    }
    stored_status(conn, current.package_name.as_str(), expected)
}

/// [`RepoError::Conflict`] when a conditional update touched no row: another writer changed the row
/// between our read and the update.
pub(super) fn changed_or_conflict(changed: usize) -> Result<(), RepoError> {
    if changed == 0 {
        Err(status_conflict())
    } else {
        Ok(())
    }
}

/// The compare-and-set store transition of `current` (read in the same transaction): the status, the
/// review fields, `updatedAt`, the event and the e-mails, or nothing at all.
pub(super) fn apply_transition(
    conn: &mut DbConnection,
    current: &App,
    expected: AppStoreStatus,
    change: &StatusChange,
) -> Result<App, RepoError> {
    let stored = expect_status(conn, current, expected)?;
    let package = current.package_name.as_str();
    let changed = diesel::update(
        apps::table
            .filter(apps::package_name.eq(package))
            .filter(apps::org_id.eq(current.org_id.to_string()))
            .filter(apps::app_store_status.eq(&stored)),
    )
    .set((
        apps::app_store_status.eq(change.to.as_str()),
        apps::updated_at.eq(to_millis(change.at)),
    ))
    .execute(conn)
    .map_err(backend("changing an app's store status"))?;
    changed_or_conflict(changed)?;
    if let Some(stamp) = &change.review {
        diesel::update(apps::table.filter(apps::package_name.eq(package)))
            .set((
                apps::review_notes.eq(stamp.notes.as_deref()),
                apps::reviewed_by.eq(stamp.reviewed_by.as_str()),
                apps::reviewed_at.eq(Some(to_millis(stamp.reviewed_at))),
            ))
            .execute(conn)
            .map_err(backend("writing an app's review fields"))?;
    }
    insert_event(conn, &change.event)?;
    outbox_rows::enqueue(conn, &change.emails, change.at)?;
    append(conn, &change.audit)?;
    load_any(conn, package)?.ok_or(RepoError::NotFound)
}

/// Moves the app and its images from one organization to the other, with the review event.
pub(super) fn move_app(
    conn: &mut DbConnection,
    from: &str,
    to: &str,
    package: &str,
    event: &ReviewEvent,
    audit: &[AuditEntry],
) -> Result<(), RepoError> {
    let moved = diesel::update(
        apps::table
            .filter(apps::package_name.eq(package))
            .filter(apps::org_id.eq(from)),
    )
    .set(apps::org_id.eq(to))
    .execute(conn)
    // A target organization that does not exist is a foreign-key violation: NotFound.
    .map_err(db_error("moving an app", "package_name"))?;
    if moved == 0 {
        return Err(RepoError::NotFound);
    }
    // The app's images go with it, so that the target organization can manage its logo.
    diesel::update(
        images::table
            .filter(images::app_package.eq(package))
            .filter(images::org_id.eq(from)),
    )
    .set(images::org_id.eq(to))
    .execute(conn)
    .map_err(backend("moving an app's images"))?;
    insert_event(conn, event)?;
    append(conn, audit)
}
