//! Rendered e-mails. Every e-mail is written to the outbox in the same transaction as the change that
//! caused it, then delivered by a worker (PRODUCT.md §2).

use serde::{Deserialize, Serialize};

use crate::common::EmailAddress;

/// Why an e-mail is sent; kept with it for logs and metrics.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EmailKind {
    ConfirmSignup,
    MagicLink,
    PasswordRecovery,
    OrgInvite,
    AppApproved,
    AppRejected,
    AppOffline,
    SecurityNotice,
    WebhookDisabled,
}

impl EmailKind {
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::ConfirmSignup => "confirm_signup",
            Self::MagicLink => "magic_link",
            Self::PasswordRecovery => "password_recovery",
            Self::OrgInvite => "org_invite",
            Self::AppApproved => "app_approved",
            Self::AppRejected => "app_rejected",
            Self::AppOffline => "app_offline",
            Self::SecurityNotice => "security_notice",
            Self::WebhookDisabled => "webhook_disabled",
        }
    }
}

/// A rendered e-mail, ready for the outbox.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct OutgoingEmail {
    pub kind: EmailKind,
    pub to: EmailAddress,
    pub subject: String,
    /// Plain-text body (always present).
    pub text: String,
    /// The one link the e-mail is about, if any; logged when no SMTP server is configured.
    pub link: Option<String>,
}
