//! An endpoint's id, in a file of its own: the stored endpoint, its signing secrets and its events' bodies
//! all name it.

use serde::{Deserialize, Serialize};
use uuid::Uuid;

use crate::common::{Cursor, CursorId};

/// Identifies one endpoint.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
pub struct WebhookEndpointId(pub Uuid);

impl std::fmt::Display for WebhookEndpointId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

/// A delivery's id as a cursor of the delivery log names it: `msg_` and at most 100 characters.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MessageId(pub String);

impl std::fmt::Display for MessageId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl CursorId for MessageId {
    fn parse_id(text: &str) -> Option<Self> {
        (text.starts_with("msg_") && text.len() <= 100).then(|| Self(text.to_owned()))
    }
}

/// Where a page of an endpoint's delivery log starts (the one cursor of the newest-first logs).
pub type DeliveryCursor = Cursor<MessageId>;
