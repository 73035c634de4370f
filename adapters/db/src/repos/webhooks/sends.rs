//! "Send test" and "Retry": each bounded inside the write that queues (the sends of the window per endpoint
//! and per organization in `webhook_manual_sends`, the endpoint's pending deliveries), serialised per
//! organization on PostgreSQL by an advisory lock.

use diesel::prelude::*;
use domain::common::{OrgId, RepoError};
use domain::webhooks::{Admission, LimitScope, SendLimits, WebhookEndpointId, WebhookEvent};
use uuid::Uuid;

use super::rows::{self, WhenFull, on_either};
use super::stored::{DeliveryRow, endpoint_of};
use crate::DbConnection;
use crate::convert::{backend, from_millis, to_millis};
use crate::schema::{webhook_deliveries, webhook_manual_sends};

/// On PostgreSQL, waits for (and holds until the transaction ends) the lock of `org`'s sends by hand, so that
/// concurrent sends are counted one after the other; SQLite has one writer at a time already.
pub(super) fn lock_sends_of(conn: &mut DbConnection, org: OrgId) -> Result<(), RepoError> {
    if let DbConnection::Postgres(c) = conn {
        diesel::sql_query("SELECT pg_advisory_xact_lock(hashtext($1))")
            .bind::<diesel::sql_types::Text, _>(format!("webhook-sends:{org}"))
            .execute(c)
            .map_err(backend("locking an organization's webhook sends"))?;
    }
    Ok(())
}

/// Records one send by hand (`send_id`) of endpoint `endpoint` at `now` when the window still has room for
/// it, in one conditional insert; otherwise answers which bound refused it and when the next one may go.
fn admit_send(
    conn: &mut DbConnection,
    org: OrgId,
    endpoint: WebhookEndpointId,
    send_id: &str,
    now: i64,
    limits: SendLimits,
) -> Result<Option<Admission>, RepoError> {
    use diesel::sql_types::{BigInt, Text};
    const ADMIT: &str = "INSERT INTO webhook_manual_sends (id, org_id, endpoint_id, at) SELECT $1, $2, $3, $4 \
        WHERE (SELECT count(*) FROM webhook_manual_sends WHERE endpoint_id = $3 AND at > $5) < $6 \
        AND (SELECT count(*) FROM webhook_manual_sends WHERE org_id = $2 AND at > $5) < $7";
    let window = limits.window.num_milliseconds();
    let since = now - window;
    let (org_text, endpoint_text) = (org.to_string(), endpoint.to_string());
    diesel::delete(
        webhook_manual_sends::table
            .filter(webhook_manual_sends::org_id.eq(&org_text))
            .filter(webhook_manual_sends::at.le(since)),
    )
    .execute(conn)
    .map_err(backend("forgetting old webhook sends"))?;
    let admitted = on_either!(conn, ADMIT, |query, c| query
        .bind::<Text, _>(send_id)
        .bind::<Text, _>(&org_text)
        .bind::<Text, _>(&endpoint_text)
        .bind::<BigInt, _>(now)
        .bind::<BigInt, _>(since)
        .bind::<BigInt, _>(i64::from(limits.per_endpoint))
        .bind::<BigInt, _>(i64::from(limits.per_org))
        .execute(c))
    .map_err(backend("recording a webhook send"))?;
    if admitted == 1 {
        return Ok(None);
    }
    let in_window = |conn: &mut DbConnection, of_endpoint: bool| {
        let mut query = webhook_manual_sends::table
            .filter(webhook_manual_sends::at.gt(since))
            .into_boxed();
        query = if of_endpoint {
            query.filter(webhook_manual_sends::endpoint_id.eq(&endpoint_text))
        } else {
            query.filter(webhook_manual_sends::org_id.eq(&org_text))
        };
        query
            .select((
                diesel::dsl::count_star(),
                diesel::dsl::min(webhook_manual_sends::at),
            ))
            .first::<(i64, Option<i64>)>(conn)
            .map_err(backend("reading the webhook sends of the window"))
    };
    let (count, oldest) = in_window(conn, true)?;
    let (scope, oldest) = if count >= i64::from(limits.per_endpoint) {
        (LimitScope::Endpoint, oldest)
    } else {
        (LimitScope::Organization, in_window(conn, false)?.1)
    };
    Ok(Some(Admission::Limited {
        scope,
        retry_at: from_millis(oldest.unwrap_or(now) + window)?,
    }))
}

/// Takes back the send by hand `send_id` (its delivery was not queued after all).
fn forget_send(conn: &mut DbConnection, send_id: &str) -> Result<(), RepoError> {
    diesel::delete(webhook_manual_sends::table.find(send_id))
        .execute(conn)
        .map_err(backend("forgetting a webhook send"))?;
    Ok(())
}

/// Queues `event` for endpoint `id` by hand ("Send test") as delivery `delivery_id`, within `limits`.
pub(super) fn queue_by_hand(
    conn: &mut DbConnection,
    id: WebhookEndpointId,
    event: &WebhookEvent,
    delivery_id: &str,
    limits: SendLimits,
) -> Result<Admission, RepoError> {
    lock_sends_of(conn, event.org_id)?;
    if endpoint_of(conn, event.org_id, id)?.is_none() {
        return Err(RepoError::NotFound);
    }
    let send = Uuid::new_v4().to_string();
    if let Some(refused) = admit_send(conn, event.org_id, id, &send, to_millis(event.at), limits)? {
        return Ok(refused);
    }
    let queued = rows::insert_delivery(
        conn,
        &id.to_string(),
        event,
        delivery_id,
        event.at,
        limits.max_pending,
        WhenFull::Refuse,
    )?;
    if queued {
        Ok(Admission::Queued)
    } else {
        forget_send(conn, &send)?;
        Ok(Admission::Backlog)
    }
}

/// Makes delivery `delivery_id` of endpoint `id` due again at `now` by hand ("Retry"), within `limits`.
pub(super) fn retry(
    conn: &mut DbConnection,
    org: OrgId,
    id: WebhookEndpointId,
    delivery_id: &str,
    now: i64,
    limits: SendLimits,
) -> Result<Admission, RepoError> {
    use diesel::sql_types::{BigInt, Text};
    // Made due again unless that adds a pending delivery to an endpoint whose queue is full.
    const RETRY: &str = "UPDATE webhook_deliveries SET status = 'PENDING', next_attempt_at = $1, \
        lease_until = NULL WHERE id = $2 AND (status = 'PENDING' OR (SELECT count(*) FROM \
        webhook_deliveries WHERE endpoint_id = $3 AND status = 'PENDING') < $4)";
    lock_sends_of(conn, org)?;
    let row: DeliveryRow = webhook_deliveries::table
        .find(delivery_id)
        .filter(webhook_deliveries::endpoint_id.eq(id.to_string()))
        .filter(webhook_deliveries::org_id.eq(org.to_string()))
        .select(DeliveryRow::as_select())
        .first(conn)
        .optional()
        .map_err(backend("reading a webhook delivery"))?
        .ok_or(RepoError::NotFound)?;
    if row.lease_until.is_some_and(|until| until > now) {
        return Err(RepoError::Conflict("delivery in progress".into()));
    }
    let send = Uuid::new_v4().to_string();
    if let Some(refused) = admit_send(conn, org, id, &send, now, limits)? {
        return Ok(refused);
    }
    let changed = on_either!(conn, RETRY, |query, c| query
        .bind::<BigInt, _>(now)
        .bind::<Text, _>(delivery_id)
        .bind::<Text, _>(&row.endpoint_id)
        .bind::<BigInt, _>(i64::from(limits.max_pending))
        .execute(c))
    .map_err(backend("retrying a webhook delivery"))?;
    if changed == 1 {
        Ok(Admission::Queued)
    } else {
        forget_send(conn, &send)?;
        Ok(Admission::Backlog)
    }
}
