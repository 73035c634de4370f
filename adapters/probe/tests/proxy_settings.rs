//! The prober ignores the environment's proxy settings: with `HTTPS_PROXY` (and friends) pointing at a proxy,
//! a loopback target is still refused by the address check and nothing reaches the proxy; an allowed target
//! is fetched directly.
//!
//! Proxy variables are read when a client is built, and changing the environment of a running test process
//! is racy (and needs `unsafe`, which the workspace forbids). So the test runs its checks in a child process
//! of this test binary, started with the proxy variables set; the parent plays the proxy and counts the
//! connections it receives.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use adapter_probe::{HttpProber, ProbeConfig};
use domain::uptime::{HealthProber, ProbeError, RefusalReason};
use std::io::{Read, Write};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

/// Set in the child's environment: the child test runs only then.
const CHILD_MARKER: &str = "PROBE_PROXY_TEST_CHILD";
const CHILD_TEST: &str = "in_a_process_with_proxy_settings_the_prober_goes_direct";

#[test]
fn the_prober_never_uses_the_environments_proxy() {
    // The "proxy": accepts and counts connections, answers nothing useful.
    let proxy = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let proxy_url = format!("http://{}", proxy.local_addr().unwrap());
    let connections = Arc::new(AtomicUsize::new(0));
    let counter = connections.clone();
    std::thread::spawn(move || {
        for stream in proxy.incoming() {
            counter.fetch_add(1, Ordering::SeqCst);
            if let Ok(mut stream) = stream {
                let mut buffer = [0u8; 1024];
                let _ = stream.read(&mut buffer);
                let _ = stream.write_all(b"HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n");
            }
        }
    });
    let mut child = std::process::Command::new(std::env::current_exe().unwrap());
    child
        .args([
            "--exact",
            CHILD_TEST,
            "--ignored",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(CHILD_MARKER, "1")
        .env_remove("NO_PROXY")
        .env_remove("no_proxy");
    for name in [
        "HTTPS_PROXY",
        "https_proxy",
        "HTTP_PROXY",
        "http_proxy",
        "ALL_PROXY",
        "all_proxy",
    ] {
        child.env(name, &proxy_url);
    }
    let output = child.output().unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "the child failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(
        stdout.contains("1 passed"),
        "the child test did not run:\n{stdout}"
    );
    assert_eq!(
        connections.load(Ordering::SeqCst),
        0,
        "a request went through the proxy"
    );
}

/// Runs only as the child of [`the_prober_never_uses_the_environments_proxy`].
#[test]
#[ignore = "run by the_prober_never_uses_the_environments_proxy in a process with proxy settings"]
fn in_a_process_with_proxy_settings_the_prober_goes_direct() {
    if std::env::var_os(CHILD_MARKER).is_none() {
        return;
    }
    assert!(std::env::var_os("HTTPS_PROXY").is_some());
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        // A name that resolves to loopback, on both schemes: refused by the address check.
        let guarded = HttpProber::new(ProbeConfig {
            allow_private: false,
            timeout: Duration::from_secs(2),
        })
        .unwrap();
        for url in ["https://localhost:9/health", "http://localhost:9/health"] {
            let outcome = guarded.probe(url).await;
            assert!(
                matches!(outcome, Err(ProbeError::Refused(RefusalReason::PrivateTarget))),
                "{url}: {outcome:?}"
            );
        }

        // With private targets allowed (tests, local development), the app's own server answers directly.
        let server = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = server.local_addr().unwrap().port();
        tokio::spawn(async move {
            use tokio::io::{AsyncReadExt, AsyncWriteExt};
            while let Ok((mut socket, _)) = server.accept().await {
                let mut buffer = vec![0u8; 4096];
                let _ = socket.read(&mut buffer).await;
                let body = br#"{"status":"healthy"}"#;
                let head = format!(
                    "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n",
                    body.len()
                );
                let _ = socket.write_all(head.as_bytes()).await;
                let _ = socket.write_all(body).await;
            }
        });
        let open = HttpProber::new(ProbeConfig {
            allow_private: true,
            timeout: Duration::from_secs(2),
        })
        .unwrap();
        let result = open
            .probe(&format!("http://localhost:{port}/health"))
            .await
            .unwrap();
        assert_eq!(
            (result.http_status, result.body_status.as_deref()),
            (200, Some("healthy"))
        );
    });
}
