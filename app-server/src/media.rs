//! Wiring of the images (PRODUCT.md §4): the configured image store (local disk under `PORTAL_DATA_DIR`, or
//! an S3-compatible bucket), the decoding inspector, and the media use cases over the database
//! repositories.

use adapter_db::Db;
use adapter_db::repos::{DieselImageRepository, DieselOrgProfileLookup, DieselRateLimitStore};
use adapter_identity::OsSecretGenerator;
use adapter_media::{ImageCrateInspector, LocalImageStore, S3ImageStore};
use domain::media::{ImageStore, MediaConfig, MediaPorts, MediaService};
use std::sync::Arc;

use crate::Config;
use crate::config::ImageStoreConfig;
use crate::system::SystemClock;

/// The configured image store. Other use cases that remove images (deleting an app) take the same one.
///
/// # Errors
/// When the local folder cannot be made private, or the S3 settings cannot make a client.
pub fn image_store(config: &Config) -> anyhow::Result<Arc<dyn ImageStore>> {
    Ok(match &config.image_store {
        ImageStoreConfig::Local => {
            let store = LocalImageStore::open(&config.data_dir).map_err(|e| {
                anyhow::anyhow!(
                    "PORTAL_DATA_DIR: cannot use {}/images: {e}",
                    config.data_dir.display()
                )
            })?;
            tracing::info!(folder = %store.root().display(), "image store: local disk");
            Arc::new(store)
        }
        ImageStoreConfig::S3(settings) => {
            let store = S3ImageStore::new(settings).map_err(|e| anyhow::anyhow!("PORTAL_S3_*: {e}"))?;
            tracing::info!(
                bucket = %settings.bucket,
                endpoint = settings.endpoint.as_deref().unwrap_or("AWS"),
                "image store: S3-compatible"
            );
            Arc::new(store)
        }
    })
}

/// How often images that nothing refers to are looked for.
const UNREFERENCED_EVERY: std::time::Duration = std::time::Duration::from_secs(60 * 60);

/// The worker that removes, every hour, the images no app or organization has referred to for a day
/// (PRODUCT.md §1), until `stopped` says the server stops. Every instance may run it: each removal is one
/// statement, so two instances never remove one image twice.
pub async fn remove_unreferenced(images: MediaService, mut stopped: tokio::sync::watch::Receiver<bool>) {
    loop {
        match images.remove_unreferenced().await {
            Ok(report) => {
                if report.removed > 0 {
                    tracing::info!(images = report.removed, "removed images nothing refers to");
                }
                for file in &report.unremoved_files {
                    tracing::warn!(file = %file, "the file of a removed image could not be deleted");
                }
            }
            Err(error) => tracing::error!(%error, "removing unreferenced images failed"),
        }
        if *stopped.borrow() {
            return;
        }
        tokio::select! {
            () = tokio::time::sleep(UNREFERENCED_EVERY) => {}
            _ = stopped.changed() => return,
        }
    }
}

/// The media use cases over `store`.
#[must_use]
pub fn service(config: &Config, db: &Db, store: Arc<dyn ImageStore>) -> MediaService {
    MediaService::new(
        MediaPorts {
            images: Arc::new(DieselImageRepository::new(db.clone())),
            store,
            inspector: Arc::new(ImageCrateInspector::new()),
            orgs: Arc::new(DieselOrgProfileLookup::new(db.clone())),
            clock: Arc::new(SystemClock),
            secrets: Arc::new(OsSecretGenerator),
            // The identity limits' counters: the upload limit is shared by every instance.
            limits: Arc::new(DieselRateLimitStore::new(db.clone())),
        },
        MediaConfig {
            public_base: config.public_url.clone(),
            org_quota_bytes: config.org_image_quota_mb.saturating_mul(1024 * 1024),
        },
    )
}
