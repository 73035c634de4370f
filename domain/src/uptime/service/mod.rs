//! Uptime use cases: the admin views ([`UptimeService`]: status of every app, the App Status month tab, an
//! app's month and a day's problems, the ping, the live check; in `views.rs`) and the monitor round
//! ([`UptimeMonitorService`]: lease, probe, classify, record, alert; in `monitor.rs`).

use std::sync::Arc;

use super::ports::{HealthProber, UptimeRepository};
use crate::common::{Caller, Clock};
use crate::identity::rate_limit::RateLimitStore;

mod monitor;
mod types;
mod views;

pub use monitor::UptimeMonitorService;
pub use types::*;

/// The uptime views.
pub struct UptimeService {
    repo: Arc<dyn UptimeRepository>,
    prober: Arc<dyn HealthProber>,
    clock: Arc<dyn Clock>,
    config: UptimeConfig,
    /// The shared rate-limit counters (the identity limits' store), for the live check's limits.
    limits: Arc<dyn RateLimitStore>,
}

impl UptimeService {
    /// `limits` are the shared rate-limit counters, which the live check's limits count on.
    #[must_use]
    pub fn new(
        repo: Arc<dyn UptimeRepository>,
        prober: Arc<dyn HealthProber>,
        clock: Arc<dyn Clock>,
        config: UptimeConfig,
        limits: Arc<dyn RateLimitStore>,
    ) -> Self {
        Self {
            repo,
            prober,
            clock,
            config,
            limits,
        }
    }
}

pub(super) fn require_review(caller: &Caller) -> Result<(), UptimeError> {
    if caller.can_review() {
        Ok(())
    } else {
        Err(UptimeError::Forbidden)
    }
}

#[cfg(test)]
mod service_tests;
