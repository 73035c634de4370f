//! One log line per request: method, route pattern, status, latency and request id. Never the path or the
//! query as sent (they can carry invitation tokens, e-mail link tokens or codes), never a header.

use actix_web::body::MessageBody;
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::{Error, HttpMessage};
use std::time::Instant;
use tracing::Span;
use tracing_actix_web::{RequestId, RootSpanBuilder};

/// The [`RootSpanBuilder`] of `TracingLogger<RequestLog>`: a span carrying the request id (so every line
/// logged while handling the request names it) and, at the end, the request's line.
pub struct RequestLog;

#[derive(Clone, Copy)]
struct Started(Instant);

impl RootSpanBuilder for RequestLog {
    fn on_request_start(request: &ServiceRequest) -> Span {
        request.extensions_mut().insert(Started(Instant::now()));
        let request_id = request
            .extensions()
            .get::<RequestId>()
            .map(ToString::to_string)
            .unwrap_or_default();
        tracing::info_span!("request", request_id = %request_id)
    }

    fn on_request_end<B: MessageBody>(span: Span, outcome: &Result<ServiceResponse<B>, Error>) {
        let Ok(response) = outcome else {
            if let Err(error) = outcome {
                let status = error.as_response_error().status_code().as_u16();
                span.in_scope(|| tracing::info!(status, "request failed before routing"));
            }
            return;
        };
        let request = response.request();
        let latency_ms = request
            .extensions()
            .get::<Started>()
            .map(|started| started.0.elapsed().as_secs_f64() * 1000.0);
        let route = request
            .match_pattern()
            .unwrap_or_else(|| "(unmatched)".to_owned());
        let status = response.status().as_u16();
        let method = request.method().as_str();
        span.in_scope(|| {
            tracing::info!(
                method,
                route = %route,
                status,
                latency_ms = latency_ms.map(|ms| (ms * 10.0).round() / 10.0),
                "request"
            );
        });
    }
}
