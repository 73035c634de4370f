//! `GET /api/admin/check` → `{isAdmin, role, roleAwaitsProof}` (specification §7): whether the caller may
//! open the Admin Panel, and whether a role waits for the caller's address to be proven.

use actix_web::get;
use actix_web::{HttpResponse, web};
use domain::identity::PlatformAdminService;
use serde::Serialize;

use super::setup::FirstAdminApi;
use super::{Principal, RoleName};
use crate::ApiError;

#[derive(Debug, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AdminCheckResponse {
    pub is_admin: bool,
    /// `admin`, `reviewer`, or `null`.
    #[schema(required = true)]
    pub role: Option<RoleName>,
    /// A platform role waits for the caller's address (`PORTAL_ADMIN_EMAILS`, or granted to the address)
    /// until the caller proves it owns the address; the dashboard says how.
    pub role_awaits_proof: bool,
}

/// Whether the caller is a platform admin or reviewer.
#[utoipa::path(tag = "auth", security(("bearer" = [])),
    responses(
        (status = 200, description = "The caller's platform role", body = AdminCheckResponse),
        (status = 401, description = "No valid core token or identity access token", body = crate::openapi::ErrorBody),
    ))]
#[get("/admin/check")]
pub async fn check(setup: web::Data<FirstAdminApi>, principal: Principal) -> Result<HttpResponse, ApiError> {
    let check = PlatformAdminService::check(&principal.0);
    let role_awaits_proof = setup.0.role_awaits_proof(&principal.0).await?;
    Ok(HttpResponse::Ok()
        .insert_header(("Cache-Control", "no-store"))
        .json(AdminCheckResponse {
            is_admin: check.is_admin,
            role: check.role.map(RoleName::from),
            role_awaits_proof,
        }))
}
