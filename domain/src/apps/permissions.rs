//! Permissions an app asks for (specification §3, §5): the types, their categories, the rules of the
//! permissions editor, and the validation of a submitted list.

use crate::common::code_enum;
use serde::{Deserialize, Serialize};

code_enum! {
    /// A permission type. `NOTIFICATIONS` is legacy (replaced by `READ_NOTIFICATIONS`): kept on apps that have
    /// it, never newly added.
    #[derive(PartialOrd, Ord)]
    pub enum PermissionType: "A permission type. `NOTIFICATIONS` is legacy (replaced by `READ_NOTIFICATIONS`): kept on apps that have\nit, never newly added." {
        Microphone => "MICROPHONE",
        Location => "LOCATION",
        BackgroundLocation => "BACKGROUND_LOCATION",
        Calendar => "CALENDAR",
        Camera => "CAMERA",
        Notifications => "NOTIFICATIONS",
        ReadNotifications => "READ_NOTIFICATIONS",
        PostNotifications => "POST_NOTIFICATIONS",
        All => "ALL",
    }
}

code_enum! {
    /// The category a permission type is shown under.
    pub enum PermissionCategory: "The category a permission type is shown under." {
        Phone => "phone",
        Audio => "audio",
        Location => "location",
        Calendar => "calendar",
        Camera => "camera",
        System => "system",
    }
}

/// One permission entry of an app.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Permission {
    #[serde(rename = "type")]
    pub kind: PermissionType,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schema(nullable = false))]
    #[cfg_attr(feature = "openapi", schema(max_length = 500))]
    pub description: Option<String>,
}

/// Longest permission description accepted, in characters.
pub const MAX_PERMISSION_DESCRIPTION_LEN: usize = 500;

/// Where the editor cuts a description in its collapsed view (specification §9).
pub const DESCRIPTION_PREVIEW_LEN: usize = 50;

/// What the add button reads when every type that may be added is already on the list (specification §2).
pub const ALL_ADDED_LABEL: &str = "All Added";

impl PermissionType {
    /// The category the type is shown under. The specification names six categories without mapping
    /// them; we map the microphone to `audio`, both location types to `location`, the three notification
    /// types to `phone` (notifications are read from and posted to the paired phone), and `ALL` to
    /// `system`.
    #[must_use]
    pub const fn category(self) -> PermissionCategory {
        match self {
            Self::Microphone => PermissionCategory::Audio,
            Self::Location | Self::BackgroundLocation => PermissionCategory::Location,
            Self::Calendar => PermissionCategory::Calendar,
            Self::Camera => PermissionCategory::Camera,
            Self::Notifications | Self::ReadNotifications | Self::PostNotifications => {
                PermissionCategory::Phone
            }
            Self::All => PermissionCategory::System,
        }
    }

    /// Legacy types stay on apps that already have them but cannot be newly added.
    #[must_use]
    pub const fn is_legacy(self) -> bool {
        matches!(self, Self::Notifications)
    }
}

impl Permission {
    /// The description as the collapsed editor row shows it: the first 50 characters, followed by `...`
    /// when it was longer; empty when there is none.
    #[must_use]
    pub fn description_preview(&self) -> String {
        preview(self.description.as_deref().unwrap_or_default())
    }
}

/// The first [`DESCRIPTION_PREVIEW_LEN`] characters of `text`, followed by `...` when it was longer.
#[must_use]
pub fn preview(text: &str) -> String {
    let mut chars = text.chars();
    let head: String = chars.by_ref().take(DESCRIPTION_PREVIEW_LEN).collect();
    if chars.next().is_some() {
        format!("{head}...")
    } else {
        head
    }
}

/// The types that may still be added to `existing`: not yet used and not legacy, in editor order. When
/// this is empty the add button is disabled and reads [`ALL_ADDED_LABEL`].
#[must_use]
pub fn available_to_add(existing: &[Permission]) -> Vec<PermissionType> {
    PermissionType::ALL
        .iter()
        .copied()
        .filter(|kind| !kind.is_legacy() && !existing.iter().any(|p| p.kind == *kind))
        .collect()
}

/// The row the add button creates: the first available type with an empty description; `None` when all
/// types are added.
#[must_use]
pub fn new_row(existing: &[Permission]) -> Option<Permission> {
    available_to_add(existing).first().map(|kind| Permission {
        kind: *kind,
        description: None,
    })
}

/// Why a permission list was refused. Each message is shown on the `permissions` field.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PermissionError {
    #[error("Permission {} is listed more than once", .0.code())]
    Duplicate(PermissionType),
    #[error("{} is a legacy permission and can no longer be added; use READ_NOTIFICATIONS instead", .0.code())]
    LegacyAdded(PermissionType),
    #[error(
        "Permission descriptions must be {} characters or fewer",
        MAX_PERMISSION_DESCRIPTION_LEN
    )]
    DescriptionTooLong(PermissionType),
}

/// Validates a submitted permission list against the app's `previous` one (empty for a new app): each type
/// at most once, a legacy type only when the app already had it, descriptions at most 500 characters.
/// Returns the list with descriptions trimmed and blank descriptions removed.
///
/// # Errors
/// The first [`PermissionError`] found, in list order.
pub fn validate_permissions(
    new: &[Permission],
    previous: &[Permission],
) -> Result<Vec<Permission>, PermissionError> {
    let mut seen = Vec::with_capacity(new.len());
    let mut out = Vec::with_capacity(new.len());
    for entry in new {
        if seen.contains(&entry.kind) {
            return Err(PermissionError::Duplicate(entry.kind));
        }
        seen.push(entry.kind);
        if entry.kind.is_legacy() && !previous.iter().any(|p| p.kind == entry.kind) {
            return Err(PermissionError::LegacyAdded(entry.kind));
        }
        let description = clean_description(entry.description.as_deref());
        if description
            .as_ref()
            .is_some_and(|d| d.chars().count() > MAX_PERMISSION_DESCRIPTION_LEN)
        {
            return Err(PermissionError::DescriptionTooLong(entry.kind));
        }
        out.push(Permission {
            kind: entry.kind,
            description,
        });
    }
    Ok(out)
}

/// Trims a description; a blank one is no description.
pub(crate) fn clean_description(description: Option<&str>) -> Option<String> {
    description
        .map(str::trim)
        .filter(|d| !d.is_empty())
        .map(str::to_owned)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(kind: PermissionType) -> Permission {
        Permission {
            kind,
            description: None,
        }
    }

    #[test]
    fn every_type_has_one_of_the_six_categories() {
        use PermissionCategory as C;
        use PermissionType as T;
        let expected = [
            (T::Microphone, C::Audio),
            (T::Location, C::Location),
            (T::BackgroundLocation, C::Location),
            (T::Calendar, C::Calendar),
            (T::Camera, C::Camera),
            (T::Notifications, C::Phone),
            (T::ReadNotifications, C::Phone),
            (T::PostNotifications, C::Phone),
            (T::All, C::System),
        ];
        for (kind, category) in expected {
            assert_eq!(kind.category(), category, "{kind:?}");
        }
    }

    #[test]
    fn only_notifications_is_legacy() {
        let legacy: Vec<_> = PermissionType::ALL
            .iter()
            .copied()
            .filter(|t| t.is_legacy())
            .collect();
        assert_eq!(legacy, vec![PermissionType::Notifications]);
    }

    #[test]
    fn the_wire_form_matches_serde() {
        for &kind in PermissionType::ALL {
            assert_eq!(
                serde_json::to_string(&kind).unwrap(),
                format!("\"{}\"", kind.code())
            );
        }
        assert_eq!(
            serde_json::to_string(&PermissionCategory::Phone).unwrap(),
            "\"phone\""
        );
    }

    #[test]
    fn the_editor_offers_unused_types_but_never_the_legacy_one() {
        let available = available_to_add(&[entry(PermissionType::Microphone)]);
        assert!(!available.contains(&PermissionType::Microphone));
        assert!(!available.contains(&PermissionType::Notifications));
        assert_eq!(available.first(), Some(&PermissionType::Location));
        assert_eq!(available.len(), 7);
    }

    #[test]
    fn when_every_type_is_added_nothing_is_available_and_no_row_can_be_added() {
        let all: Vec<_> = PermissionType::ALL
            .iter()
            .copied()
            .filter(|t| !t.is_legacy())
            .map(entry)
            .collect();
        assert!(available_to_add(&all).is_empty());
        assert_eq!(new_row(&all), None);
        assert_eq!(ALL_ADDED_LABEL, "All Added");
    }

    #[test]
    fn a_new_row_takes_the_first_available_type_with_an_empty_description() {
        assert_eq!(new_row(&[]), Some(entry(PermissionType::Microphone)));
        let row = new_row(&[entry(PermissionType::Microphone), entry(PermissionType::Location)]).unwrap();
        assert_eq!(row.kind, PermissionType::BackgroundLocation);
        assert_eq!(row.description_preview(), "");
    }

    #[test]
    fn a_long_description_preview_is_cut_at_fifty_characters_with_an_ellipsis() {
        let long = Permission {
            kind: PermissionType::Camera,
            description: Some("é".repeat(60)),
        };
        assert_eq!(long.description_preview(), format!("{}...", "é".repeat(50)));
        let exact = Permission {
            kind: PermissionType::Camera,
            description: Some("x".repeat(50)),
        };
        assert_eq!(exact.description_preview(), "x".repeat(50));
    }

    #[test]
    fn a_type_listed_twice_is_refused() {
        let list = [entry(PermissionType::Camera), entry(PermissionType::Camera)];
        let err = validate_permissions(&list, &[]).unwrap_err();
        assert_eq!(err, PermissionError::Duplicate(PermissionType::Camera));
        assert_eq!(err.to_string(), "Permission CAMERA is listed more than once");
    }

    #[test]
    fn the_legacy_type_cannot_be_newly_added() {
        let err = validate_permissions(&[entry(PermissionType::Notifications)], &[]).unwrap_err();
        assert_eq!(err, PermissionError::LegacyAdded(PermissionType::Notifications));
        assert!(err.to_string().contains("use READ_NOTIFICATIONS instead"));
    }

    #[test]
    fn the_legacy_type_may_stay_when_the_app_already_had_it() {
        let previous = [entry(PermissionType::Notifications)];
        let kept = validate_permissions(&previous, &previous).unwrap();
        assert_eq!(kept, previous.to_vec());
    }

    #[test]
    fn an_overlong_description_is_refused() {
        let list = [Permission {
            kind: PermissionType::Calendar,
            description: Some("d".repeat(MAX_PERMISSION_DESCRIPTION_LEN + 1)),
        }];
        let err = validate_permissions(&list, &[]).unwrap_err();
        assert_eq!(
            err.to_string(),
            "Permission descriptions must be 500 characters or fewer"
        );
    }

    #[test]
    fn descriptions_are_trimmed_and_blank_ones_dropped() {
        let list = [
            Permission {
                kind: PermissionType::Camera,
                description: Some("  to take photos ".into()),
            },
            Permission {
                kind: PermissionType::Microphone,
                description: Some("   ".into()),
            },
        ];
        let cleaned = validate_permissions(&list, &[]).unwrap();
        assert_eq!(cleaned[0].description.as_deref(), Some("to take photos"));
        assert_eq!(cleaned[1].description, None);
    }
}
