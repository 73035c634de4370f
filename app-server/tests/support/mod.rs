//! Starting `app-server serve` as its own process, for the tests that need a real process (several instances on
//! one database, a crash).

#![allow(dead_code)] // Each test binary uses what it needs.

use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// `app-server serve` on `database_url` and `port`, with a clean environment, the data and web UI folders
/// at `data`, the monitor off unless `extra` says otherwise, and `extra` on top.
pub fn serve(database_url: &str, data: &std::path::Path, port: u16, extra: &[(&str, &str)]) -> Child {
    Command::new(env!("CARGO_BIN_EXE_app-server"))
        .arg("serve")
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("DATABASE_URL", database_url)
        .env("PORTAL_BIND", format!("127.0.0.1:{port}"))
        .env("PORTAL_PUBLIC_URL", format!("http://127.0.0.1:{port}"))
        .env("PORTAL_DATA_DIR", data)
        .env("PORTAL_FRONTEND_DIR", data)
        .env("PORTAL_UPTIME_INTERVAL_SECS", "0")
        .envs(extra.iter().copied())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap()
}

/// Waits (at most 60 s) until the process on `port` answers `/healthz`; fails if it stops first.
pub async fn wait_until_up(child: &mut Child, port: u16) {
    let client = reqwest::Client::new();
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        assert!(
            child.try_wait().unwrap().is_none(),
            "the server stopped while starting"
        );
        if let Ok(answer) = client
            .get(format!("http://127.0.0.1:{port}/healthz"))
            .send()
            .await
            && answer.status().is_success()
        {
            return;
        }
        assert!(Instant::now() < deadline, "the server did not start within 60 s");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}
