//! The queue's upkeep: its backlog measured, and the finished deliveries pruned.

use diesel::prelude::*;
use domain::common::RepoError;
use domain::webhooks::DeliveryStatus;
use domain::webhooks::ports::DeliveryBacklog;

use crate::DbConnection;
use crate::convert::{backend, from_millis};
use crate::schema::webhook_deliveries;

/// Most finished deliveries one pruning transaction deletes.
pub(super) const PRUNE_BATCH: u32 = 1_000;

/// The pending deliveries: how many, and when the oldest was queued.
pub(super) fn backlog(conn: &mut DbConnection) -> Result<DeliveryBacklog, RepoError> {
    let (pending, oldest): (i64, Option<i64>) = webhook_deliveries::table
        .filter(webhook_deliveries::status.eq(DeliveryStatus::Pending.code()))
        .select((
            diesel::dsl::count_star(),
            diesel::dsl::min(webhook_deliveries::created_at),
        ))
        .first(conn)
        .map_err(backend("measuring the webhook queue"))?;
    Ok(DeliveryBacklog {
        pending: u64::try_from(pending).unwrap_or_default(),
        oldest_created_at: oldest.map(from_millis).transpose()?,
    })
}

/// Deletes up to [`PRUNE_BATCH`] deliveries finished before `cutoff` (milliseconds); how many.
pub(super) fn prune_batch(conn: &mut DbConnection, cutoff: i64) -> Result<u64, RepoError> {
    use diesel::sql_types::{BigInt, Bool};
    let finished = webhook_deliveries::table
        .filter(webhook_deliveries::status.ne(DeliveryStatus::Pending.code()))
        .filter(
            diesel::dsl::sql::<Bool>("COALESCE(last_attempt_at, created_at) < ").bind::<BigInt, _>(cutoff),
        )
        .select(webhook_deliveries::id)
        .limit(i64::from(PRUNE_BATCH))
        .load::<String>(conn)
        .map_err(backend("finding finished webhook deliveries"))?;
    diesel::delete(webhook_deliveries::table.filter(webhook_deliveries::id.eq_any(&finished)))
        .execute(conn)
        .map_err(backend("pruning webhook deliveries"))
        .map(|n| n as u64)
}
