//! Rendered e-mails. Every e-mail is written to the outbox in the same transaction as the change that
//! caused it, then delivered by a worker (PRODUCT.md §2).

use crate::common::code_enum;
use serde::{Deserialize, Serialize};

use crate::common::EmailAddress;

code_enum! {
    /// Why an e-mail is sent; kept with it for logs and metrics.
    pub enum EmailKind: "Why an e-mail is sent; kept with it for logs and metrics." {
        ConfirmSignup => "confirm_signup",
        MagicLink => "magic_link",
        PasswordRecovery => "password_recovery",
        OrgInvite => "org_invite",
        AppApproved => "app_approved",
        AppRejected => "app_rejected",
        AppOffline => "app_offline",
        SecurityNotice => "security_notice",
        WebhookDisabled => "webhook_disabled",
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
