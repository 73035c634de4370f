//! Apps (`apps`), their API key digests (`app_api_keys`) and share tokens (`app_share_tokens`); the
//! organization profile the publishing rules read is in `profile`.
//!
//! Every org-scoped method filters by the organization it is given; a compare-and-set on the store status
//! is a conditional UPDATE whose affected-row count decides between success and [`RepoError::Conflict`].

mod profile;
mod rows;

pub use self::profile::DieselOrgProfileLookup;

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use diesel::prelude::*;
use domain::apps::ports::{AppRepository, StatusChange};
use domain::apps::status::StatusCounts;
use domain::apps::{App, AppStoreStatus, PackageName};
use domain::audit::AuditEntry;
use domain::common::{EmailAddress, ImageId, OrgId, RepoError};
use domain::review::ReviewEvent;

use self::rows::{AppEdit, AppRow};
use super::audit::append;
use super::reviews::insert_event;
use crate::connection::on_backend;
use crate::convert::{backend, db_error, parse_stored, to_json, to_millis};
use crate::schema::{
    app_api_keys, app_share_tokens, apps, images, organizations, review_events, uptime_checks, uptime_daily,
    uptime_monitor, uptime_state_changes,
};
use crate::{Db, DbConnection, outbox_rows};

/// What a compare-and-set miss on the store status answers.
pub const STATUS_CONFLICT: &str = "status";

/// Stores apps with their keys, share tokens and tester lists.
#[derive(Debug, Clone)]
pub struct DieselAppRepository {
    db: Db,
}

impl DieselAppRepository {
    #[must_use]
    pub fn new(db: Db) -> Self {
        Self { db }
    }
}

fn rows_to_apps(rows: Vec<AppRow>) -> Result<Vec<App>, RepoError> {
    rows.into_iter().map(AppRow::into_app).collect()
}

fn into_app(row: Option<AppRow>) -> Result<Option<App>, RepoError> {
    row.map(AppRow::into_app).transpose()
}

/// The organization's app, if it has one by that name.
fn load_in_org(conn: &mut DbConnection, org: &str, package: &str) -> Result<Option<App>, RepoError> {
    apps::table
        .filter(apps::package_name.eq(package))
        .filter(apps::org_id.eq(org))
        .select(AppRow::as_select())
        .first(conn)
        .optional()
        .map_err(backend("reading an app"))
        .and_then(into_app)
}

/// Any app by package name.
fn load_any(conn: &mut DbConnection, package: &str) -> Result<Option<App>, RepoError> {
    apps::table
        .filter(apps::package_name.eq(package))
        .select(AppRow::as_select())
        .first(conn)
        .optional()
        .map_err(backend("reading an app"))
        .and_then(into_app)
}

/// Fails with [`RepoError::NotFound`] unless the organization has the app. Inside a write, it also locks
/// the app's row (PostgreSQL) until the transaction ends, so that concurrent writers of the app's side
/// rows (key, share token) queue up behind each other.
fn lock_in_org(conn: &mut DbConnection, org: &str, package: &str) -> Result<(), RepoError> {
    let touched = diesel::update(
        apps::table
            .filter(apps::package_name.eq(package))
            .filter(apps::org_id.eq(org)),
    )
    .set(apps::org_id.eq(apps::org_id))
    .execute(conn)
    .map_err(backend("locking an app"))?;
    if touched == 0 {
        Err(RepoError::NotFound)
    } else {
        Ok(())
    }
}

/// The status column as stored, provided it reads as `expected` (a legacy spelling such as `development`
/// reads as its status, and the compare-and-set of a write must match what is stored, not its normalised
/// form). Read again just before the conditional update, so that a writer that committed meanwhile is a
/// conflict here too.
fn stored_status(
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
        Err(RepoError::Conflict(STATUS_CONFLICT.to_owned()))
    }
}

/// The compare-and-set store transition of `current` (read in the same transaction): the status, the
/// review fields, `updatedAt`, the event and the e-mails, or nothing at all.
fn apply_transition(
    conn: &mut DbConnection,
    current: &App,
    expected: AppStoreStatus,
    change: &StatusChange,
) -> Result<App, RepoError> {
    if current.app_store_status != expected {
        return Err(RepoError::Conflict(STATUS_CONFLICT.to_owned()));
    }
    let package = current.package_name.as_str();
    let stored = stored_status(conn, package, expected)?;
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
    if changed == 0 {
        // Another writer changed the row between our read and this update.
        return Err(RepoError::Conflict(STATUS_CONFLICT.to_owned()));
    }
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

#[async_trait]
impl AppRepository for DieselAppRepository {
    async fn insert(&self, app: &App, key_hash: &str, audit: &AuditEntry) -> Result<(), RepoError> {
        let row = AppRow::from_app(app)?;
        let audit = audit.clone();
        let package = app.package_name.as_str().to_owned();
        let key_hash = key_hash.to_owned();
        let created_at = to_millis(app.created_at);
        self.db
            .write(move |conn| {
                diesel::insert_into(apps::table)
                    .values(&row)
                    .execute(conn)
                    .map_err(db_error("storing an app", "package_name"))?;
                diesel::insert_into(app_api_keys::table)
                    .values((
                        app_api_keys::package_name.eq(&package),
                        app_api_keys::key_hash.eq(&key_hash),
                        app_api_keys::created_at.eq(created_at),
                    ))
                    .execute(conn)
                    .map_err(db_error("storing an app's key digest", "key_hash"))?;
                append(conn, std::slice::from_ref(&audit))
            })
            .await
    }

    async fn get(&self, org: OrgId, package: &PackageName) -> Result<Option<App>, RepoError> {
        let package = package.as_str().to_owned();
        self.db
            .lookup(move |conn| load_in_org(conn, &org.to_string(), &package))
            .await
    }

    async fn list(&self, org: OrgId) -> Result<Vec<App>, RepoError> {
        self.db
            .read(move |conn| {
                let rows = apps::table
                    .filter(apps::org_id.eq(org.to_string()))
                    .order((apps::created_at.desc(), apps::package_name.asc()))
                    .select(AppRow::as_select())
                    .load(conn)
                    .map_err(backend("listing an organization's apps"))?;
                rows_to_apps(rows)
            })
            .await
    }

    async fn revision(&self, org: OrgId) -> Result<u64, RepoError> {
        self.db
            .lookup(move |conn| {
                // Kept by the triggers of the apps table (migration `apps_revision`). An organization that
                // is gone has no apps: revision 0.
                let org = org.to_string();
                let revision: Option<i64> = on_backend!(conn, c => organizations::table
                    .find(&org)
                    .select(organizations::apps_revision)
                    .first(c)
                    .optional())
                .map_err(backend("reading the revision of an organization's apps"))?;
                Ok(revision.map_or(0, i64::unsigned_abs))
            })
            .await
    }

    async fn update(
        &self,
        org: OrgId,
        app: &App,
        expected_status: AppStoreStatus,
        events: Vec<ReviewEvent>,
        audit: &AuditEntry,
    ) -> Result<(), RepoError> {
        let edit = AppEdit::from_app(app)?;
        let audit = audit.clone();
        let package = app.package_name.as_str().to_owned();
        self.db
            .write(move |conn| {
                let org = org.to_string();
                let current = load_in_org(conn, &org, &package)?.ok_or(RepoError::NotFound)?;
                if current.app_store_status != expected_status {
                    return Err(RepoError::Conflict(STATUS_CONFLICT.to_owned()));
                }
                let stored = stored_status(conn, &package, expected_status)?;
                let changed = diesel::update(
                    apps::table
                        .filter(apps::package_name.eq(&package))
                        .filter(apps::org_id.eq(&org))
                        .filter(apps::app_store_status.eq(&stored)),
                )
                .set(&edit)
                .execute(conn)
                .map_err(backend("updating an app"))?;
                if changed == 0 {
                    return Err(RepoError::Conflict(STATUS_CONFLICT.to_owned()));
                }
                for event in &events {
                    insert_event(conn, event)?;
                }
                append(conn, std::slice::from_ref(&audit))
            })
            .await
    }

    async fn delete(
        &self,
        org: OrgId,
        package: &PackageName,
        audit: &AuditEntry,
    ) -> Result<Vec<ImageId>, RepoError> {
        let package = package.as_str().to_owned();
        let audit = audit.clone();
        self.db
            .write(move |conn| {
                let org = org.to_string();
                lock_in_org(conn, &org, &package)?;
                let image_ids: Vec<String> = images::table
                    .filter(images::org_id.eq(&org))
                    .filter(images::app_package.eq(&package))
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
                        .filter(images::org_id.eq(&org))
                        .filter(images::app_package.eq(&package)),
                )
                .execute(conn)
                .map_err(backend("deleting an app's images"))?;
                let context = "deleting an app's dependent rows";
                diesel::delete(app_api_keys::table.filter(app_api_keys::package_name.eq(&package)))
                    .execute(conn)
                    .map_err(backend(context))?;
                diesel::delete(app_share_tokens::table.filter(app_share_tokens::package_name.eq(&package)))
                    .execute(conn)
                    .map_err(backend(context))?;
                diesel::delete(review_events::table.filter(review_events::package_name.eq(&package)))
                    .execute(conn)
                    .map_err(backend(context))?;
                diesel::delete(uptime_monitor::table.filter(uptime_monitor::package_name.eq(&package)))
                    .execute(conn)
                    .map_err(backend(context))?;
                diesel::delete(uptime_checks::table.filter(uptime_checks::package_name.eq(&package)))
                    .execute(conn)
                    .map_err(backend(context))?;
                diesel::delete(uptime_daily::table.filter(uptime_daily::package_name.eq(&package)))
                    .execute(conn)
                    .map_err(backend(context))?;
                diesel::delete(
                    uptime_state_changes::table.filter(uptime_state_changes::package_name.eq(&package)),
                )
                .execute(conn)
                .map_err(backend(context))?;
                let deleted = diesel::delete(
                    apps::table
                        .filter(apps::package_name.eq(&package))
                        .filter(apps::org_id.eq(&org)),
                )
                .execute(conn)
                .map_err(backend("deleting an app"))?;
                if deleted == 0 {
                    return Err(RepoError::NotFound);
                }
                append(conn, std::slice::from_ref(&audit))?;
                Ok(removed)
            })
            .await
    }

    async fn replace_key_hash(
        &self,
        org: OrgId,
        package: &PackageName,
        key_hash: &str,
        audit: &AuditEntry,
    ) -> Result<(), RepoError> {
        let package = package.as_str().to_owned();
        let key_hash = key_hash.to_owned();
        let audit = audit.clone();
        self.db
            .write(move |conn| {
                let org = org.to_string();
                // Lock the app row in this org first: a move or delete committing between the check and
                // the key update must not hand the new key to an org that no longer owns the app.
                lock_in_org(conn, &org, &package)?;
                let app = load_in_org(conn, &org, &package)?.ok_or(RepoError::NotFound)?;
                let replaced =
                    diesel::update(app_api_keys::table.filter(app_api_keys::package_name.eq(&package)))
                        .set(app_api_keys::key_hash.eq(&key_hash))
                        .execute(conn)
                        .map_err(db_error("replacing an app's key digest", "key_hash"))?;
                if replaced == 0 {
                    // An app without a key row (never written by `insert`) gets one.
                    diesel::insert_into(app_api_keys::table)
                        .values((
                            app_api_keys::package_name.eq(&package),
                            app_api_keys::key_hash.eq(&key_hash),
                            app_api_keys::created_at.eq(to_millis(app.updated_at)),
                        ))
                        .execute(conn)
                        .map_err(db_error("storing an app's key digest", "key_hash"))?;
                }
                append(conn, std::slice::from_ref(&audit))
            })
            .await
    }

    async fn set_visibility(
        &self,
        org: OrgId,
        package: &PackageName,
        shared_with_organization: bool,
        at: DateTime<Utc>,
        audit: &AuditEntry,
    ) -> Result<(), RepoError> {
        let package = package.as_str().to_owned();
        let audit = audit.clone();
        self.db
            .write(move |conn| {
                let changed = diesel::update(
                    apps::table
                        .filter(apps::package_name.eq(&package))
                        .filter(apps::org_id.eq(org.to_string())),
                )
                .set((
                    apps::shared_with_organization.eq(shared_with_organization),
                    apps::updated_at.eq(to_millis(at)),
                ))
                .execute(conn)
                .map_err(backend("setting an app's visibility"))?;
                if changed == 0 {
                    Err(RepoError::NotFound)
                } else {
                    append(conn, std::slice::from_ref(&audit))
                }
            })
            .await
    }

    async fn set_share_emails(
        &self,
        org: OrgId,
        package: &PackageName,
        emails: Vec<EmailAddress>,
        at: DateTime<Utc>,
        audit: &AuditEntry,
    ) -> Result<(), RepoError> {
        let package = package.as_str().to_owned();
        let audit = audit.clone();
        let emails = to_json(&emails)?;
        self.db
            .write(move |conn| {
                let changed = diesel::update(
                    apps::table
                        .filter(apps::package_name.eq(&package))
                        .filter(apps::org_id.eq(org.to_string())),
                )
                .set((
                    apps::shared_with_emails.eq(&emails),
                    apps::updated_at.eq(to_millis(at)),
                ))
                .execute(conn)
                .map_err(backend("setting an app's tester list"))?;
                if changed == 0 {
                    Err(RepoError::NotFound)
                } else {
                    append(conn, std::slice::from_ref(&audit))
                }
            })
            .await
    }

    async fn share_token(&self, org: OrgId, package: &PackageName) -> Result<Option<String>, RepoError> {
        let package = package.as_str().to_owned();
        self.db
            .read(move |conn| {
                app_share_tokens::table
                    .inner_join(apps::table)
                    .filter(apps::package_name.eq(&package))
                    .filter(apps::org_id.eq(org.to_string()))
                    .select(app_share_tokens::token)
                    .first::<String>(conn)
                    .optional()
                    .map_err(backend("reading an app's share token"))
            })
            .await
    }

    async fn create_share_token(
        &self,
        org: OrgId,
        package: &PackageName,
        token: &str,
        at: DateTime<Utc>,
    ) -> Result<String, RepoError> {
        let package = package.as_str().to_owned();
        let token = token.to_owned();
        self.db
            .write(move |conn| {
                // The row lock makes a concurrent creator wait here, then see the token stored first.
                lock_in_org(conn, &org.to_string(), &package)?;
                let existing = app_share_tokens::table
                    .filter(app_share_tokens::package_name.eq(&package))
                    .select(app_share_tokens::token)
                    .first::<String>(conn)
                    .optional()
                    .map_err(backend("reading an app's share token"))?;
                if let Some(existing) = existing {
                    return Ok(existing);
                }
                diesel::insert_into(app_share_tokens::table)
                    .values((
                        app_share_tokens::package_name.eq(&package),
                        app_share_tokens::token.eq(&token),
                        app_share_tokens::created_at.eq(to_millis(at)),
                    ))
                    .execute(conn)
                    .map_err(db_error("storing an app's share token", "share_token"))?;
                Ok(token)
            })
            .await
    }

    async fn replace_share_token(
        &self,
        org: OrgId,
        package: &PackageName,
        token: &str,
        at: DateTime<Utc>,
        audit: &AuditEntry,
    ) -> Result<(), RepoError> {
        let package = package.as_str().to_owned();
        let token = token.to_owned();
        let audit = audit.clone();
        self.db
            .write(move |conn| {
                lock_in_org(conn, &org.to_string(), &package)?;
                diesel::delete(app_share_tokens::table.filter(app_share_tokens::package_name.eq(&package)))
                    .execute(conn)
                    .map_err(backend("removing an app's share token"))?;
                diesel::insert_into(app_share_tokens::table)
                    .values((
                        app_share_tokens::package_name.eq(&package),
                        app_share_tokens::token.eq(&token),
                        app_share_tokens::created_at.eq(to_millis(at)),
                    ))
                    .execute(conn)
                    .map_err(db_error("storing an app's share token", "share_token"))?;
                append(conn, std::slice::from_ref(&audit))
            })
            .await
    }

    async fn move_app(
        &self,
        from: OrgId,
        to: OrgId,
        package: &PackageName,
        event: ReviewEvent,
        audit: &[AuditEntry],
    ) -> Result<(), RepoError> {
        let package = package.as_str().to_owned();
        let audit = audit.to_vec();
        self.db
            .write(move |conn| {
                let (from, to) = (from.to_string(), to.to_string());
                let moved = diesel::update(
                    apps::table
                        .filter(apps::package_name.eq(&package))
                        .filter(apps::org_id.eq(&from)),
                )
                .set(apps::org_id.eq(&to))
                .execute(conn)
                // A target organization that does not exist is a foreign-key violation: NotFound.
                .map_err(db_error("moving an app", "package_name"))?;
                if moved == 0 {
                    return Err(RepoError::NotFound);
                }
                // The app's images go with it, so that the target organization can manage its logo.
                diesel::update(
                    images::table
                        .filter(images::app_package.eq(&package))
                        .filter(images::org_id.eq(&from)),
                )
                .set(images::org_id.eq(&to))
                .execute(conn)
                .map_err(backend("moving an app's images"))?;
                insert_event(conn, &event)?;
                append(conn, &audit)
            })
            .await
    }

    async fn transition(
        &self,
        org: OrgId,
        package: &PackageName,
        expected: AppStoreStatus,
        change: StatusChange,
    ) -> Result<App, RepoError> {
        let package = package.as_str().to_owned();
        self.db
            .write(move |conn| {
                let current = load_in_org(conn, &org.to_string(), &package)?.ok_or(RepoError::NotFound)?;
                apply_transition(conn, &current, expected, &change)
            })
            .await
    }

    async fn admin_transition(
        &self,
        package: &PackageName,
        expected: AppStoreStatus,
        change: StatusChange,
    ) -> Result<App, RepoError> {
        let package = package.as_str().to_owned();
        self.db
            .write(move |conn| {
                let current = load_any(conn, &package)?.ok_or(RepoError::NotFound)?;
                apply_transition(conn, &current, expected, &change)
            })
            .await
    }

    async fn admin_get(&self, package: &PackageName) -> Result<Option<App>, RepoError> {
        let package = package.as_str().to_owned();
        self.db.read(move |conn| load_any(conn, &package)).await
    }

    async fn admin_list_by_status(&self, status: AppStoreStatus) -> Result<Vec<App>, RepoError> {
        self.db
            .read(move |conn| {
                let rows = apps::table
                    .filter(apps::app_store_status.eq(status.as_str()))
                    .order((apps::updated_at.asc(), apps::package_name.asc()))
                    .select(AppRow::as_select())
                    .load(conn)
                    .map_err(backend("listing apps by status"))?;
                rows_to_apps(rows)
            })
            .await
    }

    async fn admin_counts(&self) -> Result<StatusCounts, RepoError> {
        self.db
            .read(|conn| {
                let per_status: Vec<(String, i64)> = apps::table
                    .group_by(apps::app_store_status)
                    .select((apps::app_store_status, diesel::dsl::count_star()))
                    .load(conn)
                    .map_err(backend("counting apps by status"))?;
                let mut counts = StatusCounts::default();
                for (status, count) in per_status {
                    let count =
                        u64::try_from(count).map_err(|e| RepoError::backend("counting apps by status", e))?;
                    let slot = match AppStoreStatus::parse_lossy(&status) {
                        AppStoreStatus::Development => &mut counts.development,
                        AppStoreStatus::Submitted => &mut counts.submitted,
                        AppStoreStatus::Published => &mut counts.published,
                        AppStoreStatus::Rejected => &mut counts.rejected,
                    };
                    *slot += count;
                }
                Ok(counts)
            })
            .await
    }

    async fn find_by_key_hash(&self, key_hash: &str) -> Result<Option<App>, RepoError> {
        let key_hash = key_hash.to_owned();
        self.db
            .read(move |conn| {
                apps::table
                    .inner_join(app_api_keys::table)
                    .filter(app_api_keys::key_hash.eq(&key_hash))
                    .select(AppRow::as_select())
                    .first(conn)
                    .optional()
                    .map_err(backend("finding an app by key"))
                    .and_then(into_app)
            })
            .await
    }

    async fn find_by_share_token(&self, token: &str) -> Result<Option<App>, RepoError> {
        let token = token.to_owned();
        self.db
            .read(move |conn| {
                apps::table
                    .inner_join(app_share_tokens::table)
                    .filter(app_share_tokens::token.eq(&token))
                    .select(AppRow::as_select())
                    .first(conn)
                    .optional()
                    .map_err(backend("finding an app by share token"))
                    .and_then(into_app)
            })
            .await
    }
}
