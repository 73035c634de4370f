//! The delivery worker's side: claims that lease due deliveries taking turns across organizations, within
//! the bounds of leases alive per endpoint and per organization, and the record of each attempt.

use diesel::prelude::*;
use domain::common::RepoError;
use domain::webhooks::DeliveryStatus;
use domain::webhooks::ports::{AttemptRecord, ClaimedDelivery};

use super::rows::on_either;
use super::stored::{DeliveryRow, EndpointRow, expect_one, int};
use crate::convert::{backend, from_millis_opt, to_millis};
use crate::repos::audit::record_and_queue_events;
use crate::schema::{webhook_deliveries, webhook_endpoints};
use crate::{DbConnection, outbox_rows};

/// What a delivery given up because its endpoint is disabled says.
const ENDPOINT_DISABLED: &str = "not sent: the endpoint is disabled";

/// Gives up the due deliveries of disabled endpoints.
pub(super) fn fail_disabled(conn: &mut DbConnection, now: i64) -> Result<(), RepoError> {
    let disabled = webhook_endpoints::table
        .filter(webhook_endpoints::enabled.eq(false))
        .select(webhook_endpoints::id);
    diesel::update(
        webhook_deliveries::table
            .filter(webhook_deliveries::status.eq(DeliveryStatus::Pending.code()))
            .filter(webhook_deliveries::next_attempt_at.le(now))
            .filter(webhook_deliveries::endpoint_id.eq_any(disabled)),
    )
    .set((
        webhook_deliveries::status.eq(DeliveryStatus::Failed.code()),
        webhook_deliveries::next_attempt_at.eq(None::<i64>),
        webhook_deliveries::lease_until.eq(None::<i64>),
        webhook_deliveries::last_error.eq(Some(ENDPOINT_DISABLED)),
    ))
    .execute(conn)
    .map_err(backend("giving up the deliveries of disabled endpoints"))?;
    Ok(())
}

/// A delivery's id, as the claim query answers it.
#[derive(Debug, QueryableByName)]
struct DueId {
    #[diesel(sql_type = diesel::sql_types::Text)]
    id: String,
}

/// The due deliveries, taking turns across organizations (each one's oldest, then each one's second, …),
/// without those of organizations and endpoints whose leases alive are at their bound: `$1` now, `$2` the
/// bound per organization, `$3` per endpoint, `$4` how many.
const DUE_IN_TURNS: &str = "SELECT id FROM (\
    SELECT id, next_attempt_at, created_at, \
        row_number() OVER (PARTITION BY org_id ORDER BY next_attempt_at, created_at, id) AS turn \
    FROM webhook_deliveries \
    WHERE status = 'PENDING' AND next_attempt_at <= $1 AND (lease_until IS NULL OR lease_until <= $1) \
    AND org_id NOT IN (SELECT org_id FROM webhook_deliveries WHERE status = 'PENDING' AND lease_until > $1 \
        GROUP BY org_id HAVING count(*) >= $2) \
    AND endpoint_id NOT IN (SELECT endpoint_id FROM webhook_deliveries WHERE status = 'PENDING' \
        AND lease_until > $1 GROUP BY endpoint_id HAVING count(*) >= $3)\
    ) due ORDER BY turn, next_attempt_at, created_at, id LIMIT $4";

/// Leases alive of the deliveries of one organization or one endpoint.
fn leases_alive(conn: &mut DbConnection, of_org: bool, key: &str, now: i64) -> Result<i64, RepoError> {
    let mut query = webhook_deliveries::table
        .filter(webhook_deliveries::status.eq(DeliveryStatus::Pending.code()))
        .filter(webhook_deliveries::lease_until.gt(now))
        .into_boxed();
    query = if of_org {
        query.filter(webhook_deliveries::org_id.eq(key.to_owned()))
    } else {
        query.filter(webhook_deliveries::endpoint_id.eq(key.to_owned()))
    };
    query
        .count()
        .get_result(conn)
        .map_err(backend("counting the webhook deliveries in progress"))
}

/// Leases at most `limit` due deliveries until `until` (`now`: milliseconds), within `per_endpoint` and
/// `per_org` leases alive.
pub(super) fn claim(
    conn: &mut DbConnection,
    now: i64,
    limit: u32,
    per_endpoint: u32,
    per_org: u32,
    until: i64,
) -> Result<Vec<ClaimedDelivery>, RepoError> {
    use diesel::sql_types::BigInt;
    fail_disabled(conn, now)?;
    let due: Vec<DueId> = on_either!(conn, DUE_IN_TURNS, |query, c| query
        .bind::<BigInt, _>(now)
        .bind::<BigInt, _>(i64::from(per_org))
        .bind::<BigInt, _>(i64::from(per_endpoint))
        .bind::<BigInt, _>(i64::from(limit) * 4)
        .load(c))
    .map_err(backend("reading the due webhook deliveries"))?;
    let order: Vec<String> = due.into_iter().map(|d| d.id).collect();
    let mut rows: std::collections::HashMap<String, DeliveryRow> = webhook_deliveries::table
        .filter(webhook_deliveries::id.eq_any(&order))
        .select(DeliveryRow::as_select())
        .load(conn)
        .map_err(backend("reading the due webhook deliveries"))?
        .into_iter()
        .map(|row| (row.id.clone(), row))
        .collect();
    let candidates = order.iter().filter_map(|id| rows.remove(id));
    let mut of_org: std::collections::HashMap<String, i64> = std::collections::HashMap::new();
    let mut leased: std::collections::HashMap<String, i64> = std::collections::HashMap::new();
    let mut endpoints: std::collections::HashMap<String, Option<EndpointRow>> =
        std::collections::HashMap::new();
    let mut claimed = Vec::new();
    for row in candidates {
        if claimed.len() >= limit as usize {
            break;
        }
        if !leased.contains_key(&row.endpoint_id) {
            let alive = leases_alive(conn, false, &row.endpoint_id, now)?;
            leased.insert(row.endpoint_id.clone(), alive);
        }
        let alive = leased.get(&row.endpoint_id).copied().unwrap_or_default();
        if alive >= i64::from(per_endpoint) {
            continue;
        }
        if !of_org.contains_key(&row.org_id) {
            of_org.insert(row.org_id.clone(), leases_alive(conn, true, &row.org_id, now)?);
        }
        let org_alive = of_org.get(&row.org_id).copied().unwrap_or_default();
        if org_alive >= i64::from(per_org) {
            continue;
        }
        let won = diesel::update(
            webhook_deliveries::table
                .find(&row.id)
                .filter(webhook_deliveries::status.eq(DeliveryStatus::Pending.code()))
                .filter(webhook_deliveries::next_attempt_at.le(now))
                .filter(
                    webhook_deliveries::lease_until
                        .is_null()
                        .or(webhook_deliveries::lease_until.le(now)),
                ),
        )
        .set(webhook_deliveries::lease_until.eq(Some(until)))
        .execute(conn)
        .map_err(backend("leasing a webhook delivery"))?;
        if won != 1 {
            continue;
        }
        leased.insert(row.endpoint_id.clone(), alive + 1);
        of_org.insert(row.org_id.clone(), org_alive + 1);
        if !endpoints.contains_key(&row.endpoint_id) {
            let endpoint = webhook_endpoints::table
                .find(&row.endpoint_id)
                .select(EndpointRow::as_select())
                .first(conn)
                .optional()
                .map_err(backend("reading a webhook endpoint"))?;
            endpoints.insert(row.endpoint_id.clone(), endpoint);
        }
        let Some(Some(endpoint)) = endpoints.get(&row.endpoint_id) else {
            continue;
        };
        claimed.push(ClaimedDelivery {
            url: endpoint.url.clone(),
            secrets: endpoint.secrets()?,
            failing_since: from_millis_opt(endpoint.failing_since)?,
            delivery: row.into_domain()?,
        });
    }
    Ok(claimed)
}

/// Records an attempt: the delivery's state, the endpoint's health, and its disabling when the attempt
/// decided it (once, with its audit entry and e-mails).
pub(super) fn record_attempt(conn: &mut DbConnection, record: &AttemptRecord) -> Result<(), RepoError> {
    let at = to_millis(record.at);
    let status = if record.delivered {
        DeliveryStatus::Delivered
    } else if record.next_attempt_at.is_some() {
        DeliveryStatus::Pending
    } else {
        DeliveryStatus::Failed
    };
    let changed = diesel::update(webhook_deliveries::table.find(&record.delivery_id))
        .set((
            webhook_deliveries::status.eq(status.code()),
            webhook_deliveries::attempts.eq(int(record.attempts)),
            webhook_deliveries::next_attempt_at.eq(record.next_attempt_at.map(to_millis)),
            webhook_deliveries::lease_until.eq(None::<i64>),
            webhook_deliveries::last_attempt_at.eq(Some(at)),
            webhook_deliveries::last_status.eq(record.status.map(i32::from)),
            webhook_deliveries::last_duration_ms.eq(record.duration_ms.map(int)),
            webhook_deliveries::last_response.eq(record.response.as_deref()),
            webhook_deliveries::last_error.eq(record.error.as_deref()),
        ))
        .execute(conn)
        .map_err(backend("recording a webhook attempt"))?;
    expect_one(changed)?;
    let endpoint = webhook_endpoints::table.find(record.endpoint_id.to_string());
    diesel::update(endpoint.clone())
        .set((
            webhook_endpoints::last_attempt_at.eq(Some(at)),
            webhook_endpoints::last_attempt_ok.eq(Some(record.delivered)),
            webhook_endpoints::failing_since.eq(record.failing_since.map(to_millis)),
        ))
        .execute(conn)
        .map_err(backend("recording a webhook endpoint's health"))?;
    if let Some((reason, audit, emails)) = &record.disable {
        let disabled = diesel::update(endpoint.filter(webhook_endpoints::enabled.eq(true)))
            .set((
                webhook_endpoints::enabled.eq(false),
                webhook_endpoints::disabled_reason.eq(Some(reason.code())),
                webhook_endpoints::updated_at.eq(at),
            ))
            .execute(conn)
            .map_err(backend("disabling a webhook endpoint"))?;
        // Another instance may have disabled it a moment ago: one entry and one e-mail each.
        if disabled == 1 {
            record_and_queue_events(conn, std::slice::from_ref(audit))?;
            outbox_rows::enqueue(conn, emails, record.at)?;
        }
    }
    Ok(())
}
