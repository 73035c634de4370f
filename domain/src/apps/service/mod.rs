//! App use cases for developers (PRODUCT.md §3, §4). Every use case checks that the caller is a member of
//! the organization it touches, and that the member's role allows the action; an app of another
//! organization is reported as not found, never revealed.
//!
//! The use cases are split over this file (register, read, delete, keys), `service/edit.rs` (edit,
//! permissions), `service/store.rs` ([`AppPublishingService`]: publish, sharing, move) and
//! `service/errors.rs` (what they fail with).

use std::sync::Arc;

use super::keys::{PlainApiKey, issue_api_key};
use super::ports::AppRepository;
use super::validation::{RegistrationInput, validate_registration};
use super::{App, PackageName};
use crate::audit::{AuditAction, AuditEntry, AuditTarget};
use crate::common::{Clock, OrgId, RepoError, SecretGenerator, ServerUrlRule};
use crate::media::ImageStore;
use crate::media::models::storage_key;
use crate::orgs::{ActingMember, OrgAction, OrgRole};

mod edit;
mod errors;
mod store;
pub(crate) use errors::write_error;
pub use errors::{
    ADMINS_ONLY, APP_NOT_FOUND, AppError, CHANGED_MEANWHILE, NOT_A_MEMBER_OF_TARGET, PACKAGE_NAME_TAKEN,
    PROFILE_INCOMPLETE, SAME_ORGANIZATION, TARGET_ORG_REQUIRED,
};
pub use store::{AppPublishingService, ShareLink};

#[cfg(test)]
pub(crate) mod fixtures;

/// Settings of the app use cases.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AppServiceConfig {
    /// Base of share links (`PORTAL_STORE_URL`).
    pub store_base_url: String,
    /// Whether a loopback `http://` server URL is kept as typed (local development,
    /// `PORTAL_ALLOW_PRIVATE_TARGETS`) or upgraded to `https://` as the specification says.
    pub server_urls: ServerUrlRule,
}

/// A new app and its API key, shown this once.
#[derive(Debug, Clone)]
pub struct Registered {
    pub app: App,
    pub api_key: PlainApiKey,
}

/// The outcome of a delete: files of the app's images that could not be removed (their rows are gone, so
/// nothing refers to them); the HTTP layer logs them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AppDeleted {
    pub unremoved_files: Vec<String>,
}

/// The app use cases.
pub struct AppService {
    apps: Arc<dyn AppRepository>,
    images: Arc<dyn ImageStore>,
    clock: Arc<dyn Clock>,
    secrets: Arc<dyn SecretGenerator>,
    config: AppServiceConfig,
}

impl AppService {
    #[must_use]
    pub fn new(
        apps: Arc<dyn AppRepository>,
        images: Arc<dyn ImageStore>,
        clock: Arc<dyn Clock>,
        secrets: Arc<dyn SecretGenerator>,
        config: AppServiceConfig,
    ) -> Self {
        Self {
            apps,
            images,
            clock,
            secrets,
            config,
        }
    }

    async fn load(&self, org: OrgId, package: &PackageName) -> Result<App, AppError> {
        self.apps.get(org, package).await?.ok_or(AppError::NotFound)
    }

    /// The audit entry of `action` on the member's app `package`, now.
    pub(crate) fn audit(
        &self,
        member: &ActingMember,
        action: AuditAction,
        package: &PackageName,
    ) -> AuditEntry {
        AuditEntry::by(self.secrets.as_ref(), member.caller(), action, self.clock.now())
            .in_org(member.org())
            .on(AuditTarget::app(package))
    }

    /// Registers an app in the organization and issues its API key.
    ///
    /// # Errors
    /// [`AppError::AdminOnly`]; [`AppError::Validation`];
    /// [`AppError::DuplicatePackageName`]; [`AppError::Repo`].
    pub async fn register(
        &self,
        member: &ActingMember,
        input: &RegistrationInput,
    ) -> Result<Registered, AppError> {
        Self::allow(member, OrgAction::ManageApps)?;
        let (caller, org) = (member.caller(), member.org());
        let app = validate_registration(
            input,
            self.config.server_urls,
            org,
            caller.user_id,
            self.clock.now(),
        )
        .map_err(AppError::Validation)?;
        let key = issue_api_key(self.secrets.as_ref());
        let audit = self
            .audit(member, AuditAction::AppCreated, &app.package_name)
            .change("name", serde_json::Value::Null, app.name.as_str());
        match self.apps.insert(&app, &key.hash, &audit).await {
            Ok(()) => Ok(Registered {
                app,
                api_key: key.plain,
            }),
            Err(RepoError::Duplicate(_)) => Err(AppError::DuplicatePackageName),
            Err(other) => Err(AppError::Repo(other)),
        }
    }

    /// The role of an already resolved member, provided it allows `action`: the membership was read
    /// for this request by [`ActingMember::resolve`], and is not read again.
    pub(crate) fn allow(member: &ActingMember, action: OrgAction) -> Result<OrgRole, AppError> {
        if member.can(action) {
            Ok(member.role())
        } else {
            Err(AppError::AdminOnly)
        }
    }

    /// The apps of the member's organization, newest first.
    ///
    /// # Errors
    /// [`AppError::Repo`]. (A caller who is not a member has no [`ActingMember`].)
    pub async fn list(&self, member: &ActingMember) -> Result<Vec<App>, AppError> {
        Self::allow(member, OrgAction::View)?;
        Ok(self.apps.list(member.org()).await?)
    }

    /// The revision of the apps of the member's organization ([`AppRepository::revision`]): read before
    /// [`Self::list`], it tells whether a kept list is still current. A member resolved from the session's
    /// read brings the revision read in that same statement ([`ActingMember::apps_revision`]).
    ///
    /// # Errors
    /// [`AppError::Repo`]. (A caller who is not a member has no [`ActingMember`].)
    pub async fn list_revision(&self, member: &ActingMember) -> Result<u64, AppError> {
        Self::allow(member, OrgAction::View)?;
        // Read with the membership when the session's read brought it (one round trip per request).
        if let Some(revision) = member.apps_revision() {
            return Ok(revision);
        }
        Ok(self.apps.revision(member.org()).await?)
    }

    /// One of the organization's apps.
    ///
    /// # Errors
    /// [`AppError::AdminOnly`]; [`AppError::NotFound`]; [`AppError::Repo`].
    pub async fn get(&self, member: &ActingMember, package: &PackageName) -> Result<App, AppError> {
        Self::allow(member, OrgAction::View)?;
        let org = member.org();
        self.load(org, package).await
    }

    /// Deletes the app with its key, share token, images, review history and uptime data; its package
    /// name becomes free.
    ///
    /// # Errors
    /// [`AppError::AdminOnly`]; [`AppError::NotFound`]; [`AppError::Repo`].
    pub async fn delete(&self, member: &ActingMember, package: &PackageName) -> Result<AppDeleted, AppError> {
        Self::allow(member, OrgAction::ManageApps)?;
        let org = member.org();
        // The name goes with the entry: once the app is gone, the log has nothing else to show it by.
        let name = self.load(org, package).await?.name;
        let mut audit = self.audit(member, AuditAction::AppDeleted, package);
        audit.target = audit.target.map(|target| target.with_label(name.as_str()));
        let images = self
            .apps
            .delete(org, package, &audit)
            .await
            .map_err(write_error)?;
        let mut outcome = AppDeleted::default();
        for id in images {
            let key = storage_key(id);
            if self.images.delete(&key).await.is_err() {
                outcome.unremoved_files.push(key);
            }
        }
        Ok(outcome)
    }

    /// Issues a new API key; the old one stops working at once.
    ///
    /// # Errors
    /// [`AppError::AdminOnly`]; [`AppError::NotFound`]; [`AppError::Repo`].
    pub async fn regenerate_key(
        &self,
        member: &ActingMember,
        package: &PackageName,
    ) -> Result<PlainApiKey, AppError> {
        Self::allow(member, OrgAction::ManageApps)?;
        let org = member.org();
        let key = issue_api_key(self.secrets.as_ref());
        let audit = self.audit(member, AuditAction::AppKeyRegenerated, package);
        self.apps
            .replace_key_hash(org, package, &key.hash, &audit)
            .await
            .map_err(write_error)?;
        Ok(key.plain)
    }
}

#[cfg(test)]
mod service_tests;
