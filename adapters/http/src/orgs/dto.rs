//! The JSON of the organization calls (specification §3 and §7, PRODUCT.md §6: `{success, data}`), apart
//! from the domain's types.

use chrono::{DateTime, Utc};
use domain::orgs::{InviteSummary, Member, OrgDetails, OrgMembership, OrgProfile, OrgRole, Organization};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// The organization's public profile.
#[derive(Debug, Clone, Default, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ProfileDto {
    pub website: Option<String>,
    pub contact_email: Option<String>,
    pub description: Option<String>,
    /// Image URL of the logo.
    pub logo: Option<String>,
}

impl From<&OrgProfile> for ProfileDto {
    fn from(profile: &OrgProfile) -> Self {
        Self {
            website: profile.website.clone(),
            contact_email: profile.contact_email.as_ref().map(|e| e.as_str().to_owned()),
            description: profile.description.clone(),
            logo: profile.logo.clone(),
        }
    }
}

/// An organization of the caller, with the caller's role (`GET /api/orgs`).
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct OrgSummaryDto {
    pub id: String,
    pub name: String,
    pub profile: ProfileDto,
    /// The caller's role in it.
    pub role: OrgRole,
    /// Whether every member needs a second factor to act in it (403 `ORG_MFA_REQUIRED` otherwise).
    pub require_two_factor: bool,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

impl OrgSummaryDto {
    fn of(organization: &Organization, role: OrgRole) -> Self {
        Self {
            id: organization.id.to_string(),
            name: organization.name.clone(),
            profile: ProfileDto::from(&organization.profile),
            role,
            require_two_factor: organization.require_two_factor,
            created_at: organization.created_at,
            updated_at: organization.updated_at,
        }
    }
}

impl From<&OrgMembership> for OrgSummaryDto {
    fn from(membership: &OrgMembership) -> Self {
        Self::of(&membership.organization, membership.role)
    }
}

/// A member's account.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct MemberUserDto {
    pub id: String,
    pub email: String,
}

/// A member: `{user: {id, email}, role, joinedAt}` (specification §3).
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct MemberDto {
    pub user: MemberUserDto,
    pub role: OrgRole,
    pub joined_at: DateTime<Utc>,
    /// Whether the account has a verified second factor (as the built-in identity service knows it).
    pub has_two_factor: bool,
}

impl From<&Member> for MemberDto {
    fn from(member: &Member) -> Self {
        Self {
            user: MemberUserDto {
                id: member.user_id.to_string(),
                email: member.email.as_str().to_owned(),
            },
            role: member.role,
            joined_at: member.joined_at,
            has_two_factor: member.has_two_factor,
        }
    }
}

/// A pending invitation (specification §3).
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct InviteDto {
    pub email: String,
    pub role: OrgRole,
    pub invited_at: DateTime<Utc>,
    pub expires_at: DateTime<Utc>,
    /// How many times the invitation e-mail was sent (1 + resends).
    pub email_sent_count: u32,
    /// Whether it has expired (it can no longer be accepted or resent, only cancelled).
    pub expired: bool,
}

impl From<&InviteSummary> for InviteDto {
    fn from(invite: &InviteSummary) -> Self {
        Self {
            email: invite.email.as_str().to_owned(),
            role: invite.role,
            invited_at: invite.invited_at,
            expires_at: invite.expires_at,
            email_sent_count: invite.email_sent_count,
            expired: matches!(invite.status, domain::orgs::InviteStatus::Expired),
        }
    }
}

/// One organization with its members and pending invitations (`GET /api/orgs/{orgId}`).
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct OrgDto {
    pub id: String,
    pub name: String,
    pub profile: ProfileDto,
    /// The caller's role in it.
    pub role: OrgRole,
    /// Whether every member needs a second factor to act in it.
    pub require_two_factor: bool,
    pub members: Vec<MemberDto>,
    pub pending_invites: Vec<InviteDto>,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

impl From<&OrgDetails> for OrgDto {
    fn from(details: &OrgDetails) -> Self {
        let summary = OrgSummaryDto::of(&details.organization, details.role);
        Self {
            id: summary.id,
            name: summary.name,
            profile: summary.profile,
            role: summary.role,
            require_two_factor: summary.require_two_factor,
            members: details.members.iter().map(MemberDto::from).collect(),
            pending_invites: details.pending_invites.iter().map(InviteDto::from).collect(),
            created_at: summary.created_at,
            updated_at: summary.updated_at,
        }
    }
}

/// `POST /api/orgs`: the New Organization dialog sends the name and the contact e-mail; the contact
/// e-mail may be left out (it is asked for later).
#[derive(Debug, Clone, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CreateOrgRequest {
    /// Required, not blank, at most 100 characters.
    #[schema(required = true, value_type = String, min_length = 1, max_length = 100, pattern = r"\S")]
    pub name: Option<String>,
    #[schema(format = Email)]
    pub contact_email: Option<String>,
}

/// `PUT /api/orgs/{orgId}`: the settings form. The profile may come nested (as answered) or flat.
#[derive(Debug, Clone, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct UpdateOrgRequest {
    /// Required, not blank, at most 100 characters.
    #[schema(required = true, value_type = String, min_length = 1, max_length = 100, pattern = r"\S")]
    pub name: Option<String>,
    pub profile: Option<ProfileDto>,
    pub website: Option<String>,
    /// Required here or in `profile`.
    #[schema(format = Email)]
    pub contact_email: Option<String>,
    pub description: Option<String>,
    pub logo: Option<String>,
}

impl From<UpdateOrgRequest> for domain::orgs::OrgProfileInput {
    /// The nested profile's fields win over the flat ones.
    fn from(body: UpdateOrgRequest) -> Self {
        let nested = body.profile.unwrap_or_default();
        Self {
            name: body.name.unwrap_or_default(),
            website: nested.website.or(body.website),
            contact_email: nested.contact_email.or(body.contact_email),
            description: nested.description.or(body.description),
            logo: nested.logo.or(body.logo),
        }
    }
}

/// `POST /api/orgs/{orgId}/members`.
#[derive(Debug, Clone, Deserialize, ToSchema)]
pub struct InviteRequest {
    #[schema(required = true, value_type = String, format = Email)]
    pub email: Option<String>,
    /// `member` unless given (specification §9).
    pub role: Option<OrgRole>,
}

/// `PATCH /api/orgs/{orgId}/members/{memberId}`.
#[derive(Debug, Clone, Deserialize, ToSchema)]
pub struct RoleChangeRequest {
    #[schema(required = true, value_type = OrgRole)]
    pub role: Option<OrgRole>,
}

/// `POST /api/orgs/{orgId}/invites/resend` and `/rescind`.
#[derive(Debug, Clone, Deserialize, ToSchema)]
pub struct InviteEmailRequest {
    #[schema(required = true, value_type = String, format = Email)]
    pub email: Option<String>,
}

/// `GET /api/invites/{token}`: what an invitation link shows before sign-in, and no more (the
/// organization's name, who invited, a hint of the invited address, whether it can still be accepted).
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct InvitePreviewDto {
    pub organization_name: String,
    /// The inviting admin's address; `null` when that account is no longer a member.
    pub inviter: Option<String>,
    /// The invited address with most of its local part hidden (`a•••@example.com`).
    pub email_hint: String,
    pub status: domain::orgs::service::InviteLinkStatus,
    pub expires_at: chrono::DateTime<chrono::Utc>,
}

impl From<domain::orgs::service::InvitePreview> for InvitePreviewDto {
    fn from(preview: domain::orgs::service::InvitePreview) -> Self {
        Self {
            organization_name: preview.organization_name,
            inviter: preview.inviter,
            email_hint: preview.email_hint,
            status: preview.status,
            expires_at: preview.expires_at,
        }
    }
}

/// `POST /api/orgs/accept/{token}`: the organization joined.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct AcceptedDto {
    pub id: String,
    pub name: String,
}

/// `GET /api/orgs`: the envelope, and whether this call made the caller's personal organization (the
/// screen then says so, once).
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct OrgListDto {
    pub success: bool,
    pub data: Vec<OrgSummaryDto>,
    pub personal_org_created: bool,
}

/// The `{success, data}` envelope of the organization calls.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct Envelope<T> {
    pub success: bool,
    pub data: T,
}

impl<T> Envelope<T> {
    pub const fn ok(data: T) -> Self {
        Self { success: true, data }
    }
}
