//! Organizations and their members: [`DieselOrgRepository`] (the membership door's reads are
//! [`super::org_directory::DieselMemberDirectory`]).
//!
//! The only-admin guards are compare-and-set inside one write transaction: the change is made, then the
//! admins that remain are counted, and the transaction is rolled back when none does. On PostgreSQL the
//! organization's member rows are locked first (`FOR UPDATE`, in user-id order), so two admins demoting or
//! removing each other at once are serialised and the second sees the first's change; on SQLite
//! [`Db::write`] already lets one writer in at a time.

mod contents;
mod members;
mod stored;

pub(crate) use self::members::insert_member;
pub(super) use self::members::role_in;
pub(super) use self::stored::parse_role;

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use diesel::prelude::*;
use diesel::result::{DatabaseErrorKind, Error as DieselError};
use domain::audit::AuditEntry;
use domain::common::{EmailAddress, ImageId, OrgId, RepoError, UserId};
use domain::media::ImageLinks;
use domain::orgs::ports::{CONFLICT_APPS_REMAIN, CONFLICT_HAS_ORGANIZATION};
use domain::orgs::{Member, OrgContents, OrgMembership, OrgProfile, OrgRepository, OrgRole, Organization};

use self::stored::OrgRow;
use super::audit::record_and_queue_events;
use crate::convert::{backend, db_error, parse_stored, to_millis};
use crate::schema::{accounts, apps, images, org_invites, org_members, organizations};
use crate::{Db, DbConnection};

/// [`RepoError::Duplicate`] value of [`OrgRepository::create`] when the organization id exists.
const DUPLICATE_ORGANIZATION: &str = "organization";

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
    /// of a `UNION ALL` ([`contents::ContentsRow`]), in the order of `members` and `pending` (part, then
    /// when, then id), on one connection handed off once.
    async fn contents(&self, org: OrgId) -> Result<Option<OrgContents>, RepoError> {
        let links = self.db.image_links().clone();
        self.db.read(move |conn| contents::read(conn, org, &links)).await
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
        self.db.read(move |conn| members::list(conn, org)).await
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
            .write(move |conn| members::set_role(conn, org, user, role, &audit))
            .await
    }

    async fn remove_member(&self, org: OrgId, user: UserId, audit: &AuditEntry) -> Result<(), RepoError> {
        let audit = audit.clone();
        self.db
            .write(move |conn| members::remove(conn, org, user, &audit))
            .await
    }
}
