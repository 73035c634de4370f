//! Wiring of the built-in identity service (PRODUCT.md §1): the signing keys, the identity use cases over
//! the database repositories and the identity adapter, the rate limiter, and the product API's token
//! service. Kept apart from `startup.rs` so that other wiring (the mail worker, OAuth providers) can be
//! added beside it.
//!
//! With a hosted Supabase (`SUPABASE_URL`…), `/auth/v1` is not served: this server only verifies the
//! project's access tokens, signs its own core tokens, and makes the local account of a hosted user on
//! first use ([`wire_hosted`]).

use adapter_db::Db;
use adapter_db::repos::{
    DieselAccountRepository, DieselFactorRepository, DieselIdentityLinkRepository,
    DieselOneTimeCodeRepository, DieselPasskeyRepository, DieselPlatformAdminRepository,
    DieselRateLimitStore, DieselRecoveryCodeRepository, DieselRefreshTokenRepository,
    DieselSessionListRepository, ServerSecrets,
};
use adapter_http::auth::ProductAuth;
use adapter_http::identity::IdentityApi;
use adapter_identity::keys::{
    ACCESS_KEY_SECRET_NAME, CORE_KEY_SECRET_NAME, DIGEST_KEY_SECRET_NAME, derive_digest_key,
    digest_key_from_hex,
};
use adapter_identity::{
    Argon2Hasher, HostedTokenVerifier, HostedVerification, JwksCache, JwksSettings, JwtSigner,
    OsSecretGenerator, RelyingParty, SigningKeys, WebAuthnRs,
};
use domain::common::Clock;
use domain::identity::DigestKey;
use domain::identity::passkeys::PasskeyService;
use domain::identity::ports::WebAuthnCeremony;
use domain::identity::{
    CoreTokenService, HostedAccounts, IdentityConfig, IdentityPorts, IdentityServices, RateLimitPolicy,
    RateLimiter, VolumeLimits,
};
use std::sync::Arc;

use crate::Config;
use crate::config::HostedSupabase;
use crate::system::SystemClock;

/// The identity parts of the HTTP state.
pub struct IdentityWiring {
    /// `/auth/v1`; `None` with a hosted Supabase.
    pub identity: Option<IdentityApi>,
    /// The product API's authentication.
    pub auth: ProductAuth,
    /// Personal access tokens (one of the product API's ways in).
    pub tokens: Arc<domain::tokens::AccessTokenService>,
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

/// The key of the identity service's keyed digests (typed codes, sign-up decoy ids): derived from
/// `PORTAL_SECRET_KEY` when set, else generated once and kept in the database, as the signing keys.
///
/// # Errors
/// A too short `PORTAL_SECRET_KEY`, an unusable stored key, or a database failure.
pub async fn digest_key(config: &Config, db: &Db) -> anyhow::Result<DigestKey> {
    if let Some(master) = &config.secret_key {
        return derive_digest_key(master).map_err(|e| anyhow::anyhow!("{e}"));
    }
    let stored = ServerSecrets::new(db.clone())
        .get_or_create(DIGEST_KEY_SECRET_NAME, SigningKeys::generate_hex)
        .await?;
    digest_key_from_hex(&stored).map_err(|e| anyhow::anyhow!("{e}"))
}

/// The `iss` of identity access tokens: the auth API's own URL.
#[must_use]
pub fn access_issuer(config: &Config) -> String {
    format!("{}/auth/v1", config.public_url)
}

/// Builds the identity service, its rate limiter and the product API's token service.
///
/// # Errors
/// As [`signing_keys`]; when the password hasher cannot start; as [`wire_hosted`].
pub async fn wire(config: &Config, db: &Db) -> anyhow::Result<IdentityWiring> {
    if let Some(hosted) = &config.supabase {
        return wire_hosted(config, hosted, db).await;
    }
    let keys = signing_keys(config, db).await?;
    let digest_key = digest_key(config, db).await?;
    let issuer = access_issuer(config);
    let signer = Arc::new(JwtSigner::new(&keys, &issuer, &config.public_url));
    let cost = config.password_hashing;
    let hasher = tokio::task::spawn_blocking(move || Argon2Hasher::new(cost))
        .await?
        .map_err(|e| anyhow::anyhow!("{e}"))?;
    let clock: Arc<dyn Clock> = Arc::new(SystemClock);
    let refresh_tokens = Arc::new(DieselRefreshTokenRepository::new(db.clone()));
    // One relying party for passkeys and webauthn factors (both off without one).
    let ceremony = relying_party(config);
    let limiter = Arc::new(RateLimiter::new(
        Arc::new(DieselRateLimitStore::new(db.clone())),
        clock.clone(),
        RateLimitPolicy::default(),
    ));
    let services = IdentityServices::new(
        IdentityPorts {
            accounts: Arc::new(DieselAccountRepository::new(db.clone())),
            links: Arc::new(DieselIdentityLinkRepository::new(db.clone())),
            refresh_tokens: refresh_tokens.clone(),
            codes: Arc::new(DieselOneTimeCodeRepository::new(db.clone())),
            factors: Arc::new(DieselFactorRepository::new(db.clone())),
            recovery_codes: Arc::new(DieselRecoveryCodeRepository::new(db.clone())),
            session_list: Arc::new(DieselSessionListRepository::new(db.clone())),
            hasher: Arc::new(hasher),
            signer: signer.clone(),
            clock: clock.clone(),
            secrets: Arc::new(OsSecretGenerator),
            digest_key,
            webauthn: ceremony.clone(),
            limits: VolumeLimits::new(limiter.clone()),
        },
        IdentityConfig {
            public_url: config.public_url.clone(),
            issuer,
            require_email_confirmation: config.smtp_url.is_some(),
            signups_enabled: true,
        },
    );
    let core_tokens = CoreTokenService::new(
        signer,
        Arc::new(DieselPlatformAdminRepository::new(db.clone())),
        clock.clone(),
        config.public_url.clone(),
    )
    .with_sessions(refresh_tokens)
    .with_rules(config.assurance_rules());
    let tokens = crate::tokens::service(config, db).await?;
    let core_tokens = core_tokens.with_access_tokens(tokens.clone());
    let providers = config.oauth_providers.iter().map(|p| p.name.to_owned()).collect();
    let oauth = crate::oauth::wire(config, db, &services, clock.clone())?;
    let passkeys = ceremony.map(|ceremony| {
        Arc::new(PasskeyService::new(
            services.issuer.clone(),
            Arc::new(DieselPasskeyRepository::new(db.clone())),
            ceremony,
            services.limits.clone(),
        ))
    });
    Ok(IdentityWiring {
        identity: Some(
            IdentityApi::new(
                services.clone(),
                limiter,
                config.trusted_proxies.clone(),
                clock,
                providers,
            )
            .with_oauth(oauth)
            .with_passkeys(passkeys),
        ),
        auth: ProductAuth {
            core_tokens: Arc::new(core_tokens),
            identity: Some(services),
            proxies: config.trusted_proxies.clone(),
        },
        tokens,
    })
}

/// The WebAuthn ceremonies of passkeys and `webauthn` factors, with the portal's public URL as the relying
/// party ([`RelyingParty::of`]: a loopback address such as the default `http://127.0.0.1:8080` serves them at
/// `http://localhost:8080`, since browsers refuse an IP address as a relying party); `None` (logged once)
/// for another IP address: `/auth/v1/passkeys/...` then answers 422 `passkey_disabled`, and `webauthn`
/// factors `mfa_webauthn_enroll_not_enabled`.
fn relying_party(config: &Config) -> Option<Arc<dyn WebAuthnCeremony>> {
    match WebAuthnRs::new(&config.public_url, "Developer Portal") {
        Ok(ceremony) => {
            if let Some(origin) = passkey_origin(config)
                && !config.public_url.starts_with(&origin)
            {
                tracing::info!(%origin, "passkeys work when the portal is opened at this address (browsers refuse an IP address as a passkey's site)");
            }
            Some(Arc::new(ceremony))
        }
        Err(error) => {
            tracing::warn!(%error, "passkeys are off: PORTAL_PUBLIC_URL needs a host name (e.g. https://portal.example.com)");
            None
        }
    }
}

/// The origin a browser must show the portal at for passkeys (`None`: passkeys are off, or the identity
/// service is a hosted Supabase).
pub fn passkey_origin(config: &Config) -> Option<String> {
    if config.supabase.is_some() {
        return None;
    }
    RelyingParty::of(&config.public_url)
        .ok()
        .map(|rp| rp.origin_text())
}

/// The product API's authentication with a hosted Supabase: its access tokens verified (HS256 with its
/// secret and/or RS256/ES256 with its JWKS), core tokens signed with this server's core key, and the local
/// account of a hosted user made on first use. Hosted sessions are not visible here: a hosted access token
/// is trusted until its `exp`.
///
/// # Errors
/// As [`signing_keys`]; when the JWKS client cannot be built or the secret is unusable.
pub async fn wire_hosted(
    config: &Config,
    hosted: &HostedSupabase,
    db: &Db,
) -> anyhow::Result<IdentityWiring> {
    let keys = signing_keys(config, db).await?;
    let jwks = hosted
        .jwks_url
        .as_ref()
        .map(|url| JwksCache::new(JwksSettings::new(url.clone())))
        .transpose()
        .map_err(|e| anyhow::anyhow!("SUPABASE_JWKS_URL: {e}"))?;
    let verifier = HostedTokenVerifier::new(
        &keys,
        &config.public_url,
        HostedVerification {
            issuer: hosted.auth_url(),
            jwt_secret: hosted.jwt_secret.clone(),
            jwks,
        },
    )
    .map_err(|e| anyhow::anyhow!("{e}"))?;
    tracing::info!(
        url = %hosted.url,
        hs256 = hosted.jwt_secret.is_some(),
        jwks = hosted.jwks_url.as_deref().unwrap_or("none"),
        "identity: a hosted Supabase (the built-in /auth/v1 is off)"
    );
    let clock: Arc<dyn Clock> = Arc::new(SystemClock);
    let core_tokens = CoreTokenService::new(
        Arc::new(verifier),
        Arc::new(DieselPlatformAdminRepository::new(db.clone())),
        clock.clone(),
        config.public_url.clone(),
    )
    .with_hosted_accounts(HostedAccounts::new(
        Arc::new(DieselAccountRepository::new(db.clone())),
        clock,
    ))
    .with_rules(config.assurance_rules());
    let tokens = crate::tokens::service(config, db).await?;
    let core_tokens = core_tokens.with_access_tokens(tokens.clone());
    Ok(IdentityWiring {
        identity: None,
        auth: ProductAuth {
            core_tokens: Arc::new(core_tokens),
            identity: None,
            proxies: config.trusted_proxies.clone(),
        },
        tokens,
    })
}
