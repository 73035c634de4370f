//! What the app use cases fail with: the error, its messages, and the error of a write to an existing app.

use crate::apps::status::IllegalTransition;
use crate::apps::validation::FieldErrors;
use crate::common::RepoError;

pub const PACKAGE_NAME_TAKEN: &str = "This package name is already in use. Please choose another.";
pub const ADMINS_ONLY: &str = "Only organization admins can do this";
pub const APP_NOT_FOUND: &str = "App not found";
pub const PROFILE_INCOMPLETE: &str = "Your organization profile is incomplete. Please fill out your organization name and contact email before publishing an app.";
pub const TARGET_ORG_REQUIRED: &str = "Please select a target organization";
pub const NOT_A_MEMBER_OF_TARGET: &str = "You must be a member of the target organization";
pub const SAME_ORGANIZATION: &str = "The app already belongs to this organization";
pub const CHANGED_MEANWHILE: &str = "The app changed meanwhile. Please reload and try again.";

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
