//! An app's package name: the identifier every context names an app by (the audit log, images, reviews),
//! on the ground floor so that none of them reaches up into `apps` for it.

use serde::{Deserialize, Serialize};
use std::fmt;

use super::url::trim_blank;

/// Messages of specification §5 for the package name.
pub const PACKAGE_NAME_REQUIRED: &str = "Package name is required";
pub const PACKAGE_NAME_INVALID: &str =
    "Package name must use lowercase letters, numbers, dots, and hyphens only";
/// A name with an empty dot-separated part (`.`, `..`, `.a`, `a.`, `a..b`) would be an unreachable path
/// segment in the browser (`/apps/../edit`).
pub const PACKAGE_NAME_EMPTY_PART: &str =
    "Package name cannot start or end with a dot or have two dots in a row";
pub const PACKAGE_NAME_TOO_LONG: &str = "Package name must be 128 characters or fewer";

/// Longest package name accepted.
pub const MAX_PACKAGE_NAME_LEN: usize = 128;

/// An app's globally unique, immutable identifier: lowercase letters, digits, dots and hyphens.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct PackageName(String);

#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum PackageNameError {
    #[error("{}", PACKAGE_NAME_REQUIRED)]
    Required,
    #[error("{}", PACKAGE_NAME_INVALID)]
    Invalid,
    #[error("{}", PACKAGE_NAME_EMPTY_PART)]
    EmptyPart,
    #[error("{}", PACKAGE_NAME_TOO_LONG)]
    TooLong,
}

impl PackageName {
    /// Parses a package name (surrounding white space and a byte-order mark are trimmed, as the browser
    /// trims).
    ///
    /// # Errors
    /// In this order: [`PackageNameError::Required`] when empty; [`PackageNameError::Invalid`] when it has
    /// any character other than `a-z`, `0-9`, `.` and `-`; [`PackageNameError::EmptyPart`] when it starts or
    /// ends with a dot or has two dots in a row (`.` and `..` included); [`PackageNameError::TooLong`] when
    /// it is longer than 128 characters. The browser checks the same (`tests/vectors/package_name.json`).
    pub fn parse(input: &str) -> Result<Self, PackageNameError> {
        let trimmed = trim_blank(input);
        if trimmed.is_empty() {
            return Err(PackageNameError::Required);
        }
        let allowed = |c: char| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '.' || c == '-';
        if !trimmed.chars().all(allowed) {
            return Err(PackageNameError::Invalid);
        }
        if trimmed.split('.').any(str::is_empty) {
            return Err(PackageNameError::EmptyPart);
        }
        // Only ASCII is left, so bytes are characters.
        if trimmed.len() > MAX_PACKAGE_NAME_LEN {
            return Err(PackageNameError::TooLong);
        }
        Ok(Self(trimmed.to_owned()))
    }

    #[must_use]
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for PackageName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl TryFrom<String> for PackageName {
    type Error = PackageNameError;
    fn try_from(value: String) -> Result<Self, Self::Error> {
        Self::parse(&value)
    }
}

impl From<PackageName> for String {
    fn from(value: PackageName) -> Self {
        value.0
    }
}
