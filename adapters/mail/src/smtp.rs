//! Delivery through an SMTP server (`SMTP_URL`).
//!
//! URL forms (those of lettre): `smtp://host:port` (plain, for a local relay), `smtp://host:587?tls=required`
//! (STARTTLS required), `smtp://host:587?tls=opportunistic` (STARTTLS when offered), `smtps://host:465`
//! (TLS from the start). Credentials go in the user-info part (`smtps://user:password@host`), percent-encoded;
//! they are never logged.

use async_trait::async_trait;
use domain::mail::{MailError, Mailer, OutgoingEmail};
use lettre::message::{Mailbox, MultiPart};
use lettre::{AsyncSmtpTransport, AsyncTransport, Message, Tokio1Executor};
use std::time::Duration;

use crate::html;

/// How long one SMTP conversation may take before it counts as a (transient) failure.
const SMTP_TIMEOUT: Duration = Duration::from_secs(20);

/// Why the SMTP mailer could not be set up.
#[derive(Debug, thiserror::Error)]
pub enum SmtpSetupError {
    #[error("SMTP_URL is not a usable SMTP address (smtp://host:port or smtps://user:password@host:port)")]
    Url,
    #[error("PORTAL_MAIL_FROM is not a usable sender address: {0}")]
    From(String),
}

/// Sends e-mails through one SMTP server, as plain text with an HTML alternative.
#[derive(Clone)]
pub struct SmtpMailer {
    transport: AsyncSmtpTransport<Tokio1Executor>,
    from: Mailbox,
    /// `host:port` for logs (never the credentials).
    server: String,
}

impl std::fmt::Debug for SmtpMailer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SmtpMailer")
            .field("server", &self.server)
            .finish_non_exhaustive()
    }
}

impl SmtpMailer {
    /// A mailer for `SMTP_URL`, sending as `from` (`Name <address>` or a bare address).
    ///
    /// # Errors
    /// [`SmtpSetupError`] for an unusable URL or sender. The server is not contacted here: an SMTP server
    /// that is down delays e-mails, it does not stop the portal.
    pub fn new(url: &str, from: &str) -> Result<Self, SmtpSetupError> {
        let from: Mailbox = from
            .parse()
            .map_err(|e: lettre::address::AddressError| SmtpSetupError::From(e.to_string()))?;
        let transport = AsyncSmtpTransport::<Tokio1Executor>::from_url(url)
            .map_err(|_| SmtpSetupError::Url)?
            .timeout(Some(SMTP_TIMEOUT))
            .build();
        Ok(Self {
            transport,
            from,
            server: server_of(url),
        })
    }

    /// The server's `host:port` as written in the URL (for logs).
    #[must_use]
    pub fn server(&self) -> &str {
        &self.server
    }

    fn message(&self, email: &OutgoingEmail) -> Result<Message, MailError> {
        let to: Mailbox = email
            .to
            .as_str()
            .parse()
            .map_err(|e: lettre::address::AddressError| {
                MailError::permanent(format!("bad recipient: {e}"))
            })?;
        Message::builder()
            .from(self.from.clone())
            .to(to)
            .subject(email.subject.clone())
            .multipart(MultiPart::alternative_plain_html(
                email.text.clone(),
                html::render(email),
            ))
            .map_err(|e| MailError::permanent(format!("could not build the message: {e}")))
    }
}

/// `host:port` of an SMTP URL, without scheme, credentials or query.
fn server_of(url: &str) -> String {
    let rest = url.split_once("://").map_or(url, |(_, rest)| rest);
    let rest = rest.rsplit_once('@').map_or(rest, |(_, host)| host);
    rest.split(['/', '?']).next().unwrap_or_default().to_owned()
}

#[async_trait]
impl Mailer for SmtpMailer {
    async fn send(&self, email: &OutgoingEmail) -> Result<(), MailError> {
        let message = self.message(email)?;
        match self.transport.send(message).await {
            Ok(_) => {
                tracing::info!(kind = email.kind.code(), server = %self.server, "e-mail delivered");
                Ok(())
            }
            Err(error) => {
                // A permanent SMTP reply (5xx) will never succeed; anything else (refused connection,
                // timeout, TLS trouble, 4xx) may succeed later.
                let message = format!("SMTP {}: {error}", self.server);
                if error.is_permanent() {
                    Err(MailError::permanent(message))
                } else {
                    Err(MailError::transient(message))
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_server_is_named_without_credentials() {
        assert_eq!(
            server_of("smtps://user:p%40ss@mail.example.com:465"),
            "mail.example.com:465"
        );
        assert_eq!(server_of("smtp://127.0.0.1:2525?tls=required"), "127.0.0.1:2525");
    }

    #[test]
    fn an_unusable_url_or_sender_is_refused() {
        assert!(matches!(
            SmtpMailer::new("http://example.com", "Portal <a@b.io>"),
            Err(SmtpSetupError::Url)
        ));
        assert!(matches!(
            SmtpMailer::new("smtp://127.0.0.1:2525", "not an address"),
            Err(SmtpSetupError::From(_))
        ));
        let mailer =
            SmtpMailer::new("smtp://u:secret@127.0.0.1:2525", "Portal <no-reply@localhost>").unwrap();
        assert!(!format!("{mailer:?}").contains("secret"));
    }
}
