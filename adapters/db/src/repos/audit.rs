//! The audit log (`audit_log`): appended by the repository that writes each change, in that change's
//! transaction (`record_and_queue_events`); read and pruned here. No method updates a row.

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use diesel::prelude::*;
use domain::audit::ports::AuditLog;
use domain::audit::{
    AuditAction, AuditCursor, AuditEntry, AuditEntryId, AuditFilter, AuditPage, AuditScope, AuditTarget,
    AuditTargetKind,
};
use domain::common::{OrgId, RepoError, UserId};

use crate::convert::{backend, db_error, from_json, from_millis, parse_stored, to_json, to_millis};
use crate::schema::{accounts, apps, audit_log, organizations, webhook_endpoints};
use crate::{Db, DbConnection};
use domain::webhooks::payload::may_cause_events;
use std::collections::HashMap;

/// One stored entry.
#[derive(Debug, Queryable, Selectable, Insertable)]
#[diesel(table_name = audit_log)]
struct AuditRow {
    id: String,
    at: i64,
    org_id: Option<String>,
    platform: bool,
    actor_id: Option<String>,
    actor_email: String,
    action: String,
    target_kind: Option<String>,
    target_id: Option<String>,
    target_label: Option<String>,
    changes: String,
    client_ip: Option<String>,
    user_agent: Option<String>,
    via_token: Option<String>,
}

impl AuditRow {
    fn from_entry(entry: &AuditEntry) -> Result<Self, RepoError> {
        Ok(Self {
            id: entry.id.to_string(),
            at: to_millis(entry.at),
            org_id: entry.org_id.map(|org| org.to_string()),
            platform: entry.is_platform(),
            actor_id: entry.actor_id.map(|actor| actor.to_string()),
            actor_email: entry.actor_email.clone(),
            action: entry.action.code().to_owned(),
            target_kind: entry.target.as_ref().map(|t| t.kind.code().to_owned()),
            target_id: entry.target.as_ref().map(|t| t.id.clone()),
            target_label: entry.target.as_ref().and_then(|t| t.label.clone()),
            changes: to_json(&entry.changes)?,
            client_ip: entry.client_ip.clone(),
            user_agent: entry.user_agent.clone(),
            via_token: entry.via_token.clone(),
        })
    }

    fn into_entry(self) -> Result<AuditEntry, RepoError> {
        let target = match (self.target_kind, self.target_id) {
            (Some(kind), Some(id)) => Some(AuditTarget {
                kind: parse_stored("audit_log.target_kind", &kind, |text| {
                    AuditTargetKind::parse(text).ok_or("unknown target kind")
                })?,
                id,
                label: self.target_label,
                deleted: false,
            }),
            _ => None,
        };
        Ok(AuditEntry {
            id: AuditEntryId(parse_stored("audit_log.id", &self.id, uuid::Uuid::parse_str)?),
            at: from_millis(self.at)?,
            org_id: self
                .org_id
                .map(|org| parse_stored("audit_log.org_id", &org, str::parse::<OrgId>))
                .transpose()?,
            actor_id: self
                .actor_id
                .map(|actor| parse_stored("audit_log.actor_id", &actor, str::parse::<UserId>))
                .transpose()?,
            actor_email: self.actor_email,
            action: parse_stored("audit_log.action", &self.action, |text| {
                AuditAction::parse(text).ok_or("unknown action")
            })?,
            target,
            changes: from_json("audit_log.changes", &self.changes)?,
            client_ip: self.client_ip,
            user_agent: self.user_agent,
            via_token: self.via_token,
        })
    }
}

/// The current names of the targets of a page, read with it (PRODUCT.md §9: the log shows names, not ids):
/// apps by package name, organizations by id, members by account id.
#[derive(Debug, Default)]
struct TargetNames {
    apps: HashMap<String, String>,
    orgs: HashMap<String, String>,
    accounts: HashMap<String, String>,
}

impl TargetNames {
    fn of(conn: &mut DbConnection, rows: &[AuditRow]) -> Result<Self, RepoError> {
        let ids = |kind: AuditTargetKind| -> Vec<String> {
            let mut ids: Vec<String> = rows
                .iter()
                .filter(|row| row.target_kind.as_deref() == Some(kind.code()))
                .filter_map(|row| row.target_id.clone())
                .collect();
            ids.sort_unstable();
            ids.dedup();
            ids
        };
        let (app_ids, org_ids, member_ids) = (
            ids(AuditTargetKind::App),
            ids(AuditTargetKind::Organization),
            ids(AuditTargetKind::Member),
        );
        let mut names = Self::default();
        if !app_ids.is_empty() {
            names.apps = apps::table
                .filter(apps::package_name.eq_any(&app_ids))
                .select((apps::package_name, apps::name))
                .load::<(String, String)>(conn)
                .map_err(backend("naming the apps of audit entries"))?
                .into_iter()
                .collect();
        }
        if !org_ids.is_empty() {
            names.orgs = organizations::table
                .filter(organizations::id.eq_any(&org_ids))
                .select((organizations::id, organizations::name))
                .load::<(String, String)>(conn)
                .map_err(backend("naming the organizations of audit entries"))?
                .into_iter()
                .collect();
        }
        if !member_ids.is_empty() {
            names.accounts = accounts::table
                .filter(accounts::id.eq_any(&member_ids))
                .select((accounts::id, accounts::email))
                .load::<(String, String)>(conn)
                .map_err(backend("naming the members of audit entries"))?
                .into_iter()
                .collect();
        }
        Ok(names)
    }

    /// `entry` with its target's current name as the label; a target that is gone keeps the recorded label
    /// and is marked deleted. Invitations, images, platform accounts and access tokens keep the label they
    /// were recorded with (an address, a file name, a token's name: no row to read a newer one from).
    fn name(&self, mut entry: AuditEntry) -> AuditEntry {
        if let Some(target) = entry.target.as_mut() {
            let known = match target.kind {
                AuditTargetKind::App => Some(&self.apps),
                AuditTargetKind::Organization => Some(&self.orgs),
                AuditTargetKind::Member => Some(&self.accounts),
                AuditTargetKind::Invitation
                | AuditTargetKind::Image
                | AuditTargetKind::Account
                | AuditTargetKind::AccessToken
                | AuditTargetKind::Webhook => None,
            };
            if let Some(known) = known {
                match known.get(&target.id) {
                    Some(name) => target.label = Some(name.clone()),
                    None => target.deleted = true,
                }
            }
        }
        entry
    }
}

/// Appends `entries` to the audit log, and queues the webhook events they cause
/// (`webhooks::rows::enqueue_for_entry`); call it inside the `db.write` closure of the change they record,
/// so that they commit or roll back with it.
///
/// # Errors
/// [`RepoError::Duplicate`]`("audit_entry_id")` when an id exists; [`RepoError::Backend`] otherwise.
pub(crate) fn record_and_queue_events(
    conn: &mut DbConnection,
    entries: &[AuditEntry],
) -> Result<(), RepoError> {
    // One statement per entry (diesel's multi-backend connection has no batch insert); a change records
    // one entry, a move two.
    for entry in entries {
        let insert = diesel::insert_into(audit_log::table).values(AuditRow::from_entry(entry)?);
        let stored = db_error("recording an audit entry", "audit_entry_id");
        // An entry that may cause webhook events (issue 38) asks, in the same statement, how many enabled
        // endpoints its organization has: most have none, and their change then reads nothing more.
        match entry.org_id.filter(|_| may_cause_events(entry)) {
            None => insert.execute(conn).map(drop).map_err(stored)?,
            Some(org) => {
                let endpoints = webhook_endpoints::table
                    .filter(webhook_endpoints::org_id.eq(org.to_string()))
                    .filter(webhook_endpoints::enabled.eq(true))
                    .count()
                    .single_value();
                let enabled: Option<i64> = insert.returning(endpoints).get_result(conn).map_err(stored)?;
                if enabled.unwrap_or(0) > 0 {
                    super::webhooks::rows::enqueue_for_entry(conn, entry, org)?;
                }
            }
        }
    }
    Ok(())
}

/// Reads the audit log and applies its retention.
#[derive(Debug, Clone)]
pub struct DieselAuditLog {
    db: Db,
}

impl DieselAuditLog {
    #[must_use]
    pub fn new(db: Db) -> Self {
        Self { db }
    }
}

#[async_trait]
impl AuditLog for DieselAuditLog {
    async fn list(
        &self,
        scope: AuditScope,
        filter: &AuditFilter,
        after: Option<AuditCursor>,
        limit: u32,
    ) -> Result<AuditPage, RepoError> {
        let filter = filter.clone();
        let rows = self
            .db
            .read(move |conn| {
                let mut query = audit_log::table.select(AuditRow::as_select()).into_boxed();
                query = match scope {
                    AuditScope::Org(org) => query.filter(audit_log::org_id.eq(org.to_string())),
                    AuditScope::Platform => query.filter(audit_log::platform.eq(true)),
                };
                if let Some(actor) = filter.actor {
                    query = query.filter(audit_log::actor_id.eq(actor.to_string()));
                }
                if let Some(action) = filter.action {
                    query = query.filter(audit_log::action.eq(action.code()));
                }
                if let Some(app) = &filter.app {
                    query = query
                        .filter(audit_log::target_id.eq(app.as_str().to_owned()))
                        .filter(audit_log::target_kind.eq(AuditTargetKind::App.code()));
                }
                if let Some(from) = filter.from {
                    query = query.filter(audit_log::at.ge(to_millis(from)));
                }
                if let Some(to) = filter.to {
                    query = query.filter(audit_log::at.lt(to_millis(to)));
                }
                if let Some(cursor) = after {
                    query = query.filter(
                        audit_log::at.lt(cursor.at_millis).or(audit_log::at
                            .eq(cursor.at_millis)
                            .and(audit_log::id.lt(cursor.id.to_string()))),
                    );
                }
                let rows: Vec<AuditRow> = query
                    .order((audit_log::at.desc(), audit_log::id.desc()))
                    .limit(i64::from(limit) + 1)
                    .load(conn)
                    .map_err(backend("reading the audit log"))?;
                let names = TargetNames::of(conn, &rows)?;
                Ok((rows, names))
            })
            .await?;
        let (rows, names) = rows;
        let mut entries = rows
            .into_iter()
            .map(|row| row.into_entry().map(|entry| names.name(entry)))
            .collect::<Result<Vec<_>, _>>()?;
        let next = if entries.len() > limit as usize {
            entries.truncate(limit as usize);
            entries.last().map(AuditCursor::after)
        } else {
            None
        };
        Ok(AuditPage { entries, next })
    }

    async fn delete_older_than(&self, before: DateTime<Utc>, batch: u32) -> Result<u64, RepoError> {
        let before = to_millis(before);
        self.db
            .write(move |conn| {
                let oldest = audit_log::table
                    .filter(audit_log::at.lt(before))
                    .order(audit_log::at.asc())
                    .select(audit_log::id)
                    .limit(i64::from(batch))
                    .load::<String>(conn)
                    .map_err(backend("finding old audit entries"))?;
                diesel::delete(audit_log::table.filter(audit_log::id.eq_any(&oldest)))
                    .execute(conn)
                    .map_err(backend("removing old audit entries"))
                    .map(|n| n as u64)
            })
            .await
    }
}
