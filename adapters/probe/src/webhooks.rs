//! [`HttpWebhookSender`]: webhook deliveries over the prober's guarded client ([`crate::guarded_client`]):
//! private, link-local and metadata addresses refused after resolution (unless allowed), no proxy, no
//! redirect followed (a 3xx is a failed attempt), the time limit (`PORTAL_WEBHOOK_TIMEOUT_SECS`, 10 s by
//! default) for the whole request, a shorter one for connecting ([`connect_timeout`]: a target that takes
//! no connection frees its worker slot sooner), and only the first 4 KB of the answer read, and none of it
//! when the answer came from an address that is not public (`PORTAL_WEBHOOKS_ALLOW_PRIVATE_TARGETS` lets
//! such targets be reached, never read back through the delivery log).

use async_trait::async_trait;
use domain::webhooks::MAX_RESPONSE_BYTES;
use domain::webhooks::ports::{SendError, SendResult, WebhookSender};
use std::time::Instant;

use crate::{BuildError, ProbeConfig, guarded_client_connecting_within, is_private_target, literal_refused};

/// The time limit on connecting to an endpoint, for the time limit `timeout` of a whole delivery: half of
/// it, at most 3 s, at least 1 s (never more than `timeout`).
#[must_use]
pub fn connect_timeout(timeout: std::time::Duration) -> std::time::Duration {
    (timeout / 2)
        .min(std::time::Duration::from_secs(3))
        .max(std::time::Duration::from_secs(1))
        .min(timeout)
}

/// Sends webhook deliveries.
#[derive(Debug, Clone)]
pub struct HttpWebhookSender {
    client: reqwest::Client,
    config: ProbeConfig,
}

impl HttpWebhookSender {
    /// # Errors
    /// [`BuildError`] when the TLS backend cannot be set up.
    pub fn new(config: ProbeConfig) -> Result<Self, BuildError> {
        let client = guarded_client_connecting_within(
            config,
            connect_timeout(config.timeout),
            concat!("developer-portal-webhooks/", env!("CARGO_PKG_VERSION")),
        )?;
        Ok(Self { client, config })
    }

    fn checked(&self, url: &str) -> Result<url::Url, SendError> {
        let parsed = url::Url::parse(url).map_err(|_| SendError::Failed("not a URL".into()))?;
        if !matches!(parsed.scheme(), "http" | "https") || parsed.host().is_none() {
            return Err(SendError::Failed("not an http(s) URL".into()));
        }
        if literal_refused(&parsed, self.config.allow_private) {
            return Err(SendError::PrivateTarget);
        }
        Ok(parsed)
    }

    async fn post(
        &self,
        url: url::Url,
        headers: &[(String, String)],
        body: &str,
    ) -> Result<SendResult, SendError> {
        let started = Instant::now();
        let mut request = self.client.post(url).body(body.to_owned());
        for (name, value) in headers {
            request = request.header(name.as_str(), value.as_str());
        }
        let mut response = request.send().await.map_err(|e| classify(&e))?;
        let status = response.status().as_u16();
        // Reached only with private targets allowed: the answer of a private service is not read.
        if response
            .remote_addr()
            .is_none_or(|addr| !crate::address::is_public(addr.ip()))
        {
            return Ok(SendResult {
                status,
                body: None,
                duration_ms: u32::try_from(started.elapsed().as_millis()).unwrap_or(u32::MAX),
            });
        }
        let mut kept: Vec<u8> = Vec::new();
        // Read at most 4 KB; the rest of a long answer is not waited for.
        while kept.len() < MAX_RESPONSE_BYTES {
            match response.chunk().await {
                Ok(Some(chunk)) => kept.extend_from_slice(&chunk),
                Ok(None) | Err(_) => break,
            }
        }
        kept.truncate(MAX_RESPONSE_BYTES);
        Ok(SendResult {
            status,
            body: Some(String::from_utf8_lossy(&kept).into_owned()),
            duration_ms: u32::try_from(started.elapsed().as_millis()).unwrap_or(u32::MAX),
        })
    }
}

fn classify(error: &reqwest::Error) -> SendError {
    if error.is_timeout() {
        SendError::Timeout
    } else if is_private_target(error) {
        SendError::PrivateTarget
    } else if error.is_connect() {
        SendError::Failed("the connection failed (refused, DNS or TLS)".into())
    } else {
        SendError::Failed("the request failed before an answer came".into())
    }
}

#[async_trait]
impl WebhookSender for HttpWebhookSender {
    async fn send(
        &self,
        url: &str,
        headers: &[(String, String)],
        body: &str,
    ) -> Result<SendResult, SendError> {
        let url = self.checked(url)?;
        // reqwest's timeout covers the body; this one also bounds name resolution.
        match tokio::time::timeout(self.config.timeout, self.post(url, headers, body)).await {
            Ok(result) => result,
            Err(_) => Err(SendError::Timeout),
        }
    }

    async fn check_target(&self, url: &str) -> Result<(), SendError> {
        let parsed = self.checked(url)?;
        let Some(host) = parsed.host_str() else {
            return Err(SendError::Failed("no host".into()));
        };
        if matches!(parsed.host(), Some(url::Host::Domain(_))) {
            let host = host.to_owned();
            let found: Vec<std::net::SocketAddr> =
                tokio::time::timeout(self.config.timeout, tokio::net::lookup_host((host.as_str(), 0)))
                    .await
                    .map_err(|_| SendError::Timeout)?
                    .map_err(|_| SendError::Failed("the name could not be resolved".into()))?
                    .collect();
            if found.is_empty() {
                return Err(SendError::Failed("the name has no address".into()));
            }
            if !self.config.allow_private && found.iter().any(|a| !crate::address::is_public(a.ip())) {
                return Err(SendError::PrivateTarget);
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    /// A one-shot loopback server answering `answer` to the first request; gives back what it read.
    async fn serve(answer: &'static str) -> (String, tokio::task::JoinHandle<String>) {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}/hook", listener.local_addr().unwrap());
        let handle = tokio::spawn(async move {
            let (mut socket, _) = listener.accept().await.unwrap();
            let mut read = vec![0u8; 8192];
            let n = socket.read(&mut read).await.unwrap();
            socket.write_all(answer.as_bytes()).await.unwrap();
            String::from_utf8_lossy(&read[..n]).into_owned()
        });
        (url, handle)
    }

    fn sender(allow_private: bool) -> HttpWebhookSender {
        HttpWebhookSender::new(ProbeConfig {
            allow_private,
            ..ProbeConfig::default()
        })
        .unwrap()
    }

    #[tokio::test]
    async fn a_delivery_posts_the_body_with_its_headers() {
        let (url, server) =
            serve("HTTP/1.1 202 Accepted\r\ncontent-length: 2\r\nconnection: close\r\n\r\nok").await;
        let headers = vec![("webhook-id".to_owned(), "msg_1".to_owned())];
        let answer = sender(true).send(&url, &headers, "{\"a\":1}").await.unwrap();
        // A loopback receiver (private targets allowed): its answer is not read back.
        assert_eq!((answer.status, answer.body), (202, None));
        let request = server.await.unwrap();
        assert!(request.starts_with("POST /hook HTTP/1.1"));
        assert!(request.contains("webhook-id: msg_1"));
        assert!(request.ends_with("{\"a\":1}"));
    }

    #[test]
    fn connecting_has_less_time_than_the_whole_delivery() {
        use std::time::Duration;
        for (timeout, connect) in [(10, 3), (30, 3), (4, 2), (2, 1), (1, 1)] {
            assert_eq!(
                connect_timeout(Duration::from_secs(timeout)),
                Duration::from_secs(connect),
                "{timeout}"
            );
        }
        assert!(connect_timeout(Duration::from_secs(10)) < Duration::from_secs(10));
    }

    #[tokio::test]
    async fn a_redirect_is_answered_not_followed() {
        let (url, _server) =
            serve("HTTP/1.1 302 Found\r\nlocation: http://169.254.169.254/\r\ncontent-length: 0\r\n\r\n")
                .await;
        let answer = sender(true).send(&url, &[], "{}").await.unwrap();
        assert_eq!(answer.status, 302);
    }

    #[tokio::test]
    async fn private_addresses_are_refused_unless_allowed() {
        let refused = sender(false);
        for url in [
            "http://127.0.0.1:9/x",
            "http://169.254.169.254/latest",
            "http://localhost:9/x",
        ] {
            assert_eq!(
                refused.send(url, &[], "{}").await,
                Err(SendError::PrivateTarget),
                "{url}"
            );
        }
        assert_eq!(
            refused.check_target("https://localhost/x").await,
            Err(SendError::PrivateTarget)
        );
        assert_eq!(
            refused.check_target("https://10.1.2.3/x").await,
            Err(SendError::PrivateTarget)
        );
        assert_eq!(sender(true).check_target("http://localhost:9/x").await, Ok(()));
    }
}
