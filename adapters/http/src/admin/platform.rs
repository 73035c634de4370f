//! The platform users and the maintenance tools (platform admins only).

use actix_web::{HttpRequest, HttpResponse, web};
use actix_web::{delete, get, post};
use domain::common::OrgId;

use super::dto::{AddAdminUserRequest, AdminUserDto, DebugDto, FixStatusesDto, StaffAppDto};
use super::{AdminApi, no_store};
use crate::ApiError;
use crate::auth::Principal;
use crate::auth::org_scope::{ORG_HEADER, ORG_MALFORMED};
use crate::json::Json;

/// Everyone with a platform role (admins only).
#[utoipa::path(operation_id = "admin_list_users", tag = "admin", security(("bearer" = [])),
    responses(
        (status = 200, description = "Platform admins and reviewers", body = Vec<AdminUserDto>),
        (status = 403, description = "Not a platform admin", body = crate::openapi::ErrorBody),
    ))]
#[get("/admin/users")]
pub async fn list_users(api: web::Data<AdminApi>, principal: Principal) -> Result<HttpResponse, ApiError> {
    let admins = api.admins.list(&principal.0).await?;
    let body: Vec<AdminUserDto> = admins.iter().map(AdminUserDto::from).collect();
    Ok(no_store(HttpResponse::Ok()).json(body))
}

/// Gives an address a platform role, or changes it (admins only). The role binds to the account that
/// proved the address, or waits for one to.
#[utoipa::path(operation_id = "admin_add_user", tag = "admin", security(("bearer" = [])),
    request_body = AddAdminUserRequest,
    responses(
        (status = 201, description = "The role as stored", body = AdminUserDto),
        (status = 403, description = "Not a platform admin", body = crate::openapi::ErrorBody),
        (status = 409, description = "Demoting the last platform admin (LAST_ADMIN)", body = crate::openapi::ErrorBody),
        (status = 400, description = "E-mail or role invalid (`VALIDATION`, `fields`)", body = crate::openapi::ErrorBody),
    ))]
#[post("/admin/users")]
pub async fn add_user(
    api: web::Data<AdminApi>,
    principal: Principal,
    body: Json<AddAdminUserRequest>,
) -> Result<HttpResponse, ApiError> {
    let body = body.into_inner();
    let added = api
        .admins
        .grant(
            &principal.0,
            body.email.as_deref().unwrap_or_default(),
            body.role.as_deref().unwrap_or_default(),
        )
        .await?;
    Ok(HttpResponse::Created().json(AdminUserDto::from(&added)))
}

/// Removes a platform role (admins only); the last platform admin stays.
#[utoipa::path(operation_id = "admin_remove_user", tag = "admin", security(("bearer" = [])),
    params(("email" = String, Path, description = "The address holding the role")),
    responses(
        (status = 204, description = "Removed"),
        (status = 403, description = "Not a platform admin", body = crate::openapi::ErrorBody),
        (status = 404, description = "The address has no platform role", body = crate::openapi::ErrorBody),
        (status = 409, description = "The last platform admin (LAST_ADMIN)", body = crate::openapi::ErrorBody),
    ))]
#[delete("/admin/users/{email}")]
pub async fn remove_user(
    api: web::Data<AdminApi>,
    principal: Principal,
    path: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    api.admins.revoke(&principal.0, &path).await?;
    Ok(HttpResponse::NoContent().finish())
}

/// What an admin looks at when the queue seems wrong: apps per stored status (also unknown spellings),
/// submissions whose decision would e-mail nobody, the platform roles and demo mode (admins only).
#[utoipa::path(operation_id = "admin_debug", tag = "admin", security(("bearer" = [])),
    responses(
        (status = 200, description = "The report", body = DebugDto),
        (status = 403, description = "Not a platform admin", body = crate::openapi::ErrorBody),
    ))]
#[get("/admin/debug")]
pub async fn debug(api: web::Data<AdminApi>, principal: Principal) -> Result<HttpResponse, ApiError> {
    let report = api.tools.debug(&principal.0).await?;
    Ok(no_store(HttpResponse::Ok()).json(DebugDto::from(report)))
}

/// Rewrites stored statuses that are none of the four to DEVELOPMENT, which such apps already show as
/// (admins only).
#[utoipa::path(operation_id = "admin_fix_app_statuses", tag = "admin", security(("bearer" = [])),
    responses(
        (status = 200, description = "What was repaired", body = FixStatusesDto),
        (status = 403, description = "Not a platform admin", body = crate::openapi::ErrorBody),
    ))]
#[post("/admin/fix-app-statuses")]
pub async fn fix_app_statuses(
    api: web::Data<AdminApi>,
    principal: Principal,
) -> Result<HttpResponse, ApiError> {
    let fixed = api.tools.fix_app_statuses(&principal.0).await?;
    Ok(HttpResponse::Ok().json(FixStatusesDto {
        fixed: fixed.len(),
        package_names: fixed.iter().map(ToString::to_string).collect(),
    }))
}

/// Creates a SUBMITTED test app (admins only, demo mode only), owned by the organization of `x-org-id`
/// when sent, else by the caller's oldest organization.
#[utoipa::path(operation_id = "admin_create_test_submission", tag = "admin", security(("bearer" = [])),
    params(("x-org-id" = Option<String>, Header, description = "The organization to own the app (one of the caller's)")),
    responses(
        (status = 201, description = "The test app, SUBMITTED", body = StaffAppDto),
        (status = 400, description = "The caller has no organization (NO_ORGANIZATION), or x-org-id is malformed", body = crate::openapi::ErrorBody),
        (status = 403, description = "Not a platform admin, or x-org-id names an organization of others", body = crate::openapi::ErrorBody),
        (status = 404, description = "Demo mode is off", body = crate::openapi::ErrorBody),
    ))]
#[post("/admin/create-test-submission")]
pub async fn create_test_submission(
    api: web::Data<AdminApi>,
    request: HttpRequest,
    principal: Principal,
) -> Result<HttpResponse, ApiError> {
    let caller = &principal.0;
    let org = optional_org(&request, caller)?;
    let app = api.tools.create_test_submission(caller, org).await?;
    Ok(HttpResponse::Created().json(app))
}

/// The organization an optional `x-org-id` names. Only an admin learns that it is malformed; anyone else gets
/// the 403 of the tool.
fn optional_org(request: &HttpRequest, caller: &domain::common::Caller) -> Result<Option<OrgId>, ApiError> {
    let header = request
        .headers()
        .get(ORG_HEADER)
        .map(|v| v.to_str().map(str::trim).unwrap_or("?"))
        .filter(|v| !v.is_empty());
    match header.map(str::parse::<OrgId>) {
        Some(Err(_)) if caller.can_manage_platform() => {
            Err(ApiError::bad_request("ORG_MALFORMED", ORG_MALFORMED))
        }
        Some(Ok(org)) => Ok(Some(org)),
        Some(Err(_)) | None => Ok(None),
    }
}
