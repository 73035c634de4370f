//! The app's permissions.

use actix_web::{HttpResponse, web};
use actix_web::{get, patch};

use super::body::{PERMISSIONS, read_body};
use super::dto::*;
use super::validation;
use super::{AppsApi, no_store, package};
use crate::ApiError;
use crate::auth::OrgScope;
use crate::json::Json;
use domain::apps::{App, Permission};
use domain::common::FieldErrors;
use serde_json::Value;

/// The app's permissions.
#[utoipa::path(operation_id = "get_permissions", tag = "apps", security(("bearer" = []), ("accessToken" = ["apps:read"])),
    params(("packageName" = String, Path, description = "The app's package name"), crate::auth::OrgHeader),
    responses(
        (status = 200, description = "The permissions", body = PermissionsDto),
    ))]
#[get("/permissions/{packageName}")]
pub async fn get_permissions(
    api: web::Data<AppsApi>,
    scope: OrgScope,
    path: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let permissions = api.apps.permissions(scope.member(), &package(&path)?).await?;
    Ok(no_store(&PermissionsDto { permissions }))
}

/// Replaces the app's permissions. A permission added to a PUBLISHED app sends it back to SUBMITTED.
#[utoipa::path(operation_id = "set_permissions", tag = "apps", security(("bearer" = []), ("accessToken" = ["apps:write"])), request_body = PermissionsDto,
    params(("packageName" = String, Path, description = "The app's package name"), crate::auth::OrgHeader),
    responses(
        (status = 200, description = "The app as stored", body = App),
        (status = 400, description = "A permission is invalid (`VALIDATION`, e.g. `permissions[0].type`)", body = crate::openapi::ErrorBody),
        (status = 409, description = "The app's status changed meanwhile", body = crate::openapi::ErrorBody),
    ))]
#[patch("/permissions/{packageName}")]
pub async fn set_permissions(
    api: web::Data<AppsApi>,
    scope: OrgScope,
    path: web::Path<String>,
    body: Json<Value>,
) -> Result<HttpResponse, ApiError> {
    let package = package(&path)?;
    let permissions = permissions_body(&body)?;
    let app = api
        .apps
        .set_permissions(scope.member(), &package, &permissions)
        .await?;
    Ok(no_store(&app))
}

/// The list of a `PATCH /api/permissions/{packageName}` body, each entry checked on its own.
fn permissions_body(body: &Value) -> Result<Vec<Permission>, ApiError> {
    #[derive(serde::Deserialize)]
    struct Body {
        permissions: Option<Vec<Permission>>,
    }
    let body: Body = read_body(body, &[PERMISSIONS])?;
    body.permissions
        .ok_or_else(|| validation(FieldErrors::single("permissions", "permissions must be a list")))
}
