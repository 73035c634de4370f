//! Starts `tests/oidc-mock/server.js` (oauth2-mock-server) for a test, installing its npm packages first when
//! they are missing. A dev-dependency of the tests that need a real OpenID Connect provider.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::Mutex;

static INSTALL: Mutex<bool> = Mutex::new(false);

/// The mock's folder, found from the running test's crate (cargo sets `CARGO_MANIFEST_DIR` when it runs a test).
/// Not this crate's compile-time folder: cargo reuses a build of this crate from a checkout at another path
/// (another clone sharing the target dir), whose folder may be gone.
fn mock_dir() -> PathBuf {
    let running = std::env::var_os("CARGO_MANIFEST_DIR").map(PathBuf::from);
    running
        .iter()
        .flat_map(|dir| dir.ancestors())
        .map(|dir| dir.join("tests/oidc-mock"))
        .find(|dir| dir.join("server.js").is_file())
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")))
}

/// `npm ci` once per test process when `node_modules` lacks the mock server.
fn ensure_installed() -> PathBuf {
    let dir = mock_dir();
    let mut done = INSTALL.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    if !*done && !dir.join("node_modules/oauth2-mock-server/package.json").is_file() {
        let status = Command::new("npm")
            .args(["ci", "--no-audit", "--no-fund"])
            .current_dir(&dir)
            .status()
            .expect("npm is needed for the OIDC tests");
        assert!(status.success(), "npm ci in {} failed", dir.display());
    }
    *done = true;
    dir
}

/// A running mock provider; stopped when dropped (and when the test process dies: it exits when its standard
/// input closes).
pub struct MockProvider {
    child: Child,
    pub issuer: String,
}

impl MockProvider {
    /// Starts a provider on a free loopback port signing with `alg` (`RS256` or `ES256`).
    pub fn start(alg: &str) -> Self {
        let dir = ensure_installed();
        let mut child = Command::new("node")
            .args(["server.js", "0", alg])
            .current_dir(&dir)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("node is needed for the OIDC tests");
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let issuer = line
            .trim()
            .strip_prefix("READY ")
            .unwrap_or_else(|| panic!("the mock provider did not start: {line:?}"))
            .to_owned();
        Self { child, issuer }
    }
}

impl Drop for MockProvider {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
