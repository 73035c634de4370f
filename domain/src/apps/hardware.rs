//! Hardware an app needs (specification §3, §5). Required hardware prevents installation where it is
//! missing.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum HardwareType {
    Camera,
    Display,
    Microphone,
    Speaker,
    Imu,
    Button,
    Light,
    Wifi,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum HardwareLevel {
    #[default]
    Required,
    Optional,
}

/// One hardware requirement entry of an app.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HardwareRequirement {
    #[serde(rename = "type")]
    pub kind: HardwareType,
    pub level: HardwareLevel,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
}
