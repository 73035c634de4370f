//! The gauges `/metrics` reads when a scrape arrives: the database pool, the outbox, the monitor's lag and
//! the process's memory. The series names live in `adapter_http::metrics`.

use adapter_db::Db;
use adapter_http::metrics::{
    DB_CACHE_HITS, DB_CACHE_ROUNDS, DB_CALLS, DB_POOL_CONNECTIONS, DB_POOL_MAX, DB_POOL_WAITS,
    MONITOR_CHECKS, MONITOR_LAG, MetricsEndpoint, MetricsRoute, MetricsSampler, OUTBOX_DEPTH,
    OUTBOX_OLDEST_AGE, PROCESS_RSS, WEBHOOK_QUEUE_DEPTH, WEBHOOK_QUEUE_OLDEST_AGE,
};
use domain::common::Clock;
use domain::mail::OutboxRepository;
use domain::uptime::UptimeService;
use std::sync::Arc;

use crate::Config;

/// Reads the server's state for a scrape.
pub struct Sampler {
    db: Db,
    outbox: Arc<dyn OutboxRepository>,
    webhooks: Arc<dyn domain::webhooks::WebhookRepository>,
    uptime: Arc<UptimeService>,
    clock: Arc<dyn Clock>,
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
        if let Some(rss) = resident_memory_bytes() {
            #[allow(clippy::cast_precision_loss)] // bytes of memory, far below 2^52
            metrics::gauge!(PROCESS_RSS).set(rss as f64);
        }
    }
}

fn seconds(span: chrono::Duration) -> f64 {
    span.to_std().map_or(0.0, |d| d.as_secs_f64())
}

/// Counts one health check of this instance's monitor by its outcome (`healthy`, `unhealthy`,
/// `unreachable`, `timeout`, `error`).
pub fn record_check(outcome: domain::uptime::models::HealthState) {
    metrics::counter!(MONITOR_CHECKS, "outcome" => outcome.as_str()).increment(1);
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
        metrics::counter!(MONITOR_CHECKS, "outcome" => outcome.as_str()).increment(0);
    }
}

/// What `/metrics` serves: off without `PORTAL_METRICS_TOKEN`.
///
/// # Errors
/// When the recorder cannot be installed (another one was installed in this process).
pub fn route(config: &Config, db: &Db, uptime: Arc<UptimeService>) -> anyhow::Result<MetricsRoute> {
    let Some(token) = config.metrics_token.clone() else {
        return Ok(MetricsRoute(None));
    };
    let sampler = Sampler {
        db: db.clone(),
        outbox: Arc::new(adapter_db::repos::DieselOutboxRepository::new(db.clone())),
        webhooks: Arc::new(adapter_db::repos::DieselWebhookRepository::new(db.clone())),
        uptime,
        clock: Arc::new(crate::system::SystemClock),
    };
    let endpoint = MetricsEndpoint::install(token, Arc::new(sampler))
        .map_err(|e| anyhow::anyhow!("PORTAL_METRICS_TOKEN: could not install the metrics recorder: {e}"))?;
    register_check_outcomes();
    crate::webhooks::register_outcomes();
    tracing::info!("metrics are served at /metrics to scrapes with the PORTAL_METRICS_TOKEN bearer token");
    Ok(MetricsRoute(Some(endpoint)))
}

/// The resident memory of this process (Linux: `/proc/self/statm`); `None` elsewhere.
fn resident_memory_bytes() -> Option<u64> {
    let statm = std::fs::read_to_string("/proc/self/statm").ok()?;
    let pages = resident_pages(&statm)?;
    let page_size = u64::try_from(rustix::param::page_size()).ok()?;
    pages.checked_mul(page_size)
}

/// The resident set, in pages: the second field of `statm` (size, resident, shared, text, lib, data, dt).
fn resident_pages(statm: &str) -> Option<u64> {
    statm.split_whitespace().nth(1)?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_resident_set_is_the_second_field_of_statm() {
        assert_eq!(resident_pages("10240 2048 512 100 0 3000 0\n"), Some(2048));
        assert_eq!(resident_pages("10240"), None);
        assert_eq!(resident_pages(""), None);
        assert_eq!(resident_pages("10240 many"), None);
    }

    #[test]
    fn this_process_reports_its_resident_memory() {
        let rss = resident_memory_bytes().expect("Linux has /proc/self/statm");
        assert!(rss > 1024 * 1024, "{rss} bytes");
    }

    #[test]
    fn a_negative_span_counts_as_zero_seconds() {
        assert!((seconds(chrono::Duration::milliseconds(1500)) - 1.5).abs() < f64::EPSILON);
        assert!(seconds(chrono::Duration::seconds(-3)).abs() < f64::EPSILON);
    }
}
