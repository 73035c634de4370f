//! `GET /metrics`: off unless `PORTAL_METRICS_TOKEN` is set, then only for scrapes with that bearer token,
//! with every promised series in the Prometheus text format.

use crate::helpers::{spawn_app_on, spawn_app_with};
use adapter_db::Backend;

const TOKEN: &str = "metrics-test-token-7d1f";

/// The lines of `body` that belong to `series` and carry every one of `labels`.
fn lines_of<'a>(body: &'a str, series: &str, labels: &[&str]) -> Vec<&'a str> {
    body.lines()
        .filter(|line| !line.starts_with('#'))
        .filter(|line| line.starts_with(&format!("{series}{{")) || line.starts_with(&format!("{series} ")))
        .filter(|line| labels.iter().all(|label| line.contains(label)))
        .collect()
}

async fn metrics_are_off_without_a_token(backend: Backend) {
    let app = spawn_app_on(backend).await;
    for authorization in [None, Some(format!("Bearer {TOKEN}"))] {
        let mut request = app.client.get(app.url("/metrics"));
        if let Some(value) = authorization {
            request = request.header("Authorization", value);
        }
        let response = request.send().await.unwrap();
        assert_eq!(response.status(), 404, "not the web UI, not the series");
        let body: serde_json::Value = response.json().await.unwrap();
        assert_eq!(body["code"], "NOT_FOUND");
    }
}

async fn a_scrape_without_the_token_is_refused(backend: Backend) {
    let app = spawn_app_with(backend, &[("PORTAL_METRICS_TOKEN", TOKEN)]).await;
    let without = app.client.get(app.url("/metrics")).send().await.unwrap();
    assert_eq!(without.status(), 401);
    for wrong in [
        "Bearer wrong-token".to_owned(),
        format!("Bearer {TOKEN}x"),
        format!("Basic {TOKEN}"),
        TOKEN.to_owned(),
    ] {
        let response = app
            .client
            .get(app.url("/metrics"))
            .header("Authorization", &wrong)
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 401, "{wrong}");
        assert!(!response.text().await.unwrap().contains("portal_"), "{wrong}");
    }
}

async fn a_scrape_with_the_token_has_every_series(backend: Backend) {
    let app = spawn_app_with(backend, &[("PORTAL_METRICS_TOKEN", TOKEN)]).await;
    let config = app.send(app.client.get(app.url("/api/public-config"))).await;
    assert_eq!(config.status(), 200);
    let unknown = app
        .send(app.client.get(app.url("/api/no-such-thing/private-value")))
        .await;
    assert_eq!(unknown.status(), 404);
    let response = app
        .client
        .get(app.url("/metrics"))
        .header("Authorization", format!("Bearer {TOKEN}"))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    let content_type = response.headers()["content-type"].to_str().unwrap().to_owned();
    assert!(
        content_type.starts_with("text/plain; version=0.0.4"),
        "{content_type}"
    );
    let body = response.text().await.unwrap();
    let route = r#"route="/api/public-config""#;
    let requests = lines_of(
        &body,
        "portal_http_requests_total",
        &[route, r#"status="200""#, r#"method="GET""#],
    );
    assert_eq!(requests.len(), 1, "{body}");
    assert!(
        !lines_of(
            &body,
            "portal_http_request_duration_seconds_bucket",
            &[route, r#"le="0.1""#]
        )
        .is_empty(),
        "{body}"
    );
    assert!(
        !lines_of(&body, "portal_http_request_duration_seconds_count", &[route]).is_empty(),
        "{body}"
    );
    // Paths that carry values are labelled by their pattern; what matched no pattern shares one label.
    assert!(!body.contains("private-value"), "{body}");
    assert!(
        !lines_of(&body, "portal_http_requests_total", &[r#"status="404""#]).is_empty(),
        "{body}"
    );
    for (series, labels) in [
        ("portal_db_pool_connections", &[r#"state="in_use""#][..]),
        ("portal_db_pool_connections", &[r#"state="idle""#][..]),
        ("portal_db_pool_max_connections", &[][..]),
        ("portal_db_pool_waits_total", &[][..]),
        ("portal_db_calls_total", &[][..]),
        ("portal_db_session_cache_hits_total", &[][..]),
        ("portal_db_session_cache_rounds_total", &[][..]),
        ("portal_outbox_depth", &[][..]),
        ("portal_outbox_oldest_age_seconds", &[][..]),
        ("portal_monitor_lag_seconds", &[][..]),
        ("portal_monitor_checks_total", &[r#"outcome="healthy""#][..]),
        ("portal_monitor_checks_total", &[r#"outcome="timeout""#][..]),
        ("portal_process_resident_memory_bytes", &[][..]),
        ("portal_process_threads", &[][..]),
        ("portal_process_open_fds", &[][..]),
        ("portal_webhook_queue_depth", &[][..]),
        ("portal_webhook_queue_oldest_age_seconds", &[][..]),
        ("portal_webhook_deliveries_total", &[r#"outcome="delivered""#][..]),
        ("portal_webhook_deliveries_total", &[r#"outcome="disabled""#][..]),
    ] {
        assert!(
            !lines_of(&body, series, labels).is_empty(),
            "{series} {labels:?} missing from\n{body}"
        );
    }
    let rss: f64 = lines_of(&body, "portal_process_resident_memory_bytes", &[])[0]
        .rsplit(' ')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    assert!(rss > 1_000_000.0, "{rss}");
}

#[tokio::test]
async fn metrics_are_off_without_a_token_on_sqlite() {
    metrics_are_off_without_a_token(Backend::Sqlite).await;
}

#[tokio::test]
async fn metrics_are_off_without_a_token_on_postgres() {
    metrics_are_off_without_a_token(Backend::Postgres).await;
}

#[tokio::test]
async fn a_scrape_without_the_token_is_refused_on_sqlite() {
    a_scrape_without_the_token_is_refused(Backend::Sqlite).await;
}

#[tokio::test]
async fn a_scrape_without_the_token_is_refused_on_postgres() {
    a_scrape_without_the_token_is_refused(Backend::Postgres).await;
}

#[tokio::test]
async fn a_scrape_with_the_token_has_every_series_on_sqlite() {
    a_scrape_with_the_token_has_every_series(Backend::Sqlite).await;
}

#[tokio::test]
async fn a_scrape_with_the_token_has_every_series_on_postgres() {
    a_scrape_with_the_token_has_every_series(Backend::Postgres).await;
}
