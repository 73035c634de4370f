//! Recording many checks in one transaction with a handful of statements, whatever their number: the
//! monitor's writes. The same effects as recording each check alone (see `record` in the parent module):
//! the raw check, the day rollup, a state-change row when `online` flips, the app's new state, the lease
//! released.

use diesel::prelude::*;
use diesel::upsert::excluded;
use domain::common::RepoError;
use domain::uptime::models::CheckOutcome;
use domain::uptime::ports::AppUptimeState;
use std::collections::{HashMap, HashSet};

use super::rows::{CheckRow, DailyRow, MonitorRow, day_text};
use crate::DbConnection;
use crate::connection::on_backend;
use crate::convert::{backend, to_millis};
use crate::schema::{apps, uptime_checks, uptime_daily, uptime_monitor, uptime_state_changes};

/// Most checks written by one set of statements (the bind parameters of a statement stay far below
/// SQLite's and PostgreSQL's limits: 9 per row).
pub(super) const CHUNK: usize = 500;

/// The new monitor row of an app after one check.
#[derive(Insertable)]
#[diesel(table_name = uptime_monitor)]
struct MonitorUpdate {
    package_name: String,
    check_slot_at: i64,
    lease_until: Option<i64>,
    consecutive_failures: i32,
    last_health: Option<String>,
    last_online: Option<bool>,
    last_checked_at: Option<i64>,
    offline_alert_at: Option<i64>,
    last_changed_at: Option<i64>,
}

#[derive(Insertable)]
#[diesel(table_name = uptime_state_changes)]
struct StateChange {
    package_name: String,
    changed_at: i64,
    online: bool,
    health: String,
}

/// Records `outcomes` inside the caller's transaction; answers each app's new state in order, `None` for
/// an app that no longer exists.
pub(super) fn record_batch(
    conn: &mut DbConnection,
    outcomes: &[CheckOutcome],
) -> Result<Vec<Option<AppUptimeState>>, RepoError> {
    let mut states = Vec::with_capacity(outcomes.len());
    // Chunks of distinct apps: a second check of an app (which leasing prevents, but the port allows)
    // starts the next chunk, so that it sees the first one's state.
    let mut start = 0;
    while start < outcomes.len() {
        let mut seen = HashSet::new();
        let mut end = start;
        while end < outcomes.len() && end - start < CHUNK && seen.insert(outcomes[end].package_name.as_str())
        {
            end += 1;
        }
        states.extend(record_distinct(conn, &outcomes[start..end])?);
        start = end;
    }
    Ok(states)
}

/// [`record_batch`] for checks of distinct apps.
fn record_distinct(
    conn: &mut DbConnection,
    outcomes: &[CheckOutcome],
) -> Result<Vec<Option<AppUptimeState>>, RepoError> {
    let names: Vec<&str> = outcomes.iter().map(|o| o.package_name.as_str()).collect();
    let mut previous = load_locked(conn, &names)?;
    if previous.len() < names.len() {
        // Apps checked before their monitor row existed (the ping of a test, a row made by another
        // instance's lease): create the rows of the apps that still exist, as `record` does.
        let missing: Vec<&str> = names
            .iter()
            .copied()
            .filter(|name| !previous.contains_key(*name))
            .collect();
        let existing: Vec<String> = apps::table
            .filter(apps::package_name.eq_any(&missing))
            .select(apps::package_name)
            .load(conn)
            .map_err(backend("finding the apps of checks"))?;
        if !existing.is_empty() {
            let rows: Vec<_> = existing
                .iter()
                .map(|name| {
                    (
                        uptime_monitor::package_name.eq(name),
                        uptime_monitor::check_slot_at.eq(0_i64),
                        uptime_monitor::consecutive_failures.eq(0),
                    )
                })
                .collect();
            on_backend!(conn, c => diesel::insert_into(uptime_monitor::table)
                .values(&rows)
                .on_conflict_do_nothing()
                .execute(c))
            .map_err(backend("creating uptime monitor rows"))?;
            previous.extend(load_locked(conn, &missing)?);
        }
    }

    let mut states = Vec::with_capacity(outcomes.len());
    let mut checks = Vec::with_capacity(outcomes.len());
    let mut rollups: Vec<DailyRow> = Vec::with_capacity(outcomes.len());
    let mut changes = Vec::new();
    let mut flips = Vec::new();
    let mut monitors = Vec::with_capacity(outcomes.len());
    for outcome in outcomes {
        let Some(before) = previous.get(outcome.package_name.as_str()) else {
            states.push(None);
            continue;
        };
        let package_name = outcome.package_name.as_str().to_owned();
        let checked_at = to_millis(outcome.checked_at);
        let flipped = before.last_online != Some(outcome.online);
        let consecutive = if outcome.online {
            0
        } else {
            before.consecutive_failures.saturating_add(1)
        };
        let changed_at = if flipped {
            Some(checked_at)
        } else {
            before.last_changed_at
        };
        checks.push(CheckRow::from_domain(outcome));
        let up = i32::from(outcome.is_up());
        rollups.push(DailyRow {
            package_name: package_name.clone(),
            day: day_text(outcome.day()),
            healthy: up,
            unhealthy: 1 - up,
            total: 1,
            latency_sum_ms: outcome.latency_ms.map_or(0, i64::from),
            latency_count: i32::from(outcome.latency_ms.is_some()),
        });
        if flipped && before.last_online.is_some() {
            flips.push((package_name.clone(), outcome.online, outcome.checked_at));
        }
        if flipped {
            changes.push(StateChange {
                package_name: package_name.clone(),
                changed_at: checked_at,
                online: outcome.online,
                health: outcome.health.code().to_owned(),
            });
        }
        let state = MonitorRow {
            package_name: package_name.clone(),
            consecutive_failures: consecutive,
            last_health: Some(outcome.health.code().to_owned()),
            last_online: Some(outcome.online),
            last_checked_at: Some(checked_at),
            offline_alert_at: before.offline_alert_at,
            last_changed_at: changed_at,
        };
        monitors.push(MonitorUpdate {
            package_name,
            check_slot_at: checked_at,
            lease_until: None,
            consecutive_failures: consecutive,
            last_health: state.last_health.clone(),
            last_online: state.last_online,
            last_checked_at: state.last_checked_at,
            offline_alert_at: state.offline_alert_at,
            last_changed_at: state.last_changed_at,
        });
        states.push(state.into_state()?);
    }
    if checks.is_empty() {
        return Ok(states);
    }

    on_backend!(conn, c => diesel::insert_into(uptime_checks::table).values(&checks).execute(c))
        .map_err(backend("storing health checks"))?;
    // SQLite runs statements in-process, so one upsert per row costs no round trip (and diesel writes
    // multi-row upserts for PostgreSQL only); PostgreSQL gets one statement for the chunk.
    macro_rules! add_to_rollups {
        ($c:expr, $rows:expr) => {
            diesel::insert_into(uptime_daily::table)
                .values($rows)
                .on_conflict((uptime_daily::package_name, uptime_daily::day))
                .do_update()
                .set((
                    uptime_daily::healthy.eq(uptime_daily::healthy + excluded(uptime_daily::healthy)),
                    uptime_daily::unhealthy.eq(uptime_daily::unhealthy + excluded(uptime_daily::unhealthy)),
                    uptime_daily::total.eq(uptime_daily::total + excluded(uptime_daily::total)),
                    uptime_daily::latency_sum_ms
                        .eq(uptime_daily::latency_sum_ms + excluded(uptime_daily::latency_sum_ms)),
                    uptime_daily::latency_count
                        .eq(uptime_daily::latency_count + excluded(uptime_daily::latency_count)),
                ))
                .execute($c)
        };
    }
    match conn {
        DbConnection::Sqlite(c) => rollups
            .iter()
            .try_for_each(|row| add_to_rollups!(c, row).map(drop)),
        DbConnection::Postgres(c) => add_to_rollups!(c, &rollups).map(drop),
    }
    .map_err(backend("adding checks to the daily uptime rollups"))?;
    if !changes.is_empty() {
        on_backend!(conn, c => diesel::insert_into(uptime_state_changes::table).values(&changes).execute(c))
            .map_err(backend("storing uptime state changes"))?;
    }
    crate::repos::webhooks::rows::enqueue_health_flips(conn, &flips)?;
    // Every row exists (and is locked on PostgreSQL): the upsert is an update of many rows at once.
    macro_rules! update_monitors {
        ($c:expr, $rows:expr) => {
            diesel::insert_into(uptime_monitor::table)
                .values($rows)
                .on_conflict(uptime_monitor::package_name)
                .do_update()
                .set((
                    uptime_monitor::check_slot_at.eq(excluded(uptime_monitor::check_slot_at)),
                    uptime_monitor::lease_until.eq(None::<i64>),
                    uptime_monitor::consecutive_failures.eq(excluded(uptime_monitor::consecutive_failures)),
                    uptime_monitor::last_health.eq(excluded(uptime_monitor::last_health)),
                    uptime_monitor::last_online.eq(excluded(uptime_monitor::last_online)),
                    uptime_monitor::last_checked_at.eq(excluded(uptime_monitor::last_checked_at)),
                    uptime_monitor::last_changed_at.eq(excluded(uptime_monitor::last_changed_at)),
                ))
                .execute($c)
        };
    }
    match conn {
        DbConnection::Sqlite(c) => monitors
            .iter()
            .try_for_each(|row| update_monitors!(c, row).map(drop)),
        DbConnection::Postgres(c) => update_monitors!(c, &monitors).map(drop),
    }
    .map_err(backend("updating the uptime state of apps"))?;
    Ok(states)
}

/// The monitor rows of `names`, locked until the transaction ends on PostgreSQL (a concurrent record of
/// the same app waits, so the state read is the latest); SQLite has one writer at a time.
fn load_locked(conn: &mut DbConnection, names: &[&str]) -> Result<HashMap<String, MonitorRow>, RepoError> {
    macro_rules! query {
        () => {
            uptime_monitor::table
                .filter(uptime_monitor::package_name.eq_any(names))
                // One order for every instance, so that concurrent batches wait on each other without
                // deadlocking.
                .order(uptime_monitor::package_name.asc())
                .select(MonitorRow::as_select())
        };
    }
    let rows: Vec<MonitorRow> = match conn {
        DbConnection::Sqlite(c) => query!().load(c),
        DbConnection::Postgres(c) => query!().for_update().load(c),
    }
    .map_err(backend("reading the uptime state of apps"))?;
    Ok(rows
        .into_iter()
        .map(|row| (row.package_name.clone(), row))
        .collect())
}
