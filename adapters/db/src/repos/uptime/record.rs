//! Recording one check outcome, and the reads and writes it shares with the other uptime calls.

use diesel::prelude::*;
use domain::common::RepoError;
use domain::uptime::models::CheckOutcome;
use domain::uptime::ports::AppUptimeState;

use super::rows::{CheckRow, DailyRow, MonitorRow, day_text};
use crate::DbConnection;
use crate::convert::{backend, to_millis};
use crate::schema::{uptime_checks, uptime_daily, uptime_monitor, uptime_state_changes};

pub(super) fn load_monitor(
    conn: &mut DbConnection,
    package_name: &str,
) -> Result<Option<MonitorRow>, RepoError> {
    uptime_monitor::table
        .find(package_name)
        .select(MonitorRow::as_select())
        .first(conn)
        .optional()
        .map_err(backend("reading an app's uptime state"))
}

/// Adds one check to the app's rollup of its UTC day, creating the rollup.
fn add_to_rollup(conn: &mut DbConnection, outcome: &CheckOutcome) -> Result<(), RepoError> {
    let up = i32::from(outcome.is_up());
    let latency = outcome.latency_ms.map_or(0, i64::from);
    let measured = i32::from(outcome.latency_ms.is_some());
    let key = (outcome.package_name.as_str(), day_text(outcome.day()));
    let changed = diesel::update(uptime_daily::table.find((key.0, key.1.as_str())))
        .set((
            uptime_daily::healthy.eq(uptime_daily::healthy + up),
            uptime_daily::unhealthy.eq(uptime_daily::unhealthy + (1 - up)),
            uptime_daily::total.eq(uptime_daily::total + 1),
            uptime_daily::latency_sum_ms.eq(uptime_daily::latency_sum_ms + latency),
            uptime_daily::latency_count.eq(uptime_daily::latency_count + measured),
        ))
        .execute(conn)
        .map_err(backend("updating a daily uptime rollup"))?;
    if changed > 0 {
        return Ok(());
    }
    diesel::insert_into(uptime_daily::table)
        .values(DailyRow {
            package_name: key.0.to_owned(),
            day: key.1,
            healthy: up,
            unhealthy: 1 - up,
            total: 1,
            latency_sum_ms: latency,
            latency_count: measured,
        })
        .execute(conn)
        .map_err(backend("creating a daily uptime rollup"))
        .map(drop)
}

/// Maps a write that refers to the app: a foreign-key violation means the app was deleted meanwhile.
pub(super) fn app_write(context: &'static str) -> impl Fn(diesel::result::Error) -> RepoError {
    move |error| match &error {
        diesel::result::Error::DatabaseError(diesel::result::DatabaseErrorKind::ForeignKeyViolation, _) => {
            RepoError::NotFound
        }
        _ => RepoError::backend(context, error),
    }
}

/// Stores one check: the raw row, the day's rollup, a state change when the app flipped, and the monitor's
/// new state, which it answers.
pub(super) fn record_one(
    conn: &mut DbConnection,
    outcome: &CheckOutcome,
) -> Result<AppUptimeState, RepoError> {
    let package_name = outcome.package_name.as_str().to_owned();
    // Touching the row first takes its lock on PostgreSQL: a concurrent record of the same app
    // waits, so the read below is the latest state.
    let touched = diesel::update(uptime_monitor::table.find(&package_name))
        .set(uptime_monitor::lease_until.eq(None::<i64>))
        .execute(conn)
        .map_err(backend("releasing an uptime lease"))?;
    if touched == 0 {
        diesel::insert_into(uptime_monitor::table)
            .values((
                uptime_monitor::package_name.eq(&package_name),
                uptime_monitor::check_slot_at.eq(0_i64),
                uptime_monitor::consecutive_failures.eq(0),
            ))
            .execute(conn)
            .map_err(app_write("creating an uptime monitor row"))?;
    }
    let previous = load_monitor(conn, &package_name)?.ok_or(RepoError::NotFound)?;
    diesel::insert_into(uptime_checks::table)
        .values(CheckRow::from_domain(outcome))
        .execute(conn)
        .map_err(app_write("storing a health check"))?;
    add_to_rollup(conn, outcome)?;

    let checked_at = to_millis(outcome.checked_at);
    let flipped = previous.last_online != Some(outcome.online);
    if flipped {
        diesel::insert_into(uptime_state_changes::table)
            .values((
                uptime_state_changes::package_name.eq(&package_name),
                uptime_state_changes::changed_at.eq(checked_at),
                uptime_state_changes::online.eq(outcome.online),
                uptime_state_changes::health.eq(outcome.health.code()),
            ))
            .execute(conn)
            .map_err(app_write("storing an uptime state change"))?;
        if previous.last_online.is_some() {
            crate::repos::webhooks::rows::enqueue_health_flips(
                conn,
                &[(package_name.clone(), outcome.online, outcome.checked_at)],
            )?;
        }
    }
    let consecutive = if outcome.online {
        0
    } else {
        previous.consecutive_failures.saturating_add(1)
    };
    let changed_at = if flipped {
        Some(checked_at)
    } else {
        previous.last_changed_at
    };
    diesel::update(uptime_monitor::table.find(&package_name))
        .set((
            uptime_monitor::check_slot_at.eq(checked_at),
            uptime_monitor::lease_until.eq(None::<i64>),
            uptime_monitor::consecutive_failures.eq(consecutive),
            uptime_monitor::last_health.eq(outcome.health.code()),
            uptime_monitor::last_online.eq(outcome.online),
            uptime_monitor::last_checked_at.eq(checked_at),
            uptime_monitor::last_changed_at.eq(changed_at),
        ))
        .execute(conn)
        .map_err(backend("updating an app's uptime state"))?;
    load_monitor(conn, &package_name)?
        .ok_or(RepoError::NotFound)?
        .into_state()?
        .ok_or_else(|| RepoError::backend("recording a check", "the state was not stored"))
}
