//! Store status transitions (submit, publish, reject, back to development) as compare-and-set writes, and
//! moving an app to another organization.

use diesel::dsl::sql;
use diesel::expression::SqlLiteral;
use diesel::prelude::*;
use diesel::sql_types::Bool;
use domain::apps::ports::StatusChange;
use domain::apps::{App, AppStoreStatus};
use domain::audit::AuditEntry;
use domain::common::RepoError;
use domain::media::ImageLinks;
use domain::review::ReviewEvent;

use super::rows::AppRow;
use crate::connection::on_backend;
use crate::convert::{backend, db_error, to_millis};
use crate::repos::audit::record_and_queue_events;
use crate::repos::reviews::insert_event;
use crate::schema::{apps, images};
use crate::{DbConnection, outbox_rows};

/// What a compare-and-set miss on the store status answers.
pub const STATUS_CONFLICT: &str = "status";

fn status_conflict() -> RepoError {
    RepoError::Conflict(STATUS_CONFLICT.to_owned())
}

/// The condition "the stored status reads as `expected`" for the `WHERE` of a compare-and-set, so that the
/// update itself checks the status (no read before it). A stored status reads as its own spelling, and
/// anything else as DEVELOPMENT (`AppStoreStatus::parse_lossy`, which `into_app` reads rows with): a
/// legacy spelling such as `development` matches DEVELOPMENT here too.
pub(super) fn status_reads_as(expected: AppStoreStatus) -> SqlLiteral<Bool> {
    let spelled = |status: AppStoreStatus| format!("'{}'", status.code());
    if expected == AppStoreStatus::Development {
        let others: Vec<String> = AppStoreStatus::ALL
            .iter()
            .copied()
            .filter(|status| AppStoreStatus::parse_lossy(status.code()) != AppStoreStatus::Development)
            .map(spelled)
            .collect();
        sql(&format!("apps.app_store_status NOT IN ({})", others.join(", ")))
    } else {
        sql(&format!("apps.app_store_status = {}", spelled(expected)))
    }
}

/// Why a compare-and-set of the organization's app touched no row: [`RepoError::NotFound`] when the
/// organization has no such app, else [`RepoError::Conflict`] (another writer changed its status first).
/// Read only on that path: a write that succeeds reads nothing.
pub(super) fn missing_or_conflict(conn: &mut DbConnection, org: &str, package: &str) -> RepoError {
    let found = apps::table
        .filter(apps::package_name.eq(package))
        .filter(apps::org_id.eq(org))
        .select(apps::package_name)
        .first::<String>(conn)
        .optional();
    match found {
        Ok(Some(_)) => status_conflict(),
        Ok(None) => RepoError::NotFound,
        Err(e) => RepoError::backend("reading an app", e),
    }
}

/// The review fields a transition writes, if any (`None` leaves a column as it is).
#[derive(AsChangeset)]
#[diesel(table_name = apps)]
struct TransitionSet<'a> {
    app_store_status: &'a str,
    updated_at: i64,
    review_notes: Option<Option<&'a str>>,
    reviewed_by: Option<&'a str>,
    reviewed_at: Option<Option<i64>>,
}

/// The compare-and-set store transition of the organization's app: the status, the review fields,
/// `updatedAt` in one conditional update that answers the row as written, then the event, the e-mails and
/// the audit entries; or nothing at all.
pub(super) fn apply_transition(
    conn: &mut DbConnection,
    org: &str,
    package: &str,
    expected: AppStoreStatus,
    change: &StatusChange,
    links: &ImageLinks,
) -> Result<App, RepoError> {
    let stamp = change.review.as_ref();
    let set = TransitionSet {
        app_store_status: change.to.code(),
        updated_at: to_millis(change.at),
        review_notes: stamp.map(|stamp| stamp.notes.as_deref()),
        reviewed_by: stamp.map(|stamp| stamp.reviewed_by.as_str()),
        reviewed_at: stamp.map(|stamp| Some(to_millis(stamp.reviewed_at))),
    };
    // On the backend's own connection: the multi-backend wrapper cannot answer a row from `RETURNING`.
    let row = on_backend!(conn, c => diesel::update(
        apps::table
            .filter(apps::package_name.eq(package))
            .filter(apps::org_id.eq(org))
            .filter(status_reads_as(expected)),
    )
    .set(&set)
    .returning(AppRow::as_returning())
    .get_result::<AppRow>(c)
    .optional())
    .map_err(backend("changing an app's store status"))?;
    let Some(row) = row else {
        return Err(missing_or_conflict(conn, org, package));
    };
    insert_event(conn, &change.event)?;
    outbox_rows::enqueue(conn, &change.emails, change.at)?;
    record_and_queue_events(conn, &change.audit)?;
    row.into_app(links)
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
    record_and_queue_events(conn, audit)
}
