//! [`HttpProber`]: the [`HealthProber`] of the uptime monitor, over one shared reqwest client (keep-alive
//! across checks).
//!
//! - The host is resolved by the prober's own resolver, which refuses the whole name when any address is not
//!   public ([`address::is_public`]); reqwest then connects only to the addresses that were checked, so a
//!   name cannot resolve to a public address for the check and a private one for the connection (DNS
//!   rebinding). Literal IP hosts, which reqwest does not resolve, are checked before the request.
//! - The environment's proxy settings (`HTTPS_PROXY`, `HTTP_PROXY`, `ALL_PROXY`) are ignored: through a
//!   proxy, the resolver would only see the proxy's name and the target's address would never be checked.
//! - No redirect is followed (a 3xx is a refusal), no cookie is kept, at most 64 KB of body is read, and a
//!   check gives up after its time limit (10 s), body included.
//! - `allow_private` (`PORTAL_ALLOW_PRIVATE_TARGETS` for the monitor, `PORTAL_WEBHOOKS_ALLOW_PRIVATE_TARGETS`
//!   for webhooks) lifts the address rule, for local development and tests; nothing else changes.
//!
//! [`webhooks::HttpWebhookSender`] delivers webhooks through the same client shape (the same resolver,
//! no proxy, no redirect, 10 s): one guard for every request to a target the portal does not control.

pub mod address;
pub mod webhooks;

use async_trait::async_trait;
use domain::uptime::{HealthProber, ProbeError, ProbeResult, RefusalReason, body_status_of};
use reqwest::dns::{Addrs, Name, Resolve, Resolving};
use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The most body read from a health URL.
pub const MAX_BODY_BYTES: usize = 64 * 1024;
/// How long a check may take, body included (specification §9: ping timeout 10 s).
pub const CHECK_TIMEOUT: Duration = Duration::from_secs(10);
/// Idle keep-alive connections kept per host.
const IDLE_PER_HOST: usize = 2;

/// How the prober behaves.
#[derive(Debug, Clone, Copy)]
pub struct ProbeConfig {
    /// Allow loopback, private and other non-public targets (local development and tests only).
    pub allow_private: bool,
    /// The time limit of one check.
    pub timeout: Duration,
}

impl Default for ProbeConfig {
    fn default() -> Self {
        Self {
            allow_private: false,
            timeout: CHECK_TIMEOUT,
        }
    }
}

/// Why the client could not be built.
#[derive(Debug, thiserror::Error)]
#[error("could not build the health-check HTTP client: {0}")]
pub struct BuildError(#[from] reqwest::Error);

/// The health prober of the uptime monitor.
#[derive(Debug, Clone)]
pub struct HttpProber {
    client: reqwest::Client,
    config: ProbeConfig,
}

/// The one HTTP client shape for targets the portal does not control (health URLs, webhook endpoints):
/// names resolved by [`CheckedResolver`] (a name with any non-public address is refused unless
/// `allow_private`), no proxy, no redirect, the time limit on connecting and on the whole request.
pub(crate) fn guarded_client(config: ProbeConfig, user_agent: &str) -> Result<reqwest::Client, BuildError> {
    guarded_client_connecting_within(config, config.timeout, user_agent)
}

/// [`guarded_client`] whose connections must be made within `connect_timeout`.
pub(crate) fn guarded_client_connecting_within(
    config: ProbeConfig,
    connect_timeout: Duration,
    user_agent: &str,
) -> Result<reqwest::Client, BuildError> {
    Ok(reqwest::Client::builder()
        .dns_resolver(Arc::new(CheckedResolver {
            allow_private: config.allow_private,
        }))
        // Never through a proxy: the address check must see the real target (PRODUCT.md §1).
        .no_proxy()
        .redirect(reqwest::redirect::Policy::none())
        .timeout(config.timeout)
        .connect_timeout(connect_timeout)
        .pool_max_idle_per_host(IDLE_PER_HOST)
        .pool_idle_timeout(Duration::from_secs(90))
        .user_agent(user_agent)
        .build()?)
}

/// Whether a literal IP host of `url` is refused (a name is checked by the resolver instead).
pub(crate) fn literal_refused(url: &url::Url, allow_private: bool) -> bool {
    let literal = match url.host() {
        Some(url::Host::Ipv4(ip)) => Some(IpAddr::V4(ip)),
        Some(url::Host::Ipv6(ip)) => Some(IpAddr::V6(ip)),
        _ => None,
    };
    literal.is_some_and(|ip| !allow_private && !address::is_public(ip))
}

/// Whether a reqwest failure is the resolver's refusal of a non-public address.
pub(crate) fn is_private_target(error: &reqwest::Error) -> bool {
    let mut source: Option<&(dyn std::error::Error + 'static)> = Some(error);
    while let Some(current) = source {
        if current.is::<PrivateTarget>() {
            return true;
        }
        source = current.source();
    }
    false
}

/// The error the resolver answers for a name with a non-public address; found again in reqwest's error
/// chain to report [`RefusalReason::PrivateTarget`].
#[derive(Debug, thiserror::Error)]
#[error("the name resolves to an address that is not public")]
struct PrivateTarget;

/// Resolves with the system resolver and refuses names with any non-public address.
#[derive(Debug)]
struct CheckedResolver {
    allow_private: bool,
}

impl Resolve for CheckedResolver {
    fn resolve(&self, name: Name) -> Resolving {
        let allow_private = self.allow_private;
        Box::pin(async move {
            let host = name.as_str().to_owned();
            let found: Vec<SocketAddr> = tokio::net::lookup_host((host.as_str(), 0)).await?.collect();
            if found.is_empty() {
                return Err(format!("{host} has no address").into());
            }
            if !allow_private && found.iter().any(|a| !address::is_public(a.ip())) {
                return Err(Box::new(PrivateTarget) as Box<dyn std::error::Error + Send + Sync>);
            }
            let addrs: Addrs = Box::new(found.into_iter());
            Ok(addrs)
        })
    }
}

impl HttpProber {
    /// # Errors
    /// [`BuildError`] when the TLS backend cannot be set up.
    pub fn new(config: ProbeConfig) -> Result<Self, BuildError> {
        let client = guarded_client(
            config,
            concat!("developer-portal-uptime/", env!("CARGO_PKG_VERSION")),
        )?;
        Ok(Self { client, config })
    }

    async fn check(&self, url: &str) -> Result<ProbeResult, ProbeError> {
        let parsed = url::Url::parse(url).map_err(|_| ProbeError::Unreachable("not a URL".into()))?;
        if !matches!(parsed.scheme(), "http" | "https") {
            return Err(ProbeError::Unreachable("not an http(s) URL".into()));
        }
        if !parsed.username().is_empty() || parsed.password().is_some() {
            return Err(ProbeError::Unreachable("credentials in the URL".into()));
        }
        if parsed.host().is_none() {
            return Err(ProbeError::Unreachable("no host".into()));
        }
        if literal_refused(&parsed, self.config.allow_private) {
            return Err(ProbeError::Refused(RefusalReason::PrivateTarget));
        }

        let started = Instant::now();
        let mut response = self
            .client
            .get(parsed)
            .header(reqwest::header::ACCEPT, "application/json")
            .send()
            .await
            .map_err(|e| classify(&e))?;
        let latency_ms = u32::try_from(started.elapsed().as_millis()).unwrap_or(u32::MAX);
        let status = response.status();
        if status.is_redirection() {
            return Err(ProbeError::Refused(RefusalReason::Redirect));
        }
        if response
            .content_length()
            .is_some_and(|length| length > MAX_BODY_BYTES as u64)
        {
            return Err(ProbeError::Refused(RefusalReason::TooLarge));
        }
        let mut body = Vec::new();
        while let Some(chunk) = response.chunk().await.map_err(|e| classify(&e))? {
            if body.len() + chunk.len() > MAX_BODY_BYTES {
                return Err(ProbeError::Refused(RefusalReason::TooLarge));
            }
            body.extend_from_slice(&chunk);
        }
        Ok(ProbeResult {
            http_status: status.as_u16(),
            body_status: body_status_of(&body),
            latency_ms,
        })
    }
}

#[async_trait]
impl HealthProber for HttpProber {
    async fn probe(&self, url: &str) -> Result<ProbeResult, ProbeError> {
        // reqwest's own timeout covers the body too; this one also bounds name resolution.
        match tokio::time::timeout(self.config.timeout, self.check(url)).await {
            Ok(result) => result,
            Err(_) => Err(ProbeError::Timeout),
        }
    }
}

/// A reqwest failure as the uptime record's reason.
fn classify(error: &reqwest::Error) -> ProbeError {
    if error.is_timeout() {
        return ProbeError::Timeout;
    }
    let mut source: Option<&(dyn std::error::Error + 'static)> = Some(error);
    let mut chain = Vec::new();
    while let Some(current) = source {
        if current.is::<PrivateTarget>() {
            return ProbeError::Refused(RefusalReason::PrivateTarget);
        }
        chain.push(current.to_string());
        source = current.source();
    }
    let text = chain.join(": ").to_lowercase();
    let reason =
        if text.contains("dns error") || text.contains("has no address") || text.contains("failed to lookup")
        {
            "DNS: the name could not be resolved"
        } else if text.contains("connection refused") {
            "the connection was refused"
        } else if text.contains("certificate") || text.contains("tls") || text.contains("handshake") {
            "TLS: the secure connection failed"
        } else if error.is_body() || error.is_decode() {
            "the answer broke off"
        } else {
            "the server could not be reached"
        };
    ProbeError::Unreachable(reason.to_owned())
}
