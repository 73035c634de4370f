//! `GET /api/admin/check` → `{isAdmin, role}` (specification §7): whether the caller may open the Admin Panel.

use actix_web::HttpResponse;
use domain::common::PlatformRole;
use domain::identity::PlatformAdminService;
use serde::Serialize;

use super::Principal;

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AdminCheckResponse {
    pub is_admin: bool,
    /// `admin`, `reviewer`, or `null`.
    pub role: Option<PlatformRole>,
}

pub async fn check(principal: Principal) -> HttpResponse {
    let check = PlatformAdminService::check(&principal.0);
    HttpResponse::Ok()
        .insert_header(("Cache-Control", "no-store"))
        .json(AdminCheckResponse {
            is_admin: check.is_admin,
            role: check.role,
        })
}
