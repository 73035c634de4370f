//! Wiring of the built-in identity service (PRODUCT.md §1): the signing keys, the identity use cases over
//! the database repositories and the identity adapter, the rate limiter, and the product API's token
//! service. Kept apart from `startup.rs` so that other wiring (the mail worker, OAuth providers, a hosted
//! Supabase) can be added beside it.

use db_adapter::Db;
use db_adapter::repos::{
    DieselAccountRepository, DieselIdentityLinkRepository, DieselOneTimeCodeRepository,
    DieselPlatformAdminRepository, DieselRateLimitStore, DieselRefreshTokenRepository, ServerSecrets,
};
use domain::common::Clock;
use domain::identity::{
    CoreTokenService, IdentityConfig, IdentityPorts, IdentityService, RateLimitPolicy, RateLimiter,
};
use http_adapter::auth::ProductAuth;
use http_adapter::identity::IdentityApi;
use identity_adapter::keys::{ACCESS_KEY_SECRET_NAME, CORE_KEY_SECRET_NAME};
use identity_adapter::{Argon2Hasher, JwtSigner, OsSecretGenerator, SigningKeys};
use std::sync::Arc;

use crate::Config;
use crate::system::SystemClock;

/// The identity parts of the HTTP state.
pub struct IdentityWiring {
    /// `/auth/v1`.
    pub identity: IdentityApi,
    /// The product API's authentication.
    pub auth: ProductAuth,
}

/// The signing keys: derived from `PORTAL_SECRET_KEY` when set, else generated once and kept in the
/// database (so that every instance on the same database signs alike).
///
/// # Errors
/// A too short `PORTAL_SECRET_KEY`, unusable stored keys, or a database failure.
pub async fn signing_keys(config: &Config, db: &Db) -> anyhow::Result<SigningKeys> {
    if let Some(master) = &config.secret_key {
        return SigningKeys::derive_from_master(master).map_err(|e| anyhow::anyhow!("{e}"));
    }
    let secrets = ServerSecrets::new(db.clone());
    let access = secrets
        .get_or_create(ACCESS_KEY_SECRET_NAME, SigningKeys::generate_hex)
        .await?;
    let core = secrets
        .get_or_create(CORE_KEY_SECRET_NAME, SigningKeys::generate_hex)
        .await?;
    SigningKeys::from_hex(&access, &core).map_err(|e| anyhow::anyhow!("{e}"))
}

/// The `iss` of identity access tokens: the auth API's own URL.
#[must_use]
pub fn access_issuer(config: &Config) -> String {
    format!("{}/auth/v1", config.public_url)
}

/// Builds the identity service, its rate limiter and the product API's token service.
///
/// # Errors
/// As [`signing_keys`]; when the password hasher cannot start; when a hosted Supabase is configured (not
/// supported yet).
pub async fn wire(config: &Config, db: &Db) -> anyhow::Result<IdentityWiring> {
    if config.supabase.is_some() {
        anyhow::bail!(
            "SUPABASE_URL, SUPABASE_ANON_KEY, SUPABASE_JWT_SECRET: a hosted Supabase is not supported yet; \
             unset them to use the built-in identity service"
        );
    }
    let keys = signing_keys(config, db).await?;
    let issuer = access_issuer(config);
    let signer = Arc::new(JwtSigner::new(&keys, &issuer, &config.public_url));
    let cost = config.password_hashing;
    let hasher = tokio::task::spawn_blocking(move || Argon2Hasher::new(cost))
        .await?
        .map_err(|e| anyhow::anyhow!("{e}"))?;
    let clock: Arc<dyn Clock> = Arc::new(SystemClock);
    let refresh_tokens = Arc::new(DieselRefreshTokenRepository::new(db.clone()));
    let service = IdentityService::new(
        IdentityPorts {
            accounts: Arc::new(DieselAccountRepository::new(db.clone())),
            links: Arc::new(DieselIdentityLinkRepository::new(db.clone())),
            refresh_tokens: refresh_tokens.clone(),
            codes: Arc::new(DieselOneTimeCodeRepository::new(db.clone())),
            hasher: Arc::new(hasher),
            signer: signer.clone(),
            clock: clock.clone(),
            secrets: Arc::new(OsSecretGenerator),
        },
        IdentityConfig {
            public_url: config.public_url.clone(),
            issuer,
            require_email_confirmation: config.smtp_url.is_some(),
            signups_enabled: true,
        },
    );
    let service = Arc::new(service);
    let limiter = RateLimiter::new(
        Arc::new(DieselRateLimitStore::new(db.clone())),
        clock.clone(),
        RateLimitPolicy::default(),
    );
    let core_tokens = CoreTokenService::new(
        signer,
        Arc::new(DieselPlatformAdminRepository::new(db.clone())),
        clock.clone(),
        config.public_url.clone(),
    )
    .with_sessions(refresh_tokens);
    let providers = config.oauth_providers.iter().map(|p| p.name.to_owned()).collect();
    Ok(IdentityWiring {
        identity: IdentityApi::new(
            service.clone(),
            Arc::new(limiter),
            config.trusted_proxies.clone(),
            clock,
            providers,
        ),
        auth: ProductAuth {
            core_tokens: Arc::new(core_tokens),
            identity: Some(service),
        },
    })
}
