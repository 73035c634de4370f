//! Webhooks (issue 38, PRODUCT.md §10): an organization's endpoints hear about its changes, signed by the
//! Standard Webhooks rules, queued in the change's own transaction and retried for about three days.

pub mod events;
pub mod ids;
pub mod models;
pub mod payload;
pub mod ports;
pub mod retry;
pub mod service;
pub mod signing;

pub use events::WebhookEventType;
pub use models::{
    Admission, DeliveryCursor, DeliveryStatus, EventFilter, LimitScope, MAX_ENDPOINTS_PER_ORG,
    MAX_PENDING_PER_ENDPOINT, MAX_RESPONSE_BYTES, MessageId, SealedSecrets, SecretSlot, SendLimits,
    SigningSecrets, WebhookDelivery, WebhookEndpoint, WebhookEndpointId,
};
pub use payload::{ActionEvents, EventNames, WebhookEvent, events_of, render_body};
pub use ports::{
    AttemptRecord, ClaimedDelivery, DeliveryBacklog, SendError, SendResult, WebhookRepository, WebhookSender,
};
pub use retry::{AttemptResult, DisabledReason};
pub use service::{
    AttemptOutcome, EndpointChange, NewEndpoint, WebhookConfig, WebhookDeliveryService, WebhookError,
    WebhookService,
};
pub use signing::{SealedSecret, Unsealable, WebhookSecret};

#[cfg(test)]
mod service_tests;
