//! The review history of apps (`review_events`): written by the apps repository in the transaction of
//! each change (`insert_event`), read here; reviewers' decisions (compare-and-set on the status and the
//! revision the reviewer saw) and the platform admins' repair of stored statuses.

use std::collections::BTreeMap;

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use diesel::prelude::*;
use domain::apps::ports::{AppRepository, StatusChange};
use domain::apps::{App, AppStoreStatus, PackageName};
use domain::common::{EmailAddress, OrgId, RepoError, UserId};
use domain::review::platform::StoreStatusMaintenance;
use domain::review::ports::{REVISION_MOVED, STATUS_MOVED};
use domain::review::{ReviewEvent, ReviewEventId, ReviewEventKind, ReviewRepository};
use serde_json::Value;

use super::apps::DieselAppRepository;
use crate::convert::{backend, db_error, from_json, from_millis, parse_stored, to_json, to_millis};
use crate::schema::{apps, review_events};
use crate::{Db, DbConnection, outbox_rows};

/// One stored review event.
#[derive(Debug, Queryable, Selectable, Insertable)]
#[diesel(table_name = review_events)]
struct ReviewEventRow {
    id: String,
    package_name: String,
    org_id: String,
    kind: String,
    actor_id: String,
    actor_email: String,
    notes: Option<String>,
    at: i64,
    detail: Option<String>,
}

impl ReviewEventRow {
    fn from_event(event: &ReviewEvent) -> Result<Self, RepoError> {
        Ok(Self {
            id: event.id.to_string(),
            package_name: event.package_name.as_str().to_owned(),
            org_id: event.org_id.to_string(),
            kind: event.kind.code().to_owned(),
            actor_id: event.actor.to_string(),
            actor_email: event.actor_email.as_str().to_owned(),
            notes: event.notes.clone(),
            at: to_millis(event.at),
            detail: event.detail.as_ref().map(to_json).transpose()?,
        })
    }

    fn into_event(self) -> Result<ReviewEvent, RepoError> {
        Ok(ReviewEvent {
            id: ReviewEventId(parse_stored("review_events.id", &self.id, uuid::Uuid::parse_str)?),
            package_name: parse_stored(
                "review_events.package_name",
                &self.package_name,
                PackageName::parse,
            )?,
            org_id: parse_stored("review_events.org_id", &self.org_id, str::parse::<OrgId>)?,
            kind: parse_stored("review_events.kind", &self.kind, |text| {
                serde_json::from_value::<ReviewEventKind>(Value::String(text.to_owned()))
            })?,
            actor: parse_stored("review_events.actor_id", &self.actor_id, str::parse::<UserId>)?,
            actor_email: parse_stored(
                "review_events.actor_email",
                &self.actor_email,
                EmailAddress::parse,
            )?,
            notes: self.notes,
            at: from_millis(self.at)?,
            detail: self
                .detail
                .as_deref()
                .map(|text| from_json("review_events.detail", text))
                .transpose()?,
        })
    }
}

/// Appends `event` to its app's review history; call it inside the `db.write` closure of the change it
/// records.
///
/// # Errors
/// [`RepoError::Duplicate`]`("review_event_id")` when the id exists; [`RepoError::NotFound`] when the app
/// does not exist; [`RepoError::Backend`] otherwise.
pub(crate) fn insert_event(conn: &mut DbConnection, event: &ReviewEvent) -> Result<(), RepoError> {
    let row = ReviewEventRow::from_event(event)?;
    diesel::insert_into(review_events::table)
        .values(&row)
        .execute(conn)
        .map_err(db_error("recording a review event", "review_event_id"))?;
    Ok(())
}

/// The app's whole history, oldest first.
fn load_history(conn: &mut DbConnection, package: &str) -> Result<Vec<ReviewEvent>, RepoError> {
    review_events::table
        .filter(review_events::package_name.eq(package))
        .order((review_events::at.asc(), review_events::id.asc()))
        .select(ReviewEventRow::as_select())
        .load(conn)
        .map_err(backend("reading a review history"))?
        .into_iter()
        .map(ReviewEventRow::into_event)
        .collect()
}

/// Reads review histories.
#[derive(Debug, Clone)]
pub struct DieselReviewRepository {
    db: Db,
}

impl DieselReviewRepository {
    #[must_use]
    pub fn new(db: Db) -> Self {
        Self { db }
    }
}

#[async_trait]
impl ReviewRepository for DieselReviewRepository {
    async fn history(
        &self,
        org: OrgId,
        package: &PackageName,
    ) -> Result<Option<Vec<ReviewEvent>>, RepoError> {
        let package = package.as_str().to_owned();
        self.db
            .read(move |conn| {
                let owned: i64 = apps::table
                    .filter(apps::package_name.eq(&package))
                    .filter(apps::org_id.eq(org.to_string()))
                    .count()
                    .get_result(conn)
                    .map_err(backend("looking up an app for its history"))?;
                if owned == 0 {
                    return Ok(None);
                }
                load_history(conn, &package).map(Some)
            })
            .await
    }

    async fn admin_history(&self, package: &PackageName) -> Result<Vec<ReviewEvent>, RepoError> {
        let package = package.as_str().to_owned();
        self.db.read(move |conn| load_history(conn, &package)).await
    }

    async fn decide(
        &self,
        package: &PackageName,
        expected: AppStoreStatus,
        seen: DateTime<Utc>,
        change: StatusChange,
    ) -> Result<App, RepoError> {
        let name = package.as_str().to_owned();
        let seen = to_millis(seen);
        self.db
            .write(move |conn| {
                classify(conn, &name, expected, seen)?;
                // The compare-and-set itself: on PostgreSQL a concurrent decision holding the row makes
                // this wait, then re-check the conditions against what it committed.
                let changed = diesel::update(
                    apps::table
                        .filter(apps::package_name.eq(&name))
                        .filter(apps::app_store_status.eq(expected.code()))
                        .filter(apps::updated_at.eq(seen)),
                )
                .set((
                    apps::app_store_status.eq(change.to.code()),
                    apps::updated_at.eq(to_millis(change.at)),
                ))
                .execute(conn)
                .map_err(backend("deciding on an app"))?;
                if changed == 0 {
                    classify(conn, &name, expected, seen)?;
                    return Err(RepoError::Conflict(STATUS_MOVED.to_owned()));
                }
                if let Some(stamp) = &change.review {
                    diesel::update(apps::table.filter(apps::package_name.eq(&name)))
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
                super::audit::record_and_queue_events(conn, &change.audit)
            })
            .await?;
        DieselAppRepository::new(self.db.clone())
            .admin_get(package)
            .await?
            .ok_or(RepoError::NotFound)
    }
}

/// Why a decision cannot be written: no such app, another status, another revision; `Ok` when the stored
/// app is still the one the reviewer saw.
fn classify(
    conn: &mut DbConnection,
    package: &str,
    expected: AppStoreStatus,
    seen: i64,
) -> Result<(), RepoError> {
    let (status, updated_at): (String, i64) = apps::table
        .filter(apps::package_name.eq(package))
        .select((apps::app_store_status, apps::updated_at))
        .first(conn)
        .optional()
        .map_err(backend("reading an app for a decision"))?
        .ok_or(RepoError::NotFound)?;
    if status != expected.code() {
        Err(RepoError::Conflict(STATUS_MOVED.to_owned()))
    } else if updated_at != seen {
        Err(RepoError::Conflict(REVISION_MOVED.to_owned()))
    } else {
        Ok(())
    }
}

/// The canonical stored spellings of the store status.
fn canonical_statuses() -> Vec<&'static str> {
    AppStoreStatus::ALL.iter().map(|s| s.code()).collect()
}

#[async_trait]
impl StoreStatusMaintenance for DieselReviewRepository {
    async fn stored_status_counts(&self) -> Result<BTreeMap<String, u64>, RepoError> {
        self.db
            .read(|conn| {
                let rows: Vec<(String, i64)> = apps::table
                    .group_by(apps::app_store_status)
                    .select((apps::app_store_status, diesel::dsl::count_star()))
                    .load(conn)
                    .map_err(backend("counting stored statuses"))?;
                rows.into_iter()
                    .map(|(status, count)| {
                        u64::try_from(count)
                            .map(|count| (status, count))
                            .map_err(|e| RepoError::backend("counting stored statuses", e))
                    })
                    .collect()
            })
            .await
    }

    async fn normalise_store_statuses(&self, at: DateTime<Utc>) -> Result<Vec<PackageName>, RepoError> {
        let at = to_millis(at);
        self.db
            .write(move |conn| {
                let canonical = canonical_statuses();
                let names: Vec<String> = apps::table
                    .filter(apps::app_store_status.ne_all(&canonical))
                    .order(apps::package_name.asc())
                    .select(apps::package_name)
                    .load(conn)
                    .map_err(backend("finding unknown store statuses"))?;
                diesel::update(
                    apps::table
                        .filter(apps::package_name.eq_any(&names))
                        .filter(apps::app_store_status.ne_all(&canonical)),
                )
                .set((
                    apps::app_store_status.eq(AppStoreStatus::Development.code()),
                    apps::updated_at.eq(at),
                ))
                .execute(conn)
                .map_err(backend("repairing unknown store statuses"))?;
                names
                    .iter()
                    .map(|name| parse_stored("apps.package_name", name, PackageName::parse))
                    .collect()
            })
            .await
    }
}
