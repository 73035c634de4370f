//! Organization invitations (`org_invites`): [`DieselInviteRepository`].
//!
//! At most one *open* (neither accepted nor cancelled) invitation exists per organization and address: the
//! partial unique index `org_invites_one_open_per_email` enforces it, so two concurrent invitations of one
//! address end with one [`RepoError::Duplicate`]. Every write that sends an e-mail queues it with
//! [`enqueue_emails`] in the same transaction.

use super::audit::record_and_queue_events;
use async_trait::async_trait;
use chrono::{DateTime, Utc};
use diesel::prelude::*;
use domain::audit::AuditEntry;
use domain::common::{EmailAddress, InviteId, OrgId, RepoError, UserId};
use domain::mail::OutgoingEmail;
use domain::orgs::invite_limits::MAX_OPEN_INVITES_PER_ORG;
use domain::orgs::ports::{
    CONFLICT_INVITE_CLOSED, CONFLICT_INVITE_EXPIRED, CONFLICT_INVITE_RESENT, CONFLICT_OPEN_INVITES,
    DUPLICATE_INVITE, DUPLICATE_MEMBER,
};
use domain::orgs::{Invite, InviteRepository, Member, OrgRole};

use super::orgs::insert_member;
use super::outbox::enqueue_emails;
use crate::convert::{backend, db_error, from_millis, from_millis_opt, parse_stored, to_millis};
use crate::schema::{org_invites, org_members, organizations};
use crate::{Db, DbConnection};

/// One row of `org_invites`.
#[derive(Debug, Queryable, Selectable, Insertable)]
#[diesel(table_name = org_invites)]
pub(super) struct InviteRow {
    pub(super) id: String,
    pub(super) org_id: String,
    pub(super) email: String,
    pub(super) role: String,
    pub(super) token_hash: String,
    pub(super) invited_by: String,
    pub(super) invited_at: i64,
    pub(super) expires_at: i64,
    pub(super) email_sent_count: i32,
    pub(super) accepted_at: Option<i64>,
    pub(super) accepted_by: Option<String>,
    pub(super) cancelled_at: Option<i64>,
}

impl InviteRow {
    fn from_domain(invite: &Invite) -> Result<Self, RepoError> {
        Ok(Self {
            id: invite.id.to_string(),
            org_id: invite.org_id.to_string(),
            email: invite.email.to_string(),
            role: invite.role.code().to_owned(),
            token_hash: invite.token_hash.clone(),
            invited_by: invite.invited_by.to_string(),
            invited_at: to_millis(invite.invited_at),
            expires_at: to_millis(invite.expires_at),
            email_sent_count: i32::try_from(invite.email_sent_count)
                .map_err(|e| RepoError::backend("storing an invitation's e-mail count", e))?,
            accepted_at: invite.accepted_at.map(to_millis),
            accepted_by: None,
            cancelled_at: invite.cancelled_at.map(to_millis),
        })
    }

    pub(super) fn into_domain(self) -> Result<Invite, RepoError> {
        Ok(Invite {
            id: parse_stored("org_invites.id", &self.id, str::parse::<InviteId>)?,
            org_id: parse_stored("org_invites.org_id", &self.org_id, str::parse::<OrgId>)?,
            email: parse_stored("org_invites.email", &self.email, EmailAddress::parse)?,
            role: parse_stored("org_invites.role", &self.role, |t| {
                OrgRole::parse(t).ok_or("unknown role")
            })?,
            token_hash: self.token_hash,
            invited_by: parse_stored("org_invites.invited_by", &self.invited_by, str::parse::<UserId>)?,
            invited_at: from_millis(self.invited_at)?,
            expires_at: from_millis(self.expires_at)?,
            email_sent_count: u32::try_from(self.email_sent_count)
                .map_err(|e| RepoError::backend("reading the column org_invites.email_sent_count", e))?,
            accepted_at: from_millis_opt(self.accepted_at)?,
            cancelled_at: from_millis_opt(self.cancelled_at)?,
        })
    }
}

/// The open invitation rows of one organization and address (`org_id`, `email`).
macro_rules! open_invites_of {
    ($org:expr, $email:expr) => {
        org_invites::table
            .filter(org_invites::org_id.eq($org))
            .filter(org_invites::email.eq($email))
            .filter(org_invites::accepted_at.is_null())
            .filter(org_invites::cancelled_at.is_null())
    };
}

/// PostgreSQL: takes a key-share lock on the organization row before touching its invitations, so that
/// every transaction locks the organization first, then its invitations (deleting an organization locks
/// its row for update, then deletes the invitations; accepting would otherwise lock an invitation first and
/// then wait on the organization for the new member's foreign key: a deadlock). SQLite: one writer at a
/// time, nothing to do.
fn lock_organization(conn: &mut DbConnection, org: &str) -> Result<(), RepoError> {
    if let DbConnection::Postgres(pg) = conn {
        organizations::table
            .find(org)
            .select(organizations::id)
            .for_key_share()
            .load::<String>(pg)
            .map_err(backend("locking the organization"))?;
    }
    Ok(())
}

fn open_invite(conn: &mut DbConnection, org: &str, email: &str) -> Result<Option<Invite>, RepoError> {
    open_invites_of!(org, email)
        .select(InviteRow::as_select())
        .first(conn)
        .optional()
        .map_err(backend("reading an open invitation"))?
        .map(InviteRow::into_domain)
        .transpose()
}

/// [`InviteRepository`] on `org_invites` (and `email_outbox`, `org_members`).
#[derive(Debug, Clone)]
pub struct DieselInviteRepository {
    db: Db,
}

impl DieselInviteRepository {
    #[must_use]
    pub fn new(db: Db) -> Self {
        Self { db }
    }
}

#[async_trait]
impl InviteRepository for DieselInviteRepository {
    /// An expired open invitation of the address is cancelled at `invite.invited_at`. A missing
    /// organization is [`RepoError::NotFound`].
    async fn create(
        &self,
        invite: &Invite,
        email: &OutgoingEmail,
        audit: &AuditEntry,
    ) -> Result<(), RepoError> {
        let (invite, email, audit) = (invite.clone(), email.clone(), audit.clone());
        self.db
            .write(move |conn| {
                let row = InviteRow::from_domain(&invite)?;
                // The open invitations are counted under the organization's cap lock, taken first.
                super::caps::lock_cap(conn, "org_invites", &row.org_id)?;
                lock_organization(conn, &row.org_id)?;
                let open: i64 = org_invites::table
                    .filter(org_invites::org_id.eq(&row.org_id))
                    .filter(org_invites::accepted_at.is_null())
                    .filter(org_invites::cancelled_at.is_null())
                    .filter(org_invites::expires_at.gt(row.invited_at))
                    .count()
                    .get_result(conn)
                    .map_err(backend("counting the open invitations"))?;
                if usize::try_from(open).unwrap_or(usize::MAX) >= MAX_OPEN_INVITES_PER_ORG {
                    return Err(RepoError::Conflict(CONFLICT_OPEN_INVITES.to_owned()));
                }
                diesel::update(
                    open_invites_of!(&row.org_id, &row.email)
                        .filter(org_invites::expires_at.le(row.invited_at)),
                )
                .set(org_invites::cancelled_at.eq(Some(row.invited_at)))
                .execute(conn)
                .map_err(backend("cancelling an expired invitation"))?;
                diesel::insert_into(org_invites::table)
                    .values(&row)
                    .execute(conn)
                    .map_err(db_error("inserting an invitation", DUPLICATE_INVITE))?;
                enqueue_emails(conn, std::slice::from_ref(&email), invite.invited_at)?;
                record_and_queue_events(conn, std::slice::from_ref(&audit))
            })
            .await
    }

    async fn pending(&self, org: OrgId) -> Result<Vec<Invite>, RepoError> {
        self.db
            .read(move |conn| {
                org_invites::table
                    .filter(org_invites::org_id.eq(org.to_string()))
                    .filter(org_invites::accepted_at.is_null())
                    .filter(org_invites::cancelled_at.is_null())
                    .order((org_invites::invited_at, org_invites::id))
                    .select(InviteRow::as_select())
                    .load(conn)
                    .map_err(backend("listing the pending invitations"))?
                    .into_iter()
                    .map(InviteRow::into_domain)
                    .collect()
            })
            .await
    }

    async fn find_by_token_hash(&self, token_hash: &str) -> Result<Option<Invite>, RepoError> {
        let token_hash = token_hash.to_owned();
        self.db
            .read(move |conn| {
                org_invites::table
                    .filter(org_invites::token_hash.eq(&token_hash))
                    .select(InviteRow::as_select())
                    .first(conn)
                    .optional()
                    .map_err(backend("finding an invitation by its token"))?
                    .map(InviteRow::into_domain)
                    .transpose()
            })
            .await
    }

    #[allow(clippy::too_many_arguments)] // as the port's
    async fn resend(
        &self,
        org: OrgId,
        email: &EmailAddress,
        sent_count_was: u32,
        new_token_hash: &str,
        new_expires_at: DateTime<Utc>,
        now: DateTime<Utc>,
        outgoing: &OutgoingEmail,
        audit: &AuditEntry,
    ) -> Result<Invite, RepoError> {
        let (email, token_hash, outgoing) = (email.clone(), new_token_hash.to_owned(), outgoing.clone());
        let audit = audit.clone();
        self.db
            .write(move |conn| {
                let org = org.to_string();
                let was = i32::try_from(sent_count_was).unwrap_or(i32::MAX);
                let changed = diesel::update(
                    open_invites_of!(&org, email.as_str())
                        .filter(org_invites::expires_at.gt(to_millis(now)))
                        .filter(org_invites::email_sent_count.eq(was)),
                )
                .set((
                    org_invites::token_hash.eq(&token_hash),
                    org_invites::expires_at.eq(to_millis(new_expires_at)),
                    org_invites::email_sent_count.eq(org_invites::email_sent_count + 1),
                ))
                .execute(conn)
                .map_err(backend("resending an invitation"))?;
                if changed == 0 {
                    return Err(match open_invite(conn, &org, email.as_str())? {
                        Some(open) if open.expires_at <= now => {
                            RepoError::Conflict(CONFLICT_INVITE_EXPIRED.to_owned())
                        }
                        Some(_) => RepoError::Conflict(CONFLICT_INVITE_RESENT.to_owned()),
                        None => RepoError::NotFound,
                    });
                }
                let stored = open_invite(conn, &org, email.as_str())?.ok_or(RepoError::NotFound)?;
                enqueue_emails(conn, std::slice::from_ref(&outgoing), now)?;
                record_and_queue_events(conn, std::slice::from_ref(&audit))?;
                Ok(stored)
            })
            .await
    }

    async fn rescind(
        &self,
        org: OrgId,
        email: &EmailAddress,
        now: DateTime<Utc>,
        audit: &AuditEntry,
    ) -> Result<(), RepoError> {
        let (email, audit) = (email.clone(), audit.clone());
        self.db
            .write(move |conn| {
                let changed = diesel::update(open_invites_of!(org.to_string(), email.as_str()))
                    .set(org_invites::cancelled_at.eq(Some(to_millis(now))))
                    .execute(conn)
                    .map_err(backend("cancelling an invitation"))?;
                if changed == 0 {
                    return Err(RepoError::NotFound);
                }
                record_and_queue_events(conn, std::slice::from_ref(&audit))
            })
            .await
    }

    /// The member is added with `member.role`; `accepted_by` is set to `member.user_id`.
    async fn accept(
        &self,
        org: OrgId,
        invite: InviteId,
        token_hash: &str,
        member: &Member,
        audit: &AuditEntry,
    ) -> Result<(), RepoError> {
        let (member, token_hash, audit) = (member.clone(), token_hash.to_owned(), audit.clone());
        self.db
            .write(move |conn| {
                let (org_text, invite_text) = (org.to_string(), invite.to_string());
                lock_organization(conn, &org_text)?;
                let stored: Option<(String, i64, Option<i64>, Option<i64>)> = org_invites::table
                    .filter(org_invites::id.eq(&invite_text))
                    .filter(org_invites::org_id.eq(&org_text))
                    .select((
                        org_invites::token_hash,
                        org_invites::expires_at,
                        org_invites::accepted_at,
                        org_invites::cancelled_at,
                    ))
                    .first(conn)
                    .optional()
                    .map_err(backend("reading an invitation"))?;
                let Some((current_hash, expires_at, accepted_at, cancelled_at)) = stored else {
                    return Err(RepoError::NotFound);
                };
                if accepted_at.is_some() || cancelled_at.is_some() {
                    return Err(RepoError::Conflict(CONFLICT_INVITE_CLOSED.to_owned()));
                }
                if current_hash != token_hash {
                    return Err(RepoError::NotFound);
                }
                if expires_at <= to_millis(member.joined_at) {
                    return Err(RepoError::Conflict(CONFLICT_INVITE_EXPIRED.to_owned()));
                }
                // Compare-and-set on everything just checked: a writer of another process cannot slip in.
                let accepted = diesel::update(
                    org_invites::table
                        .filter(org_invites::id.eq(&invite_text))
                        .filter(org_invites::org_id.eq(&org_text))
                        .filter(org_invites::token_hash.eq(&token_hash))
                        .filter(org_invites::expires_at.gt(to_millis(member.joined_at)))
                        .filter(org_invites::accepted_at.is_null())
                        .filter(org_invites::cancelled_at.is_null()),
                )
                .set((
                    org_invites::accepted_at.eq(Some(to_millis(member.joined_at))),
                    org_invites::accepted_by.eq(Some(member.user_id.to_string())),
                ))
                .execute(conn)
                .map_err(backend("accepting an invitation"))?;
                if accepted == 0 {
                    return Err(RepoError::Conflict(CONFLICT_INVITE_CLOSED.to_owned()));
                }
                let already: i64 = org_members::table
                    .filter(org_members::org_id.eq(&org_text))
                    .filter(org_members::user_id.eq(member.user_id.to_string()))
                    .count()
                    .get_result(conn)
                    .map_err(backend("checking the membership"))?;
                if already > 0 {
                    return Err(RepoError::Duplicate(DUPLICATE_MEMBER));
                }
                insert_member(conn, org, &member, member.role)?;
                record_and_queue_events(conn, std::slice::from_ref(&audit))
            })
            .await
    }
}
