//! Queuing webhook events inside another repository's transaction, so that a change and the events it
//! causes are committed (or rolled back) together: the outbox pattern of the e-mails (`outbox_rows`).

use chrono::{DateTime, Utc};
use diesel::prelude::*;
use domain::audit::AuditEntry;
use domain::audit::AuditTargetKind;
use domain::common::{OrgId, RepoError};
use domain::webhooks::models::message_id;
use domain::webhooks::{DeliveryStatus, EventFilter, EventNames, WebhookEvent, events_of};

use crate::DbConnection;
use crate::convert::{backend, db_error, to_json, to_millis};
use crate::schema::{apps, webhook_deliveries, webhook_endpoints};

/// The enabled endpoints of `org` with their event filters.
fn enabled_endpoints(conn: &mut DbConnection, org: OrgId) -> Result<Vec<(String, EventFilter)>, RepoError> {
    let rows: Vec<(String, String)> = webhook_endpoints::table
        .filter(webhook_endpoints::org_id.eq(org.to_string()))
        .filter(webhook_endpoints::enabled.eq(true))
        .select((webhook_endpoints::id, webhook_endpoints::events))
        .load(conn)
        .map_err(backend("reading the webhook endpoints of an organization"))?;
    Ok(rows
        .into_iter()
        .map(|(id, events)| (id, EventFilter::from_stored(&events)))
        .collect())
}

/// Inserts one pending delivery of `event` to endpoint `endpoint_id`, due at `now`.
pub(crate) fn insert_delivery(
    conn: &mut DbConnection,
    endpoint_id: &str,
    event: &WebhookEvent,
    delivery_id: &str,
    now: DateTime<Utc>,
) -> Result<(), RepoError> {
    let at = to_millis(now);
    diesel::insert_into(webhook_deliveries::table)
        .values((
            webhook_deliveries::id.eq(delivery_id),
            webhook_deliveries::endpoint_id.eq(endpoint_id),
            webhook_deliveries::org_id.eq(event.org_id.to_string()),
            webhook_deliveries::event_type.eq(event.event_type.code()),
            webhook_deliveries::event_at.eq(to_millis(event.at)),
            webhook_deliveries::data.eq(to_json(&event.data)?),
            webhook_deliveries::created_at.eq(at),
            webhook_deliveries::status.eq(DeliveryStatus::Pending.as_str()),
            webhook_deliveries::attempts.eq(0),
            webhook_deliveries::next_attempt_at.eq(Some(at)),
        ))
        .execute(conn)
        .map_err(db_error("queuing a webhook delivery", "webhook_delivery_id"))?;
    Ok(())
}

/// Queues `events` for every enabled endpoint of their organization that wants them, one delivery each,
/// due at once. Call it inside the `db.write` closure of the change that causes them.
///
/// # Errors
/// [`RepoError::Backend`] when a read or insert fails (the caller's transaction then rolls back).
pub fn enqueue(
    conn: &mut DbConnection,
    events: &[WebhookEvent],
    now: DateTime<Utc>,
) -> Result<(), RepoError> {
    let mut endpoints_of: Option<(OrgId, Vec<(String, EventFilter)>)> = None;
    for event in events {
        if endpoints_of.as_ref().is_none_or(|(org, _)| *org != event.org_id) {
            endpoints_of = Some((event.org_id, enabled_endpoints(conn, event.org_id)?));
        }
        let Some((_, endpoints)) = &endpoints_of else {
            continue;
        };
        for (endpoint_id, filter) in endpoints {
            if filter.accepts(event.event_type) {
                let id = message_id(uuid::Uuid::new_v4().as_bytes());
                insert_delivery(conn, endpoint_id, event, &id, now)?;
            }
        }
    }
    Ok(())
}

/// Queues the events the change recorded by `entry` causes in `org` ([`events_of`]); called by the audit
/// log's `append`, so that every change that records an entry queues its events in the same transaction,
/// once that entry's insert has answered that the organization has an enabled endpoint (no read at all
/// otherwise, and none for an entry that cannot cause an event:
/// [`domain::webhooks::payload::may_cause_events`]).
///
/// # Errors
/// As [`enqueue`].
pub(crate) fn enqueue_for_entry(
    conn: &mut DbConnection,
    entry: &AuditEntry,
    org: OrgId,
) -> Result<(), RepoError> {
    debug_assert_eq!(entry.org_id, Some(org));
    let mut names = EventNames::default();
    if let Some(target) = &entry.target
        && target.kind == AuditTargetKind::App
    {
        names.app_name = apps::table
            .find(&target.id)
            .select(apps::name)
            .first::<String>(conn)
            .optional()
            .map_err(backend("reading an app's name for a webhook event"))?;
    }
    enqueue(conn, &events_of(entry, &names), entry.at)
}

/// Queues `app.offline` / `app.online` for the apps whose state flipped from one known state to the other
/// (`(package name, online now, when)`), inside the transaction that records the checks. An app's first
/// check is no event (it was not known before).
///
/// # Errors
/// As [`enqueue`].
pub(crate) fn enqueue_health_flips(
    conn: &mut DbConnection,
    flips: &[(String, bool, DateTime<Utc>)],
) -> Result<(), RepoError> {
    for (package, online, at) in flips {
        let Some((org, name)) = apps::table
            .find(package)
            .select((apps::org_id, apps::name))
            .first::<(String, String)>(conn)
            .optional()
            .map_err(backend("reading an app for a webhook event"))?
        else {
            continue;
        };
        let org = crate::convert::parse_stored("apps.org_id", &org, str::parse::<OrgId>)?;
        if enabled_endpoints(conn, org)?.is_empty() {
            continue;
        }
        let event = domain::webhooks::payload::app_health_event(org, package, Some(name), *online, *at);
        enqueue(conn, std::slice::from_ref(&event), *at)?;
    }
    Ok(())
}
