//! A real S3-compatible server for tests: `moto_server` (PyPI `moto[server]`, installed by
//! `scripts/test-tools.sh`) on a free loopback port, stopped when dropped.

#![allow(clippy::expect_used, clippy::unwrap_used, clippy::panic)] // test support: a failed setup panics

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::S3Settings;

/// A running `moto_server`.
#[derive(Debug)]
pub struct MotoServer {
    child: Child,
    port: u16,
}

impl MotoServer {
    /// Starts `moto_server` on a free port of 127.0.0.1 and waits until it answers (at most 30 s).
    ///
    /// # Panics
    /// When `moto_server` is not installed (run `scripts/test-tools.sh`) or does not start.
    #[must_use]
    pub fn start() -> Self {
        let port = TcpListener::bind("127.0.0.1:0")
            .and_then(|listener| listener.local_addr())
            .expect("a free port")
            .port();
        let child = Command::new("moto_server")
            .args(["-H", "127.0.0.1", "-p", &port.to_string()])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|error| {
                panic!(
                    "could not start moto_server ({error}): run scripts/test-tools.sh to install moto[server]"
                )
            });
        let mut server = Self { child, port };
        let deadline = Instant::now() + Duration::from_secs(30);
        while server.request("GET", "/").is_none() {
            if let Ok(Some(status)) = server.child.try_wait() {
                panic!("moto_server exited at start ({status})");
            }
            assert!(
                Instant::now() < deadline,
                "moto_server did not answer within 30 s"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
        server
    }

    /// `http://127.0.0.1:{port}`.
    #[must_use]
    pub fn endpoint(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// Creates a bucket (moto accepts unsigned requests) and answers settings that use it.
    ///
    /// # Panics
    /// When moto refuses.
    #[must_use]
    pub fn bucket(&self, name: &str) -> S3Settings {
        let status = self.request("PUT", &format!("/{name}")).expect("moto answers");
        assert!(status.contains(" 200 "), "creating the bucket {name}: {status}");
        S3Settings {
            bucket: name.to_owned(),
            endpoint: Some(self.endpoint()),
            region: "us-east-1".into(),
            access_key_id: Some("test-key-id".into()),
            secret_access_key: Some("test-secret".into()),
        }
    }

    /// Sends a bodiless request; answers the status line.
    fn request(&self, method: &str, path: &str) -> Option<String> {
        let mut stream = TcpStream::connect(("127.0.0.1", self.port)).ok()?;
        stream.set_read_timeout(Some(Duration::from_secs(10))).ok()?;
        write!(
            stream,
            "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
            self.port
        )
        .ok()?;
        let mut answer = String::new();
        stream.read_to_string(&mut answer).ok()?;
        answer.lines().next().map(str::to_owned)
    }
}

impl Drop for MotoServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
