//! The password policy (PRODUCT.md §1, OWASP ASVS 5.0 level 2): 12 to 128 characters, no composition rules,
//! refused when common or when it is the account's own e-mail address.

use std::collections::HashSet;
use std::sync::LazyLock;

use crate::common::EmailAddress;

/// Fewest characters (Unicode scalar values, not bytes).
pub const MIN_PASSWORD_CHARS: usize = 12;
/// Most characters.
pub const MAX_PASSWORD_CHARS: usize = 128;

pub const PASSWORD_REQUIRED: &str = "Password is required";
pub const PASSWORD_TOO_SHORT: &str = "Password must be at least 12 characters";
pub const PASSWORD_TOO_LONG: &str = "Password must be at most 128 characters";
pub const PASSWORD_TOO_COMMON: &str = "This password is too common. Choose a less common one.";
pub const PASSWORD_IS_EMAIL: &str = "Password must not be your email address or a part of it";

/// The bundled list: about a thousand very common passwords, lower-case, one a line.
const COMMON_PASSWORDS_TEXT: &str = include_str!("common_passwords.txt");

static COMMON_PASSWORDS: LazyLock<HashSet<&'static str>> = LazyLock::new(|| {
    COMMON_PASSWORDS_TEXT
        .lines()
        .map(str::trim)
        .filter(|line| !line.is_empty())
        .collect()
});

/// Why a password was refused. The Display texts are the messages shown to the user.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum PasswordError {
    #[error("{}", PASSWORD_REQUIRED)]
    Required,
    #[error("{}", PASSWORD_TOO_SHORT)]
    TooShort,
    #[error("{}", PASSWORD_TOO_LONG)]
    TooLong,
    #[error("{}", PASSWORD_TOO_COMMON)]
    TooCommon,
    #[error("{}", PASSWORD_IS_EMAIL)]
    SameAsEmail,
}

/// Whether the bundled list holds this password (compared lower-cased).
#[must_use]
pub fn is_common_password(password: &str) -> bool {
    COMMON_PASSWORDS.contains(password.to_lowercase().as_str())
}

/// Number of entries in the bundled list.
#[must_use]
pub fn common_password_count() -> usize {
    COMMON_PASSWORDS.len()
}

/// Checks a new password, in this order: present, at least 12 characters, at most 128 characters, not the
/// e-mail address or its local part (case-insensitive), not common (the bundled list, case-insensitive, or
/// one character repeated).
///
/// # Errors
/// The first [`PasswordError`] that applies.
pub fn check_password(password: &str, email: Option<&EmailAddress>) -> Result<(), PasswordError> {
    if password.is_empty() {
        return Err(PasswordError::Required);
    }
    let chars = password.chars().count();
    if chars < MIN_PASSWORD_CHARS {
        return Err(PasswordError::TooShort);
    }
    if chars > MAX_PASSWORD_CHARS {
        return Err(PasswordError::TooLong);
    }
    let lowered = password.to_lowercase();
    if let Some(email) = email
        && (lowered == email.as_str() || lowered == email.local_part())
    {
        return Err(PasswordError::SameAsEmail);
    }
    let mut distinct = lowered.chars();
    let first = distinct.next();
    if COMMON_PASSWORDS.contains(lowered.as_str()) || distinct.all(|c| Some(c) == first) {
        return Err(PasswordError::TooCommon);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn email(text: &str) -> EmailAddress {
        EmailAddress::parse(text).unwrap()
    }

    #[test]
    fn a_long_uncommon_password_is_accepted() {
        assert_eq!(check_password("violet-harbour-tram-42", None), Ok(()));
    }

    #[test]
    fn an_empty_password_is_required() {
        assert_eq!(check_password("", None), Err(PasswordError::Required));
        assert_eq!(PasswordError::Required.to_string(), "Password is required");
    }

    #[test]
    fn eleven_characters_are_too_short_and_twelve_are_enough() {
        assert_eq!(check_password("kx9!vb2#qm7", None), Err(PasswordError::TooShort));
        assert_eq!(check_password("kx9!vb2#qm7z", None), Ok(()));
        assert_eq!(
            PasswordError::TooShort.to_string(),
            "Password must be at least 12 characters"
        );
    }

    #[test]
    fn length_counts_characters_not_bytes() {
        // Eleven two-byte characters are 22 bytes but still too short; twelve are enough.
        assert_eq!(check_password("éééééñüöäßç", None), Err(PasswordError::TooShort));
        assert_eq!(check_password("éñüöäßçøåæœð", None), Ok(()));
    }

    #[test]
    fn more_than_128_characters_are_too_long() {
        let ok = "ab1-".repeat(32);
        assert_eq!(check_password(&ok, None), Ok(()));
        assert_eq!(
            check_password(&format!("{ok}x"), None),
            Err(PasswordError::TooLong)
        );
        assert_eq!(
            PasswordError::TooLong.to_string(),
            "Password must be at most 128 characters"
        );
        // 128 four-byte characters (512 bytes) are still within the limit.
        let emoji: String = "🦀🐍🐘🐳".repeat(32);
        assert_eq!(check_password(&emoji, None), Ok(()));
    }

    #[test]
    fn a_password_from_the_common_list_is_too_common_whatever_its_case() {
        assert_eq!(
            check_password("qwertyuiop123", None),
            Err(PasswordError::TooCommon)
        );
        assert_eq!(
            check_password("PassWord1234", None),
            Err(PasswordError::TooCommon)
        );
        assert_eq!(
            PasswordError::TooCommon.to_string(),
            "This password is too common. Choose a less common one."
        );
    }

    #[test]
    fn one_character_repeated_is_too_common() {
        assert_eq!(
            check_password("zzzzzzzzzzzzzzz", None),
            Err(PasswordError::TooCommon)
        );
        assert_eq!(
            check_password("ŽžŽžŽžŽžŽžŽžŽž", None),
            Err(PasswordError::TooCommon)
        );
    }

    #[test]
    fn the_email_address_or_its_local_part_is_refused_case_insensitively() {
        let address = email("ada.lovelace@example.com");
        assert_eq!(
            check_password("Ada.Lovelace@Example.com", Some(&address)),
            Err(PasswordError::SameAsEmail)
        );
        assert_eq!(
            check_password("ADA.LOVELACE", Some(&address)),
            Err(PasswordError::SameAsEmail)
        );
        assert_eq!(check_password("ada.lovelace!", Some(&address)), Ok(()));
        assert_eq!(
            PasswordError::SameAsEmail.to_string(),
            "Password must not be your email address or a part of it"
        );
    }

    #[test]
    fn the_bundled_list_has_about_a_thousand_lower_case_entries() {
        assert!((900..=1500).contains(&common_password_count()));
        assert!(COMMON_PASSWORDS.iter().all(|p| *p == p.to_lowercase()));
        assert!(is_common_password("Password"));
        assert!(!is_common_password("violet-harbour-tram-42"));
    }
}
