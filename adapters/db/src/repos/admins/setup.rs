//! The setup link of a portal without an admin (`platform_setup_tokens`): its token replaced, and claimed
//! by the account that becomes the first admin.

use chrono::{DateTime, Utc};
use diesel::prelude::*;
use domain::audit::AuditEntry;
use domain::common::{PlatformRole, RepoError, UserId};
use domain::identity::models::{PlatformAdmin, SetupClaim};
use uuid::Uuid;

use super::stored::{AdminRow, lock_for_change};
use crate::DbConnection;
use crate::convert::{backend, db_error, to_millis};
use crate::repos::audit::record_and_queue_events;
use crate::schema::{accounts, platform_admins, platform_setup_tokens};

/// Whether an account holds the `admin` role (a pending role is nobody's).
fn admin_exists(conn: &mut DbConnection) -> Result<bool, RepoError> {
    let bound_admins: i64 = platform_admins::table
        .filter(platform_admins::user_id.is_not_null())
        .filter(platform_admins::role.eq(PlatformRole::Admin.code()))
        .count()
        .get_result(conn)
        .map_err(backend("counting the platform admins"))?;
    Ok(bound_admins > 0)
}

fn remove_setup_tokens(conn: &mut DbConnection) -> Result<(), RepoError> {
    diesel::delete(platform_setup_tokens::table)
        .execute(conn)
        .map_err(backend("removing the setup tokens"))
        .map(drop)
}

/// Makes the account `user` an `admin` (raising the role it holds, if any); answers the entry as listed.
fn make_admin(conn: &mut DbConnection, user: &str, now: DateTime<Utc>) -> Result<PlatformAdmin, RepoError> {
    let account_email: Option<String> = accounts::table
        .find(user)
        .select(accounts::email)
        .first(conn)
        .optional()
        .map_err(backend("reading the account of the setup link"))?;
    let Some(account_email) = account_email else {
        return Err(RepoError::NotFound);
    };
    let held: Option<AdminRow> = platform_admins::table
        .filter(platform_admins::user_id.eq(user))
        .select(AdminRow::as_select())
        .first(conn)
        .optional()
        .map_err(backend("reading a platform role"))?;
    if let Some(held) = held {
        diesel::update(platform_admins::table.find(&held.id))
            .set((
                platform_admins::role.eq(PlatformRole::Admin.code()),
                platform_admins::added_by.eq(&account_email),
            ))
            .execute(conn)
            .map_err(backend("changing a platform role"))?;
        return AdminRow {
            role: PlatformRole::Admin.code().to_owned(),
            added_by: Some(account_email.clone()),
            ..held
        }
        .into_domain(Some(account_email));
    }
    // Added by the admin's own use of the setup link (`PlatformAdmin::added_through`).
    let row = AdminRow {
        id: Uuid::new_v4().to_string(),
        email: account_email.clone(),
        user_id: Some(user.to_owned()),
        role: PlatformRole::Admin.code().to_owned(),
        added_at: to_millis(now),
        added_by: Some(account_email),
    };
    diesel::insert_into(platform_admins::table)
        .values(&row)
        .execute(conn)
        .map_err(db_error("adding a platform admin", "platform_admin"))?;
    row.into_domain(None)
}

/// Stores the one setup token, removing any other, unless an admin exists (then `false`).
pub(super) fn replace_token(
    conn: &mut DbConnection,
    token_hash: &str,
    expires_at: DateTime<Utc>,
) -> Result<bool, RepoError> {
    lock_for_change(conn)?;
    remove_setup_tokens(conn)?;
    if admin_exists(conn)? {
        return Ok(false);
    }
    diesel::insert_into(platform_setup_tokens::table)
        .values((
            platform_setup_tokens::token_hash.eq(token_hash),
            platform_setup_tokens::expires_at.eq(to_millis(expires_at)),
        ))
        .execute(conn)
        .map_err(backend("storing the setup token"))?;
    Ok(true)
}

/// Uses the setup token: the account `user` becomes an admin when no admin exists yet.
pub(super) fn claim_token(
    conn: &mut DbConnection,
    token_hash: &str,
    user: UserId,
    now: DateTime<Utc>,
    audit: &AuditEntry,
) -> Result<SetupClaim, RepoError> {
    // Serialises with grants and with other claims: of two uses of one token, one deletes it.
    lock_for_change(conn)?;
    let used = diesel::delete(
        platform_setup_tokens::table
            .filter(platform_setup_tokens::token_hash.eq(token_hash))
            .filter(platform_setup_tokens::expires_at.gt(to_millis(now))),
    )
    .execute(conn)
    .map_err(backend("using the setup token"))?;
    if used == 0 {
        return Ok(SetupClaim::Invalid);
    }
    if admin_exists(conn)? {
        remove_setup_tokens(conn)?;
        return Ok(SetupClaim::AdminExists);
    }
    remove_setup_tokens(conn)?;
    let admin = make_admin(conn, &user.to_string(), now)?;
    record_and_queue_events(conn, std::slice::from_ref(audit))?;
    Ok(SetupClaim::Granted(admin))
}
