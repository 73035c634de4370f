//! The mailer used when no SMTP server is configured: it logs what the e-mail is about.

use async_trait::async_trait;
use domain::mail::{MailError, Mailer, OutgoingEmail};

/// Writes each e-mail's kind, recipient, subject and link (the sign-in, confirmation or invitation link a
/// person needs) to the log at `info` level. It never fails.
#[derive(Debug, Clone, Copy, Default)]
pub struct LogMailer;

#[async_trait]
impl Mailer for LogMailer {
    async fn send(&self, email: &OutgoingEmail) -> Result<(), MailError> {
        tracing::info!(
            kind = email.kind.code(),
            to = %email.to.as_str(),
            subject = %email.subject,
            link = email.link.as_deref().unwrap_or("(none)"),
            "e-mail not sent (no SMTP_URL configured); its link is here"
        );
        Ok(())
    }
}
