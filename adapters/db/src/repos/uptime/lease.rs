//! The due scan: which apps a monitor instance checks next, leased so that instances never check one app
//! twice at once.

use diesel::prelude::*;

use domain::common::RepoError;
use domain::uptime::ports::MonitoredApp;

use super::batch;
use super::rows::{AppTuple, MONITORED, monitored_app};
use crate::DbConnection;
use crate::convert::backend;
use crate::schema::{apps, organizations, uptime_monitor};

/// Loads the apps of `packages`, in that order.
pub(super) fn load_apps(
    conn: &mut DbConnection,
    packages: &[String],
) -> Result<Vec<MonitoredApp>, RepoError> {
    let mut rows: Vec<AppTuple> = Vec::with_capacity(packages.len());
    for chunk in packages.chunks(batch::CHUNK * 4) {
        rows.extend(
            app_query!()
                .filter(apps::package_name.eq_any(chunk))
                .load::<AppTuple>(conn)
                .map_err(backend("reading monitored apps"))?,
        );
    }
    let order: std::collections::HashMap<&str, usize> = packages
        .iter()
        .enumerate()
        .map(|(i, p)| (p.as_str(), i))
        .collect();
    rows.sort_by_key(|row| order.get(row.0.as_str()).copied().unwrap_or(usize::MAX));
    rows.into_iter().map(monitored_app).collect()
}

/// Leases up to `limit` apps whose check is due (slot before `due`, no live lease at `now`) until `until`,
/// longest-waiting first.
pub(super) fn lease_due(
    conn: &mut DbConnection,
    now: i64,
    due: i64,
    limit: u32,
    until: i64,
) -> Result<Vec<MonitoredApp>, RepoError> {
    // Every monitored app has its row: made with the status change, in its transaction (a trigger on `apps`
    // in both databases), so nothing is scanned for missing rows here.
    let candidates = uptime_monitor::table
        .filter(
            uptime_monitor::package_name.eq_any(
                apps::table
                    .filter(apps::app_store_status.eq_any(MONITORED))
                    .select(apps::package_name),
            ),
        )
        .filter(uptime_monitor::check_slot_at.lt(due))
        .filter(
            uptime_monitor::lease_until
                .is_null()
                .or(uptime_monitor::lease_until.le(now)),
        )
        .order((
            uptime_monitor::check_slot_at.asc(),
            uptime_monitor::package_name.asc(),
        ))
        .limit(i64::from(limit))
        .select(uptime_monitor::package_name);
    // On PostgreSQL the candidates are locked, skipping rows another instance is leasing now,
    // so that instances never wait on each other here; SQLite has one writer at a time.
    let candidates: Vec<String> = match conn {
        DbConnection::Sqlite(c) => candidates.load(c),
        DbConnection::Postgres(c) => candidates.for_update().skip_locked().load(c),
    }
    .map_err(backend("finding apps due for a check"))?;
    // The lease is a conditional update of them all, which answers the rows it changed.
    let mut leased: Vec<String> = Vec::with_capacity(candidates.len());
    for chunk in candidates.chunks(batch::CHUNK * 4) {
        let lease = diesel::update(
            uptime_monitor::table
                .filter(uptime_monitor::package_name.eq_any(chunk))
                .filter(uptime_monitor::check_slot_at.lt(due))
                .filter(
                    uptime_monitor::lease_until
                        .is_null()
                        .or(uptime_monitor::lease_until.le(now)),
                ),
        )
        .set(uptime_monitor::lease_until.eq(until))
        .returning(uptime_monitor::package_name);
        let changed: Vec<String> = match conn {
            DbConnection::Sqlite(c) => lease.get_results(c),
            DbConnection::Postgres(c) => lease.get_results(c),
        }
        .map_err(backend("leasing apps for a check"))?;
        leased.extend(changed);
    }
    // In the order of the scan: the longest-waiting first.
    let order: std::collections::HashMap<&str, usize> = candidates
        .iter()
        .enumerate()
        .map(|(i, p)| (p.as_str(), i))
        .collect();
    leased.sort_by_key(|p| order.get(p.as_str()).copied().unwrap_or(usize::MAX));
    load_apps(conn, &leased)
}
