//! E-mail: what is sent (rendered messages), the outbox it waits in, and the mailer that delivers it.

pub mod models;
pub mod ports;
pub mod service;
pub mod templates;

pub use models::{EmailKind, OutgoingEmail};
pub use ports::{MailError, Mailer, OutboxBacklog, OutboxEntry, OutboxRepository};
pub use service::{DeliveryReport, OutboxService, RetryPolicy};
