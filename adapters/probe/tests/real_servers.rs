//! The prober against real HTTP servers on loopback (raw sockets, so that every answer is exactly what the
//! test says): healthy, failing, wrong bodies, redirects, huge bodies, servers that never answer, and the
//! private-target rule.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use adapter_probe::{HttpProber, MAX_BODY_BYTES, ProbeConfig};
use domain::uptime::{HealthProber, ProbeError, RefusalReason};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

/// A loopback server answering every request with `answer`; counts the connections it accepted.
struct Server {
    port: u16,
    connections: Arc<AtomicUsize>,
}

async fn serve(answer: Vec<u8>, hang: bool) -> Server {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let connections = Arc::new(AtomicUsize::new(0));
    let counter = connections.clone();
    tokio::spawn(async move {
        loop {
            let Ok((mut socket, _)) = listener.accept().await else {
                return;
            };
            counter.fetch_add(1, Ordering::SeqCst);
            let answer = answer.clone();
            tokio::spawn(async move {
                let mut buffer = vec![0u8; 8192];
                // Answer each request on the connection (keep-alive) until the client closes it.
                loop {
                    let mut request = Vec::new();
                    while !request.windows(4).any(|w| w == b"\r\n\r\n") {
                        match socket.read(&mut buffer).await {
                            Ok(0) | Err(_) => return,
                            Ok(n) => request.extend_from_slice(&buffer[..n]),
                        }
                    }
                    if hang {
                        tokio::time::sleep(Duration::from_secs(60)).await;
                        return;
                    }
                    if socket.write_all(&answer).await.is_err() {
                        return;
                    }
                }
            });
        }
    });
    Server { port, connections }
}

fn response(status: &str, body: &[u8]) -> Vec<u8> {
    let mut bytes = format!(
        "HTTP/1.1 {status}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n",
        body.len()
    )
    .into_bytes();
    bytes.extend_from_slice(body);
    bytes
}

fn local_prober() -> HttpProber {
    HttpProber::new(ProbeConfig {
        allow_private: true,
        timeout: Duration::from_millis(800),
    })
    .unwrap()
}

fn url(server: &Server) -> String {
    format!("http://127.0.0.1:{}/health", server.port)
}

#[tokio::test]
async fn a_healthy_server_answers_its_status_and_latency_over_one_kept_alive_connection() {
    let server = serve(response("200 OK", br#"{"status":"healthy"}"#), false).await;
    let prober = local_prober();
    for _ in 0..3 {
        let result = prober.probe(&url(&server)).await.unwrap();
        assert_eq!(result.http_status, 200);
        assert_eq!(result.body_status.as_deref(), Some("healthy"));
        assert!(result.latency_ms < 800);
    }
    assert_eq!(server.connections.load(Ordering::SeqCst), 1, "keep-alive");
}

#[tokio::test]
async fn failing_statuses_and_wrong_bodies_are_answers_not_errors() {
    let prober = local_prober();
    let failing = serve(
        response("500 Internal Server Error", br#"{"status":"healthy"}"#),
        false,
    )
    .await;
    let result = prober.probe(&url(&failing)).await.unwrap();
    assert_eq!(result.http_status, 500);

    let not_json = serve(response("200 OK", b"<html>ok</html>"), false).await;
    let result = prober.probe(&url(&not_json)).await.unwrap();
    assert_eq!((result.http_status, result.body_status), (200, None));

    let other = serve(response("200 OK", br#"{"status":"degraded"}"#), false).await;
    let result = prober.probe(&url(&other)).await.unwrap();
    assert_eq!(result.body_status.as_deref(), Some("degraded"));
}

#[tokio::test]
async fn a_server_that_never_answers_times_out_within_the_limit() {
    let silent = serve(Vec::new(), true).await;
    let started = std::time::Instant::now();
    let result = local_prober().probe(&url(&silent)).await;
    assert_eq!(result, Err(ProbeError::Timeout));
    assert!(
        started.elapsed() < Duration::from_secs(3),
        "{:?}",
        started.elapsed()
    );
}

#[tokio::test]
async fn redirects_are_refused_not_followed() {
    let target = serve(response("200 OK", br#"{"status":"healthy"}"#), false).await;
    let redirect = format!(
        "HTTP/1.1 302 Found\r\nLocation: http://127.0.0.1:{}/health\r\nContent-Length: 0\r\n\r\n",
        target.port
    );
    let server = serve(redirect.into_bytes(), false).await;
    let result = local_prober().probe(&url(&server)).await;
    assert_eq!(result, Err(ProbeError::Refused(RefusalReason::Redirect)));
    assert_eq!(target.connections.load(Ordering::SeqCst), 0);
}

#[tokio::test]
async fn bodies_over_64_kb_are_refused_whether_announced_or_streamed() {
    let huge = vec![b' '; 10 * 1024 * 1024];
    let announced = serve(response("200 OK", &huge), false).await;
    let result = local_prober().probe(&url(&announced)).await;
    assert_eq!(result, Err(ProbeError::Refused(RefusalReason::TooLarge)));

    // Chunked, with no length: the prober stops reading past the limit.
    let mut streamed = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n".to_vec();
    let chunk = vec![b'x'; 16 * 1024];
    for _ in 0..((MAX_BODY_BYTES / chunk.len()) + 2) {
        streamed.extend_from_slice(format!("{:x}\r\n", chunk.len()).as_bytes());
        streamed.extend_from_slice(&chunk);
        streamed.extend_from_slice(b"\r\n");
    }
    streamed.extend_from_slice(b"0\r\n\r\n");
    let server = serve(streamed, false).await;
    let result = local_prober().probe(&url(&server)).await;
    assert_eq!(result, Err(ProbeError::Refused(RefusalReason::TooLarge)));
}

#[tokio::test]
async fn private_targets_are_refused_before_any_connection() {
    let server = serve(response("200 OK", br#"{"status":"healthy"}"#), false).await;
    let prober = HttpProber::new(ProbeConfig::default()).unwrap();
    for target in [
        format!("http://127.0.0.1:{}/health", server.port),
        format!("http://localhost:{}/health", server.port),
        format!("http://[::ffff:127.0.0.1]:{}/health", server.port),
        format!("http://[::1]:{}/health", server.port),
        "http://169.254.169.254/latest/meta-data".to_owned(),
        "http://10.0.0.1/health".to_owned(),
    ] {
        let result = prober.probe(&target).await;
        assert_eq!(
            result,
            Err(ProbeError::Refused(RefusalReason::PrivateTarget)),
            "{target}"
        );
    }
    assert_eq!(server.connections.load(Ordering::SeqCst), 0);
}

#[tokio::test]
async fn a_closed_port_is_unreachable_and_other_schemes_are_refused() {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    drop(listener);
    let result = local_prober()
        .probe(&format!("http://127.0.0.1:{port}/health"))
        .await;
    assert_eq!(
        result,
        Err(ProbeError::Unreachable("the connection was refused".into()))
    );
    for bad in [
        "ftp://example.com/health",
        "file:///etc/passwd",
        "http://user:pw@example.com/",
    ] {
        assert!(
            matches!(local_prober().probe(bad).await, Err(ProbeError::Unreachable(_))),
            "{bad}"
        );
    }
}
