//! Wiring of the organization use cases: the database repositories, the clock, the secret generator, the
//! public URL (the base of invitation links) and the shared rate-limit counters (limits on invitations).

use adapter_db::Db;
use adapter_db::repos::{
    DieselInviteRepository, DieselMemberDirectory, DieselOrgRepository, DieselRateLimitStore,
};
use adapter_http::orgs::OrgsApi;
use adapter_identity::OsSecretGenerator;
use domain::media::ImageStore;
use domain::orgs::{InvitationService, OrgService};
use std::sync::Arc;

use crate::Config;
use crate::system::SystemClock;

/// The organization handlers' state; `images` is the image store (deleting an organization removes its
/// image files).
#[must_use]
pub fn wire(config: &Config, db: &Db, images: Arc<dyn ImageStore>) -> OrgsApi {
    let orgs = Arc::new(DieselOrgRepository::new(db.clone()));
    OrgsApi {
        service: Arc::new(OrgService::new(
            orgs.clone(),
            Arc::new(SystemClock),
            Arc::new(OsSecretGenerator),
            images,
        )),
        invitations: Arc::new(InvitationService::new(
            orgs,
            Arc::new(DieselInviteRepository::new(db.clone())),
            Arc::new(DieselMemberDirectory::new(db.clone())),
            Arc::new(SystemClock),
            Arc::new(OsSecretGenerator),
            config.public_url.clone(),
            // The identity limits' counters: invitation e-mails count on the recipient's e-mail limit.
            Arc::new(DieselRateLimitStore::new(db.clone())),
        )),
    }
}
