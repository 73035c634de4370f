//! Refusals at the protocol level, over raw TCP, on SQLite and PostgreSQL: a request head actix-http cannot
//! read (bad request line, negative, malformed or repeated `Content-Length`, `Content-Length` with chunked,
//! too many headers, a head over 128 KB) gets actix-http's own 400 or 431, reaches no handler, and closes the
//! connection, so nothing pipelined after it is processed; an unknown method under `/auth/v1` answers 405
//! with `Allow` in Supabase Auth's error shape.

use crate::helpers::TestApp;
use crate::org_fixtures::{BACKENDS, spawn};
use adapter_db::Backend;
use reqwest::Method;
use serde_json::Value;
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// One answer read off a raw connection: status and body.
#[derive(Debug)]
struct Answer {
    status: u16,
    body: String,
}

/// Sends `bytes` on a new connection and reads every answer until the server closes it (at most 10 s).
async fn exchange(app: &TestApp, bytes: &[u8]) -> Vec<Answer> {
    let mut stream = TcpStream::connect(app.address.trim_start_matches("http://"))
        .await
        .unwrap();
    // A head over the server's limit is refused before it is all sent: the rest may meet a closed socket.
    let _ = stream.write_all(bytes).await;
    let mut raw = Vec::new();
    let mut buffer = [0_u8; 8192];
    loop {
        match tokio::time::timeout(Duration::from_secs(10), stream.read(&mut buffer)).await {
            Ok(Ok(0) | Err(_)) => break,
            Ok(Ok(n)) => raw.extend_from_slice(&buffer[..n]),
            Err(_) => panic!(
                "the connection was still open after 10 s: {}",
                String::from_utf8_lossy(&raw)
            ),
        }
    }
    parse_answers(&String::from_utf8_lossy(&raw))
}

fn parse_answers(mut text: &str) -> Vec<Answer> {
    let mut answers = Vec::new();
    while let Some((head, rest)) = text.split_once("\r\n\r\n") {
        let mut lines = head.split("\r\n");
        let status = lines.next().unwrap().split(' ').nth(1).unwrap().parse().unwrap();
        let length: usize = lines
            .filter_map(|line| line.split_once(':'))
            .find(|(name, _)| name.trim().eq_ignore_ascii_case("content-length"))
            .map_or(0, |(_, value)| value.trim().parse().unwrap());
        let length = length.min(rest.len());
        answers.push(Answer {
            status,
            body: rest[..length].to_owned(),
        });
        text = &rest[length..];
    }
    answers
}

/// A sign-up as raw HTTP/1.1 with `extra` header lines (each ending in CRLF) after `Host`: a request that
/// leaves an account behind when a handler runs it.
fn sign_up(email: &str, extra: &str) -> String {
    let body = format!(r#"{{"email":"{email}","password":"{PASSWORD}"}}"#);
    format!(
        "POST /auth/v1/signup HTTP/1.1\r\nHost: localhost\r\napikey: built-in\r\nContent-Type: application/json\r\n\
         {extra}\r\n{body}"
    )
}

const PASSWORD: &str = "a sufficiently long passphrase 42";

/// Whether an account of `email` exists: the built-in identity service answers a password grant for it.
async fn has_account(app: &TestApp, email: &str) -> bool {
    let response = app
        .client
        .post(app.url("/auth/v1/token?grant_type=password"))
        .header("apikey", "built-in")
        .json(&serde_json::json!({"email": email, "password": PASSWORD}))
        .send()
        .await
        .unwrap();
    response.status().is_success()
}

async fn malformed_heads_are_refused(backend: Backend) {
    let app = spawn(backend).await;
    let length = |email: &str| format!(r#"{{"email":"{email}","password":"{PASSWORD}"}}"#).len();
    let many_headers: String = (0..100).map(|i| format!("X-Header-{i}: {i}\r\n")).collect();
    let long_header = format!("X-Long: {}\r\n", "a".repeat(140 * 1024));
    // Each case is a sign-up whose head the parser refuses, followed on the same connection by a well-formed
    // sign-up: neither may reach a handler.
    let cases: Vec<(&str, String, u16)> = vec![
        (
            "a bad request line",
            format!(
                "NOT A REQUEST LINE\r\n\r\n{}",
                sign_up("bad-line@example.com", "")
            ),
            400,
        ),
        (
            "a negative Content-Length",
            sign_up("negative@example.com", "Content-Length: -1\r\n"),
            400,
        ),
        (
            "a malformed Content-Length",
            sign_up("malformed@example.com", "Content-Length: 12abc\r\n"),
            400,
        ),
        (
            "two Content-Length headers",
            sign_up(
                "twice@example.com",
                &format!(
                    "Content-Length: {0}\r\nContent-Length: {0}\r\n",
                    length("twice@example.com")
                ),
            ),
            400,
        ),
        (
            "Content-Length with chunked",
            sign_up(
                "smuggled@example.com",
                &format!(
                    "Content-Length: {}\r\nTransfer-Encoding: chunked\r\n",
                    length("smuggled@example.com")
                ),
            ),
            400,
        ),
        (
            "too many headers",
            sign_up(
                "many@example.com",
                &format!("{many_headers}Content-Length: {}\r\n", length("many@example.com")),
            ),
            431,
        ),
        (
            "an over-long head",
            sign_up(
                "long@example.com",
                &format!("{long_header}Content-Length: {}\r\n", length("long@example.com")),
            ),
            431,
        ),
    ];
    for (index, (what, refused, status)) in cases.into_iter().enumerate() {
        let after = format!("after-{index}@example.com");
        let pipelined = format!(
            "{refused}{}",
            sign_up(&after, &format!("Content-Length: {}\r\n", length(&after)))
        );
        let answers = exchange(&app, pipelined.as_bytes()).await;
        assert_eq!(answers.len(), 1, "{backend:?} {what}: {answers:?}");
        assert_eq!(answers[0].status, status, "{backend:?} {what}: {answers:?}");
        // actix-http's own answer: no body, and nothing of the portal's.
        assert!(answers[0].body.is_empty(), "{backend:?} {what}: {answers:?}");
        let refused_email = refused
            .split("\"email\":\"")
            .nth(1)
            .and_then(|rest| rest.split('"').next())
            .unwrap();
        assert!(
            !has_account(&app, refused_email).await,
            "{backend:?} {what}: the refused request reached its handler"
        );
        assert!(
            !has_account(&app, &after).await,
            "{backend:?} {what}: the request pipelined after a refused one was processed"
        );
    }

    // The same sign-ups, well formed and pipelined on one connection, are both served: the checks above
    // would see an account if a handler had run.
    let first = "served-1@example.com";
    let second = "served-2@example.com";
    let two = format!(
        "{}{}",
        sign_up(first, &format!("Content-Length: {}\r\n", length(first))),
        sign_up(
            second,
            &format!("Content-Length: {}\r\nConnection: close\r\n", length(second))
        )
    );
    let answers = exchange(&app, two.as_bytes()).await;
    assert_eq!(
        answers.iter().map(|a| a.status).collect::<Vec<_>>(),
        [200, 200],
        "{backend:?}: {answers:?}"
    );
    assert!(has_account(&app, first).await && has_account(&app, second).await);
}

#[tokio::test]
async fn malformed_request_heads_are_refused_and_reach_no_handler_on_both_databases() {
    for backend in BACKENDS {
        malformed_heads_are_refused(backend).await;
    }
}

async fn auth_methods(backend: Backend) {
    let app = spawn(backend).await;
    for (method, path, allow) in [
        ("PATCH", "/auth/v1/signup", "POST"),
        ("GET", "/auth/v1/token", "POST"),
        ("DELETE", "/auth/v1/user", "GET, PUT"),
        ("PUT", "/auth/v1/verify", "GET, POST"),
        ("POST", "/auth/v1/settings", "GET"),
    ] {
        let response = app
            .client
            .request(Method::from_bytes(method.as_bytes()).unwrap(), app.url(path))
            .header("apikey", "built-in")
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 405, "{backend:?} {method} {path}");
        assert_eq!(
            response.headers().get("Allow").and_then(|v| v.to_str().ok()),
            Some(allow),
            "{backend:?} {method} {path}"
        );
        assert_eq!(
            response
                .headers()
                .get("x-supabase-api-version")
                .and_then(|v| v.to_str().ok()),
            Some("2024-01-01"),
            "{backend:?} {method} {path}"
        );
        let body: Value = response.json().await.unwrap();
        assert_eq!(
            body["code"], "method_not_allowed",
            "{backend:?} {method} {path}: {body}"
        );
        assert_eq!(
            body["error_code"], "method_not_allowed",
            "{backend:?} {method} {path}: {body}"
        );
        assert!(body["msg"].as_str().is_some_and(|m| m.contains(method)), "{body}");
    }
    let unknown = app
        .client
        .get(app.url("/auth/v1/no-such-thing"))
        .send()
        .await
        .unwrap();
    assert_eq!(unknown.status(), 404, "{backend:?}");
}

#[tokio::test]
async fn an_unknown_method_under_auth_v1_answers_405_with_allow_in_supabase_shape() {
    for backend in BACKENDS {
        auth_methods(backend).await;
    }
}
