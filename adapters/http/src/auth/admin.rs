//! `GET /api/admin/check` → `{isAdmin, role}` (specification §7): whether the caller may open the Admin Panel.

use actix_web::HttpResponse;
use domain::identity::PlatformAdminService;
use serde::Serialize;

use super::{Principal, RoleName};

#[derive(Debug, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AdminCheckResponse {
    pub is_admin: bool,
    /// `admin`, `reviewer`, or `null`.
    #[schema(required = true)]
    pub role: Option<RoleName>,
}

/// Whether the caller is a platform admin or reviewer.
#[utoipa::path(get, path = "/api/admin/check", tag = "auth", security(("bearer" = [])),
    responses(
        (status = 200, description = "The caller's platform role", body = AdminCheckResponse),
        (status = 401, description = "No valid core token or identity access token", body = crate::openapi::ErrorBody),
    ))]
pub async fn check(principal: Principal) -> HttpResponse {
    let check = PlatformAdminService::check(&principal.0);
    HttpResponse::Ok()
        .insert_header(("Cache-Control", "no-store"))
        .json(AdminCheckResponse {
            is_admin: check.is_admin,
            role: check.role.map(RoleName::from),
        })
}
