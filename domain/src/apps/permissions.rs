//! Permissions an app asks for (specification §3, §5).

use serde::{Deserialize, Serialize};

/// A permission type. `NOTIFICATIONS` is legacy (replaced by `READ_NOTIFICATIONS`): kept on apps that have
/// it, never newly added.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum PermissionType {
    Microphone,
    Location,
    BackgroundLocation,
    Calendar,
    Camera,
    Notifications,
    ReadNotifications,
    PostNotifications,
    All,
}

/// The category a permission type is shown under.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PermissionCategory {
    Phone,
    Audio,
    Location,
    Calendar,
    Camera,
    System,
}

/// One permission entry of an app.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Permission {
    #[serde(rename = "type")]
    pub kind: PermissionType,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
}
