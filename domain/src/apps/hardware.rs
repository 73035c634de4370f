//! Hardware an app needs (specification §3, §5). Required hardware prevents installation where it is
//! missing.

use crate::common::code_enum;
use serde::{Deserialize, Serialize};

use super::permissions::clean_description;

code_enum! {
    /// A kind of hardware an app may need, named as on the wire (`IMU`).
    #[derive(PartialOrd, Ord)]
    pub enum HardwareType: "A kind of hardware an app may need." {
        Camera => "CAMERA",
        Display => "DISPLAY",
        Microphone => "MICROPHONE",
        Speaker => "SPEAKER",
        Imu => "IMU",
        Button => "BUTTON",
        Light => "LIGHT",
        Wifi => "WIFI",
    }
}

code_enum! {
    /// Whether an app needs a piece of hardware (`REQUIRED`) or can do without it (`OPTIONAL`).
    #[derive(Default)]
    pub enum HardwareLevel: "Whether an app needs the hardware or can do without it." {
        #[default]
        Required => "REQUIRED",
        Optional => "OPTIONAL",
    }
}

/// One hardware requirement entry of an app.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HardwareRequirement {
    #[serde(rename = "type")]
    pub kind: HardwareType,
    pub level: HardwareLevel,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schema(nullable = false))]
    #[cfg_attr(feature = "openapi", schema(max_length = 500))]
    pub description: Option<String>,
}

/// Longest hardware requirement description accepted, in characters.
pub const MAX_HARDWARE_DESCRIPTION_LEN: usize = 500;

impl HardwareType {}

impl HardwareRequirement {
    /// Whether a device without this hardware cannot install the app.
    #[must_use]
    pub const fn blocks_installation(&self) -> bool {
        matches!(self.level, HardwareLevel::Required)
    }
}

/// The types not yet on `existing`, in editor order; empty means the add button reads "All Added".
#[must_use]
pub fn available_to_add(existing: &[HardwareRequirement]) -> Vec<HardwareType> {
    HardwareType::ALL
        .iter()
        .copied()
        .filter(|kind| !existing.iter().any(|h| h.kind == *kind))
        .collect()
}

/// The row the add button creates: the first available type, level `REQUIRED`, no description; `None`
/// when all types are added.
#[must_use]
pub fn new_row(existing: &[HardwareRequirement]) -> Option<HardwareRequirement> {
    available_to_add(existing)
        .first()
        .map(|kind| HardwareRequirement {
            kind: *kind,
            level: HardwareLevel::Required,
            description: None,
        })
}

/// Why a hardware requirement list was refused. Each message is shown on the `hardwareRequirements` field.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum HardwareError {
    #[error("Hardware requirement {} is listed more than once", .0.code())]
    Duplicate(HardwareType),
    #[error(
        "Hardware requirement descriptions must be {} characters or fewer",
        MAX_HARDWARE_DESCRIPTION_LEN
    )]
    DescriptionTooLong(HardwareType),
}

/// Validates a submitted list: each type at most once, descriptions at most 500 characters. Returns the
/// list with descriptions trimmed and blank descriptions removed.
///
/// # Errors
/// The first [`HardwareError`] found, in list order.
pub fn validate_hardware(list: &[HardwareRequirement]) -> Result<Vec<HardwareRequirement>, HardwareError> {
    let mut out: Vec<HardwareRequirement> = Vec::with_capacity(list.len());
    for entry in list {
        if out.iter().any(|h| h.kind == entry.kind) {
            return Err(HardwareError::Duplicate(entry.kind));
        }
        let description = clean_description(entry.description.as_deref());
        if description
            .as_ref()
            .is_some_and(|d| d.chars().count() > MAX_HARDWARE_DESCRIPTION_LEN)
        {
            return Err(HardwareError::DescriptionTooLong(entry.kind));
        }
        out.push(HardwareRequirement {
            kind: entry.kind,
            level: entry.level,
            description,
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(kind: HardwareType, level: HardwareLevel) -> HardwareRequirement {
        HardwareRequirement {
            kind,
            level,
            description: None,
        }
    }

    #[test]
    fn a_new_hardware_row_defaults_to_required_and_the_first_free_type() {
        assert_eq!(
            new_row(&[]),
            Some(entry(HardwareType::Camera, HardwareLevel::Required))
        );
        let row = new_row(&[entry(HardwareType::Camera, HardwareLevel::Optional)]).unwrap();
        assert_eq!(row.kind, HardwareType::Display);
        assert_eq!(row.level, HardwareLevel::Required);
    }

    #[test]
    fn when_every_hardware_type_is_added_no_row_can_be_added() {
        let all: Vec<_> = HardwareType::ALL
            .iter()
            .copied()
            .map(|k| entry(k, HardwareLevel::Optional))
            .collect();
        assert!(available_to_add(&all).is_empty());
        assert_eq!(new_row(&all), None);
    }

    #[test]
    fn a_hardware_type_listed_twice_is_refused() {
        let list = [
            entry(HardwareType::Imu, HardwareLevel::Required),
            entry(HardwareType::Imu, HardwareLevel::Optional),
        ];
        let err = validate_hardware(&list).unwrap_err();
        assert_eq!(
            err.to_string(),
            "Hardware requirement IMU is listed more than once"
        );
    }

    #[test]
    fn an_overlong_hardware_description_is_refused_and_blank_ones_dropped() {
        let mut long = entry(HardwareType::Wifi, HardwareLevel::Required);
        long.description = Some("w".repeat(MAX_HARDWARE_DESCRIPTION_LEN + 1));
        assert_eq!(
            validate_hardware(&[long]),
            Err(HardwareError::DescriptionTooLong(HardwareType::Wifi))
        );
        let mut blank = entry(HardwareType::Light, HardwareLevel::Optional);
        blank.description = Some("  ".into());
        assert_eq!(validate_hardware(&[blank]).unwrap()[0].description, None);
    }

    #[test]
    fn only_required_hardware_blocks_installation() {
        assert!(entry(HardwareType::Display, HardwareLevel::Required).blocks_installation());
        assert!(!entry(HardwareType::Display, HardwareLevel::Optional).blocks_installation());
    }

    #[test]
    fn hardware_wire_forms_match_serde() {
        for &kind in HardwareType::ALL {
            assert_eq!(
                serde_json::to_string(&kind).unwrap(),
                format!("\"{}\"", kind.code())
            );
        }
        assert_eq!(HardwareLevel::Optional.code(), "OPTIONAL");
    }
}
