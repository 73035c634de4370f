//! Wiring of the app and review use cases: the database repositories, the image store (deleting an app
//! removes its image files), the clock, the secret generator, the store base URL of share links
//! (`PORTAL_STORE_URL`) and the portal URL of review e-mails.

use adapter_db::Db;
use adapter_db::repos::{
    DieselAppRepository, DieselMemberDirectory, DieselOrgProfileLookup, DieselReviewRepository,
};
use adapter_http::apps::AppsApi;
use adapter_http::apps::list_cache::AppListCache;
use adapter_identity::OsSecretGenerator;
use domain::apps::service::{AppPublishingService, AppService, AppServiceConfig};
use domain::common::ServerUrlRule;
use domain::media::ImageStore;
use domain::review::{ReviewConfig, ReviewService};
use std::sync::Arc;

use crate::Config;
use crate::system::SystemClock;

/// How many submissions the admin dashboard's Recent Submissions list shows.
const RECENT_SUBMISSIONS: usize = 5;

/// The app handlers' state.
#[must_use]
pub fn wire(config: &Config, db: &Db, images: Arc<dyn ImageStore>) -> AppsApi {
    let apps = Arc::new(DieselAppRepository::new(db.clone()));
    let members = Arc::new(DieselMemberDirectory::new(db.clone()));
    let orgs = Arc::new(DieselOrgProfileLookup::new(db.clone()));
    let app_config = AppServiceConfig {
        store_base_url: config.store_url.clone(),
        server_urls: if config.allow_private_targets {
            ServerUrlRule::KeepLoopbackHttp
        } else {
            ServerUrlRule::HttpsOnly
        },
    };
    AppsApi {
        apps: Arc::new(AppService::new(
            apps.clone(),
            images,
            Arc::new(SystemClock),
            Arc::new(OsSecretGenerator),
            app_config.clone(),
        )),
        publishing: Arc::new(AppPublishingService::new(
            apps.clone(),
            members.clone(),
            orgs.clone(),
            Arc::new(SystemClock),
            Arc::new(OsSecretGenerator),
            app_config,
        )),
        reviews: Arc::new(ReviewService::new(
            apps,
            Arc::new(DieselReviewRepository::new(db.clone())),
            orgs,
            members,
            Arc::new(SystemClock),
            Arc::new(OsSecretGenerator),
            ReviewConfig {
                portal_url: config.public_url.clone(),
                store_base_url: config.store_url.clone(),
                recent_submissions: RECENT_SUBMISSIONS,
            },
        )),
        lists: Arc::new(AppListCache::default()),
    }
}
