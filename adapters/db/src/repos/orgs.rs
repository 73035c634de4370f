//! Organizations and their members: [`DieselOrgRepository`] (the membership door's reads are
//! [`super::org_directory::DieselMemberDirectory`]).
//!
//! The only-admin guards are compare-and-set inside one write transaction: the change is made, then the
//! admins that remain are counted, and the transaction is rolled back when none does. On PostgreSQL the
//! organization's member rows are locked first (`FOR UPDATE`, in user-id order), so two admins demoting or
//! removing each other at once are serialised and the second sees the first's change; on SQLite
//! [`Db::write`] already lets one writer in at a time.

use super::audit::record_and_queue_events;
use async_trait::async_trait;
use chrono::{DateTime, Utc};
use diesel::prelude::*;
use diesel::result::{DatabaseErrorKind, Error as DieselError};
use domain::audit::AuditEntry;
use domain::common::{EmailAddress, ImageId, OrgId, RepoError, UserId};
use domain::media::ImageLinks;
use domain::orgs::ports::{
    CONFLICT_APPS_REMAIN, CONFLICT_HAS_ORGANIZATION, CONFLICT_LAST_ADMIN, DUPLICATE_MEMBER,
};
use domain::orgs::{Member, OrgContents, OrgMembership, OrgProfile, OrgRepository, OrgRole, Organization};

use crate::connection::on_backend;
use crate::convert::{backend, db_error, from_millis, parse_stored, to_millis};
use crate::schema::{accounts, apps, images, org_invites, org_members, organizations};
use crate::{Db, DbConnection};

/// [`RepoError::Duplicate`] value of [`OrgRepository::create`] when the organization id exists.
const DUPLICATE_ORGANIZATION: &str = "organization";

/// One row of `organizations`.
#[derive(Debug, Queryable, Selectable, Insertable)]
#[diesel(table_name = organizations)]
struct OrgRow {
    id: String,
    name: String,
    website: Option<String>,
    contact_email: Option<String>,
    description: Option<String>,
    logo: Option<String>,
    created_at: i64,
    updated_at: i64,
    require_two_factor: bool,
}

impl OrgRow {
    /// `org` as stored: its logo by its key when it is one of this portal's images.
    fn from_domain(org: &Organization, links: &ImageLinks) -> Self {
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
    fn into_domain(self, links: &ImageLinks) -> Result<Organization, RepoError> {
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
struct NewMemberRow {
    org_id: String,
    user_id: String,
    role: &'static str,
    joined_at: i64,
}

impl NewMemberRow {
    fn new(org: OrgId, member: &Member, role: OrgRole) -> Self {
        Self {
            org_id: org.to_string(),
            user_id: member.user_id.to_string(),
            role: role.as_str(),
            joined_at: to_millis(member.joined_at),
        }
    }
}

/// A member row joined with the account's address, and whether the account has a verified second factor:
/// `(user_id, role, joined_at, email, has_two_factor)`.
type MemberTuple = (String, String, i64, String, super::protection::ProtectionRow);

fn member_from(row: MemberTuple) -> Result<Member, RepoError> {
    let (user_id, role, joined_at, email, protection) = row;
    Ok(Member {
        user_id: parse_stored("org_members.user_id", &user_id, str::parse::<UserId>)?,
        email: parse_stored("accounts.email", &email, EmailAddress::parse)?,
        role: parse_role(&role)?,
        joined_at: from_millis(joined_at)?,
        has_two_factor: super::protection::from_row(protection).is_protected(),
    })
}

/// Which part of an organization a row of [`DieselOrgRepository::contents`]'s statement holds (its first
/// column, and the first key of the statement's order).
const PART_ORGANIZATION: i32 = 0;
const PART_MEMBER: i32 = 1;
const PART_INVITE: i32 = 2;

/// One row of the organization's read ([`OrgRepository::contents`]): the organization, one member or one
/// open invitation, as `part` says; the three `SELECT`s of its `UNION ALL` fill the columns as the comments
/// say (organization | member | invitation; `—` is `NULL`, or `false` for the flags).
#[derive(Debug, Queryable)]
struct ContentsRow {
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
    /// (`organizations.require_two_factor`, —, —) | the member's protection ([`super::protection::protection!`]) | —
    flags: super::protection::ProtectionRow,
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
        super::invites::InviteRow {
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

pub(super) fn parse_role(text: &str) -> Result<OrgRole, RepoError> {
    parse_stored("org_members.role", text, |t| {
        OrgRole::parse(t).ok_or("unknown role")
    })
}

/// Inserts a member; the member row's unique key and foreign keys give the documented errors.
///
/// # Errors
/// [`RepoError::Duplicate`]`("member")` when the user is already a member; [`RepoError::NotFound`] when the
/// organization or the account does not exist.
pub(crate) fn insert_member(
    conn: &mut DbConnection,
    org: OrgId,
    member: &Member,
    role: OrgRole,
) -> Result<(), RepoError> {
    diesel::insert_into(org_members::table)
        .values(NewMemberRow::new(org, member, role))
        .execute(conn)
        .map_err(db_error("inserting an organization member", DUPLICATE_MEMBER))?;
    Ok(())
}

fn insert_org_with_admin(
    conn: &mut DbConnection,
    org: &Organization,
    admin: &Member,
    links: &ImageLinks,
) -> Result<(), RepoError> {
    diesel::insert_into(organizations::table)
        .values(OrgRow::from_domain(org, links))
        .execute(conn)
        .map_err(db_error("inserting an organization", DUPLICATE_ORGANIZATION))?;
    insert_member(conn, org.id, admin, OrgRole::Admin)
}

/// PostgreSQL: locks the organization's member rows until the transaction ends (SQLite: nothing to do, one
/// writer at a time).
fn lock_members(conn: &mut DbConnection, org: &str) -> Result<(), RepoError> {
    if let DbConnection::Postgres(pg) = conn {
        org_members::table
            .filter(org_members::org_id.eq(org))
            .order(org_members::user_id)
            .select(org_members::user_id)
            .for_update()
            .load::<String>(pg)
            .map_err(backend("locking the organization's members"))?;
    }
    Ok(())
}

pub(super) fn role_in(conn: &mut DbConnection, org: &str, user: &str) -> Result<Option<OrgRole>, RepoError> {
    on_backend!(conn, c => org_members::table
        .filter(org_members::org_id.eq(org))
        .filter(org_members::user_id.eq(user))
        .select(org_members::role)
        .first::<String>(c)
        .optional())
    .map_err(backend("reading a member's role"))?
    .map(|role| parse_role(&role))
    .transpose()
}

fn admin_count(conn: &mut DbConnection, org: &str) -> Result<i64, RepoError> {
    org_members::table
        .filter(org_members::org_id.eq(org))
        .filter(org_members::role.eq(OrgRole::Admin.as_str()))
        .count()
        .get_result(conn)
        .map_err(backend("counting the organization's admins"))
}

/// The guard after a change: when `previous` was admin, at least one admin must remain.
fn ensure_an_admin_remains(conn: &mut DbConnection, org: &str, previous: OrgRole) -> Result<(), RepoError> {
    if previous == OrgRole::Admin && admin_count(conn, org)? == 0 {
        return Err(RepoError::Conflict(CONFLICT_LAST_ADMIN.to_owned()));
    }
    Ok(())
}

/// [`OrgRepository`] on `organizations` and `org_members`.
#[derive(Debug, Clone)]
pub struct DieselOrgRepository {
    db: Db,
}

impl DieselOrgRepository {
    #[must_use]
    pub fn new(db: Db) -> Self {
        Self { db }
    }
}

#[async_trait]
impl OrgRepository for DieselOrgRepository {
    /// The first member is stored as an admin whatever role `first_admin` carries.
    async fn create(
        &self,
        org: &Organization,
        first_admin: &Member,
        audit: &AuditEntry,
    ) -> Result<(), RepoError> {
        let (org, admin, audit) = (org.clone(), first_admin.clone(), audit.clone());
        let links = self.db.image_links().clone();
        self.db
            .write(move |conn| {
                insert_org_with_admin(conn, &org, &admin, &links)?;
                record_and_queue_events(conn, std::slice::from_ref(&audit))
            })
            .await
    }

    /// Serialised per user: PostgreSQL locks the user's account row first; SQLite has one writer at a time.
    async fn create_personal(
        &self,
        org: &Organization,
        first_admin: &Member,
        audit: &AuditEntry,
    ) -> Result<(), RepoError> {
        let (org, admin, audit) = (org.clone(), first_admin.clone(), audit.clone());
        let links = self.db.image_links().clone();
        self.db
            .write(move |conn| {
                let user = admin.user_id.to_string();
                if let DbConnection::Postgres(pg) = conn {
                    accounts::table
                        .filter(accounts::id.eq(&user))
                        .select(accounts::id)
                        .for_no_key_update()
                        .load::<String>(pg)
                        .map_err(backend("locking the account"))?;
                }
                let memberships: i64 = org_members::table
                    .filter(org_members::user_id.eq(&user))
                    .count()
                    .get_result(conn)
                    .map_err(backend("counting the user's organizations"))?;
                if memberships > 0 {
                    return Err(RepoError::Conflict(CONFLICT_HAS_ORGANIZATION.to_owned()));
                }
                insert_org_with_admin(conn, &org, &admin, &links)?;
                record_and_queue_events(conn, std::slice::from_ref(&audit))
            })
            .await
    }

    async fn get(&self, org: OrgId) -> Result<Option<Organization>, RepoError> {
        let links = self.db.image_links().clone();
        self.db
            .read(move |conn| {
                organizations::table
                    .find(org.to_string())
                    .select(OrgRow::as_select())
                    .first(conn)
                    .optional()
                    .map_err(backend("reading an organization"))?
                    .map(|row| row.into_domain(&links))
                    .transpose()
            })
            .await
    }

    /// One statement: the organization's row, its members and its open invitations as the three `SELECT`s
    /// of a `UNION ALL` ([`ContentsRow`]), in the order of `members` and `pending` (part, then when, then
    /// id), on one connection handed off once.
    async fn contents(&self, org: OrgId) -> Result<Option<OrgContents>, RepoError> {
        use diesel::query_dsl::positional_order_dsl::PositionalOrderDsl;
        use diesel::sql_types::{BigInt, Bool, Integer, Nullable, Text};
        let links = self.db.image_links().clone();
        self.db
            .read(move |conn| {
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
                                super::protection::protection!(org_members::user_id),
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
                let organization = first.into_organization(&links)?;
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
            })
            .await
    }

    async fn list_for_user(&self, user: UserId) -> Result<Vec<OrgMembership>, RepoError> {
        let links = self.db.image_links().clone();
        self.db
            .read(move |conn| {
                let rows: Vec<(OrgRow, String)> = org_members::table
                    .inner_join(organizations::table)
                    .filter(org_members::user_id.eq(user.to_string()))
                    .order((org_members::joined_at, org_members::org_id))
                    .select((OrgRow::as_select(), org_members::role))
                    .load(conn)
                    .map_err(backend("listing the user's organizations"))?;
                rows.into_iter()
                    .map(|(org, role)| {
                        Ok(OrgMembership {
                            organization: org.into_domain(&links)?,
                            role: parse_role(&role)?,
                        })
                    })
                    .collect()
            })
            .await
    }

    async fn update_profile(
        &self,
        org: OrgId,
        name: &str,
        profile: &OrgProfile,
        now: DateTime<Utc>,
        audit: &AuditEntry,
    ) -> Result<Organization, RepoError> {
        let (name, profile, audit) = (name.to_owned(), profile.clone(), audit.clone());
        let links = self.db.image_links().clone();
        self.db
            .write(move |conn| {
                let id = org.to_string();
                let changed = diesel::update(organizations::table.find(&id))
                    .set((
                        organizations::name.eq(&name),
                        organizations::website.eq(&profile.website),
                        organizations::contact_email
                            .eq(profile.contact_email.as_ref().map(EmailAddress::as_str)),
                        organizations::description.eq(&profile.description),
                        organizations::logo.eq(profile.logo.as_deref().map(|logo| links.stored(logo))),
                        organizations::updated_at.eq(to_millis(now)),
                    ))
                    .execute(conn)
                    .map_err(backend("updating an organization's profile"))?;
                if changed == 0 {
                    return Err(RepoError::NotFound);
                }
                record_and_queue_events(conn, std::slice::from_ref(&audit))?;
                organizations::table
                    .find(&id)
                    .select(OrgRow::as_select())
                    .first(conn)
                    .map_err(backend("reading the updated organization"))?
                    .into_domain(&links)
            })
            .await
    }

    async fn set_two_factor_requirement(
        &self,
        org: OrgId,
        required: bool,
        now: DateTime<Utc>,
        audit: &AuditEntry,
    ) -> Result<Organization, RepoError> {
        let audit = audit.clone();
        let links = self.db.image_links().clone();
        self.db
            .write(move |conn| {
                let id = org.to_string();
                let changed = diesel::update(organizations::table.find(&id))
                    .set((
                        organizations::require_two_factor.eq(required),
                        organizations::updated_at.eq(to_millis(now)),
                    ))
                    .execute(conn)
                    .map_err(backend("setting an organization's second-factor requirement"))?;
                if changed == 0 {
                    return Err(RepoError::NotFound);
                }
                record_and_queue_events(conn, std::slice::from_ref(&audit))?;
                organizations::table
                    .find(&id)
                    .select(OrgRow::as_select())
                    .first(conn)
                    .map_err(backend("reading the updated organization"))?
                    .into_domain(&links)
            })
            .await
    }

    /// PostgreSQL locks the organization row first, so an app inserted concurrently (its foreign key
    /// holds a share lock on that row) is either counted or fails on the deleted organization.
    async fn delete(&self, org: OrgId, audit: &AuditEntry) -> Result<Vec<ImageId>, RepoError> {
        let audit = audit.clone();
        self.db
            .write(move |conn| {
                let id = org.to_string();
                if let DbConnection::Postgres(pg) = conn {
                    organizations::table
                        .find(&id)
                        .select(organizations::id)
                        .for_update()
                        .load::<String>(pg)
                        .map_err(backend("locking the organization"))?;
                }
                let owned_apps: i64 = apps::table
                    .filter(apps::org_id.eq(&id))
                    .count()
                    .get_result(conn)
                    .map_err(backend("counting the organization's apps"))?;
                if owned_apps > 0 {
                    return Err(RepoError::Conflict(CONFLICT_APPS_REMAIN.to_owned()));
                }
                // The image rows go with the organization (its profile logo, images of apps it had); their ids
                // are answered so that the files go too.
                let image_ids: Vec<String> = images::table
                    .filter(images::org_id.eq(&id))
                    .select(images::id)
                    .load(conn)
                    .map_err(backend("listing the organization's images"))?;
                let image_ids = image_ids
                    .iter()
                    .map(|text| parse_stored("images.id", text, str::parse::<ImageId>))
                    .collect::<Result<Vec<_>, _>>()?;
                diesel::delete(images::table.filter(images::org_id.eq(&id)))
                    .execute(conn)
                    .map_err(backend("deleting the organization's image rows"))?;
                diesel::delete(org_invites::table.filter(org_invites::org_id.eq(&id)))
                    .execute(conn)
                    .map_err(backend("deleting the organization's invitations"))?;
                diesel::delete(org_members::table.filter(org_members::org_id.eq(&id)))
                    .execute(conn)
                    .map_err(backend("deleting the organization's members"))?;
                // Only `apps` refers to an organization without cascading: a foreign-key violation here is an
                // app that appeared meanwhile.
                let deleted = diesel::delete(organizations::table.find(&id))
                    .execute(conn)
                    .map_err(|error| match error {
                        DieselError::DatabaseError(DatabaseErrorKind::ForeignKeyViolation, _) => {
                            RepoError::Conflict(CONFLICT_APPS_REMAIN.to_owned())
                        }
                        other => RepoError::backend("deleting an organization", other),
                    })?;
                if deleted == 0 {
                    return Err(RepoError::NotFound);
                }
                record_and_queue_events(conn, std::slice::from_ref(&audit))?;
                Ok(image_ids)
            })
            .await
    }

    async fn members(&self, org: OrgId) -> Result<Vec<Member>, RepoError> {
        self.db
            .read(move |conn| {
                let rows: Vec<MemberTuple> = on_backend!(conn, c => org_members::table
                    .inner_join(accounts::table)
                    .filter(org_members::org_id.eq(org.to_string()))
                    .order((org_members::joined_at, org_members::user_id))
                    .select((
                        org_members::user_id,
                        org_members::role,
                        org_members::joined_at,
                        accounts::email,
                        super::protection::protection!(org_members::user_id),
                    ))
                    .load(c))
                .map_err(backend("listing the organization's members"))?;
                rows.into_iter().map(member_from).collect()
            })
            .await
    }

    async fn add_member(&self, org: OrgId, member: &Member) -> Result<(), RepoError> {
        let member = member.clone();
        self.db
            .write(move |conn| insert_member(conn, org, &member, member.role))
            .await
    }

    async fn set_role(
        &self,
        org: OrgId,
        user: UserId,
        role: OrgRole,
        audit: &AuditEntry,
    ) -> Result<(), RepoError> {
        let audit = audit.clone();
        self.db
            .write(move |conn| {
                let (org, user) = (org.to_string(), user.to_string());
                lock_members(conn, &org)?;
                let previous = role_in(conn, &org, &user)?.ok_or(RepoError::NotFound)?;
                diesel::update(
                    org_members::table
                        .filter(org_members::org_id.eq(&org))
                        .filter(org_members::user_id.eq(&user)),
                )
                .set(org_members::role.eq(role.as_str()))
                .execute(conn)
                .map_err(backend("changing a member's role"))?;
                ensure_an_admin_remains(conn, &org, previous)?;
                record_and_queue_events(conn, std::slice::from_ref(&audit))
            })
            .await
    }

    async fn remove_member(&self, org: OrgId, user: UserId, audit: &AuditEntry) -> Result<(), RepoError> {
        let audit = audit.clone();
        self.db
            .write(move |conn| {
                let (org, user) = (org.to_string(), user.to_string());
                lock_members(conn, &org)?;
                let previous = role_in(conn, &org, &user)?.ok_or(RepoError::NotFound)?;
                diesel::delete(
                    org_members::table
                        .filter(org_members::org_id.eq(&org))
                        .filter(org_members::user_id.eq(&user)),
                )
                .execute(conn)
                .map_err(backend("removing a member"))?;
                ensure_an_admin_remains(conn, &org, previous)?;
                record_and_queue_events(conn, std::slice::from_ref(&audit))
            })
            .await
    }
}
