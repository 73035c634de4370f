//! Wiring of OAuth sign-in (PRODUCT.md §1): one OpenID Connect client per configured provider
//! (`PORTAL_OAUTH_<P>_ISSUER`, `_CLIENT_ID`, `_CLIENT_SECRET` for google, apple, github, azure), the flow
//! store, and the service behind `/auth/v1/authorize`, `/auth/v1/callback` and `grant_type=pkce`.
//!
//! Providers are discovered lazily (at the first sign-in), so a provider that is down at start does not stop
//! the server; a malformed issuer does.

use adapter_db::Db;
use adapter_db::repos::DieselOAuthFlowRepository;
use adapter_http::oauth::OAuthApi;
use adapter_identity::OsSecretGenerator;
use adapter_oidc::{OidcClient, OidcClientConfig, http_client};
use domain::common::Clock;
use domain::identity::IdentityServices;
use domain::identity::oauth::{OAuthConfig, OAuthService, OidcProvider};
use std::collections::BTreeMap;
use std::sync::Arc;

use crate::Config;

/// Builds the OAuth handlers' state over the identity service. With no provider configured it still
/// answers: every provider is then "not configured on this server".
///
/// # Errors
/// A provider whose issuer is not an `https://` URL (plain `http://` only on a loopback host), or whose
/// client id is empty; an HTTP client that cannot start.
pub fn wire(
    config: &Config,
    db: &Db,
    identity: &IdentityServices,
    clock: Arc<dyn Clock>,
) -> anyhow::Result<OAuthApi> {
    let http = http_client().map_err(|e| anyhow::anyhow!("{e}"))?;
    let mut providers: BTreeMap<String, Arc<dyn OidcProvider>> = BTreeMap::new();
    for provider in &config.oauth_providers {
        let upper = provider.name.to_ascii_uppercase();
        let client = OidcClient::new(
            OidcClientConfig {
                provider: provider.name.to_owned(),
                issuer: provider.issuer.clone(),
                client_id: provider.client_id.clone(),
                client_secret: provider.client_secret.clone(),
            },
            http.clone(),
        )
        .map_err(|e| anyhow::anyhow!("PORTAL_OAUTH_{upper}_ISSUER: {e}"))?;
        tracing::info!(provider = provider.name, issuer = %provider.issuer, "OAuth sign-in provider configured");
        providers.insert(provider.name.to_owned(), Arc::new(client));
    }
    let service = OAuthService::new(
        identity.providers.clone(),
        Arc::new(DieselOAuthFlowRepository::new(db.clone())),
        providers,
        clock.clone(),
        Arc::new(OsSecretGenerator),
        OAuthConfig {
            public_url: config.public_url.clone(),
        },
        identity.limits.clone(),
    );
    Ok(OAuthApi::new(Arc::new(service), clock))
}
