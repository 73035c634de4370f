//! The uptime monitor (PRODUCT.md §5): every SUBMITTED and PUBLISHED app checked once per interval.
//!
//! Each tick leases the apps that are due (the lease keeps other instances on the same PostgreSQL off
//! them, and a dead instance's leases simply expire) and starts their checks, at most
//! `PORTAL_UPTIME_CONCURRENCY` at a time, without waiting for a round to end: a slow or silent target holds
//! one slot for at most the check's time limit and never the others. Apps fall due one interval after their
//! own last check, so after the first round the checks spread over the interval by themselves.

use db_adapter::Db;
use db_adapter::repos::DieselUptimeRepository;
use domain::common::Clock;
use domain::uptime::{MonitoredApp, UptimeConfig, UptimeService};
use probe_adapter::HttpProber;
pub use probe_adapter::ProbeConfig;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::{Semaphore, watch};
use tokio::task::JoinSet;

use crate::Config;
use crate::system::SystemClock;

/// How often the monitor looks for apps that fell due.
const TICK: Duration = Duration::from_secs(1);

/// The uptime use cases over the database and the real prober.
///
/// # Errors
/// When the HTTP client of the prober cannot be built.
pub fn service(config: &Config, db: &Db, clock: Arc<dyn Clock>) -> anyhow::Result<Arc<UptimeService>> {
    let probe = ProbeConfig {
        allow_private: config.allow_private_targets,
        ..ProbeConfig::default()
    };
    service_with_probe(config, db, clock, probe)
}

/// As [`service`], with the prober's settings given (tests shorten the time limit).
///
/// # Errors
/// When the HTTP client of the prober cannot be built.
pub fn service_with_probe(
    config: &Config,
    db: &Db,
    clock: Arc<dyn Clock>,
    probe: ProbeConfig,
) -> anyhow::Result<Arc<UptimeService>> {
    let prober = HttpProber::new(probe)?;
    let mut uptime = UptimeConfig::new(config.public_url.clone());
    uptime.interval =
        chrono::Duration::seconds(i64::try_from(config.uptime_interval_secs.max(1)).unwrap_or(60));
    uptime.batch_limit = u32::try_from(config.uptime_concurrency.saturating_mul(2)).unwrap_or(u32::MAX);
    Ok(Arc::new(UptimeService::new(
        Arc::new(DieselUptimeRepository::new(db.clone())),
        Arc::new(prober),
        clock,
        uptime,
    )))
}

/// The monitor of one instance.
pub struct Monitor {
    service: Arc<UptimeService>,
    slots: Arc<Semaphore>,
}

impl Monitor {
    #[must_use]
    pub fn new(service: Arc<UptimeService>, concurrency: usize) -> Self {
        Self {
            service,
            slots: Arc::new(Semaphore::new(concurrency.max(1))),
        }
    }

    /// The monitor of this configuration.
    ///
    /// # Errors
    /// As [`service`].
    pub fn from_config(config: &Config, db: &Db) -> anyhow::Result<Self> {
        let clock: Arc<dyn Clock> = Arc::new(SystemClock);
        Ok(Self::new(service(config, db, clock)?, config.uptime_concurrency))
    }

    /// Leases the due apps and starts their checks in `running`, waiting for a free slot before each.
    /// Answers how many were leased.
    async fn start_due(&self, running: &mut JoinSet<()>) -> usize {
        let due: Vec<MonitoredApp> = match self.service.lease_due().await {
            Ok(due) => due,
            Err(error) => {
                tracing::error!(%error, "uptime: leasing due apps failed; trying again shortly");
                return 0;
            }
        };
        let leased = due.len();
        for app in due {
            let Ok(slot) = self.slots.clone().acquire_owned().await else {
                break;
            };
            let service = self.service.clone();
            running.spawn(async move {
                let _slot = slot;
                match service.check_app(&app).await {
                    Ok(report) => {
                        if report.alert_queued {
                            tracing::warn!(package = %app.package_name, "uptime: app offline, outage e-mail queued");
                        }
                    }
                    Err(error) => {
                        tracing::error!(package = %app.package_name, %error, "uptime: recording a check failed");
                    }
                }
            });
            // Finished checks are collected as we go, so the set does not grow over a long run.
            while running.try_join_next().is_some() {}
        }
        leased
    }

    /// One full round, waiting for every check it started (tests and the command line).
    pub async fn run_once(&self) -> usize {
        let mut running = JoinSet::new();
        let leased = self.start_due(&mut running).await;
        while running.join_next().await.is_some() {}
        leased
    }

    /// Runs until `stopped` says so; checks in flight are given a few seconds to finish.
    pub async fn run(self, mut stopped: watch::Receiver<bool>) {
        let mut running = JoinSet::new();
        loop {
            if *stopped.borrow() {
                break;
            }
            let leased = self.start_due(&mut running).await;
            // A full batch means more are due: go again at once (the slots pace it).
            let full = leased >= usize::try_from(self.service_batch()).unwrap_or(usize::MAX);
            if !full {
                tokio::select! {
                    () = tokio::time::sleep(TICK) => {}
                    _ = stopped.changed() => break,
                }
            }
        }
        let _ = tokio::time::timeout(Duration::from_secs(5), async {
            while running.join_next().await.is_some() {}
        })
        .await;
    }

    fn service_batch(&self) -> u32 {
        self.service.batch_limit()
    }
}
