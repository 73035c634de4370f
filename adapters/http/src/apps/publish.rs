//! Submitting an app for review and moving it to another organization.

use actix_web::post;
use actix_web::{HttpResponse, web};

use super::dto::*;
use super::{AppsApi, no_store, package};
use crate::ApiError;
use crate::auth::OrgScope;
use crate::json::Json;
use domain::apps::App;
use domain::apps::service::AppError;

/// Submits the app for review (DEVELOPMENT or REJECTED → SUBMITTED); the organization needs a name and a
/// contact e-mail.
#[utoipa::path(operation_id = "publish_app", tag = "apps", security(("bearer" = []), ("accessToken" = ["apps:publish"])),
    params(("packageName" = String, Path, description = "The app's package name"), crate::auth::OrgHeader),
    responses(
        (status = 200, description = "The app, now SUBMITTED", body = App),
        (status = 400, description = "The organization profile is incomplete (`PROFILE_INCOMPLETE`)", body = crate::openapi::ErrorBody),
        (status = 409, description = "Already SUBMITTED or PUBLISHED (`ILLEGAL_TRANSITION`), or changed meanwhile", body = crate::openapi::ErrorBody),
    ))]
#[post("/dev/apps/{packageName}/publish")]
pub async fn publish_app(
    api: web::Data<AppsApi>,
    scope: OrgScope,
    path: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let app = api.publishing.publish(scope.member(), &package(&path)?).await?;
    Ok(no_store(&app))
}

/// Moves the app to another organization: an admin of the source, at least a member of the target. The
/// app keeps its key, status and settings; the move is recorded.
#[utoipa::path(operation_id = "move_app", tag = "apps", security(("bearer" = [])), request_body = MoveRequest,
    params(("packageName" = String, Path, description = "The app's package name"), crate::auth::OrgHeader),
    responses(
        (status = 200, description = "The app, now in the target organization", body = App),
        (status = 400, description = "No target organization (`TARGET_ORG_REQUIRED`), or the same one (`SAME_ORGANIZATION`)", body = crate::openapi::ErrorBody),
        (status = 403, description = "Not an admin of the source, or not a member of the target", body = crate::openapi::ErrorBody),
    ))]
#[post("/dev/apps/{packageName}/move-org")]
pub async fn move_org(
    api: web::Data<AppsApi>,
    scope: OrgScope,
    path: web::Path<String>,
    body: Json<MoveRequest>,
) -> Result<HttpResponse, ApiError> {
    let package = package(&path)?;
    let target = match body.into_inner().target_org_id {
        Some(text) if !text.trim().is_empty() => match text.trim().parse() {
            Ok(org) => Some(org),
            // An id that cannot be one names no organization the caller belongs to.
            Err(_) => return Err(ApiError::from(AppError::NotMemberOfTarget)),
        },
        _ => None,
    };
    let app = api.publishing.move_to(scope.member(), &package, target).await?;
    Ok(no_store(&app))
}
