//! App use cases for developers (PRODUCT.md §3, §4). Every use case checks that the caller is a member of
//! the organization it touches, and that the member's role allows the action; an app of another
//! organization is reported as not found, never revealed.
//!
//! The use cases are split over this file (register, read, edit, delete, keys, permissions) and
//! `service/store.rs` (publish, sharing, move).

use std::sync::Arc;

use serde_json::json;

use super::keys::{PlainApiKey, issue_api_key};
use super::permissions::validate_permissions;
use super::ports::{AppRepository, OrgProfileLookup};
use super::status::IllegalTransition;
use super::validation::{
    FieldErrors, RegistrationInput, UpdateInput, changed_fields, validate_registration, validate_update,
};
use super::{App, AppStoreStatus, PackageName, Permission, PermissionType};
use crate::apps::review_events::{ReviewEvent, ReviewEventKind};
use crate::audit::{AuditAction, AuditEntry, AuditTarget};
use crate::common::{Clock, OrgId, RepoError, SecretGenerator, ServerUrlRule};
use crate::media::ImageStore;
use crate::media::models::storage_key;
use crate::orgs::ports::MemberDirectory;
use crate::orgs::{ActingMember, OrgAction, OrgRole};

mod store;
pub use store::ShareLink;

#[cfg(test)]
pub(crate) mod fixtures;

pub const PACKAGE_NAME_TAKEN: &str = "This package name is already in use. Please choose another.";
pub const ADMINS_ONLY: &str = "Only organization admins can do this";
pub const APP_NOT_FOUND: &str = "App not found";
pub const PROFILE_INCOMPLETE: &str = "Your organization profile is incomplete. Please fill out your organization name and contact email before publishing an app.";
pub const TARGET_ORG_REQUIRED: &str = "Please select a target organization";
pub const NOT_A_MEMBER_OF_TARGET: &str = "You must be a member of the target organization";
pub const SAME_ORGANIZATION: &str = "The app already belongs to this organization";
pub const CHANGED_MEANWHILE: &str = "The app changed meanwhile. Please reload and try again.";

/// Settings of the app use cases.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AppServiceConfig {
    /// Base of share links (`PORTAL_STORE_URL`).
    pub store_base_url: String,
    /// Whether a loopback `http://` server URL is kept as typed (local development,
    /// `PORTAL_ALLOW_PRIVATE_TARGETS`) or upgraded to `https://` as the specification says.
    pub server_urls: ServerUrlRule,
}

/// Errors of the app use cases; the doc of each variant names its HTTP status, [`AppError::code`] its
/// machine code and [`AppError::fields`] the field map of validation errors.
#[derive(Debug, thiserror::Error)]
pub enum AppError {
    /// 400: one or more fields are invalid (field → message).
    #[error("{}", .0.joined("; "))]
    Validation(FieldErrors),
    /// 409: the package name is taken (field `packageName`).
    #[error("{}", PACKAGE_NAME_TAKEN)]
    DuplicatePackageName,
    /// 403: the caller's role does not allow the action.
    #[error("{}", ADMINS_ONLY)]
    AdminOnly,
    /// 404: the organization has no such app.
    #[error("{}", APP_NOT_FOUND)]
    NotFound,
    /// 409: the store status does not allow the action.
    #[error(transparent)]
    IllegalTransition(#[from] IllegalTransition),
    /// 409: the app changed between reading and writing.
    #[error("{}", CHANGED_MEANWHILE)]
    Conflict,
    /// 400 with code `PROFILE_INCOMPLETE`: publishing needs the organization's name and contact e-mail.
    #[error("{}", PROFILE_INCOMPLETE)]
    ProfileIncomplete,
    /// 400: a move without a target organization.
    #[error("{}", TARGET_ORG_REQUIRED)]
    TargetOrgRequired,
    /// 400: a move to the organization that already owns the app.
    #[error("{}", SAME_ORGANIZATION)]
    SameOrganization,
    /// 403: the caller is not a member of the move's target organization.
    #[error("{}", NOT_A_MEMBER_OF_TARGET)]
    NotMemberOfTarget,
    /// 403 `ORG_MFA_REQUIRED`: the move's target organization requires a second factor the caller's
    /// session has not passed (PRODUCT.md §1a).
    #[error("{}", crate::orgs::ORG_REQUIRES_TWO_FACTOR)]
    TargetRequiresSecondFactor,
    /// 500 (or 503).
    #[error(transparent)]
    Repo(#[from] RepoError),
}

impl AppError {
    /// The machine code of the error body.
    #[must_use]
    pub const fn code(&self) -> &'static str {
        match self {
            Self::Validation(_) => "VALIDATION",
            Self::DuplicatePackageName => "PACKAGE_NAME_TAKEN",
            Self::AdminOnly | Self::NotMemberOfTarget => "FORBIDDEN",
            Self::TargetRequiresSecondFactor => "ORG_MFA_REQUIRED",
            Self::NotFound => "NOT_FOUND",
            Self::IllegalTransition(_) => "ILLEGAL_TRANSITION",
            Self::Conflict => "CONFLICT",
            Self::ProfileIncomplete => "PROFILE_INCOMPLETE",
            Self::TargetOrgRequired => "TARGET_ORG_REQUIRED",
            Self::SameOrganization => "SAME_ORGANIZATION",
            Self::Repo(_) => "INTERNAL",
        }
    }

    /// The field map of the error body, for validation errors and a taken package name.
    #[must_use]
    pub fn fields(&self) -> Option<FieldErrors> {
        match self {
            Self::Validation(fields) => Some(fields.clone()),
            Self::DuplicatePackageName => Some(FieldErrors::single("packageName", PACKAGE_NAME_TAKEN)),
            _ => None,
        }
    }

    pub(crate) fn field(field: &str, message: impl Into<String>) -> Self {
        Self::Validation(FieldErrors::single(field, message))
    }
}

/// Maps the error of a write to an existing app.
pub(crate) fn write_error(error: RepoError) -> AppError {
    match error {
        RepoError::NotFound => AppError::NotFound,
        RepoError::Conflict(_) => AppError::Conflict,
        other => AppError::Repo(other),
    }
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
    members: Arc<dyn MemberDirectory>,
    orgs: Arc<dyn OrgProfileLookup>,
    images: Arc<dyn ImageStore>,
    clock: Arc<dyn Clock>,
    secrets: Arc<dyn SecretGenerator>,
    config: AppServiceConfig,
}

impl AppService {
    #[must_use]
    pub fn new(
        apps: Arc<dyn AppRepository>,
        members: Arc<dyn MemberDirectory>,
        orgs: Arc<dyn OrgProfileLookup>,
        images: Arc<dyn ImageStore>,
        clock: Arc<dyn Clock>,
        secrets: Arc<dyn SecretGenerator>,
        config: AppServiceConfig,
    ) -> Self {
        Self {
            apps,
            members,
            orgs,
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

    /// Writes the editable fields of `next` (PRODUCT.md §4): an edit of a SUBMITTED or PUBLISHED app that
    /// changes something is recorded in its history with the changed fields; a permission added to a
    /// PUBLISHED app sends it back to SUBMITTED, recorded too. The audit entry `action` lists every
    /// changed field with its old and new value. Answers the app as written.
    async fn save_edit(
        &self,
        member: &ActingMember,
        action: AuditAction,
        current: &App,
        next: &App,
    ) -> Result<App, AppError> {
        let caller = member.caller();
        let mut next = next.clone();
        next.app_store_status = current.app_store_status;
        let changed = changed_fields(current, &next);
        let mut events = Vec::new();
        let edit_kind = match current.app_store_status {
            AppStoreStatus::Published => Some(ReviewEventKind::EditedAfterApproval),
            AppStoreStatus::Submitted => Some(ReviewEventKind::Edited),
            AppStoreStatus::Development | AppStoreStatus::Rejected => None,
        };
        if let Some(kind) = edit_kind
            && !changed.is_empty()
        {
            events.push(
                ReviewEvent::new(self.secrets.as_ref(), current, kind, caller, next.updated_at)
                    .with_detail(json!({ "changedFields": changed })),
            );
        }
        let added = added_permissions(current, &next);
        if current.app_store_status == AppStoreStatus::Published && !added.is_empty() {
            next.app_store_status = AppStoreStatus::Submitted;
            // A millisecond after the edit that caused it: histories are read in time order (at, then id),
            // and the stores keep milliseconds.
            let at = next.updated_at + chrono::TimeDelta::milliseconds(1);
            events.push(
                ReviewEvent::new(
                    self.secrets.as_ref(),
                    current,
                    ReviewEventKind::Resubmitted,
                    caller,
                    at,
                )
                .with_detail(json!({ "addedPermissions": added })),
            );
        }
        let audit = edit_audit(self.audit(member, action, &current.package_name), current, &next);
        self.apps
            .update(current.org_id, &next, current.app_store_status, events, &audit)
            .await
            .map_err(write_error)?;
        Ok(next)
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
    fn allow(member: &ActingMember, action: OrgAction) -> Result<OrgRole, AppError> {
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

    /// Applies the update body. The status is kept (a PUBLISHED app stays PUBLISHED, and the edit is
    /// recorded in its review history).
    ///
    /// # Errors
    /// [`AppError::AdminOnly`]; [`AppError::Validation`]; [`AppError::NotFound`]; [`AppError::Conflict`]
    /// when the status changed meanwhile; [`AppError::Repo`].
    pub async fn update(
        &self,
        member: &ActingMember,
        package: &PackageName,
        input: &UpdateInput,
    ) -> Result<App, AppError> {
        Self::allow(member, OrgAction::ManageApps)?;
        let org = member.org();
        let update = validate_update(input, self.config.server_urls).map_err(AppError::Validation)?;
        let current = self.load(org, package).await?;
        let next = update.apply_to(&current, self.clock.now());
        self.save_edit(member, AuditAction::AppUpdated, &current, &next)
            .await
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

    /// The app's permissions.
    ///
    /// # Errors
    /// [`AppError::AdminOnly`]; [`AppError::NotFound`]; [`AppError::Repo`].
    pub async fn permissions(
        &self,
        member: &ActingMember,
        package: &PackageName,
    ) -> Result<Vec<Permission>, AppError> {
        Ok(self.get(member, package).await?.permissions)
    }

    /// Replaces the app's permissions (each type once; the legacy type only if the app already had it) and
    /// answers the app as written. A permission added to a PUBLISHED app sends it back to SUBMITTED.
    ///
    /// # Errors
    /// [`AppError::AdminOnly`]; [`AppError::NotFound`]; [`AppError::Validation`] on field `permissions`;
    /// [`AppError::Conflict`]; [`AppError::Repo`].
    pub async fn set_permissions(
        &self,
        member: &ActingMember,
        package: &PackageName,
        permissions: &[Permission],
    ) -> Result<App, AppError> {
        Self::allow(member, OrgAction::ManageApps)?;
        let org = member.org();
        let current = self.load(org, package).await?;
        let permissions = validate_permissions(permissions, &current.permissions)
            .map_err(|e| AppError::field("permissions", e.to_string()))?;
        let mut next = current.clone();
        next.permissions = permissions;
        next.updated_at = self.clock.now();
        self.save_edit(member, AuditAction::AppPermissionsChanged, &current, &next)
            .await
    }
}

/// `entry` with every editable field that differs between `before` and `after` (old and new values as the
/// API spells them) and the store status when the edit sent the app back to review.
fn edit_audit(entry: AuditEntry, before: &App, after: &App) -> AuditEntry {
    let (old, new) = (
        serde_json::to_value(before).unwrap_or_default(),
        serde_json::to_value(after).unwrap_or_default(),
    );
    let mut entry = changed_fields(before, after)
        .into_iter()
        .fold(entry, |entry, field| {
            entry.change(field, old[field].clone(), new[field].clone())
        });
    if before.app_store_status != after.app_store_status {
        entry = entry.change(
            "appStoreStatus",
            before.app_store_status.as_str(),
            after.app_store_status.as_str(),
        );
    }
    entry
}

/// The permission types of `after` that `before` did not have, in `after`'s order (as the API spells them).
fn added_permissions(before: &App, after: &App) -> Vec<PermissionType> {
    after
        .permissions
        .iter()
        .map(|p| p.kind)
        .filter(|kind| !before.permissions.iter().any(|p| p.kind == *kind))
        .collect()
}

#[cfg(test)]
mod service_tests;
