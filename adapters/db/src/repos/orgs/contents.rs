//! The organization's read in one statement ([`domain::orgs::OrgRepository::contents`]): the organization,
//! its members and its open invitations.

use diesel::prelude::*;
use domain::common::{OrgId, RepoError};
use domain::media::ImageLinks;
use domain::orgs::{Member, OrgContents, Organization};

use super::stored::{OrgRow, member_from};
use crate::DbConnection;
use crate::connection::on_backend;
use crate::convert::backend;
use crate::repos::protection;
use crate::schema::{accounts, org_invites, org_members, organizations};

/// Which part of an organization a row of [`domain::orgs::OrgRepository::contents`]'s statement holds (its
/// first column, and the first key of the statement's order).
const PART_ORGANIZATION: i32 = 0;
const PART_MEMBER: i32 = 1;
const PART_INVITE: i32 = 2;

/// One row of the organization's read ([`domain::orgs::OrgRepository::contents`]): the organization, one
/// member or one open invitation, as `part` says; the three `SELECT`s of its `UNION ALL` fill the columns as
/// the comments say (organization | member | invitation; `—` is `NULL`, or `false` for the flags).
#[derive(Debug, Queryable)]
pub(super) struct ContentsRow {
    part: i32,
    /// `organizations.id` | `org_members.user_id` | `org_invites.id`
    id: String,
    /// `organizations.name` | `accounts.email` | `org_invites.email`
    name_or_email: String,
    /// `organizations.website` | `org_members.role` | `org_invites.role`
    text1: Option<String>,
    /// `organizations.contact_email` | — | `org_invites.token_hash`
    text2: Option<String>,
    /// `organizations.description` | — | `org_invites.invited_by`
    text3: Option<String>,
    /// `organizations.logo` | — | —
    text4: Option<String>,
    /// `organizations.created_at` | `org_members.joined_at` | `org_invites.invited_at`
    at: i64,
    /// `organizations.updated_at` | — | `org_invites.expires_at`
    until: Option<i64>,
    /// — | — | `org_invites.email_sent_count`
    count: Option<i32>,
    /// (`organizations.require_two_factor`, —, —) | the member's protection ([`protection::protection!`]) | —
    flags: protection::ProtectionRow,
}

/// A column that the row's part always fills.
fn filled<T>(column: &'static str, value: Option<T>) -> Result<T, RepoError> {
    value.ok_or_else(|| RepoError::backend("reading an organization", format!("{column} is NULL")))
}

impl ContentsRow {
    fn into_organization(self, links: &ImageLinks) -> Result<Organization, RepoError> {
        OrgRow {
            id: self.id,
            name: self.name_or_email,
            website: self.text1,
            contact_email: self.text2,
            description: self.text3,
            logo: self.text4,
            created_at: self.at,
            updated_at: filled("organizations.updated_at", self.until)?,
            require_two_factor: self.flags.0,
        }
        .into_domain(links)
    }

    fn into_member(self) -> Result<Member, RepoError> {
        let role = filled("org_members.role", self.text1)?;
        member_from((self.id, role, self.at, self.name_or_email, self.flags))
    }

    fn into_invite(self, org: OrgId) -> Result<domain::orgs::Invite, RepoError> {
        crate::repos::invites::InviteRow {
            id: self.id,
            org_id: org.to_string(),
            email: self.name_or_email,
            role: filled("org_invites.role", self.text1)?,
            token_hash: filled("org_invites.token_hash", self.text2)?,
            invited_by: filled("org_invites.invited_by", self.text3)?,
            invited_at: self.at,
            expires_at: filled("org_invites.expires_at", self.until)?,
            email_sent_count: filled("org_invites.email_sent_count", self.count)?,
            // Only open invitations are read.
            accepted_at: None,
            accepted_by: None,
            cancelled_at: None,
        }
        .into_domain()
    }
}

/// One statement: the organization's row, its members and its open invitations as the three `SELECT`s
/// of a `UNION ALL` ([`ContentsRow`]), in the order of `members` and `pending` (part, then when, then
/// id).
pub(super) fn read(
    conn: &mut DbConnection,
    org: OrgId,
    links: &ImageLinks,
) -> Result<Option<OrgContents>, RepoError> {
    use diesel::query_dsl::positional_order_dsl::PositionalOrderDsl;
    use diesel::sql_types::{BigInt, Bool, Integer, Nullable, Text};
    let id = org.to_string();
    let none_text = || None::<String>.into_sql::<Nullable<Text>>();
    let no = || false.into_sql::<Bool>();
    let rows: Vec<ContentsRow> = on_backend!(conn, c => organizations::table
        .filter(organizations::id.eq(&id))
        .select((
            PART_ORGANIZATION.into_sql::<Integer>(),
            organizations::id,
            organizations::name,
            organizations::website,
            organizations::contact_email,
            organizations::description,
            organizations::logo,
            organizations::created_at,
            organizations::updated_at.nullable(),
            None::<i32>.into_sql::<Nullable<Integer>>(),
            (organizations::require_two_factor, no(), no()),
        ))
        .union_all(
            org_members::table
                .inner_join(accounts::table)
                .filter(org_members::org_id.eq(&id))
                .select((
                    PART_MEMBER.into_sql::<Integer>(),
                    org_members::user_id,
                    accounts::email,
                    org_members::role.nullable(),
                    none_text(),
                    none_text(),
                    none_text(),
                    org_members::joined_at,
                    None::<i64>.into_sql::<Nullable<BigInt>>(),
                    None::<i32>.into_sql::<Nullable<Integer>>(),
                    protection::protection!(org_members::user_id),
                )),
        )
        .union_all(
            org_invites::table
                .filter(org_invites::org_id.eq(&id))
                .filter(org_invites::accepted_at.is_null())
                .filter(org_invites::cancelled_at.is_null())
                .select((
                    PART_INVITE.into_sql::<Integer>(),
                    org_invites::id,
                    org_invites::email,
                    org_invites::role.nullable(),
                    org_invites::token_hash.nullable(),
                    org_invites::invited_by.nullable(),
                    none_text(),
                    org_invites::invited_at,
                    org_invites::expires_at.nullable(),
                    org_invites::email_sent_count.nullable(),
                    (no(), no(), no()),
                )),
        )
        // part, then joined_at / invited_at, then user id / invitation id.
        .positional_order_by((1, 8, 2))
        .load::<ContentsRow>(c))
    .map_err(backend(
        "reading an organization with its members and invitations",
    ))?;
    let mut rows = rows.into_iter().peekable();
    let Some(first) = rows.next_if(|row| row.part == PART_ORGANIZATION) else {
        return Ok(None);
    };
    let organization = first.into_organization(links)?;
    let mut members = Vec::new();
    let mut pending_invites = Vec::new();
    for row in rows {
        match row.part {
            PART_MEMBER => members.push(row.into_member()?),
            PART_INVITE => pending_invites.push(row.into_invite(org)?),
            other => {
                return Err(RepoError::backend(
                    "reading an organization",
                    format!("a row of unknown part {other}"),
                ));
            }
        }
    }
    Ok(Some(OrgContents {
        organization,
        members,
        pending_invites,
    }))
}
