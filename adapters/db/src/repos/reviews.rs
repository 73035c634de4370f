//! The review history of apps (`review_events`): written by the apps repository in the transaction of
//! each change ([`insert_event`]), read here.

use async_trait::async_trait;
use diesel::prelude::*;
use domain::apps::PackageName;
use domain::common::{EmailAddress, OrgId, RepoError, UserId};
use domain::review::{ReviewEvent, ReviewEventId, ReviewEventKind, ReviewRepository};
use serde_json::Value;

use crate::convert::{backend, db_error, from_json, from_millis, parse_stored, to_json, to_millis};
use crate::schema::{apps, review_events};
use crate::{Db, DbConnection};

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
            kind: event.kind.as_str().to_owned(),
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
}
