//! Slow clients: a body that stalls or trickles past the limits is cut off with 408 and its connection
//! closed; a slow but steady body within the limits is served; a request head that never ends gets 408.

use crate::helpers::{TestApp, spawn_app_with};
use adapter_db::Backend;
use std::time::{Duration, Instant};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

async fn app() -> TestApp {
    spawn_app_with(
        Backend::Sqlite,
        &[
            ("PORTAL_BODY_IDLE_TIMEOUT_SECS", "1"),
            ("PORTAL_BODY_TIMEOUT_SECS", "3"),
        ],
    )
    .await
}

async fn connect(app: &TestApp) -> TcpStream {
    TcpStream::connect(app.address.trim_start_matches("http://"))
        .await
        .unwrap()
}

fn head(length: usize) -> String {
    format!(
        "POST /api/auth/exchange-token HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n\
         Content-Length: {length}\r\n\r\n"
    )
}

/// Everything the server writes until it closes the connection (at most `limit` to wait), and when it closed.
async fn answer(stream: &mut TcpStream, started: Instant, limit: Duration) -> (String, Duration) {
    let mut text = Vec::new();
    let mut buffer = [0_u8; 4096];
    loop {
        match tokio::time::timeout(limit.saturating_sub(started.elapsed()), stream.read(&mut buffer)).await {
            Ok(Ok(0) | Err(_)) => break,
            Ok(Ok(n)) => text.extend_from_slice(&buffer[..n]),
            Err(_) => panic!(
                "the connection was still open after {limit:?}: {}",
                String::from_utf8_lossy(&text)
            ),
        }
    }
    (String::from_utf8_lossy(&text).into_owned(), started.elapsed())
}

#[tokio::test]
async fn a_body_that_stalls_is_cut_off_with_408_and_its_connection_closed() {
    let app = app().await;
    let mut stream = connect(&app).await;
    let started = Instant::now();
    stream.write_all(head(100).as_bytes()).await.unwrap();
    stream.write_all(b"{\"supabaseToken\":").await.unwrap();
    let (text, took) = answer(&mut stream, started, Duration::from_secs(10)).await;
    assert!(text.starts_with("HTTP/1.1 408"), "{text}");
    assert!(text.contains("\"code\":\"REQUEST_TIMEOUT\""), "{text}");
    assert!(
        took < Duration::from_secs(3),
        "cut after the 1 s pause, not later: {took:?}"
    );
}

#[tokio::test]
async fn a_body_that_trickles_past_the_total_limit_is_cut_off_with_408() {
    let app = app().await;
    let mut stream = connect(&app).await;
    let started = Instant::now();
    stream.write_all(head(1000).as_bytes()).await.unwrap();
    let writer = async {
        for _ in 0..20 {
            if stream.write_all(b" ").await.is_err() {
                break;
            }
            tokio::time::sleep(Duration::from_millis(400)).await;
        }
    };
    tokio::time::timeout(Duration::from_secs(4), writer).await.ok();
    let (text, took) = answer(&mut stream, started, Duration::from_secs(10)).await;
    assert!(text.starts_with("HTTP/1.1 408"), "{text}");
    assert!(took < Duration::from_secs(6), "{took:?}");
}

#[tokio::test]
async fn a_slow_but_steady_body_within_the_limits_is_served() {
    let app = app().await;
    let mut stream = connect(&app).await;
    let body = br#"{"supabaseToken":"not-a-token"}"#;
    let started = Instant::now();
    stream.write_all(head(body.len()).as_bytes()).await.unwrap();
    for piece in body.chunks(8) {
        tokio::time::sleep(Duration::from_millis(600)).await;
        stream.write_all(piece).await.unwrap();
    }
    assert!(
        started.elapsed() > Duration::from_secs(2),
        "slower than one idle pause in all"
    );
    let mut buffer = [0_u8; 4096];
    let n = tokio::time::timeout(Duration::from_secs(5), stream.read(&mut buffer))
        .await
        .unwrap()
        .unwrap();
    let text = String::from_utf8_lossy(&buffer[..n]);
    assert!(text.starts_with("HTTP/1.1 401"), "{text}");
}

#[tokio::test]
async fn a_request_head_that_never_ends_is_answered_408() {
    let app = app().await;
    let mut stream = connect(&app).await;
    let started = Instant::now();
    stream
        .write_all(b"GET /api/public-config HTTP/1.1\r\nHost: localhost\r\nX-Slow: ")
        .await
        .unwrap();
    let (text, took) = answer(&mut stream, started, Duration::from_secs(20)).await;
    assert!(text.starts_with("HTTP/1.1 408"), "{text}");
    assert!(took < Duration::from_secs(15), "{took:?}");
}
