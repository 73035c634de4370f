//! Wiring of personal access tokens: the service that makes, lists, revokes and authenticates them.

use adapter_db::Db;
use adapter_db::repos::{DieselAccessTokenRepository, DieselMemberDirectory, DieselOrgRepository};
use domain::tokens::AccessTokenService;
use std::sync::Arc;

use crate::config::Config;
use crate::system::SystemClock;

/// The access token service (its digests keyed like the identity service's).
///
/// # Errors
/// When the digest key cannot be read or made ([`crate::identity::digest_key`]).
pub async fn service(config: &Config, db: &Db) -> anyhow::Result<Arc<AccessTokenService>> {
    Ok(Arc::new(
        AccessTokenService::new(
            Arc::new(DieselAccessTokenRepository::new(db.clone())),
            Arc::new(DieselMemberDirectory::new(db.clone())),
            Arc::new(DieselOrgRepository::new(db.clone())),
            Arc::new(SystemClock),
            Arc::new(adapter_identity::OsSecretGenerator),
            crate::identity::digest_key(config, db).await?,
            config.public_url.clone(),
        )
        .with_rules(config.assurance_rules()),
    ))
}
