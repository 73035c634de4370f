//! Editing an app (PRODUCT.md §4): the update body and the permissions, recorded in the review history and
//! the audit log; a permission added to a PUBLISHED app sends it back to SUBMITTED.

use serde_json::json;

use super::{AppError, AppService, write_error};
use crate::apps::permissions::validate_permissions;
use crate::apps::review_events::{ReviewEvent, ReviewEventKind};
use crate::apps::validation::{UpdateInput, changed_fields, validate_update};
use crate::apps::{App, AppStoreStatus, PackageName, Permission, PermissionType};
use crate::audit::{AuditAction, AuditEntry};
use crate::orgs::{ActingMember, OrgAction};

impl AppService {
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
            before.app_store_status.code(),
            after.app_store_status.code(),
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
