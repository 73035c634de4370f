//! The members and invitations of one organization (admins; a member may leave).

use actix_web::{HttpResponse, web};
use actix_web::{delete, patch, post};
use std::collections::BTreeMap;

use super::dto::{Envelope, InviteDto, InviteEmailRequest, InviteRequest, RoleChangeRequest};
use super::{OrgsApi, member_id, required};
use crate::ApiError;
use crate::auth::{OrgMember, OrgMemberToLeave};
use crate::json::Json;

/// Invites someone by e-mail (admins); the invitation e-mail goes through the outbox.
#[utoipa::path(operation_id = "invite_member", tag = "organizations", security(("bearer" = [])), request_body = InviteRequest,
    params(("orgId" = String, Path, description = "Organization id")),
    responses(
        (status = 201, description = "The pending invitation", body = Envelope<InviteDto>),
        (status = 403, description = "Only admins invite", body = crate::openapi::ErrorBody),
        (status = 404, description = "No such organization, or the caller is not a member", body = crate::openapi::ErrorBody),
        (status = 409, description = "Already a member, or an invitation is pending", body = crate::openapi::ErrorBody),
        (status = 400, description = "Not an e-mail address (`VALIDATION`, `fields`)", body = crate::openapi::ErrorBody),
        (status = 429, description = "A limit on invitation e-mails (50 open per organization, 100 per account per day, the address's e-mail limit); `Retry-After` says when to try again", body = crate::openapi::ErrorBody,
            headers(("Retry-After" = u64, description = "Seconds to wait"))),
    ))]
#[post("/orgs/{orgId}/members")]
pub async fn invite_member(
    api: web::Data<OrgsApi>,
    member: OrgMember,
    body: Json<InviteRequest>,
) -> Result<HttpResponse, ApiError> {
    let body = body.into_inner();
    let email = required(body.email, "email", "Please enter a valid email address")?;
    let invite = api.invitations.invite(&member.0, &email, body.role).await?;
    Ok(HttpResponse::Created().json(Envelope::ok(InviteDto::from(&invite))))
}

/// Changes a member's role (admins; not one's own; never the only admin).
#[utoipa::path(operation_id = "change_member_role", tag = "organizations", security(("bearer" = [])), request_body = RoleChangeRequest,
    params(("orgId" = String, Path, description = "Organization id"), ("memberId" = String, Path, description = "The member's user id")),
    responses(
        (status = 200, description = "Changed", body = Envelope<Option<bool>>),
        (status = 400, description = "One's own role (`NOT_ALLOWED`), or no role given (`VALIDATION`, `fields`)", body = crate::openapi::ErrorBody),
        (status = 403, description = "Only admins change roles", body = crate::openapi::ErrorBody),
        (status = 404, description = "No such organization or member", body = crate::openapi::ErrorBody),
        (status = 409, description = "The only admin cannot be demoted", body = crate::openapi::ErrorBody),
    ))]
#[patch("/orgs/{orgId}/members/{memberId}")]
pub async fn change_role(
    api: web::Data<OrgsApi>,
    member: OrgMember,
    path: web::Path<(String, String)>,
    body: Json<RoleChangeRequest>,
) -> Result<HttpResponse, ApiError> {
    let target = member_id(&path.1)?;
    let Some(role) = body.into_inner().role else {
        return Err(ApiError::Validation {
            message: "Choose a role: admin or member".into(),
            fields: BTreeMap::from([("role".to_owned(), "Choose a role: admin or member".to_owned())]),
        });
    };
    api.service.change_role(&member.0, target, role).await?;
    Ok(HttpResponse::Ok().json(Envelope::<Option<bool>>::ok(None)))
}

/// Removes a member (admins), or, when `memberId` is the caller, leaves the organization. Leaving stays
/// possible when the organization requires a second factor the caller's session has not passed.
#[utoipa::path(operation_id = "remove_member", tag = "organizations", security(("bearer" = [])),
    params(("orgId" = String, Path, description = "Organization id"), ("memberId" = String, Path, description = "The member's user id (the caller's own to leave)")),
    responses(
        (status = 200, description = "Removed, or left", body = Envelope<Option<bool>>),
        (status = 403, description = "Only admins remove others", body = crate::openapi::ErrorBody),
        (status = 404, description = "No such organization or member", body = crate::openapi::ErrorBody),
        (status = 409, description = "The only admin cannot leave or be removed", body = crate::openapi::ErrorBody),
    ))]
#[delete("/orgs/{orgId}/members/{memberId}")]
pub async fn remove_member(
    api: web::Data<OrgsApi>,
    member: OrgMemberToLeave,
    path: web::Path<(String, String)>,
) -> Result<HttpResponse, ApiError> {
    let target = member_id(&path.1)?;
    api.service.leave_or_remove(&member.0, target).await?;
    Ok(HttpResponse::Ok().json(Envelope::<Option<bool>>::ok(None)))
}

/// Sends a pending invitation again with a new link (admins; only while it has not expired).
#[utoipa::path(operation_id = "resend_invite", tag = "organizations", security(("bearer" = [])), request_body = InviteEmailRequest,
    params(("orgId" = String, Path, description = "Organization id")),
    responses(
        (status = 200, description = "The invitation as resent", body = Envelope<InviteDto>),
        (status = 403, description = "Only admins resend", body = crate::openapi::ErrorBody),
        (status = 404, description = "No pending invitation for the address", body = crate::openapi::ErrorBody),
        (status = 409, description = "The invitation has expired", body = crate::openapi::ErrorBody),
        (status = 429, description = "Resent less than 10 minutes ago, resent 5 times already, or another limit on invitation e-mails; `Retry-After` says when to try again", body = crate::openapi::ErrorBody,
            headers(("Retry-After" = u64, description = "Seconds to wait"))),
    ))]
#[post("/orgs/{orgId}/invites/resend")]
pub async fn resend(
    api: web::Data<OrgsApi>,
    member: OrgMember,
    body: Json<InviteEmailRequest>,
) -> Result<HttpResponse, ApiError> {
    let email = required(
        body.into_inner().email,
        "email",
        "Please enter a valid email address",
    )?;
    let invite = api.invitations.resend_invite(&member.0, &email).await?;
    Ok(HttpResponse::Ok().json(Envelope::ok(InviteDto::from(&invite))))
}

/// Cancels a pending invitation (admins): its link stops working.
#[utoipa::path(operation_id = "rescind_invite", tag = "organizations", security(("bearer" = [])), request_body = InviteEmailRequest,
    params(("orgId" = String, Path, description = "Organization id")),
    responses(
        (status = 200, description = "Cancelled", body = Envelope<Option<bool>>),
        (status = 403, description = "Only admins cancel invitations", body = crate::openapi::ErrorBody),
        (status = 404, description = "No pending invitation for the address", body = crate::openapi::ErrorBody),
    ))]
#[post("/orgs/{orgId}/invites/rescind")]
pub async fn rescind(
    api: web::Data<OrgsApi>,
    member: OrgMember,
    body: Json<InviteEmailRequest>,
) -> Result<HttpResponse, ApiError> {
    let email = required(
        body.into_inner().email,
        "email",
        "Please enter a valid email address",
    )?;
    api.invitations.rescind_invite(&member.0, &email).await?;
    Ok(HttpResponse::Ok().json(Envelope::<Option<bool>>::ok(None)))
}
