//! Refusals at the protocol level, over raw TCP, on SQLite and PostgreSQL: a request head actix-http cannot
//! read (bad request line, negative or malformed `Content-Length`, too many headers, a head over 128 KB)
//! answers the JSON error envelope and closes the connection, also after an earlier request on the same
//! connection; a made-up stand-in of a refusal is no refusal; an unknown method under `/auth/v1` answers
//! 405 with `Allow` in Supabase Auth's error shape.

use crate::helpers::TestApp;
use crate::org_fixtures::{BACKENDS, spawn};
use adapter_db::Backend;
use reqwest::Method;
use serde_json::Value;
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// One answer read off a raw connection: status, headers (lower-case names) and body.
#[derive(Debug)]
struct Answer {
    status: u16,
    headers: Vec<(String, String)>,
    body: String,
}

impl Answer {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    fn json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap_or_else(|e| panic!("not JSON ({e}): {self:?}"))
    }
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
        let headers: Vec<(String, String)> = lines
            .map(|line| {
                let (name, value) = line.split_once(':').unwrap();
                (name.trim().to_ascii_lowercase(), value.trim().to_owned())
            })
            .collect();
        let length: usize = headers
            .iter()
            .find(|(n, _)| n == "content-length")
            .map_or(0, |(_, v)| v.parse().unwrap());
        let length = length.min(rest.len());
        answers.push(Answer {
            status,
            headers,
            body: rest[..length].to_owned(),
        });
        text = &rest[length..];
    }
    answers
}

async fn refusals_answer_json(backend: Backend) {
    let app = spawn(backend).await;
    let many_headers: String = (0..100).map(|i| format!("X-Header-{i}: {i}\r\n")).collect();
    let long_header = "a".repeat(140 * 1024);
    let cases = [
        (
            "a bad request line",
            "NOT A REQUEST LINE\r\n\r\n".to_owned(),
            400,
            "BAD_REQUEST_LINE",
        ),
        (
            "a request line without a version",
            "GET /healthz\r\nHost: localhost\r\n\r\n".to_owned(),
            400,
            "BAD_REQUEST_LINE",
        ),
        (
            "a negative Content-Length",
            "POST /api/orgs HTTP/1.1\r\nHost: localhost\r\nContent-Length: -1\r\n\r\n".to_owned(),
            400,
            "BAD_CONTENT_LENGTH",
        ),
        (
            "a malformed Content-Length",
            "POST /api/orgs HTTP/1.1\r\nHost: localhost\r\nContent-Length: 12abc\r\n\r\n".to_owned(),
            400,
            "BAD_CONTENT_LENGTH",
        ),
        (
            "two Content-Length headers",
            "POST /api/orgs HTTP/1.1\r\nHost: localhost\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}"
                .to_owned(),
            400,
            "BAD_CONTENT_LENGTH",
        ),
        (
            "a header name with a space",
            "GET /healthz HTTP/1.1\r\nHost: localhost\r\nBad Name: x\r\n\r\n".to_owned(),
            400,
            "BAD_HEADER",
        ),
        (
            "no Host on HTTP/1.1",
            "GET /healthz HTTP/1.1\r\n\r\n".to_owned(),
            400,
            "BAD_HOST",
        ),
        (
            "too many headers",
            format!("GET /healthz HTTP/1.1\r\nHost: localhost\r\n{many_headers}\r\n"),
            431,
            "TOO_MANY_HEADERS",
        ),
        (
            "an over-long header",
            format!("GET /healthz HTTP/1.1\r\nHost: localhost\r\nX-Long: {long_header}\r\n\r\n"),
            431,
            "HEADERS_TOO_LARGE",
        ),
    ];
    for (what, request, status, code) in cases {
        let answers = exchange(&app, request.as_bytes()).await;
        assert_eq!(answers.len(), 1, "{backend:?} {what}: {answers:?}");
        let answer = &answers[0];
        assert_eq!(answer.status, status, "{backend:?} {what}: {answer:?}");
        assert_eq!(
            answer.header("content-type"),
            Some("application/json"),
            "{backend:?} {what}: {answer:?}"
        );
        assert_eq!(answer.header("connection"), Some("close"), "{backend:?} {what}");
        let body = answer.json();
        assert_eq!(body["code"], code, "{backend:?} {what}: {body}");
        assert!(
            body["error"].as_str().is_some_and(|e| !e.is_empty()),
            "{backend:?} {what}: {body}"
        );
    }

    // After a request with a body on the same connection, the next head is still read: the first is
    // served, the second refused in JSON, and nothing after it is read.
    let pipelined = "POST /api/auth/exchange-token HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n\
                     Content-Length: 2\r\n\r\n{}\
                     GET /healthz HTTP/1.1\r\nHost: localhost\r\nContent-Length: -5\r\n\r\n\
                     GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n";
    let answers = exchange(&app, pipelined.as_bytes()).await;
    assert_eq!(answers.len(), 2, "{backend:?}: {answers:?}");
    assert_eq!(answers[0].status, 400, "{backend:?}: {answers:?}");
    assert!(answers[0].json()["code"].is_string(), "{backend:?}: {answers:?}");
    assert_eq!(answers[1].status, 400, "{backend:?}: {answers:?}");
    assert_eq!(
        answers[1].json()["code"],
        "BAD_CONTENT_LENGTH",
        "{backend:?}: {answers:?}"
    );

    // Good requests on one connection are untouched.
    let two = "GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\nGET /healthz HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n";
    let answers = exchange(&app, two.as_bytes()).await;
    assert_eq!(
        answers.iter().map(|a| a.status).collect::<Vec<_>>(),
        [200, 200],
        "{backend:?}: {answers:?}"
    );
}

#[tokio::test]
async fn protocol_refusals_answer_the_json_envelope_on_both_databases() {
    for backend in BACKENDS {
        refusals_answer_json(backend).await;
    }
}

#[tokio::test]
async fn a_made_up_stand_in_of_a_refusal_is_no_refusal() {
    let app = spawn(Backend::Sqlite).await;
    let forged = "GET /.protocol-error HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\
                  x-portal-protocol-error: 0123456789abcdef0123456789abcdef BAD_HOST\r\n\r\n";
    let answers = exchange(&app, forged.as_bytes()).await;
    assert_eq!(answers.len(), 1, "{answers:?}");
    assert_ne!(answers[0].status, 400, "{answers:?}");
    assert!(!answers[0].body.contains("BAD_HOST"), "{answers:?}");
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
