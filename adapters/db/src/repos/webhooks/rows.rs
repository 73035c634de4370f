//! Queuing webhook events inside another repository's transaction, so that a change and the events it
//! causes are committed (or rolled back) together: the outbox pattern of the e-mails (`outbox_rows`).
//!
//! An endpoint holds at most [`MAX_PENDING_PER_ENDPOINT`] pending deliveries, decided by the inserting
//! statement itself (`INSERT … SELECT … FROM (SELECT count(*) …)`): an event past the bound is stored as not
//! sent (failed, saying why), so that the change it rides with still commits and the delivery log shows it.

use chrono::{DateTime, Utc};
use diesel::prelude::*;
use domain::audit::AuditEntry;
use domain::audit::AuditTargetKind;
use domain::common::{OrgId, RepoError};
use domain::webhooks::models::message_id;
use domain::webhooks::{EventFilter, EventNames, MAX_PENDING_PER_ENDPOINT, WebhookEvent, events_of};

use crate::DbConnection;
use crate::convert::{backend, db_error, to_json, to_millis};
use crate::schema::{apps, webhook_endpoints};

/// Runs a raw statement written with PostgreSQL's numbered parameters (`$1`, `$2`, …) on either backend
/// (SQLite reads them as `?1`, `?2`, …), on the backend's own connection `c`:
/// `on_either!(conn, SQL, |query, c| query.bind::<…>(…).execute(c))`.
macro_rules! on_either {
    ($conn:expr, $sql:expr, |$query:ident, $c:ident| $run:expr) => {
        match $conn {
            $crate::DbConnection::Sqlite($c) => {
                let $query = diesel::sql_query($sql.replace('$', "?"));
                $run
            }
            $crate::DbConnection::Postgres($c) => {
                let $query = diesel::sql_query($sql);
                $run
            }
        }
    };
}
pub(crate) use on_either;

/// What becomes of a delivery for an endpoint whose queue is full.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum WhenFull {
    /// Nothing is inserted (a test sent by hand: the admin is told).
    Refuse,
    /// It is stored as not sent (an event caused by a change, which must still commit).
    RecordNotSent,
}

/// One delivery of `event` to `$2`, pending when the endpoint has fewer than `$8` pending, else not sent
/// (`FAILED` with `$9` as its error) or not inserted at all (`$10` false).
const INSERT_BOUNDED: &str = "INSERT INTO webhook_deliveries \
    (id, endpoint_id, org_id, event_type, event_at, data, created_at, status, attempts, next_attempt_at, last_error) \
    SELECT $1, $2, $3, $4, $5, $6, $7, \
        CASE WHEN queue.n < $8 THEN 'PENDING' ELSE 'FAILED' END, 0, \
        CASE WHEN queue.n < $8 THEN $7 ELSE NULL END, \
        CASE WHEN queue.n < $8 THEN NULL ELSE $9 END \
    FROM (SELECT count(*) AS n FROM webhook_deliveries WHERE endpoint_id = $2 AND status = 'PENDING') queue \
    WHERE queue.n < $8 OR $10";

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

/// Inserts one delivery of `event` to endpoint `endpoint_id`, due at `now`, pending while the endpoint has
/// fewer than `max_pending` pending deliveries; past that as `when_full` says. Answers whether a row went
/// in (with [`WhenFull::Refuse`]: whether it is pending).
///
/// # Errors
/// [`RepoError::Conflict`] for a delivery id taken; [`RepoError::Backend`] when the insert fails.
pub(crate) fn insert_delivery(
    conn: &mut DbConnection,
    endpoint_id: &str,
    event: &WebhookEvent,
    delivery_id: &str,
    now: DateTime<Utc>,
    max_pending: u32,
    when_full: WhenFull,
) -> Result<bool, RepoError> {
    use diesel::sql_types::{BigInt, Bool, Text};
    let at = to_millis(now);
    let not_sent = format!("not sent: the endpoint had {max_pending} deliveries waiting");
    let data = to_json(&event.data)?;
    let inserted = on_either!(conn, INSERT_BOUNDED, |query, c| query
        .bind::<Text, _>(delivery_id)
        .bind::<Text, _>(endpoint_id)
        .bind::<Text, _>(event.org_id.to_string())
        .bind::<Text, _>(event.event_type.code())
        .bind::<BigInt, _>(to_millis(event.at))
        .bind::<Text, _>(&data)
        .bind::<BigInt, _>(at)
        .bind::<BigInt, _>(i64::from(max_pending))
        .bind::<Text, _>(&not_sent)
        .bind::<Bool, _>(when_full == WhenFull::RecordNotSent)
        .execute(c))
    .map_err(db_error("queuing a webhook delivery", "webhook_delivery_id"))?;
    Ok(inserted == 1)
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
                insert_delivery(
                    conn,
                    endpoint_id,
                    event,
                    &id,
                    now,
                    MAX_PENDING_PER_ENDPOINT,
                    WhenFull::RecordNotSent,
                )?;
            }
        }
    }
    Ok(())
}

/// Queues the events the change recorded by `entry` causes in `org` ([`events_of`]); called by the audit
/// log's `record_and_queue_events`, so that every change that records an entry queues its events in the same transaction,
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
