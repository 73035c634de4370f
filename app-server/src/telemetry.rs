//! Logs: one line per event, request ids from `tracing-actix-web`, level from `RUST_LOG` (default `info`).

use tracing_subscriber::EnvFilter;

/// Installs the global log subscriber. Safe to call more than once (later calls do nothing).
pub fn init() {
    let filter =
        EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info,actix_server=warn"));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_target(false)
        .try_init();
}
