//! The organization calls (specification §7 "Organizations", PRODUCT.md §3): organizations, members,
//! invitations. The calls on one organization take [`OrgMember`], the caller's membership of the path's
//! organization read once for the request (a non-member gets 404); the domain checks the role (403). The
//! calls that name no organization (listing and creating organizations, accepting an invitation) take the
//! [`Principal`] and do not read `x-org-id` at all: the web UI keeps sending the organization it last
//! used, and one the caller has just left must not lock them out of choosing or making another.

pub mod dto;
mod members;
mod security;

pub use members::*;
pub use security::*;

use actix_web::{HttpRequest, HttpResponse, web};
use actix_web::{delete, get, post, put};
use domain::common::UserId;
use domain::orgs::{InvitationService, OrgError, OrgProfileInput, OrgService};
use std::collections::BTreeMap;
use std::sync::Arc;

use self::dto::{
    AcceptedDto, CreateOrgRequest, Envelope, InvitePreviewDto, OrgDto, OrgListDto, OrgSummaryDto,
    UpdateOrgRequest,
};
use crate::ApiError;
use crate::RouteSink;
use crate::auth::{OrgMember, Principal, ProductAuth};
use crate::client_ip::rate_limit_subject;
use crate::json::Json;

/// What the organization handlers need.
#[derive(Clone)]
pub struct OrgsApi {
    pub service: Arc<OrgService>,
    /// The invitation use cases (invite, resend, cancel, preview, accept).
    pub invitations: Arc<InvitationService>,
}

impl std::fmt::Debug for OrgsApi {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("OrgsApi")
    }
}

/// Registers the routes of this module inside the `/api` scope.
pub fn routes<R: RouteSink>(cfg: &mut R) {
    cfg.service(list)
        .service(create)
        // Before `/orgs/{orgId}`: `accept` is not an organization id.
        .service(accept)
        .service(preview_invite)
        .service(get)
        .service(update)
        .service(set_two_factor)
        .service(delete)
        .service(invite_member)
        .service(change_role)
        .service(remove_member)
        .service(resend)
        .service(rescind);
}

fn member_id(text: &str) -> Result<UserId, ApiError> {
    text.parse()
        .map_err(|_| ApiError::NotFound(OrgError::MemberNotFound.to_string()))
}

fn required(value: Option<String>, field: &str, message: &str) -> Result<String, ApiError> {
    match value {
        Some(text) if !text.trim().is_empty() => Ok(text),
        _ => Err(ApiError::Validation {
            message: message.to_owned(),
            fields: BTreeMap::from([(field.to_owned(), message.to_owned())]),
        }),
    }
}

/// The caller's organizations, with their role in each. A user with none gets a personal organization
/// first, so that a new user's first dashboard already has one.
#[utoipa::path(operation_id = "list_orgs", tag = "organizations", security(("bearer" = []), ("accessToken" = [])),
    responses(
        (status = 200, description = "The caller's organizations", body = OrgListDto),
    ))]
#[get("/orgs")]
pub async fn list(api: web::Data<OrgsApi>, principal: Principal) -> Result<HttpResponse, ApiError> {
    let outcome = api.service.ensure_personal_org(&principal.0).await?;
    // A personal access token bound to one organization sees only that one.
    let only = principal.0.origin.via_token.as_ref().and_then(|token| token.org);
    let orgs: Vec<OrgSummaryDto> = outcome
        .organizations
        .iter()
        .filter(|membership| only.is_none_or(|org| membership.organization.id == org))
        .map(OrgSummaryDto::from)
        .collect();
    Ok(HttpResponse::Ok()
        .insert_header(("Cache-Control", "no-store"))
        .json(OrgListDto {
            success: true,
            data: orgs,
            personal_org_created: outcome.created,
        }))
}

/// Creates an organization with the caller as its admin; with a contact e-mail, the profile has it at once.
#[utoipa::path(operation_id = "create_org", tag = "organizations", security(("bearer" = [])), request_body = CreateOrgRequest,
    responses(
        (status = 201, description = "The new organization", body = Envelope<OrgSummaryDto>),
        (status = 400, description = "Name missing or too long; contact e-mail invalid (`VALIDATION`, `fields`)", body = crate::openapi::ErrorBody),
    ))]
#[post("/orgs")]
pub async fn create(
    api: web::Data<OrgsApi>,
    principal: Principal,
    body: Json<CreateOrgRequest>,
) -> Result<HttpResponse, ApiError> {
    let body = body.into_inner();
    let name = required(body.name, "name", "Organization name is required")?;
    let created = api
        .service
        .create_with_contact(&principal.0, &name, body.contact_email.as_deref())
        .await?;
    let summary = OrgSummaryDto::from(&created);
    Ok(HttpResponse::Created().json(Envelope::ok(summary)))
}

/// One organization with its members and pending invitations.
#[utoipa::path(operation_id = "get_org", tag = "organizations", security(("bearer" = []), ("accessToken" = [])),
    params(("orgId" = String, Path, description = "Organization id")),
    responses(
        (status = 200, description = "The organization", body = Envelope<OrgDto>),
        (status = 404, description = "No such organization, or the caller is not a member", body = crate::openapi::ErrorBody),
    ))]
#[get("/orgs/{orgId}")]
pub async fn get(api: web::Data<OrgsApi>, member: OrgMember) -> Result<HttpResponse, ApiError> {
    let details = api.service.get(&member.0).await?;
    Ok(HttpResponse::Ok()
        .insert_header(("Cache-Control", "no-store"))
        .json(Envelope::ok(OrgDto::from(&details))))
}

/// Changes the name and profile (admins).
#[utoipa::path(operation_id = "update_org", tag = "organizations", security(("bearer" = [])), request_body = UpdateOrgRequest,
    params(("orgId" = String, Path, description = "Organization id")),
    responses(
        (status = 200, description = "The organization as stored", body = Envelope<OrgSummaryDto>),
        (status = 403, description = "Only admins edit the organization", body = crate::openapi::ErrorBody),
        (status = 404, description = "No such organization, or the caller is not a member", body = crate::openapi::ErrorBody),
        (status = 400, description = "Name or contact e-mail missing or invalid (`VALIDATION`, `fields`)", body = crate::openapi::ErrorBody),
    ))]
#[put("/orgs/{orgId}")]
pub async fn update(
    api: web::Data<OrgsApi>,
    member: OrgMember,
    body: Json<UpdateOrgRequest>,
) -> Result<HttpResponse, ApiError> {
    let input = OrgProfileInput::from(body.into_inner());
    let updated = api.service.update_profile(&member.0, &input).await?;
    let details = api.service.get(&member.0).await?;
    let mut summary = OrgSummaryDto::from(&domain::orgs::OrgMembership {
        organization: updated,
        role: details.role,
    });
    summary.profile = dto::ProfileDto::from(&details.organization.profile);
    Ok(HttpResponse::Ok().json(Envelope::ok(summary)))
}

/// Deletes the organization (admins); refused while it owns apps.
#[utoipa::path(operation_id = "delete_org", tag = "organizations", security(("bearer" = [])),
    params(("orgId" = String, Path, description = "Organization id")),
    responses(
        (status = 200, description = "Deleted", body = Envelope<Option<bool>>),
        (status = 403, description = "Only admins delete the organization", body = crate::openapi::ErrorBody),
        (status = 404, description = "No such organization, or the caller is not a member", body = crate::openapi::ErrorBody),
        (status = 409, description = "The organization still owns apps", body = crate::openapi::ErrorBody),
    ))]
#[delete("/orgs/{orgId}")]
pub async fn delete(api: web::Data<OrgsApi>, member: OrgMember) -> Result<HttpResponse, ApiError> {
    let outcome = api.service.delete(&member.0).await?;
    for file in &outcome.unremoved_files {
        tracing::warn!(file = %file, org = %member.0.org(), "an image file of a deleted organization could not be removed");
    }
    Ok(HttpResponse::Ok().json(Envelope::<Option<bool>>::ok(None)))
}

/// What an invitation link shows before sign-in, without accepting it: the organization's name, who
/// invited, a hint of the invited address and whether it is open, expired or used. No sign-in needed (the
/// link's page asks before anyone has an account); limited per client address.
#[utoipa::path(operation_id = "preview_invite", tag = "organizations",
    params(("token" = String, Path, description = "The token of the invitation link")),
    responses(
        (status = 200, description = "The invitation", body = Envelope<InvitePreviewDto>),
        (status = 404, description = "Unknown, replaced or cancelled invitation", body = crate::openapi::ErrorBody),
        (status = 429, description = "Too many invitation links looked up from this network", body = crate::openapi::ErrorBody),
    ))]
#[get("/invites/{token}")]
pub async fn preview_invite(
    api: web::Data<OrgsApi>,
    auth: Option<web::Data<ProductAuth>>,
    request: HttpRequest,
    path: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let client = auth
        .and_then(|auth| auth.proxies.client_address(&request))
        .map_or_else(|| "unknown".to_owned(), rate_limit_subject);
    let preview = api.invitations.preview_invite(&client, &path).await?;
    Ok(HttpResponse::Ok()
        .insert_header((actix_web::http::header::CACHE_CONTROL, "no-store"))
        .json(Envelope::ok(InvitePreviewDto::from(preview))))
}

/// Accepts an invitation sent to the caller's address: the caller joins with the invitation's role.
#[utoipa::path(operation_id = "accept_invite", tag = "organizations", security(("bearer" = [])),
    params(("token" = String, Path, description = "The token of the invitation link")),
    responses(
        (status = 200, description = "The organization joined", body = Envelope<AcceptedDto>),
        (status = 400, description = "Expired, already accepted, or already a member (`…:<orgId>`)", body = crate::openapi::ErrorBody),
        (status = 403, description = "Sent to another address", body = crate::openapi::ErrorBody),
        (status = 404, description = "Unknown, replaced or cancelled invitation", body = crate::openapi::ErrorBody),
    ))]
#[post("/orgs/accept/{token}")]
pub async fn accept(
    api: web::Data<OrgsApi>,
    principal: Principal,
    path: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let joined = api.invitations.accept_invite(&principal.0, &path).await?;
    Ok(HttpResponse::Ok().json(Envelope::ok(AcceptedDto {
        id: joined.id.to_string(),
        name: joined.name,
    })))
}
