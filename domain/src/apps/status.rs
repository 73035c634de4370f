//! The app-store state machine (PRODUCT.md §4).

use serde::{Deserialize, Serialize};

/// Where an app stands in the app-store review.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum AppStoreStatus {
    #[default]
    Development,
    Submitted,
    Published,
    Rejected,
}

impl AppStoreStatus {
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Development => "DEVELOPMENT",
            Self::Submitted => "SUBMITTED",
            Self::Published => "PUBLISHED",
            Self::Rejected => "REJECTED",
        }
    }

    /// Reads a stored or received status; anything unknown reads as `DEVELOPMENT` (specification §4).
    #[must_use]
    pub fn parse_lossy(value: &str) -> Self {
        match value {
            "SUBMITTED" => Self::Submitted,
            "PUBLISHED" => Self::Published,
            "REJECTED" => Self::Rejected,
            _ => Self::Development,
        }
    }
}
