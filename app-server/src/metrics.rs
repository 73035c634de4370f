//! The series `/metrics` reads when a scrape arrives (the database pool, the outbox, the monitor's lag, the
//! process's memory, CPU, threads and open files) and the monitor's checks, declared where they are
//! recorded. The request series are the HTTP adapter's (`adapter_http::metrics`).

use adapter_db::Db;
use adapter_http::metrics::{MetricsEndpoint, MetricsRoute, MetricsSampler};
use domain::common::Clock;
use domain::mail::OutboxRepository;
use domain::uptime::UptimeMonitorService;
use std::sync::Arc;

use crate::Config;

/// Pooled database connections, by `state` (`in_use`, `idle`).
pub const DB_POOL_CONNECTIONS: &str = "portal_db_pool_connections";
/// The most connections the pool opens.
pub const DB_POOL_MAX: &str = "portal_db_pool_max_connections";
/// Reads and writes that found every pooled connection in use and waited for one.
pub const DB_POOL_WAITS: &str = "portal_db_pool_waits_total";
/// Reads and transactions run on the database (a read by key, such as the one that authenticates a
/// request, is one statement).
pub const DB_CALLS: &str = "portal_db_calls_total";
/// Requests whose session (and membership) was answered from memory instead of the database.
pub const DB_CACHE_HITS: &str = "portal_db_session_cache_hits_total";
/// The syncs that make memory trustworthy (one statement each; on PostgreSQL shared by the requests that
/// waited for it).
pub const DB_CACHE_ROUNDS: &str = "portal_db_session_cache_rounds_total";
/// E-mails in the outbox neither sent nor given up.
pub const OUTBOX_DEPTH: &str = "portal_outbox_depth";
/// How long the oldest e-mail waiting in the outbox has waited, in seconds (0 when none waits).
pub const OUTBOX_OLDEST_AGE: &str = "portal_outbox_oldest_age_seconds";
/// Webhook deliveries waiting (due, being attempted, or waiting for a retry).
pub const WEBHOOK_QUEUE_DEPTH: &str = "portal_webhook_queue_depth";
/// How long the oldest waiting webhook delivery has waited, in seconds (0 when none waits).
pub const WEBHOOK_QUEUE_OLDEST_AGE: &str = "portal_webhook_queue_oldest_age_seconds";
/// Webhook delivery attempts made by this instance, by `outcome` (recorded by [`crate::webhooks`]).
pub const WEBHOOK_DELIVERIES: &str = "portal_webhook_deliveries_total";
/// How far the uptime monitor is behind its interval, in seconds.
pub const MONITOR_LAG: &str = "portal_monitor_lag_seconds";
/// Health checks made by this instance's monitor, by `outcome`.
pub const MONITOR_CHECKS: &str = "portal_monitor_checks_total";

/// The prefix of the process series (`portal_process_resident_memory_bytes`, `portal_process_cpu_seconds_total`,
/// `portal_process_threads`, `portal_process_open_fds`, …), collected by `metrics-process`.
const PROCESS_PREFIX: &str = "portal_";

fn describe() {
    use metrics::{Unit, describe_counter, describe_gauge};
    describe_gauge!(
        DB_POOL_CONNECTIONS,
        "Pooled database connections, by state (in_use, idle)."
    );
    describe_gauge!(DB_POOL_MAX, "The most connections the database pool opens.");
    describe_counter!(
        DB_POOL_WAITS,
        "Database checkouts that found every connection in use and waited."
    );
    describe_counter!(
        DB_CALLS,
        "Reads and transactions run on the database (a read by key is one statement)."
    );
    describe_counter!(DB_CACHE_HITS, "Requests whose session was answered from memory.");
    describe_counter!(
        DB_CACHE_ROUNDS,
        "Syncs of the session cache, one statement each (on PostgreSQL shared by the requests that waited)."
    );
    describe_gauge!(OUTBOX_DEPTH, "E-mails in the outbox neither sent nor given up.");
    describe_gauge!(
        OUTBOX_OLDEST_AGE,
        Unit::Seconds,
        "Age of the oldest e-mail waiting in the outbox."
    );
    describe_gauge!(
        WEBHOOK_QUEUE_DEPTH,
        "Webhook deliveries waiting (due, in progress or to be retried)."
    );
    describe_gauge!(
        WEBHOOK_QUEUE_OLDEST_AGE,
        Unit::Seconds,
        "Age of the oldest webhook delivery waiting."
    );
    describe_counter!(
        WEBHOOK_DELIVERIES,
        "Webhook delivery attempts by outcome (delivered, retrying, given_up, disabled)."
    );
    describe_gauge!(
        MONITOR_LAG,
        Unit::Seconds,
        "How far the uptime monitor is behind its interval."
    );
    describe_counter!(
        MONITOR_CHECKS,
        "Health checks made by this instance's monitor, by outcome."
    );
}

/// Reads the server's state for a scrape.
pub struct Sampler {
    db: Db,
    outbox: Arc<dyn OutboxRepository>,
    webhooks: Arc<dyn domain::webhooks::WebhookRepository>,
    uptime: Arc<UptimeMonitorService>,
    clock: Arc<dyn Clock>,
    process: metrics_process::Collector,
}

#[async_trait::async_trait]
impl MetricsSampler for Sampler {
    async fn sample(&self) {
        let pool = self.db.pool_stats();
        metrics::gauge!(DB_POOL_CONNECTIONS, "state" => "in_use").set(f64::from(pool.in_use()));
        metrics::gauge!(DB_POOL_CONNECTIONS, "state" => "idle").set(f64::from(pool.idle));
        metrics::gauge!(DB_POOL_MAX).set(f64::from(pool.max_size));
        metrics::counter!(DB_POOL_WAITS).absolute(pool.waits);
        metrics::counter!(DB_CALLS).absolute(pool.calls);
        metrics::counter!(DB_CACHE_HITS).absolute(pool.cache_hits);
        metrics::counter!(DB_CACHE_ROUNDS).absolute(pool.cache_rounds);
        match self.outbox.backlog().await {
            Ok(backlog) => {
                #[allow(clippy::cast_precision_loss)] // a count far below 2^52
                metrics::gauge!(OUTBOX_DEPTH).set(backlog.pending as f64);
                metrics::gauge!(OUTBOX_OLDEST_AGE).set(seconds(backlog.oldest_age(self.clock.now())));
            }
            Err(error) => tracing::warn!(%error, "metrics: could not measure the outbox"),
        }
        match self.webhooks.backlog().await {
            Ok(backlog) => {
                let age = backlog
                    .oldest_created_at
                    .map_or(chrono::Duration::zero(), |oldest| self.clock.now() - oldest);
                #[allow(clippy::cast_precision_loss)]
                metrics::gauge!(WEBHOOK_QUEUE_DEPTH).set(backlog.pending as f64);
                metrics::gauge!(WEBHOOK_QUEUE_OLDEST_AGE).set(seconds(age));
            }
            Err(error) => tracing::warn!(%error, "metrics: could not measure the webhook queue"),
        }
        match self.uptime.lag().await {
            Ok(lag) => metrics::gauge!(MONITOR_LAG).set(seconds(lag)),
            Err(error) => tracing::warn!(%error, "metrics: could not measure the monitor's lag"),
        }
        self.process.collect();
    }
}

fn seconds(span: chrono::Duration) -> f64 {
    span.to_std().map_or(0.0, |d| d.as_secs_f64())
}

/// Counts one health check of this instance's monitor by its outcome (`healthy`, `unhealthy`,
/// `unreachable`, `timeout`, `error`).
pub fn record_check(outcome: domain::uptime::models::HealthState) {
    metrics::counter!(MONITOR_CHECKS, "outcome" => outcome.code()).increment(1);
}

/// Every outcome's counter at zero, so that each series is there (and `rate()` works) before a first check.
fn register_check_outcomes() {
    use domain::uptime::models::HealthState;
    for outcome in [
        HealthState::Healthy,
        HealthState::Unhealthy,
        HealthState::Unreachable,
        HealthState::Timeout,
        HealthState::Error,
    ] {
        metrics::counter!(MONITOR_CHECKS, "outcome" => outcome.code()).increment(0);
    }
}

/// What `/metrics` serves: off without `PORTAL_METRICS_TOKEN`.
///
/// # Errors
/// When the recorder cannot be installed (another one was installed in this process).
pub fn route(config: &Config, db: &Db, uptime: Arc<UptimeMonitorService>) -> anyhow::Result<MetricsRoute> {
    let Some(token) = config.metrics_token.clone() else {
        return Ok(MetricsRoute(None));
    };
    let sampler = Sampler {
        db: db.clone(),
        outbox: Arc::new(adapter_db::repos::DieselOutboxRepository::new(db.clone())),
        webhooks: Arc::new(adapter_db::repos::DieselWebhookRepository::new(db.clone())),
        uptime,
        clock: Arc::new(crate::system::SystemClock),
        process: metrics_process::Collector::new(PROCESS_PREFIX),
    };
    let process = sampler.process.clone();
    let endpoint = MetricsEndpoint::install(token, Arc::new(sampler))
        .map_err(|e| anyhow::anyhow!("PORTAL_METRICS_TOKEN: could not install the metrics recorder: {e}"))?;
    describe();
    process.describe();
    register_check_outcomes();
    crate::webhooks::register_outcomes();
    tracing::info!("metrics are served at /metrics to scrapes with the PORTAL_METRICS_TOKEN bearer token");
    Ok(MetricsRoute(Some(endpoint)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_negative_span_counts_as_zero_seconds() {
        assert!((seconds(chrono::Duration::milliseconds(1500)) - 1.5).abs() < f64::EPSILON);
        assert!(seconds(chrono::Duration::seconds(-3)).abs() < f64::EPSILON);
    }
}
