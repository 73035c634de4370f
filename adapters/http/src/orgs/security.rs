//! `PUT /api/orgs/{orgId}/two-factor`: an organization admin requires a second factor of every member, or
//! stops requiring it (PRODUCT.md §1a). Turning it on needs the admin's own session to have passed a
//! second factor (403 `OWN_MFA_REQUIRED` otherwise), so that an admin cannot lock themself out.

use actix_web::{HttpResponse, put, web};
use serde::Deserialize;
use utoipa::ToSchema;

use super::OrgsApi;
use super::dto::{Envelope, OrgSummaryDto};
use crate::ApiError;
use crate::auth::OrgMember;
use crate::json::Json;

/// `PUT /api/orgs/{orgId}/two-factor`.
#[derive(Debug, Clone, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct TwoFactorRequirementRequest {
    /// Whether every member needs a second factor to act in the organization.
    pub require_two_factor: bool,
}

/// Requires a second factor of every member, or stops requiring it (admins).
#[utoipa::path(operation_id = "set_org_two_factor", tag = "organizations", security(("bearer" = [])), request_body = TwoFactorRequirementRequest,
    params(("orgId" = String, Path, description = "Organization id")),
    responses(
        (status = 200, description = "The organization as stored", body = Envelope<OrgSummaryDto>),
        (status = 403, description = "Only admins change it (`FORBIDDEN`); turning it on needs the admin's own session to have passed a second factor (`OWN_MFA_REQUIRED`)", body = crate::openapi::ErrorBody),
        (status = 404, description = "No such organization, or the caller is not a member", body = crate::openapi::ErrorBody),
        (status = 400, description = "The body is not `{requireTwoFactor: boolean}`", body = crate::openapi::ErrorBody),
    ))]
#[put("/orgs/{orgId}/two-factor")]
pub async fn set_two_factor(
    api: web::Data<OrgsApi>,
    member: OrgMember,
    body: Json<TwoFactorRequirementRequest>,
) -> Result<HttpResponse, ApiError> {
    let updated = api
        .service
        .set_two_factor_requirement(&member.0, body.require_two_factor)
        .await?;
    let summary = OrgSummaryDto::from(&domain::orgs::OrgMembership {
        organization: updated,
        role: member.0.role(),
    });
    Ok(HttpResponse::Ok().json(Envelope::ok(summary)))
}
