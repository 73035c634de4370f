//! Webhook endpoints and their deliveries.

use crate::common::code_enum;
use std::collections::BTreeSet;

use chrono::{DateTime, Utc};

use super::WebhookEventType;
pub use super::ids::{DeliveryCursor, MessageId, WebhookEndpointId};
use super::retry::DisabledReason;
use super::signing::{SealedSecret, Unsealable, WebhookSecret};
use crate::common::OrgId;
use crate::identity::DigestKey;

/// The longest endpoint URL.
pub const MAX_URL_CHARS: usize = 2000;
/// The longest description.
pub const MAX_DESCRIPTION_CHARS: usize = 500;
/// The most endpoints an organization may have.
pub const MAX_ENDPOINTS_PER_ORG: usize = 20;
/// The first bytes of a receiver's answer kept in the delivery log.
pub const MAX_RESPONSE_BYTES: usize = 4096;
/// The most deliveries of one endpoint that wait at once: an event past it is recorded as not sent (the
/// delivery log shows it, and "Retry" sends it once the queue has room), a test is refused.
pub const MAX_PENDING_PER_ENDPOINT: u32 = 1000;

/// The bounds on what an admin may queue by hand ("Send test" and "Retry", counted together): at most
/// `per_endpoint` per endpoint and `per_org` per organization within `window`, and no new pending delivery
/// while the endpoint has `max_pending` waiting.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SendLimits {
    pub window: chrono::Duration,
    pub per_endpoint: u32,
    pub per_org: u32,
    pub max_pending: u32,
}

impl Default for SendLimits {
    fn default() -> Self {
        Self {
            window: chrono::Duration::minutes(1),
            per_endpoint: 5,
            per_org: 20,
            max_pending: MAX_PENDING_PER_ENDPOINT,
        }
    }
}

/// Which bound refused a send by hand.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LimitScope {
    Endpoint,
    Organization,
}

/// What became of a send by hand ("Send test", "Retry").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Admission {
    /// Queued (or made due again).
    Queued,
    /// Too many sends by hand within the window; the next one is allowed at `retry_at`.
    Limited {
        scope: LimitScope,
        retry_at: DateTime<Utc>,
    },
    /// The endpoint has [`SendLimits::max_pending`] deliveries waiting already.
    Backlog,
}

/// How long a rotated secret keeps signing beside the new one.
pub const ROTATION_OVERLAP: chrono::Duration = chrono::Duration::hours(24);

/// The server setting that lets webhook endpoints be on loopback and private addresses (README
/// "Configuration"); refusals name it so an operator testing locally knows what to set.
pub const PRIVATE_TARGETS_SETTING: &str = "PORTAL_WEBHOOKS_ALLOW_PRIVATE_TARGETS";

/// Why a URL cannot be an endpoint.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum EndpointUrlError {
    #[error("Enter a URL such as https://example.com/hooks.")]
    NotAUrl,
    #[error(
        "The URL must start with https:// (plain http:// reaches only this machine, and only when the server sets {}=true).",
        PRIVATE_TARGETS_SETTING
    )]
    NotHttps,
    #[error("The URL must not carry a user name or password.")]
    Credentials,
    #[error("The URL is too long (at most 2000 characters).")]
    TooLong,
}

/// Checks the form of an endpoint URL: `https://`, or `http://` to a loopback host when private targets
/// are allowed; no credentials. The address rule (no private, link-local or metadata address) is the
/// sender's, after resolution ([`super::WebhookSender::check_target`]).
///
/// # Errors
/// [`EndpointUrlError`] saying what is wrong.
pub fn check_endpoint_url(text: &str, allow_private: bool) -> Result<url::Url, EndpointUrlError> {
    if text.chars().count() > MAX_URL_CHARS {
        return Err(EndpointUrlError::TooLong);
    }
    let url = url::Url::parse(text.trim()).map_err(|_| EndpointUrlError::NotAUrl)?;
    let host = url.host().ok_or(EndpointUrlError::NotAUrl)?;
    if !url.username().is_empty() || url.password().is_some() {
        return Err(EndpointUrlError::Credentials);
    }
    match url.scheme() {
        "https" => Ok(url),
        "http" if allow_private && is_loopback(&host) => Ok(url),
        "http" => Err(EndpointUrlError::NotHttps),
        _ => Err(EndpointUrlError::NotAUrl),
    }
}

/// An endpoint URL as the audit log and the e-mails show it: its scheme, host and port, the rest (path,
/// query, fragment) elided as `/…`, since teams often put a secret there (`https://hooks.example.com/…`).
/// Text that is not a URL with a host is shown as `…`.
#[must_use]
pub fn shown_url(text: &str) -> String {
    let Ok(url) = url::Url::parse(text.trim()) else {
        return "…".to_owned();
    };
    let Some(host) = url.host_str() else {
        return "…".to_owned();
    };
    let port = url.port().map(|port| format!(":{port}")).unwrap_or_default();
    let bare = url.path() == "/" && url.query().is_none() && url.fragment().is_none();
    format!("{}://{host}{port}/{}", url.scheme(), if bare { "" } else { "…" })
}

fn is_loopback(host: &url::Host<&str>) -> bool {
    match host {
        url::Host::Domain(name) => name.eq_ignore_ascii_case("localhost"),
        url::Host::Ipv4(ip) => ip.is_loopback(),
        url::Host::Ipv6(ip) => ip.is_loopback(),
    }
}

/// The events an endpoint receives.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EventFilter {
    /// Every event, those added later included.
    All,
    /// Only these (never empty).
    Only(BTreeSet<WebhookEventType>),
}

impl EventFilter {
    /// The filter of a list as the API takes it: empty or absent means every event.
    #[must_use]
    pub fn from_list(events: &[WebhookEventType]) -> Self {
        let chosen: BTreeSet<WebhookEventType> = events
            .iter()
            .copied()
            .filter(|event| *event != WebhookEventType::Test)
            .collect();
        if chosen.is_empty() {
            Self::All
        } else {
            Self::Only(chosen)
        }
    }

    /// Whether an endpoint with this filter receives `event` (every endpoint receives its tests).
    #[must_use]
    pub fn accepts(&self, event: WebhookEventType) -> bool {
        match self {
            Self::All => true,
            Self::Only(events) => event == WebhookEventType::Test || events.contains(&event),
        }
    }

    /// The chosen events, empty for [`EventFilter::All`].
    #[must_use]
    pub fn to_list(&self) -> Vec<WebhookEventType> {
        match self {
            Self::All => Vec::new(),
            Self::Only(events) => events.iter().copied().collect(),
        }
    }

    /// As stored: `*` for every event, otherwise the codes separated by commas.
    #[must_use]
    pub fn to_stored(&self) -> String {
        match self {
            Self::All => "*".to_owned(),
            Self::Only(events) => events.iter().map(|e| e.code()).collect::<Vec<_>>().join(","),
        }
    }

    /// Reads [`EventFilter::to_stored`]; unknown codes (an event withdrawn) are skipped.
    #[must_use]
    pub fn from_stored(text: &str) -> Self {
        if text == "*" {
            return Self::All;
        }
        let events: Vec<WebhookEventType> = text.split(',').filter_map(WebhookEventType::parse).collect();
        Self::from_list(&events)
    }
}

/// An organization's webhook endpoint (without its secrets).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WebhookEndpoint {
    pub id: WebhookEndpointId,
    pub org_id: OrgId,
    pub url: String,
    pub description: String,
    pub events: EventFilter,
    /// `false` once disabled (by an admin, a `410 Gone` or three days of failures).
    pub enabled: bool,
    pub disabled_reason: Option<DisabledReason>,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
    /// The first failed attempt since the last success; `None` while healthy.
    pub failing_since: Option<DateTime<Utc>>,
    /// The last attempt of any of its deliveries, and whether it succeeded.
    pub last_attempt_at: Option<DateTime<Utc>>,
    pub last_attempt_ok: Option<bool>,
    /// Until when a rotated secret still signs beside the current one.
    pub previous_secret_until: Option<DateTime<Utc>>,
}

/// The secrets that sign an endpoint's deliveries: the current one, and the one it replaced while the
/// overlap lasts.
#[derive(Debug, Clone)]
pub struct SigningSecrets {
    pub current: WebhookSecret,
    pub previous: Option<(WebhookSecret, DateTime<Utc>)>,
}

impl SigningSecrets {
    /// The secrets valid at `now`, the current one first.
    #[must_use]
    pub fn valid_at(&self, now: DateTime<Utc>) -> Vec<&WebhookSecret> {
        let mut secrets = vec![&self.current];
        if let Some((previous, until)) = &self.previous
            && now < *until
        {
            secrets.push(previous);
        }
        secrets
    }
}

/// An endpoint's signing secrets as stored (sealed), the current one and the one it replaced with the end of
/// its overlap.
#[derive(Debug, Clone)]
pub struct SealedSecrets {
    pub current: SealedSecret,
    pub previous: Option<(SealedSecret, DateTime<Utc>)>,
}

impl SealedSecrets {
    /// Opens both with the server's key.
    ///
    /// # Errors
    /// [`Unsealable`] when either does not open for `endpoint` with `key`.
    pub fn open(&self, key: &DigestKey, endpoint: WebhookEndpointId) -> Result<SigningSecrets, Unsealable> {
        Ok(SigningSecrets {
            current: self.current.open(key, endpoint)?,
            previous: match &self.previous {
                Some((sealed, until)) => Some((sealed.open(key, endpoint)?, *until)),
                None => None,
            },
        })
    }
}

/// Which of an endpoint's two secret columns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SecretSlot {
    Current,
    Previous,
}

code_enum! {
    /// Where a delivery stands.
    pub enum DeliveryStatus: "Where a delivery stands." {
        /// Waiting for its first attempt or a retry.
        Pending => "PENDING",
        /// A 2xx came back.
        Delivered => "DELIVERED",
        /// Given up: every attempt failed, or its endpoint was disabled.
        Failed => "FAILED",
    }
}

impl DeliveryCursor {
    /// The cursor of the page that follows `delivery`.
    #[must_use]
    pub fn after(delivery: &WebhookDelivery) -> Self {
        Self {
            at_millis: delivery.created_at.timestamp_millis(),
            id: MessageId(delivery.id.clone()),
        }
    }
}

/// One event on its way to one endpoint. Its `id` is the `webhook-id` of every attempt.
#[derive(Debug, Clone, PartialEq)]
pub struct WebhookDelivery {
    /// `msg_` + 32 hexadecimal digits.
    pub id: String,
    pub endpoint_id: WebhookEndpointId,
    /// The event (its organization, type, time and data); the request body is
    /// [`super::render_body`] of it.
    pub event: super::WebhookEvent,
    pub created_at: DateTime<Utc>,
    pub status: DeliveryStatus,
    pub attempts: u32,
    /// When it is tried next (pending deliveries).
    pub next_attempt_at: Option<DateTime<Utc>>,
    pub last_attempt_at: Option<DateTime<Utc>>,
    /// The last answer's status, `None` when none came (timeout, refused connection, private address).
    pub last_status: Option<u16>,
    pub last_duration_ms: Option<u32>,
    /// The first 4 KB of the last answer's body.
    pub last_response: Option<String>,
    /// Why the last attempt failed, in words.
    pub last_error: Option<String>,
}

/// The message id of a new delivery, from 16 random bytes.
#[must_use]
pub fn message_id(bytes: &[u8]) -> String {
    format!("msg_{}", hex::encode(bytes))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{RepeatingBytes, noon};

    #[test]
    fn a_shown_url_keeps_the_scheme_host_and_port_and_elides_the_rest() {
        for (url, shown) in [
            (
                "https://hooks.slack.com/services/T000/B000/XXXXSECRET",
                "https://hooks.slack.com/…",
            ),
            (
                "https://ci.example.com/hook?token=s3cret",
                "https://ci.example.com/…",
            ),
            ("https://ci.example.com/#s3cret", "https://ci.example.com/…"),
            ("https://ci.example.com:8443/in", "https://ci.example.com:8443/…"),
            ("https://ci.example.com", "https://ci.example.com/"),
            ("http://127.0.0.1:3000/hooks/abc", "http://127.0.0.1:3000/…"),
            ("https://[::1]:9/x", "https://[::1]:9/…"),
            ("not a url /secret", "…"),
        ] {
            assert_eq!(shown_url(url), shown, "{url}");
        }
    }

    #[test]
    fn endpoint_urls_are_https_or_loopback_http_when_allowed() {
        assert!(check_endpoint_url("https://hooks.example.com/in", false).is_ok());
        assert_eq!(
            check_endpoint_url("http://hooks.example.com/in", false),
            Err(EndpointUrlError::NotHttps)
        );
        assert_eq!(
            check_endpoint_url("http://127.0.0.1:9000/in", false),
            Err(EndpointUrlError::NotHttps)
        );
        assert!(check_endpoint_url("http://127.0.0.1:9000/in", true).is_ok());
        assert!(check_endpoint_url("http://localhost:9000/in", true).is_ok());
        assert!(check_endpoint_url("http://[::1]:9000/in", true).is_ok());
        assert_eq!(
            check_endpoint_url("http://10.0.0.1/in", true),
            Err(EndpointUrlError::NotHttps)
        );
        assert_eq!(
            check_endpoint_url("ftp://example.com", false),
            Err(EndpointUrlError::NotAUrl)
        );
        assert_eq!(check_endpoint_url("hooks", false), Err(EndpointUrlError::NotAUrl));
        assert_eq!(
            check_endpoint_url("https://me:pw@example.com/", false),
            Err(EndpointUrlError::Credentials)
        );
        let long = format!("https://example.com/{}", "a".repeat(MAX_URL_CHARS));
        assert_eq!(check_endpoint_url(&long, false), Err(EndpointUrlError::TooLong));
    }

    #[test]
    fn a_filter_receives_its_events_and_tests_only() {
        let only = EventFilter::from_list(&[WebhookEventType::AppApproved, WebhookEventType::AppApproved]);
        assert!(only.accepts(WebhookEventType::AppApproved));
        assert!(only.accepts(WebhookEventType::Test));
        assert!(!only.accepts(WebhookEventType::MemberJoined));
        assert_eq!(only.to_list(), [WebhookEventType::AppApproved]);
        assert!(EventFilter::from_list(&[]).accepts(WebhookEventType::MemberJoined));
        assert_eq!(
            EventFilter::from_list(&[WebhookEventType::Test]),
            EventFilter::All
        );
    }

    #[test]
    fn a_filter_is_stored_as_text_and_read_back() {
        for filter in [
            EventFilter::All,
            EventFilter::from_list(&[WebhookEventType::AppOffline, WebhookEventType::MemberRemoved]),
        ] {
            assert_eq!(EventFilter::from_stored(&filter.to_stored()), filter);
        }
        assert_eq!(
            EventFilter::from_stored("app.gone,app.online"),
            EventFilter::from_list(&[WebhookEventType::AppOnline])
        );
    }

    #[test]
    fn a_rotated_secret_signs_until_the_overlap_ends() {
        let secrets = SigningSecrets {
            current: WebhookSecret::generate(&RepeatingBytes(1)),
            previous: Some((
                WebhookSecret::generate(&RepeatingBytes(2)),
                noon() + ROTATION_OVERLAP,
            )),
        };
        assert_eq!(secrets.valid_at(noon()).len(), 2);
        assert_eq!(secrets.valid_at(noon() + ROTATION_OVERLAP).len(), 1);
    }

    #[test]
    fn statuses_read_back_and_message_ids_are_prefixed() {
        for status in [
            DeliveryStatus::Pending,
            DeliveryStatus::Delivered,
            DeliveryStatus::Failed,
        ] {
            assert_eq!(DeliveryStatus::parse(status.code()), Some(status));
        }
        assert_eq!(message_id(&[0xab; 2]), "msg_abab");
    }
}
