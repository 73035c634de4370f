//! An endpoint's id, in a file of its own: the stored endpoint, its signing secrets and its events' bodies
//! all name it.

use serde::{Deserialize, Serialize};
use uuid::Uuid;

/// Identifies one endpoint.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
pub struct WebhookEndpointId(pub Uuid);

impl std::fmt::Display for WebhookEndpointId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}
