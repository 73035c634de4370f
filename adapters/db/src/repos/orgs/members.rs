//! An organization's members: adding one, listing them, changing a role and removing one, with the
//! only-admin guard (see the parent module).

use diesel::prelude::*;
use domain::audit::AuditEntry;
use domain::common::{OrgId, RepoError, UserId};
use domain::orgs::ports::{CONFLICT_LAST_ADMIN, DUPLICATE_MEMBER};
use domain::orgs::{Member, OrgRole};

use super::stored::{MemberTuple, NewMemberRow, member_from, parse_role};
use crate::DbConnection;
use crate::connection::on_backend;
use crate::convert::{backend, db_error};
use crate::repos::audit::record_and_queue_events;
use crate::repos::protection;
use crate::schema::{accounts, org_members};

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

pub(in crate::repos) fn role_in(
    conn: &mut DbConnection,
    org: &str,
    user: &str,
) -> Result<Option<OrgRole>, RepoError> {
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
        .filter(org_members::role.eq(OrgRole::Admin.code()))
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

/// The organization's members, in the order they joined.
pub(super) fn list(conn: &mut DbConnection, org: OrgId) -> Result<Vec<Member>, RepoError> {
    let rows: Vec<MemberTuple> = on_backend!(conn, c => org_members::table
        .inner_join(accounts::table)
        .filter(org_members::org_id.eq(org.to_string()))
        .order((org_members::joined_at, org_members::user_id))
        .select((
            org_members::user_id,
            org_members::role,
            org_members::joined_at,
            accounts::email,
            protection::protection!(org_members::user_id),
        ))
        .load(c))
    .map_err(backend("listing the organization's members"))?;
    rows.into_iter().map(member_from).collect()
}

/// Changes a member's role, keeping an admin.
pub(super) fn set_role(
    conn: &mut DbConnection,
    org: OrgId,
    user: UserId,
    role: OrgRole,
    audit: &AuditEntry,
) -> Result<(), RepoError> {
    let (org, user) = (org.to_string(), user.to_string());
    lock_members(conn, &org)?;
    let previous = role_in(conn, &org, &user)?.ok_or(RepoError::NotFound)?;
    diesel::update(
        org_members::table
            .filter(org_members::org_id.eq(&org))
            .filter(org_members::user_id.eq(&user)),
    )
    .set(org_members::role.eq(role.code()))
    .execute(conn)
    .map_err(backend("changing a member's role"))?;
    ensure_an_admin_remains(conn, &org, previous)?;
    record_and_queue_events(conn, std::slice::from_ref(audit))
}

/// Removes a member, keeping an admin.
pub(super) fn remove(
    conn: &mut DbConnection,
    org: OrgId,
    user: UserId,
    audit: &AuditEntry,
) -> Result<(), RepoError> {
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
    record_and_queue_events(conn, std::slice::from_ref(audit))
}
