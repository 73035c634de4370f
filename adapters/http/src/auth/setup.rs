//! `POST /api/admin/setup` `{token}` (PRODUCT.md §5): the signed-in caller uses the one-time link the server
//! wrote to its log while the platform has no admin, and becomes the first platform admin.

use actix_web::post;
use actix_web::{HttpResponse, web};
use domain::identity::FirstAdminSetup;
use serde::Deserialize;
use std::sync::Arc;

use super::admin::AdminCheckResponse;
use super::{Principal, RoleName};
use crate::ApiError;
use crate::json::Json;

/// The first-admin setup link's use case.
#[derive(Clone)]
pub struct FirstAdminApi(pub Arc<FirstAdminSetup>);

impl std::fmt::Debug for FirstAdminApi {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("FirstAdminApi")
    }
}

#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SetupRequest {
    /// The token of the setup link (`/setup-admin?token=…`) from the server log.
    pub token: String,
}

/// Makes the caller the first platform admin with the setup link from the server log.
#[utoipa::path(tag = "auth", security(("bearer" = [])),
    request_body = SetupRequest,
    responses(
        (status = 200, description = "The caller is now a platform admin", body = AdminCheckResponse),
        (status = 400, description = "The link was used, has expired or was replaced (`SETUP_LINK_INVALID`)", body = crate::openapi::ErrorBody),
        (status = 409, description = "The platform has an admin already (`ADMIN_EXISTS`)", body = crate::openapi::ErrorBody),
    ))]
#[post("/admin/setup")]
pub async fn claim(
    api: web::Data<FirstAdminApi>,
    principal: Principal,
    body: Json<SetupRequest>,
) -> Result<HttpResponse, ApiError> {
    let admin = api.0.claim(&principal.0, &body.token).await?;
    tracing::warn!(email = %admin.email, "the setup link made this account the first platform admin");
    Ok(HttpResponse::Ok()
        .insert_header(("Cache-Control", "no-store"))
        .json(AdminCheckResponse {
            is_admin: true,
            role: Some(RoleName::from(admin.role)),
            role_awaits_proof: false,
        }))
}
