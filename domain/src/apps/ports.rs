//! Ports of the apps context.

use async_trait::async_trait;

#[cfg(any(test, feature = "mock"))]
pub use crate::membership::ports::MockOrgProfileLookup;
pub use crate::membership::ports::{OrgContact, OrgProfileLookup};
use chrono::{DateTime, Utc};

use super::review_events::ReviewEvent;
use super::status::StatusCounts;
use super::{App, AppStoreStatus, PackageName};
use crate::audit::AuditEntry;
use crate::common::{EmailAddress, ImageId, OrgId, RepoError};
use crate::mail::OutgoingEmail;

/// The review fields written by approve and reject.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReviewStamp {
    pub notes: Option<String>,
    /// The reviewer's e-mail address.
    pub reviewed_by: String,
    pub reviewed_at: DateTime<Utc>,
}

/// One store transition with everything that must be written with it, in one transaction.
#[derive(Debug, Clone, PartialEq)]
pub struct StatusChange {
    pub to: AppStoreStatus,
    /// `Some` writes `reviewNotes`, `reviewedBy` and `reviewedAt` (notes `None` clears them); `None`
    /// leaves them as they are (publish).
    pub review: Option<ReviewStamp>,
    /// The new `updatedAt`.
    pub at: DateTime<Utc>,
    /// Appended to the app's review history.
    pub event: ReviewEvent,
    /// Put in the outbox.
    pub emails: Vec<OutgoingEmail>,
    /// Appended to the audit log.
    pub audit: Vec<AuditEntry>,
}

/// Stores apps, their API key digests, share tokens and tester lists.
///
/// Every method that touches an organization's apps takes its `OrgId` and behaves as if apps of other
/// organizations did not exist. `admin_…` and `find_by_…` methods are the only unscoped ones.
///
/// Every method that changes something takes the [`AuditEntry`] (or entries) recording the change and
/// appends it in the change's own transaction: when the method fails, no entry is left.
#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
#[async_trait]
pub trait AppRepository: Send + Sync {
    /// Stores a new app with the digest of its API key.
    ///
    /// # Errors
    /// [`RepoError::Duplicate`]`("package_name")` when an app (of any organization) has that package name;
    /// [`RepoError::Backend`] when the store fails.
    async fn insert(&self, app: &App, key_hash: &str, audit: &AuditEntry) -> Result<(), RepoError>;

    /// The organization's app with that package name.
    ///
    /// # Errors
    /// [`RepoError::Backend`] when the store fails.
    async fn get(&self, org: OrgId, package: &PackageName) -> Result<Option<App>, RepoError>;

    /// The organization's apps, newest first.
    ///
    /// # Errors
    /// [`RepoError::Backend`] when the store fails.
    async fn list(&self, org: OrgId) -> Result<Vec<App>, RepoError>;

    /// A number that changes whenever an app of the organization is added, changed, moved in or out, or
    /// deleted, by this process or any other: a reader that kept [`Self::list`]'s answer with the revision
    /// it read before the list knows the answer is still the organization's apps while the revision is the
    /// same.
    ///
    /// # Errors
    /// [`RepoError::Backend`] when the store fails.
    async fn revision(&self, org: OrgId) -> Result<u64, RepoError>;

    /// Writes the editable fields of `app` ([`EDITABLE_FIELDS`](super::validation::EDITABLE_FIELDS)), its
    /// `updatedAt` and its store status — never the review fields, key, sharing or organization — provided the stored status is still
    /// `expected_status`; appends `events` to the review history in the same transaction. The status differs
    /// from `expected_status` only when the apps service sends an edited PUBLISHED app back to SUBMITTED.
    ///
    /// # Errors
    /// [`RepoError::NotFound`] when the organization has no such app; [`RepoError::Conflict`] when its
    /// status is no longer `expected_status`; [`RepoError::Backend`] when the store fails.
    async fn update(
        &self,
        org: OrgId,
        app: &App,
        expected_status: AppStoreStatus,
        events: Vec<ReviewEvent>,
        audit: &AuditEntry,
    ) -> Result<(), RepoError>;

    /// Deletes the app with, atomically, its key digest, share tokens, tester list, review history, uptime
    /// data and image rows. Answers the ids of the image rows removed, whose files the caller deletes.
    ///
    /// # Errors
    /// [`RepoError::NotFound`] when the organization has no such app; [`RepoError::Backend`] when the store
    /// fails.
    async fn delete(
        &self,
        org: OrgId,
        package: &PackageName,
        audit: &AuditEntry,
    ) -> Result<Vec<ImageId>, RepoError>;

    /// Replaces the key digest; the old key stops working at once.
    ///
    /// # Errors
    /// [`RepoError::NotFound`] when the organization has no such app; [`RepoError::Backend`] when the store
    /// fails.
    async fn replace_key_hash(
        &self,
        org: OrgId,
        package: &PackageName,
        key_hash: &str,
        audit: &AuditEntry,
    ) -> Result<(), RepoError>;

    /// Sets `sharedWithOrganization` and `updatedAt`.
    ///
    /// # Errors
    /// [`RepoError::NotFound`] when the organization has no such app; [`RepoError::Backend`] when the store
    /// fails.
    async fn set_visibility(
        &self,
        org: OrgId,
        package: &PackageName,
        shared_with_organization: bool,
        at: DateTime<Utc>,
        audit: &AuditEntry,
    ) -> Result<(), RepoError>;

    /// Replaces `sharedWithEmails` and sets `updatedAt`.
    ///
    /// # Errors
    /// [`RepoError::NotFound`] when the organization has no such app; [`RepoError::Backend`] when the store
    /// fails.
    async fn set_share_emails(
        &self,
        org: OrgId,
        package: &PackageName,
        emails: Vec<EmailAddress>,
        at: DateTime<Utc>,
        audit: &AuditEntry,
    ) -> Result<(), RepoError>;

    /// The app's share token, if one was created.
    ///
    /// # Errors
    /// [`RepoError::Backend`] when the store fails.
    async fn share_token(&self, org: OrgId, package: &PackageName) -> Result<Option<String>, RepoError>;

    /// Stores `token` as the app's share token unless it already has one, and answers the token stored
    /// (so two concurrent creators get the same link).
    ///
    /// # Errors
    /// [`RepoError::NotFound`] when the organization has no such app; [`RepoError::Backend`] when the store
    /// fails.
    async fn create_share_token(
        &self,
        org: OrgId,
        package: &PackageName,
        token: &str,
        at: DateTime<Utc>,
    ) -> Result<String, RepoError>;

    /// Replaces the app's share token by `token` (creating it when the app has none): the old link stops
    /// working at once.
    ///
    /// # Errors
    /// [`RepoError::NotFound`] when the organization has no such app; [`RepoError::Backend`] when the store
    /// fails.
    async fn replace_share_token(
        &self,
        org: OrgId,
        package: &PackageName,
        token: &str,
        at: DateTime<Utc>,
        audit: &AuditEntry,
    ) -> Result<(), RepoError>;

    /// Moves the app (with its key, status, settings and history) from one organization to another and
    /// appends `event`, in one transaction.
    ///
    /// # Errors
    /// [`RepoError::NotFound`] when `from` has no such app; [`RepoError::Backend`] when the store fails.
    async fn move_app(
        &self,
        from: OrgId,
        to: OrgId,
        package: &PackageName,
        event: ReviewEvent,
        audit: &[AuditEntry],
    ) -> Result<(), RepoError>;

    /// Compare-and-set store transition of an organization's app: when its status is `expected`, writes
    /// `change.to`, the review fields, `updatedAt`, the event and the e-mails in one transaction, and
    /// answers the app as stored afterwards.
    ///
    /// # Errors
    /// [`RepoError::NotFound`] when the organization has no such app; [`RepoError::Conflict`] when its
    /// status is not `expected`; [`RepoError::Backend`] when the store fails.
    async fn transition(
        &self,
        org: OrgId,
        package: &PackageName,
        expected: AppStoreStatus,
        change: StatusChange,
    ) -> Result<App, RepoError>;

    /// As [`AppRepository::transition`], for a platform reviewer, whatever organization owns the app.
    ///
    /// # Errors
    /// As [`AppRepository::transition`].
    async fn admin_transition(
        &self,
        package: &PackageName,
        expected: AppStoreStatus,
        change: StatusChange,
    ) -> Result<App, RepoError>;

    /// Any app by package name (platform admins and reviewers only).
    ///
    /// # Errors
    /// [`RepoError::Backend`] when the store fails.
    async fn admin_get(&self, package: &PackageName) -> Result<Option<App>, RepoError>;

    /// Every app in `status`, oldest `updatedAt` first.
    ///
    /// # Errors
    /// [`RepoError::Backend`] when the store fails.
    async fn admin_list_by_status(&self, status: AppStoreStatus) -> Result<Vec<App>, RepoError>;

    /// How many apps are in each status.
    ///
    /// # Errors
    /// [`RepoError::Backend`] when the store fails.
    async fn admin_counts(&self) -> Result<StatusCounts, RepoError>;

    /// The app whose key digest is `key_hash` (SDK authentication; the caller checks the key's shape first).
    ///
    /// # Errors
    /// [`RepoError::Backend`] when the store fails.
    async fn find_by_key_hash(&self, key_hash: &str) -> Result<Option<App>, RepoError>;

    /// The app shared under `token` (the read-only tester page).
    ///
    /// # Errors
    /// [`RepoError::Backend`] when the store fails.
    async fn find_by_share_token(&self, token: &str) -> Result<Option<App>, RepoError>;
}
