//! One log line per request: method, route pattern, status, latency and a request id (also answered as
//! `x-request-id`). The route is the matched pattern (`/api/orgs/{orgId}`), never the path with its values
//! or the query string, so tokens, codes and keys carried in URLs never reach the log.

use actix_web::body::MessageBody;
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::header::{HeaderName, HeaderValue};
use actix_web::middleware::Next;
use std::time::Instant;
use tracing::Instrument;

/// The response header carrying the request id.
pub const REQUEST_ID_HEADER: &str = "x-request-id";

/// What is logged as the route of a request that matched no route pattern (the web UI's fallback).
const UNMATCHED: &str = crate::metrics::UNMATCHED_ROUTE;

/// The middleware: wrap it with `actix_web::middleware::from_fn(request_log::log_request)`.
///
/// # Errors
/// Whatever the inner service answers; the error is logged with its status and passed on unchanged.
pub async fn log_request(
    req: ServiceRequest,
    next: Next<impl MessageBody>,
) -> Result<ServiceResponse<impl MessageBody>, actix_web::Error> {
    let request_id = uuid::Uuid::new_v4().simple().to_string();
    let http_method = req.method().clone();
    let method = http_method.to_string();
    let span = tracing::info_span!("request", id = %request_id);
    let started = Instant::now();
    let outcome = next.call(req).instrument(span.clone()).await;
    let elapsed = started.elapsed().as_secs_f64();
    let latency_ms = format!("{:.1}", elapsed * 1000.0);
    let _entered = span.enter();
    match outcome {
        Ok(mut response) => {
            let route = response
                .request()
                .match_pattern()
                .unwrap_or_else(|| UNMATCHED.to_owned());
            let status = response.status().as_u16();
            crate::metrics::record_request(&http_method, &route, status, elapsed);
            if status >= 500 {
                tracing::error!(%method, %route, status, %latency_ms, "request");
            } else {
                tracing::info!(%method, %route, status, %latency_ms, "request");
            }
            if let Ok(value) = HeaderValue::from_str(&request_id) {
                response
                    .headers_mut()
                    .insert(HeaderName::from_static(REQUEST_ID_HEADER), value);
            }
            Ok(response)
        }
        Err(error) => {
            let status = error.as_response_error().status_code().as_u16();
            crate::metrics::record_request(&http_method, UNMATCHED, status, elapsed);
            tracing::warn!(%method, route = UNMATCHED, status, %latency_ms, "request");
            Err(error)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use actix_web::{App, HttpResponse, middleware, test, web};
    use std::io::Write;
    use std::sync::{Arc, Mutex};

    #[derive(Clone, Default)]
    struct Captured(Arc<Mutex<Vec<u8>>>);

    impl Write for Captured {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    impl Captured {
        fn text(&self) -> String {
            String::from_utf8(self.0.lock().unwrap().clone()).unwrap()
        }
    }

    async fn call(uri: &str) -> (String, Option<String>) {
        let captured = Captured::default();
        let writer = captured.clone();
        let subscriber = tracing_subscriber::fmt()
            .with_writer(move || writer.clone())
            .with_ansi(false)
            .finish();
        let _guard = tracing::subscriber::set_default(subscriber);
        let app = test::init_service(
            App::new()
                .wrap(middleware::from_fn(log_request))
                .route("/api/orgs/accept/{token}", web::post().to(HttpResponse::Ok))
                .route("/verify", web::get().to(HttpResponse::NoContent)),
        )
        .await;
        let method = if uri.starts_with("/api") {
            test::TestRequest::post()
        } else {
            test::TestRequest::get()
        };
        let response = test::call_service(&app, method.uri(uri).to_request()).await;
        let id = response
            .headers()
            .get(REQUEST_ID_HEADER)
            .map(|v| v.to_str().unwrap().to_owned());
        (captured.text(), id)
    }

    #[actix_web::test]
    async fn each_request_logs_one_line_with_method_route_status_latency_and_id() {
        let (log, id) = call("/verify?token=secret-link-token&type=magiclink").await;
        let id = id.expect("a request id header");
        let lines: Vec<&str> = log.lines().collect();
        assert_eq!(lines.len(), 1, "{log}");
        let line = lines[0];
        for expected in ["method=GET", "route=/verify", "status=204", "latency_ms=", &id] {
            assert!(line.contains(expected), "{expected} missing from {line}");
        }
    }

    #[actix_web::test]
    async fn tokens_in_the_path_or_query_never_reach_the_log() {
        let (log, _) = call("/api/orgs/accept/invite-token-123?code=654321").await;
        assert!(log.contains("route=/api/orgs/accept/{token}"), "{log}");
        for secret in ["invite-token-123", "654321"] {
            assert!(!log.contains(secret), "{secret} leaked into {log}");
        }
    }

    #[actix_web::test]
    async fn an_unmatched_path_is_logged_without_its_value() {
        let (log, _) = call("/somewhere/private-value").await;
        assert!(log.contains("route=(unmatched)"), "{log}");
        assert!(log.contains("status=404"), "{log}");
        assert!(!log.contains("private-value"), "{log}");
    }
}
