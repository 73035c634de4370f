//! The uptime monitor (PRODUCT.md §5): every SUBMITTED and PUBLISHED app checked once per interval.
//!
//! Each tick leases the apps that are due (the lease keeps other instances on the same PostgreSQL off
//! them, and a dead instance's leases simply expire) and starts their checks, at most
//! `PORTAL_UPTIME_CONCURRENCY` at a time, without waiting for a round to end: a slow or silent target holds
//! one slot for at most the check's time limit and never the others. Apps fall due one interval after their
//! own last check, so after the first round the checks spread over the interval by themselves.
//!
//! The probes do not write: each hands its outcome to one writer task, which records whatever arrived while
//! it wrote the previous batch in one transaction (up to `WRITE_BATCH` checks), so that a database
//! transaction is shared by hundreds of checks instead of costing one each. When the writer falls behind,
//! the probes wait with their slots, and the monitor slows to the database's pace.

use adapter_db::Db;
use adapter_db::repos::DieselUptimeRepository;
use adapter_probe::HttpProber;
pub use adapter_probe::ProbeConfig;
use domain::common::Clock;
use domain::uptime::{CheckOutcome, MonitoredApp, UptimeConfig, UptimeMonitorService, UptimeService};
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::{Semaphore, mpsc, watch};
use tokio::task::JoinSet;

use crate::Config;
use crate::system::SystemClock;

/// How often the monitor looks for apps that fell due.
const TICK: Duration = Duration::from_secs(1);
/// Most check results recorded in one transaction.
const WRITE_BATCH: usize = 500;

/// A probed app and what its check found, on its way to the writer.
type Checked = (MonitoredApp, CheckOutcome);

/// The uptime views over the database and the real prober.
///
/// # Errors
/// When the HTTP client of the prober cannot be built.
pub fn service(config: &Config, db: &Db, clock: Arc<dyn Clock>) -> anyhow::Result<Arc<UptimeService>> {
    let prober = HttpProber::new(probe_config(config))?;
    Ok(Arc::new(UptimeService::new(
        Arc::new(DieselUptimeRepository::new(db.clone())),
        Arc::new(prober),
        clock,
        uptime_config(config),
        // The identity limits' counters: the live check's limits are shared by every instance.
        Arc::new(adapter_db::repos::DieselRateLimitStore::new(db.clone())),
    )))
}

/// The uptime monitor's use cases over the database and the real prober.
///
/// # Errors
/// When the HTTP client of the prober cannot be built.
pub fn monitor_service(
    config: &Config,
    db: &Db,
    clock: Arc<dyn Clock>,
) -> anyhow::Result<Arc<UptimeMonitorService>> {
    monitor_service_with_probe(config, db, clock, probe_config(config))
}

/// As [`monitor_service`], with the prober's settings given (tests shorten the time limit).
///
/// # Errors
/// When the HTTP client of the prober cannot be built.
pub fn monitor_service_with_probe(
    config: &Config,
    db: &Db,
    clock: Arc<dyn Clock>,
    probe: ProbeConfig,
) -> anyhow::Result<Arc<UptimeMonitorService>> {
    let prober = HttpProber::new(probe)?;
    Ok(Arc::new(UptimeMonitorService::new(
        Arc::new(DieselUptimeRepository::new(db.clone())),
        Arc::new(prober),
        clock,
        uptime_config(config),
    )))
}

/// The prober's settings of this configuration.
fn probe_config(config: &Config) -> ProbeConfig {
    ProbeConfig {
        allow_private: config.allow_private_targets,
        ..ProbeConfig::default()
    }
}

/// The uptime settings of this configuration.
fn uptime_config(config: &Config) -> UptimeConfig {
    let mut uptime = UptimeConfig::new(config.public_url.clone());
    uptime.interval =
        chrono::Duration::seconds(i64::try_from(config.uptime_interval_secs.max(1)).unwrap_or(60));
    uptime.batch_limit = u32::try_from(config.uptime_concurrency.saturating_mul(2)).unwrap_or(u32::MAX);
    uptime
}

/// The monitor of one instance.
pub struct Monitor {
    service: Arc<UptimeMonitorService>,
    slots: Arc<Semaphore>,
}

impl Monitor {
    #[must_use]
    pub fn new(service: Arc<UptimeMonitorService>, concurrency: usize) -> Self {
        Self {
            service,
            slots: Arc::new(Semaphore::new(concurrency.max(1))),
        }
    }

    /// The monitor of this configuration. Raises the process's open-file limit as far as allowed, since each
    /// check in flight holds a connection (and each checked host keeps a few idle ones).
    ///
    /// # Errors
    /// As [`monitor_service`].
    pub fn from_config(config: &Config, db: &Db) -> anyhow::Result<Self> {
        raise_open_file_limit(config.uptime_concurrency);
        let clock: Arc<dyn Clock> = Arc::new(SystemClock);
        Ok(Self::new(
            monitor_service(config, db, clock)?,
            config.uptime_concurrency,
        ))
    }

    /// Leases the due apps and starts their probes in `running`, waiting for a free slot before each; each
    /// probe hands its outcome to `results` (the writer records them in batches) and frees its slot.
    /// Answers how many were leased.
    async fn start_due(&self, running: &mut JoinSet<()>, results: &mpsc::Sender<Checked>) -> usize {
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
            let results = results.clone();
            running.spawn(async move {
                let outcome = service.probe_app(&app).await;
                crate::metrics::record_check(outcome.health);
                // Waits while the writer is behind, holding the slot: the probes slow down to its pace.
                let _ = results.send((app, outcome)).await;
                drop(slot);
            });
            // Finished probes are collected as we go, so the set does not grow over a long run.
            while running.try_join_next().is_some() {}
        }
        leased
    }

    /// Records the probes' outcomes as they come, many per transaction: whatever arrived while the previous
    /// batch was written goes into the next one. Ends when every sender is gone and all is written.
    async fn write_results(service: Arc<UptimeMonitorService>, mut results: mpsc::Receiver<Checked>) {
        let mut batch = Vec::with_capacity(WRITE_BATCH);
        while results.recv_many(&mut batch, WRITE_BATCH).await > 0 {
            let checks = std::mem::replace(&mut batch, Vec::with_capacity(WRITE_BATCH));
            let count = checks.len();
            match service.record_checks(checks).await {
                Ok(reports) => {
                    for report in reports.iter().filter(|r| r.alert_queued) {
                        tracing::warn!(package = %report.outcome.package_name, "uptime: app offline, outage e-mail queued");
                    }
                }
                Err(error) => {
                    // The leases of these apps expire and they are checked again.
                    tracing::error!(%error, count, "uptime: recording checks failed");
                }
            }
        }
    }

    fn writer(&self) -> (mpsc::Sender<Checked>, tokio::task::JoinHandle<()>) {
        let (sender, receiver) = mpsc::channel(WRITE_BATCH * 4);
        let writer = tokio::spawn(Self::write_results(self.service.clone(), receiver));
        (sender, writer)
    }

    /// One full round, waiting for every check it started to be recorded (tests and the command line).
    pub async fn run_once(&self) -> usize {
        let (results, writer) = self.writer();
        let mut running = JoinSet::new();
        let leased = self.start_due(&mut running, &results).await;
        while running.join_next().await.is_some() {}
        drop(results);
        let _ = writer.await;
        leased
    }

    /// Runs until `stopped` says so; checks in flight are given a few seconds to finish.
    pub async fn run(self, mut stopped: watch::Receiver<bool>) {
        let (results, writer) = self.writer();
        let mut running = JoinSet::new();
        loop {
            if *stopped.borrow() {
                break;
            }
            let leased = self.start_due(&mut running, &results).await;
            // A full batch means more are due: go again at once (the slots pace it).
            let full = leased >= usize::try_from(self.service_batch()).unwrap_or(usize::MAX);
            if !full {
                tokio::select! {
                    () = tokio::time::sleep(TICK) => {}
                    _ = stopped.changed() => break,
                }
            }
        }
        drop(results);
        let _ = tokio::time::timeout(Duration::from_secs(5), async {
            while running.join_next().await.is_some() {}
            let _ = writer.await;
        })
        .await;
    }

    fn service_batch(&self) -> u32 {
        self.service.batch_limit()
    }
}

/// Raises the soft limit of open files to the hard limit, so that `concurrency` checks (one socket each),
/// the idle keep-alive connections and the server's own files fit; logs a warning when the hard limit is
/// too low for that.
fn raise_open_file_limit(concurrency: usize) {
    use rustix::process::{Resource, getrlimit, setrlimit};
    let wanted = u64::try_from(concurrency.saturating_mul(3).saturating_add(1024)).unwrap_or(u64::MAX);
    let mut limit = getrlimit(Resource::Nofile);
    let Some(current) = limit.current else {
        return; // unlimited
    };
    if current >= wanted {
        return;
    }
    limit.current = limit.maximum;
    match setrlimit(Resource::Nofile, limit) {
        Ok(()) => tracing::debug!(from = current, to = ?limit.maximum, "uptime: raised the open-file limit"),
        Err(error) => tracing::warn!(%error, current, "uptime: could not raise the open-file limit"),
    }
    if limit.maximum.is_some_and(|hard| hard < wanted) {
        tracing::warn!(
            limit = ?limit.maximum,
            wanted,
            "uptime: the open-file limit is low for PORTAL_UPTIME_CONCURRENCY; checks may fail to connect"
        );
    }
}
