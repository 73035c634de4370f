//! The platform-admin calls (specification §7 "Platform admin", PRODUCT.md §4, §5): the review queue and
//! decisions (admins and reviewers), the platform users and the maintenance tools (admins only).
//!
//! Every handler takes the [`Principal`] (401 without one) and leaves the role checks to the domain
//! services: a developer gets 403, a reviewer gets 403 on the admin-only calls.

pub mod dto;
mod platform;

pub use platform::*;

use actix_web::{HttpResponse, web};
use actix_web::{get, post};
use chrono::{DateTime, Utc};
use domain::apps::PackageName;
use domain::common::Caller;
use domain::identity::PlatformAdminService;
use domain::review::platform::PlatformTools;
use domain::review::service::APP_NOT_FOUND;
use domain::review::{Decision, QueuedApp, ReviewDesk, ReviewError, ReviewService};
use domain::uptime::HealthState;
use std::sync::Arc;

use self::dto::{
    AdminAppDto, DecisionRequest, OrganizationRefDto, RejectionRequest, ReviewHistoryEntryDto,
    SinceLastDecisionDto, StaffAppDto, StatsCountsDto, StatsDto, SubmittedAppDto,
};
use crate::ApiError;
use crate::RouteSink;
use crate::auth::Principal;
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
    /// The dashboard and the review queue, with each app's latest health (`appHealthStatus`).
    pub desk: Arc<ReviewDesk>,
}

impl std::fmt::Debug for AdminApi {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("AdminApi")
    }
}

/// Registers the routes of this module inside the `/api` scope.
pub fn routes<R: RouteSink>(cfg: &mut R) {
    // Before `/admin/apps/{packageName}`: `stats` and `submitted` are not package names.
    cfg.service(stats)
        .service(submitted)
        .service(get_app)
        .service(approve)
        .service(reject)
        .service(list_users)
        .service(add_user)
        .service(remove_user)
        .service(debug)
        .service(fix_app_statuses)
        .service(create_test_submission);
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

/// The health word of an app (`appHealthStatus`): `unknown` before its first check.
fn health_word(health: Option<HealthState>) -> &'static str {
    health.map_or("unknown", HealthState::code)
}

fn no_store(mut response: actix_web::HttpResponseBuilder) -> actix_web::HttpResponseBuilder {
    response.insert_header(("Cache-Control", "no-store"));
    response
}

/// The dashboard: counts per status, the platform-role counts and the newest submissions.
#[utoipa::path(operation_id = "admin_stats", tag = "admin", security(("bearer" = [])),
    responses(
        (status = 200, description = "Counts and recent submissions", body = StatsDto),
        (status = 403, description = "Not a platform admin or reviewer", body = crate::openapi::ErrorBody),
    ))]
#[get("/admin/apps/stats")]
pub async fn stats(api: web::Data<AdminApi>, principal: Principal) -> Result<HttpResponse, ApiError> {
    let dashboard = api.desk.dashboard(&principal.0).await?;
    let (counts, roles) = (dashboard.counts, dashboard.roles);
    Ok(no_store(HttpResponse::Ok()).json(StatsDto {
        counts: StatsCountsDto {
            development: counts.development,
            submitted: counts.submitted,
            published: counts.published,
            rejected: counts.rejected,
            admins: roles.admins,
            reviewers: roles.reviewers,
        },
        recent_submissions: dashboard.recent_submissions.iter().map(submitted_app).collect(),
    }))
}

fn submitted_app(queued: &QueuedApp) -> SubmittedAppDto {
    SubmittedAppDto::of(&queued.reviewed, health_word(queued.health))
}

/// The review queue: every SUBMITTED app, oldest submission first.
#[utoipa::path(operation_id = "admin_submitted_apps", tag = "admin", security(("bearer" = [])),
    responses(
        (status = 200, description = "The submitted apps", body = Vec<SubmittedAppDto>),
        (status = 403, description = "Not a platform admin or reviewer", body = crate::openapi::ErrorBody),
    ))]
#[get("/admin/apps/submitted")]
pub async fn submitted(api: web::Data<AdminApi>, principal: Principal) -> Result<HttpResponse, ApiError> {
    let queue = api.desk.queue(&principal.0).await?;
    let body: Vec<SubmittedAppDto> = queue.iter().map(submitted_app).collect();
    Ok(no_store(HttpResponse::Ok()).json(body))
}

/// Any app submitted at least once (never one still in its first development: 404), with its organization,
/// its review history and whether a decision would be a self-review; never its tester list.
#[utoipa::path(operation_id = "admin_get_app", tag = "admin", security(("bearer" = [])),
    params(("packageName" = String, Path, description = "The app's package name")),
    responses(
        (status = 200, description = "The app as stored, with `organization`, `history` and `selfReview`", body = AdminAppDto),
        (status = 403, description = "Not a platform admin or reviewer", body = crate::openapi::ErrorBody),
        (status = 404, description = "No such app", body = crate::openapi::ErrorBody),
    ))]
#[get("/admin/apps/{packageName}")]
pub async fn get_app(
    api: web::Data<AdminApi>,
    principal: Principal,
    path: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let caller = &principal.0;
    let package = package(caller, &path)?;
    let view = api.reviews.review_view(caller, &package).await?;
    let organization = OrganizationRefDto {
        id: view.reviewed.app.org_id.to_string(),
        name: view.reviewed.organization_name.clone(),
    };
    Ok(no_store(HttpResponse::Ok()).json(AdminAppDto {
        app: StaffAppDto(view.reviewed.app),
        organization,
        history: view.history.iter().map(ReviewHistoryEntryDto::from).collect(),
        self_review: view.self_review,
        tester_url: view.tester_url,
        since_last_decision: SinceLastDecisionDto::from(&view.since_last_decision),
    }))
}

/// Reads a decision's body (its notes and the revision the reviewer saw): the revision is required.
fn decision(
    notes: Option<&str>,
    expected_updated_at: Option<DateTime<Utc>>,
) -> Result<Decision<'_>, ApiError> {
    let seen =
        expected_updated_at.ok_or_else(|| ApiError::bad_request("REVISION_REQUIRED", REVISION_REQUIRED))?;
    Ok(Decision { notes, seen })
}

/// SUBMITTED → PUBLISHED (notes optional); e-mails the organization's contact.
#[utoipa::path(operation_id = "admin_approve_app", tag = "admin", security(("bearer" = [])),
    request_body = DecisionRequest,
    params(("packageName" = String, Path, description = "The app's package name")),
    responses(
        (status = 200, description = "The app as stored, now PUBLISHED", body = StaffAppDto),
        (status = 400, description = "`expectedUpdatedAt` missing (REVISION_REQUIRED) or the body malformed", body = crate::openapi::ErrorBody),
        (status = 403, description = "Not a platform admin or reviewer", body = crate::openapi::ErrorBody),
        (status = 404, description = "No such app", body = crate::openapi::ErrorBody),
        (status = 409, description = "Not SUBMITTED (ILLEGAL_TRANSITION), decided meanwhile (CONFLICT), or changed since the reviewer opened it (APP_CHANGED)", body = crate::openapi::ErrorBody),
    ))]
#[post("/admin/apps/{packageName}/approve")]
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
    let decision = decision(body.notes.as_deref(), body.expected_updated_at)?;
    let app = api.reviews.approve(caller, &package, decision).await?;
    Ok(HttpResponse::Ok().json(StaffAppDto(app)))
}

/// SUBMITTED → REJECTED (notes required); e-mails the organization's contact with the notes.
#[utoipa::path(operation_id = "admin_reject_app", tag = "admin", security(("bearer" = [])),
    request_body = RejectionRequest,
    params(("packageName" = String, Path, description = "The app's package name")),
    responses(
        (status = 200, description = "The app as stored, now REJECTED", body = StaffAppDto),
        (status = 400, description = "Notes missing (REVIEW_NOTES_REQUIRED), `expectedUpdatedAt` missing (REVISION_REQUIRED) or the body malformed", body = crate::openapi::ErrorBody),
        (status = 403, description = "Not a platform admin or reviewer", body = crate::openapi::ErrorBody),
        (status = 404, description = "No such app", body = crate::openapi::ErrorBody),
        (status = 409, description = "Not SUBMITTED (ILLEGAL_TRANSITION), decided meanwhile (CONFLICT), or changed since the reviewer opened it (APP_CHANGED)", body = crate::openapi::ErrorBody),
    ))]
#[post("/admin/apps/{packageName}/reject")]
pub async fn reject(
    api: web::Data<AdminApi>,
    principal: Principal,
    path: web::Path<String>,
    body: Json<RejectionRequest>,
) -> Result<HttpResponse, ApiError> {
    let caller = &principal.0;
    let package = package(caller, &path)?;
    if !caller.can_review() {
        return Err(ApiError::from(ReviewError::Forbidden));
    }
    if body.notes.as_deref().is_none_or(|n| n.trim().is_empty()) {
        return Err(ApiError::from(ReviewError::NotesRequired));
    }
    let decision = decision(body.notes.as_deref(), body.expected_updated_at)?;
    let app = api.reviews.reject(caller, &package, decision).await?;
    Ok(HttpResponse::Ok().json(StaffAppDto(app)))
}
