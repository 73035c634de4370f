//! The mail adapter (PRODUCT.md §2): implementations of the domain's `Mailer` port. [`SmtpMailer`] delivers
//! through an SMTP server (`SMTP_URL`); [`LogMailer`], used when none is configured, writes each e-mail's
//! recipient, subject and link to the log so that a portal without a mail server stays usable. Every
//! e-mail goes out as plain text with an HTML alternative ([`html::render`]).

pub mod html;
pub mod log;
pub mod smtp;

pub use log::LogMailer;
pub use smtp::{SmtpMailer, SmtpSetupError};
