//! Wiring of the platform-admin calls: the review use cases, the platform-admin list, the maintenance
//! tools (demo mode from `PORTAL_DEMO`) and the uptime reads of `appHealthStatus`, over the database.

use adapter_db::Db;
use adapter_db::repos::{
    DieselAppRepository, DieselMemberDirectory, DieselOrgProfileLookup, DieselOrgRepository,
    DieselPlatformAdminRepository, DieselReviewRepository,
};
use adapter_http::admin::AdminApi;
use adapter_identity::OsSecretGenerator;
use domain::review::platform::{PlatformTools, PlatformToolsConfig, PlatformToolsPorts};
use domain::review::{ReviewConfig, ReviewDesk, ReviewService};
use std::sync::Arc;

use crate::Config;
use crate::system::SystemClock;

/// How many submissions the admin dashboard's Recent Submissions list shows.
pub const RECENT_SUBMISSIONS: usize = 5;

/// The platform-admin handlers' state.
///
/// # Errors
/// When the uptime prober's HTTP client cannot be built.
pub fn wire(config: &Config, db: &Db) -> anyhow::Result<AdminApi> {
    let apps = Arc::new(DieselAppRepository::new(db.clone()));
    let reviews = Arc::new(DieselReviewRepository::new(db.clone()));
    let profiles = Arc::new(DieselOrgProfileLookup::new(db.clone()));
    let members = Arc::new(DieselMemberDirectory::new(db.clone()));
    let tools = PlatformTools::new(
        PlatformToolsPorts {
            apps: apps.clone(),
            maintenance: reviews.clone(),
            admins: Arc::new(DieselPlatformAdminRepository::new(db.clone())),
            profiles: profiles.clone(),
            orgs: Arc::new(DieselOrgRepository::new(db.clone())),
            members: members.clone(),
            clock: Arc::new(SystemClock),
            secrets: Arc::new(OsSecretGenerator),
        },
        PlatformToolsConfig { demo: config.demo },
    );
    let tools = Arc::new(tools);
    let reviews = Arc::new(ReviewService::new(
        apps,
        reviews,
        profiles,
        members,
        Arc::new(SystemClock),
        Arc::new(OsSecretGenerator),
        ReviewConfig {
            portal_url: config.public_url.clone(),
            store_base_url: config.store_url.clone(),
            recent_submissions: RECENT_SUBMISSIONS,
        },
    ));
    let uptime = crate::uptime::service(config, db, Arc::new(SystemClock))?;
    Ok(AdminApi {
        desk: Arc::new(ReviewDesk::new(reviews.clone(), tools.clone(), uptime)),
        reviews,
        tools,
        admins: Arc::new(crate::admin_cli::service(db)),
    })
}
