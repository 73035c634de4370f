//! Apps (`apps`), their API key digests (`app_api_keys`) and share tokens (`app_share_tokens`); the
//! organization profile the publishing rules read is in `profile`.
//!
//! The trait implementation hands each call to the free functions of one concern: `queries` (the reads),
//! `registration` (insert, edit), `removal` (delete), `keys`, `sharing`, and `status` (store transitions,
//! moves between organizations).
//!
//! Every org-scoped method filters by the organization it is given; a compare-and-set on the store status
//! is a conditional UPDATE whose affected-row count decides between success and [`RepoError::Conflict`].

mod keys;
mod profile;
mod queries;
mod registration;
mod removal;
mod rows;
mod sharing;
mod status;

pub use self::profile::DieselOrgProfileLookup;
pub use self::status::STATUS_CONFLICT;

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use diesel::prelude::*;
use domain::apps::ports::{AppRepository, StatusChange};
use domain::apps::status::StatusCounts;
use domain::apps::{App, AppStoreStatus, PackageName};
use domain::audit::AuditEntry;
use domain::common::{EmailAddress, ImageId, OrgId, RepoError};
use domain::review::ReviewEvent;

use self::queries::{load_any, load_in_org};
use self::rows::{AppEdit, AppRow};
use crate::convert::{backend, to_json, to_millis};
use crate::schema::apps;
use crate::{Db, DbConnection};

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

#[async_trait]
impl AppRepository for DieselAppRepository {
    async fn insert(&self, app: &App, key_hash: &str, audit: &AuditEntry) -> Result<(), RepoError> {
        let row = AppRow::from_app(app, self.db.image_links())?;
        let audit = audit.clone();
        let package = app.package_name.as_str().to_owned();
        let key_hash = key_hash.to_owned();
        let created_at = to_millis(app.created_at);
        self.db
            .write(move |conn| registration::insert(conn, &row, &package, &key_hash, created_at, &audit))
            .await
    }

    async fn get(&self, org: OrgId, package: &PackageName) -> Result<Option<App>, RepoError> {
        let package = package.as_str().to_owned();
        let links = self.db.image_links().clone();
        self.db
            .lookup(move |conn| load_in_org(conn, &org.to_string(), &package, &links))
            .await
    }

    async fn list(&self, org: OrgId) -> Result<Vec<App>, RepoError> {
        let links = self.db.image_links().clone();
        self.db
            .read(move |conn| queries::list_in_org(conn, org, &links))
            .await
    }

    async fn revision(&self, org: OrgId) -> Result<u64, RepoError> {
        // PostgreSQL: from the apps' notices (`crate::live_cache`); SQLite: the organization's row.
        if let Some(cache) = self.db.live_cache()
            && let Some(revision) = cache.apps_revision(org.0).await
        {
            return Ok(revision);
        }
        self.db.lookup(move |conn| queries::revision(conn, org)).await
    }

    async fn update(
        &self,
        org: OrgId,
        app: &App,
        expected_status: AppStoreStatus,
        events: Vec<ReviewEvent>,
        audit: &AuditEntry,
    ) -> Result<(), RepoError> {
        let edit = AppEdit::from_app(app, self.db.image_links())?;
        let audit = audit.clone();
        let package = app.package_name.as_str().to_owned();
        self.db
            .write(move |conn| {
                registration::update(conn, org, &package, &edit, expected_status, &events, &audit)
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
            .write(move |conn| removal::delete(conn, org, &package, &audit))
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
            .write(move |conn| keys::replace_key_hash(conn, org, &package, &key_hash, &audit))
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
        let at = to_millis(at);
        self.db
            .write(move |conn| {
                sharing::set_visibility(conn, org, &package, shared_with_organization, at, &audit)
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
        let at = to_millis(at);
        self.db
            .write(move |conn| sharing::set_share_emails(conn, org, &package, &emails, at, &audit))
            .await
    }

    async fn share_token(&self, org: OrgId, package: &PackageName) -> Result<Option<String>, RepoError> {
        let package = package.as_str().to_owned();
        self.db
            .read(move |conn| queries::share_token(conn, org, &package))
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
        let at = to_millis(at);
        self.db
            .write(move |conn| sharing::create_share_token(conn, org, &package, token, at))
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
        let at = to_millis(at);
        self.db
            .write(move |conn| sharing::replace_share_token(conn, org, &package, &token, at, &audit))
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
                status::move_app(conn, &from.to_string(), &to.to_string(), &package, &event, &audit)
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
        let links = self.db.image_links().clone();
        self.db
            .write(move |conn| {
                status::apply_transition(conn, &org.to_string(), &package, expected, &change, &links)
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
        let links = self.db.image_links().clone();
        self.db
            .write(move |conn| {
                let current = load_any(conn, &package, &links)?.ok_or(RepoError::NotFound)?;
                status::apply_transition(
                    conn,
                    &current.org_id.to_string(),
                    &package,
                    expected,
                    &change,
                    &links,
                )
            })
            .await
    }

    async fn admin_get(&self, package: &PackageName) -> Result<Option<App>, RepoError> {
        let package = package.as_str().to_owned();
        let links = self.db.image_links().clone();
        self.db.read(move |conn| load_any(conn, &package, &links)).await
    }

    async fn admin_list_by_status(&self, status: AppStoreStatus) -> Result<Vec<App>, RepoError> {
        let links = self.db.image_links().clone();
        self.db
            .read(move |conn| queries::list_by_status(conn, status, &links))
            .await
    }

    async fn admin_counts(&self) -> Result<StatusCounts, RepoError> {
        self.db.read(queries::counts).await
    }

    async fn find_by_key_hash(&self, key_hash: &str) -> Result<Option<App>, RepoError> {
        let key_hash = key_hash.to_owned();
        let links = self.db.image_links().clone();
        self.db
            .read(move |conn| queries::find_by_key_hash(conn, &key_hash, &links))
            .await
    }

    async fn find_by_share_token(&self, token: &str) -> Result<Option<App>, RepoError> {
        let token = token.to_owned();
        let links = self.db.image_links().clone();
        self.db
            .read(move |conn| queries::find_by_share_token(conn, &token, &links))
            .await
    }
}
