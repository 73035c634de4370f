//! The stored forms of an organization and a member, and the role's stored text.

use diesel::prelude::*;
use domain::common::{EmailAddress, OrgId, RepoError, UserId};
use domain::media::ImageLinks;
use domain::orgs::{Member, OrgProfile, OrgRole, Organization};

use crate::convert::{from_millis, parse_stored, to_millis};
use crate::repos::protection;
use crate::schema::{org_members, organizations};

/// One row of `organizations`.
#[derive(Debug, Queryable, Selectable, Insertable)]
#[diesel(table_name = organizations)]
pub(super) struct OrgRow {
    pub(super) id: String,
    pub(super) name: String,
    pub(super) website: Option<String>,
    pub(super) contact_email: Option<String>,
    pub(super) description: Option<String>,
    pub(super) logo: Option<String>,
    pub(super) created_at: i64,
    pub(super) updated_at: i64,
    pub(super) require_two_factor: bool,
}

impl OrgRow {
    /// `org` as stored: its logo by its key when it is one of this portal's images.
    pub(super) fn from_domain(org: &Organization, links: &ImageLinks) -> Self {
        Self {
            id: org.id.to_string(),
            name: org.name.clone(),
            website: org.profile.website.clone(),
            contact_email: org.profile.contact_email.as_ref().map(ToString::to_string),
            description: org.profile.description.clone(),
            logo: org.profile.logo.as_deref().map(|logo| links.stored(logo)),
            created_at: to_millis(org.created_at),
            updated_at: to_millis(org.updated_at),
            require_two_factor: org.require_two_factor,
        }
    }

    /// The stored organization, its logo at today's address.
    pub(super) fn into_domain(self, links: &ImageLinks) -> Result<Organization, RepoError> {
        Ok(Organization {
            id: parse_stored("organizations.id", &self.id, str::parse::<OrgId>)?,
            name: self.name,
            profile: OrgProfile {
                website: self.website,
                contact_email: self
                    .contact_email
                    .map(|text| parse_stored("organizations.contact_email", &text, EmailAddress::parse))
                    .transpose()?,
                description: self.description,
                logo: self.logo.as_deref().map(|logo| links.delivered(logo)),
            },
            require_two_factor: self.require_two_factor,
            created_at: from_millis(self.created_at)?,
            updated_at: from_millis(self.updated_at)?,
        })
    }
}

/// One row of `org_members`.
#[derive(Debug, Insertable)]
#[diesel(table_name = org_members)]
pub(super) struct NewMemberRow {
    org_id: String,
    user_id: String,
    role: &'static str,
    joined_at: i64,
}

impl NewMemberRow {
    pub(super) fn new(org: OrgId, member: &Member, role: OrgRole) -> Self {
        Self {
            org_id: org.to_string(),
            user_id: member.user_id.to_string(),
            role: role.code(),
            joined_at: to_millis(member.joined_at),
        }
    }
}

/// A member row joined with the account's address, and whether the account has a verified second factor:
/// `(user_id, role, joined_at, email, has_two_factor)`.
pub(super) type MemberTuple = (String, String, i64, String, protection::ProtectionRow);

pub(super) fn member_from(row: MemberTuple) -> Result<Member, RepoError> {
    let (user_id, role, joined_at, email, protection) = row;
    Ok(Member {
        user_id: parse_stored("org_members.user_id", &user_id, str::parse::<UserId>)?,
        email: parse_stored("accounts.email", &email, EmailAddress::parse)?,
        role: parse_role(&role)?,
        joined_at: from_millis(joined_at)?,
        has_two_factor: protection::from_row(protection).is_protected(),
    })
}

pub(in crate::repos) fn parse_role(text: &str) -> Result<OrgRole, RepoError> {
    parse_stored("org_members.role", text, |t| {
        OrgRole::parse(t).ok_or("unknown role")
    })
}
