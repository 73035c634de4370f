//! `GET /metrics`: what operators watch, in the Prometheus text format, rendered by
//! `metrics-exporter-prometheus` on a route of this server (no listener of its own).
//!
//! Off unless `PORTAL_METRICS_TOKEN` is set (then 404, as for any unknown path); with it set, the scrape must
//! send `Authorization: Bearer <token>` (compared in constant time), else 401. The request series are
//! recorded by [`crate::request_log`] as requests end; the gauges (pool, outbox, monitor lag, memory) are
//! read when a scrape arrives, by the [`MetricsSampler`] the server supplies.

use actix_web::get;
use actix_web::http::header;
use actix_web::{HttpRequest, HttpResponse, web};
use metrics_exporter_prometheus::{Matcher, PrometheusBuilder, PrometheusHandle};
use std::sync::{Arc, OnceLock};

use crate::ApiError;

/// Requests answered, by `method`, `route` (the matched pattern) and `status`.
pub const HTTP_REQUESTS: &str = "portal_http_requests_total";
/// Seconds from a request's arrival to its answer, by `method`, `route` and `status`.
pub const HTTP_DURATION: &str = "portal_http_request_duration_seconds";
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
/// Webhook delivery attempts made by this instance, by `outcome`.
pub const WEBHOOK_DELIVERIES: &str = "portal_webhook_deliveries_total";
/// How far the uptime monitor is behind its interval, in seconds.
pub const MONITOR_LAG: &str = "portal_monitor_lag_seconds";
/// Health checks made by this instance's monitor, by `outcome`.
pub const MONITOR_CHECKS: &str = "portal_monitor_checks_total";
/// The process's resident memory, in bytes.
pub const PROCESS_RSS: &str = "portal_process_resident_memory_bytes";

/// The route label of a request that matched no route pattern: one label for every such path.
pub const UNMATCHED_ROUTE: &str = "(unmatched)";

/// Upper bounds of the latency histogram's buckets, in seconds.
const DURATION_BUCKETS: [f64; 12] = [
    0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 10.0,
];

/// The media type of the Prometheus text format.
pub const CONTENT_TYPE: &str = "text/plain; version=0.0.4; charset=utf-8";

/// `PORTAL_METRICS_TOKEN`: the bearer token a scrape must send. Never printed.
#[derive(Clone, PartialEq, Eq)]
pub struct MetricsToken(String);

impl MetricsToken {
    /// The token, unless `text` is blank.
    #[must_use]
    pub fn new(text: &str) -> Option<Self> {
        let text = text.trim();
        (!text.is_empty()).then(|| Self(text.to_owned()))
    }

    /// Whether `Authorization` carries this token as a bearer token, compared in constant time.
    fn admits(&self, authorization: Option<&str>) -> bool {
        use subtle::ConstantTimeEq;
        let Some(given) = authorization.and_then(|value| value.strip_prefix("Bearer ")) else {
            return false;
        };
        bool::from(given.trim().as_bytes().ct_eq(self.0.as_bytes()))
    }
}

impl std::fmt::Debug for MetricsToken {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("MetricsToken(..)")
    }
}

/// Sets the gauges read at scrape time (the server knows the pool, the outbox and the monitor).
#[async_trait::async_trait]
pub trait MetricsSampler: Send + Sync {
    /// Reads the current values and sets their gauges; a failed read leaves its gauge as it was.
    async fn sample(&self);
}

/// What `/metrics` serves when it is on.
#[derive(Clone)]
pub struct MetricsEndpoint {
    token: MetricsToken,
    handle: PrometheusHandle,
    sampler: Arc<dyn MetricsSampler>,
}

impl MetricsEndpoint {
    /// Admits a scrape that carries the bearer token.
    fn authorize(&self, req: &HttpRequest) -> Result<(), ApiError> {
        let authorization = req
            .headers()
            .get(header::AUTHORIZATION)
            .and_then(|value| value.to_str().ok());
        if self.token.admits(authorization) {
            Ok(())
        } else {
            Err(ApiError::Unauthorized(
                "The metrics token is missing or wrong.".into(),
            ))
        }
    }
}

impl std::fmt::Debug for MetricsEndpoint {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("MetricsEndpoint")
    }
}

impl MetricsEndpoint {
    /// Installs the process's recorder (once; later servers of the same process share it) and answers the
    /// endpoint.
    ///
    /// # Errors
    /// When another recorder was installed in this process before.
    pub fn install(token: MetricsToken, sampler: Arc<dyn MetricsSampler>) -> Result<Self, String> {
        static HANDLE: OnceLock<Result<PrometheusHandle, String>> = OnceLock::new();
        let handle = HANDLE.get_or_init(install_recorder).clone()?;
        Ok(Self {
            token,
            handle,
            sampler,
        })
    }
}

fn install_recorder() -> Result<PrometheusHandle, String> {
    let handle = PrometheusBuilder::new()
        .set_buckets_for_metric(Matcher::Full(HTTP_DURATION.to_owned()), &DURATION_BUCKETS)
        .map_err(|e| e.to_string())?
        .install_recorder()
        .map_err(|e| e.to_string())?;
    describe();
    Ok(handle)
}

fn describe() {
    use metrics::{Unit, describe_counter, describe_gauge, describe_histogram};
    describe_counter!(
        HTTP_REQUESTS,
        "Requests answered, by method, route pattern and status."
    );
    describe_histogram!(
        HTTP_DURATION,
        Unit::Seconds,
        "Request latency, by method, route pattern and status."
    );
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
    describe_gauge!(PROCESS_RSS, Unit::Bytes, "Resident memory of the process.");
}

/// The method label: the standard methods by name, anything else as `OTHER` (a client chooses the method,
/// and a label must not take values without bound).
fn method_label(method: &actix_web::http::Method) -> &'static str {
    use actix_web::http::Method;
    match *method {
        Method::GET => "GET",
        Method::HEAD => "HEAD",
        Method::POST => "POST",
        Method::PUT => "PUT",
        Method::PATCH => "PATCH",
        Method::DELETE => "DELETE",
        Method::OPTIONS => "OPTIONS",
        _ => "OTHER",
    }
}

/// Counts one answered request and its latency. `route` is the matched pattern or [`UNMATCHED_ROUTE`].
/// Without an installed recorder (metrics off) this does nothing.
pub fn record_request(method: &actix_web::http::Method, route: &str, status: u16, seconds: f64) {
    let labels = [
        ("method", method_label(method).to_owned()),
        ("route", route.to_owned()),
        ("status", status.to_string()),
    ];
    metrics::counter!(HTTP_REQUESTS, &labels).increment(1);
    metrics::histogram!(HTTP_DURATION, &labels).record(seconds);
}

/// What the route is given: the endpoint when metrics are on.
#[derive(Debug, Clone)]
pub struct MetricsRoute(pub Option<MetricsEndpoint>);

/// `GET /metrics`: the series in the Prometheus text format, for a scrape with the bearer token
/// (`PORTAL_METRICS_TOKEN`); 401 without it; 404 while metrics are off.
#[utoipa::path(tag = "system",
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The series in the Prometheus text format (version 0.0.4)", content_type = "text/plain", body = String),
        (status = 401, description = "No bearer token, or not `PORTAL_METRICS_TOKEN`", body = crate::openapi::ErrorBody),
        (status = 404, description = "Metrics are off (`PORTAL_METRICS_TOKEN` is not set)", body = crate::openapi::ErrorBody),
    ))]
#[get("/metrics")]
pub async fn render(req: HttpRequest, route: web::Data<MetricsRoute>) -> Result<HttpResponse, ApiError> {
    let Some(endpoint) = route.0.as_ref() else {
        return Err(ApiError::NotFound("No such page.".into()));
    };
    endpoint.authorize(&req)?;
    endpoint.sampler.sample().await;
    Ok(HttpResponse::Ok()
        .insert_header((header::CONTENT_TYPE, CONTENT_TYPE))
        .insert_header((header::CACHE_CONTROL, "no-store"))
        .body(endpoint.handle.render()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_exact_bearer_token_is_admitted() {
        let token = MetricsToken::new("s3cret-token").unwrap();
        assert!(token.admits(Some("Bearer s3cret-token")));
        for refused in [
            None,
            Some(""),
            Some("s3cret-token"),
            Some("Basic s3cret-token"),
            Some("Bearer s3cret-toke"),
            Some("Bearer s3cret-token2"),
            Some("Bearer "),
        ] {
            assert!(!token.admits(refused), "{refused:?} was admitted");
        }
    }

    #[test]
    fn a_blank_token_turns_metrics_off_and_a_token_is_never_printed() {
        assert!(MetricsToken::new("  ").is_none());
        let token = MetricsToken::new("s3cret-token").unwrap();
        assert!(!format!("{token:?}").contains("s3cret"));
    }

    #[test]
    fn methods_outside_the_standard_ones_share_one_label() {
        use actix_web::http::Method;
        assert_eq!(method_label(&Method::GET), "GET");
        assert_eq!(method_label(&Method::from_bytes(b"BREW").unwrap()), "OTHER");
    }
}
