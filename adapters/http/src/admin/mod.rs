//! The platform-admin calls (specification §7 "Platform admin", PRODUCT.md §4, §5): the review queue and
//! decisions (admins and reviewers), the platform users and the maintenance tools (admins only).
//!
//! Every handler takes the [`Principal`] (401 without one) and leaves the role checks to the domain
//! services: a developer gets 403, a reviewer gets 403 on the admin-only calls.

pub mod dto;

use actix_web::{HttpRequest, HttpResponse, web};
use domain::apps::PackageName;
use domain::common::{Caller, OrgId};
use domain::identity::PlatformAdminService;
use domain::review::platform::PlatformTools;
use domain::review::service::APP_NOT_FOUND;
use domain::review::{Decision, ReviewError, ReviewService};
use domain::uptime::UptimeService;
use std::collections::HashMap;
use std::sync::Arc;

use self::dto::{
    AddAdminUserRequest, AdminAppDto, AdminUserDto, DebugDto, DecisionRequest, FixStatusesDto,
    OrganizationRefDto, ReviewHistoryEntryDto, StaffAppDto, StatsCountsDto, StatsDto, SubmittedAppDto,
};
use crate::ApiError;
use crate::auth::Principal;
use crate::auth::org_scope::{ORG_HEADER, ORG_MALFORMED};
use crate::json::Json;

/// The answer when a decision does not say which revision of the app the reviewer saw.
pub const REVISION_REQUIRED: &str =
    "expectedUpdatedAt is required: send the updatedAt of the app as you opened it.";

/// What the platform-admin handlers need.
#[derive(Clone)]
pub struct AdminApi {
    pub reviews: Arc<ReviewService>,
    pub tools: Arc<PlatformTools>,
    pub admins: Arc<PlatformAdminService>,
    /// The latest health of each app (`appHealthStatus`).
    pub uptime: Arc<UptimeService>,
}

impl std::fmt::Debug for AdminApi {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("AdminApi")
    }
}

/// Registers the routes of this module inside the `/api` scope.
pub fn routes(api: AdminApi) -> impl FnOnce(&mut web::ServiceConfig) {
    move |cfg| {
        cfg.app_data(web::Data::new(api))
            // Before `/admin/apps/{packageName}`: `stats` and `submitted` are not package names.
            .route("/admin/apps/stats", web::get().to(stats))
            .route("/admin/apps/submitted", web::get().to(submitted))
            .route("/admin/apps/{packageName}", web::get().to(app))
            .route("/admin/apps/{packageName}/approve", web::post().to(approve))
            .route("/admin/apps/{packageName}/reject", web::post().to(reject))
            .route("/admin/users", web::get().to(list_users))
            .route("/admin/users", web::post().to(add_user))
            .route("/admin/users/{email}", web::delete().to(remove_user))
            .route("/admin/debug", web::get().to(debug))
            .route("/admin/fix-app-statuses", web::post().to(fix_app_statuses))
            .route(
                "/admin/create-test-submission",
                web::post().to(create_test_submission),
            );
    }
}

/// A package name from the path. One that cannot be a package name names no app (404), except for a
/// caller who may not review at all, who learns only that (403).
fn package(caller: &Caller, text: &str) -> Result<PackageName, ApiError> {
    PackageName::parse(text).map_err(|_| {
        if caller.can_review() {
            ApiError::NotFound(APP_NOT_FOUND.into())
        } else {
            ApiError::from(ReviewError::Forbidden)
        }
    })
}

/// The latest health word of every checked app.
async fn health_of(api: &AdminApi, caller: &Caller) -> Result<HashMap<String, String>, ApiError> {
    Ok(api
        .uptime
        .status_all(caller)
        .await
        .map_err(ApiError::from)?
        .into_iter()
        .filter_map(|h| {
            h.health
                .map(|health| (h.package_name.to_string(), health.as_str().to_owned()))
        })
        .collect())
}

fn health_word<'a>(health: &'a HashMap<String, String>, app: &domain::apps::App) -> &'a str {
    health
        .get(app.package_name.as_str())
        .map_or("unknown", String::as_str)
}

fn no_store(mut response: actix_web::HttpResponseBuilder) -> actix_web::HttpResponseBuilder {
    response.insert_header(("Cache-Control", "no-store"));
    response
}

/// The dashboard: counts per status, the platform-role counts and the newest submissions.
#[utoipa::path(operation_id = "admin_stats", get, path = "/api/admin/apps/stats", tag = "admin", security(("bearer" = [])),
    responses(
        (status = 200, description = "Counts and recent submissions", body = StatsDto),
        (status = 401, description = "Not signed in", body = crate::openapi::ErrorBody),
        (status = 403, description = "Not a platform admin or reviewer", body = crate::openapi::ErrorBody),
    ))]
pub async fn stats(api: web::Data<AdminApi>, principal: Principal) -> Result<HttpResponse, ApiError> {
    let caller = &principal.0;
    let dashboard = api.reviews.dashboard(caller).await.map_err(ApiError::from)?;
    let roles = api.tools.role_counts(caller).await.map_err(ApiError::from)?;
    let health = health_of(&api, caller).await?;
    let counts = dashboard.counts;
    Ok(no_store(HttpResponse::Ok()).json(StatsDto {
        counts: StatsCountsDto {
            development: counts.development,
            submitted: counts.submitted,
            published: counts.published,
            rejected: counts.rejected,
            admins: roles.admins,
            reviewers: roles.reviewers,
        },
        recent_submissions: dashboard
            .recent_submissions
            .iter()
            .map(|r| SubmittedAppDto::of(r, health_word(&health, &r.app)))
            .collect(),
    }))
}

/// The review queue: every SUBMITTED app, oldest submission first.
#[utoipa::path(operation_id = "admin_submitted_apps", get, path = "/api/admin/apps/submitted", tag = "admin", security(("bearer" = [])),
    responses(
        (status = 200, description = "The submitted apps", body = Vec<SubmittedAppDto>),
        (status = 401, description = "Not signed in", body = crate::openapi::ErrorBody),
        (status = 403, description = "Not a platform admin or reviewer", body = crate::openapi::ErrorBody),
    ))]
pub async fn submitted(api: web::Data<AdminApi>, principal: Principal) -> Result<HttpResponse, ApiError> {
    let caller = &principal.0;
    let queue = api.reviews.submitted(caller).await.map_err(ApiError::from)?;
    let health = health_of(&api, caller).await?;
    let body: Vec<SubmittedAppDto> = queue
        .iter()
        .map(|r| SubmittedAppDto::of(r, health_word(&health, &r.app)))
        .collect();
    Ok(no_store(HttpResponse::Ok()).json(body))
}

/// Any app submitted at least once (never one still in its first development: 404), with its organization,
/// its review history and whether a decision would be a self-review; never its tester list.
#[utoipa::path(operation_id = "admin_get_app", get, path = "/api/admin/apps/{packageName}", tag = "admin", security(("bearer" = [])),
    params(("packageName" = String, Path, description = "The app's package name")),
    responses(
        (status = 200, description = "The app as stored, with `organization`, `history` and `selfReview`", body = AdminAppDto),
        (status = 401, description = "Not signed in", body = crate::openapi::ErrorBody),
        (status = 403, description = "Not a platform admin or reviewer", body = crate::openapi::ErrorBody),
        (status = 404, description = "No such app", body = crate::openapi::ErrorBody),
    ))]
pub async fn app(
    api: web::Data<AdminApi>,
    principal: Principal,
    path: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let caller = &principal.0;
    let package = package(caller, &path)?;
    let view = api
        .reviews
        .review_view(caller, &package)
        .await
        .map_err(ApiError::from)?;
    let organization = OrganizationRefDto {
        id: view.reviewed.app.org_id.to_string(),
        name: view.reviewed.organization_name.clone(),
    };
    Ok(no_store(HttpResponse::Ok()).json(AdminAppDto {
        app: StaffAppDto(view.reviewed.app),
        organization,
        history: view.history.iter().map(ReviewHistoryEntryDto::from).collect(),
        self_review: view.self_review,
    }))
}

/// Reads a decision's body: the revision is required.
fn decision(body: &DecisionRequest) -> Result<Decision<'_>, ApiError> {
    let seen = body
        .expected_updated_at
        .ok_or_else(|| ApiError::bad_request("REVISION_REQUIRED", REVISION_REQUIRED))?;
    Ok(Decision {
        notes: body.notes.as_deref(),
        seen,
    })
}

/// SUBMITTED → PUBLISHED (notes optional); e-mails the organization's contact.
#[utoipa::path(operation_id = "admin_approve_app", post, path = "/api/admin/apps/{packageName}/approve", tag = "admin", security(("bearer" = [])),
    request_body = DecisionRequest,
    params(("packageName" = String, Path, description = "The app's package name")),
    responses(
        (status = 200, description = "The app as stored, now PUBLISHED", body = StaffAppDto),
        (status = 400, description = "`expectedUpdatedAt` missing (REVISION_REQUIRED) or the body malformed", body = crate::openapi::ErrorBody),
        (status = 401, description = "Not signed in", body = crate::openapi::ErrorBody),
        (status = 403, description = "Not a platform admin or reviewer", body = crate::openapi::ErrorBody),
        (status = 404, description = "No such app", body = crate::openapi::ErrorBody),
        (status = 409, description = "Not SUBMITTED (ILLEGAL_TRANSITION), decided meanwhile (CONFLICT), or changed since the reviewer opened it (APP_CHANGED)", body = crate::openapi::ErrorBody),
    ))]
pub async fn approve(
    api: web::Data<AdminApi>,
    principal: Principal,
    path: web::Path<String>,
    body: Json<DecisionRequest>,
) -> Result<HttpResponse, ApiError> {
    let caller = &principal.0;
    let package = package(caller, &path)?;
    if !caller.can_review() {
        return Err(ApiError::from(ReviewError::Forbidden));
    }
    let decision = decision(&body)?;
    let app = api
        .reviews
        .approve(caller, &package, decision)
        .await
        .map_err(ApiError::from)?;
    Ok(HttpResponse::Ok().json(StaffAppDto(app)))
}

/// SUBMITTED → REJECTED (notes required); e-mails the organization's contact with the notes.
#[utoipa::path(operation_id = "admin_reject_app", post, path = "/api/admin/apps/{packageName}/reject", tag = "admin", security(("bearer" = [])),
    request_body = DecisionRequest,
    params(("packageName" = String, Path, description = "The app's package name")),
    responses(
        (status = 200, description = "The app as stored, now REJECTED", body = StaffAppDto),
        (status = 400, description = "Notes missing (REVIEW_NOTES_REQUIRED), `expectedUpdatedAt` missing (REVISION_REQUIRED) or the body malformed", body = crate::openapi::ErrorBody),
        (status = 401, description = "Not signed in", body = crate::openapi::ErrorBody),
        (status = 403, description = "Not a platform admin or reviewer", body = crate::openapi::ErrorBody),
        (status = 404, description = "No such app", body = crate::openapi::ErrorBody),
        (status = 409, description = "Not SUBMITTED (ILLEGAL_TRANSITION), decided meanwhile (CONFLICT), or changed since the reviewer opened it (APP_CHANGED)", body = crate::openapi::ErrorBody),
    ))]
pub async fn reject(
    api: web::Data<AdminApi>,
    principal: Principal,
    path: web::Path<String>,
    body: Json<DecisionRequest>,
) -> Result<HttpResponse, ApiError> {
    let caller = &principal.0;
    let package = package(caller, &path)?;
    if !caller.can_review() {
        return Err(ApiError::from(ReviewError::Forbidden));
    }
    if body.notes.as_deref().is_none_or(|n| n.trim().is_empty()) {
        return Err(ApiError::from(ReviewError::NotesRequired));
    }
    let decision = decision(&body)?;
    let app = api
        .reviews
        .reject(caller, &package, decision)
        .await
        .map_err(ApiError::from)?;
    Ok(HttpResponse::Ok().json(StaffAppDto(app)))
}

/// Everyone with a platform role (admins only).
#[utoipa::path(operation_id = "admin_list_users", get, path = "/api/admin/users", tag = "admin", security(("bearer" = [])),
    responses(
        (status = 200, description = "Platform admins and reviewers", body = Vec<AdminUserDto>),
        (status = 401, description = "Not signed in", body = crate::openapi::ErrorBody),
        (status = 403, description = "Not a platform admin", body = crate::openapi::ErrorBody),
    ))]
pub async fn list_users(api: web::Data<AdminApi>, principal: Principal) -> Result<HttpResponse, ApiError> {
    let admins = api.admins.list(&principal.0).await.map_err(ApiError::from)?;
    let body: Vec<AdminUserDto> = admins.iter().map(AdminUserDto::from).collect();
    Ok(no_store(HttpResponse::Ok()).json(body))
}

/// Gives an address a platform role, or changes it (admins only). The role binds to the account that
/// proved the address, or waits for one to.
#[utoipa::path(operation_id = "admin_add_user", post, path = "/api/admin/users", tag = "admin", security(("bearer" = [])),
    request_body = AddAdminUserRequest,
    responses(
        (status = 201, description = "The role as stored", body = AdminUserDto),
        (status = 401, description = "Not signed in", body = crate::openapi::ErrorBody),
        (status = 403, description = "Not a platform admin", body = crate::openapi::ErrorBody),
        (status = 409, description = "Demoting the last platform admin (LAST_ADMIN)", body = crate::openapi::ErrorBody),
        (status = 400, description = "E-mail or role invalid (`VALIDATION`, `fields`)", body = crate::openapi::ErrorBody),
    ))]
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
        .await
        .map_err(ApiError::from)?;
    Ok(HttpResponse::Created().json(AdminUserDto::from(&added)))
}

/// Removes a platform role (admins only); the last platform admin stays.
#[utoipa::path(operation_id = "admin_remove_user", delete, path = "/api/admin/users/{email}", tag = "admin", security(("bearer" = [])),
    params(("email" = String, Path, description = "The address holding the role")),
    responses(
        (status = 204, description = "Removed"),
        (status = 401, description = "Not signed in", body = crate::openapi::ErrorBody),
        (status = 403, description = "Not a platform admin", body = crate::openapi::ErrorBody),
        (status = 404, description = "The address has no platform role", body = crate::openapi::ErrorBody),
        (status = 409, description = "The last platform admin (LAST_ADMIN)", body = crate::openapi::ErrorBody),
    ))]
pub async fn remove_user(
    api: web::Data<AdminApi>,
    principal: Principal,
    path: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    api.admins
        .revoke(&principal.0, &path)
        .await
        .map_err(ApiError::from)?;
    Ok(HttpResponse::NoContent().finish())
}

/// What an admin looks at when the queue seems wrong: apps per stored status (also unknown spellings),
/// submissions whose decision would e-mail nobody, the platform roles and demo mode (admins only).
#[utoipa::path(operation_id = "admin_debug", get, path = "/api/admin/debug", tag = "admin", security(("bearer" = [])),
    responses(
        (status = 200, description = "The report", body = DebugDto),
        (status = 401, description = "Not signed in", body = crate::openapi::ErrorBody),
        (status = 403, description = "Not a platform admin", body = crate::openapi::ErrorBody),
    ))]
pub async fn debug(api: web::Data<AdminApi>, principal: Principal) -> Result<HttpResponse, ApiError> {
    let report = api.tools.debug(&principal.0).await.map_err(ApiError::from)?;
    Ok(no_store(HttpResponse::Ok()).json(DebugDto::from(report)))
}

/// Rewrites stored statuses that are none of the four to DEVELOPMENT, which such apps already show as
/// (admins only).
#[utoipa::path(operation_id = "admin_fix_app_statuses", post, path = "/api/admin/fix-app-statuses", tag = "admin", security(("bearer" = [])),
    responses(
        (status = 200, description = "What was repaired", body = FixStatusesDto),
        (status = 401, description = "Not signed in", body = crate::openapi::ErrorBody),
        (status = 403, description = "Not a platform admin", body = crate::openapi::ErrorBody),
    ))]
pub async fn fix_app_statuses(
    api: web::Data<AdminApi>,
    principal: Principal,
) -> Result<HttpResponse, ApiError> {
    let fixed = api
        .tools
        .fix_app_statuses(&principal.0)
        .await
        .map_err(ApiError::from)?;
    Ok(HttpResponse::Ok().json(FixStatusesDto {
        fixed: fixed.len(),
        package_names: fixed.iter().map(ToString::to_string).collect(),
    }))
}

/// Creates a SUBMITTED test app (admins only, demo mode only), owned by the organization of `x-org-id`
/// when sent, else by the caller's oldest organization.
#[utoipa::path(operation_id = "admin_create_test_submission", post, path = "/api/admin/create-test-submission", tag = "admin", security(("bearer" = [])),
    params(("x-org-id" = Option<String>, Header, description = "The organization to own the app (one of the caller's)")),
    responses(
        (status = 201, description = "The test app, SUBMITTED", body = StaffAppDto),
        (status = 400, description = "The caller has no organization (NO_ORGANIZATION), or x-org-id is malformed", body = crate::openapi::ErrorBody),
        (status = 401, description = "Not signed in", body = crate::openapi::ErrorBody),
        (status = 403, description = "Not a platform admin, or x-org-id names an organization of others", body = crate::openapi::ErrorBody),
        (status = 404, description = "Demo mode is off", body = crate::openapi::ErrorBody),
    ))]
pub async fn create_test_submission(
    api: web::Data<AdminApi>,
    request: HttpRequest,
    principal: Principal,
) -> Result<HttpResponse, ApiError> {
    let caller = &principal.0;
    let header = request
        .headers()
        .get(ORG_HEADER)
        .map(|v| v.to_str().map(str::trim).unwrap_or("?"))
        .filter(|v| !v.is_empty());
    let org = match header.map(str::parse::<OrgId>) {
        None => None,
        Some(Ok(org)) => Some(org),
        // Only an admin learns about the header; anyone else gets the 403 of the tool.
        Some(Err(_)) if caller.can_manage_platform() => {
            return Err(ApiError::bad_request("ORG_MALFORMED", ORG_MALFORMED));
        }
        Some(Err(_)) => None,
    };
    let app = api
        .tools
        .create_test_submission(caller, org)
        .await
        .map_err(ApiError::from)?;
    Ok(HttpResponse::Created().json(app))
}
