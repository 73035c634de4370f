//! E-mail addresses.

use serde::{Deserialize, Serialize};
use std::fmt;

use super::text::{Lines, has_control_characters};

/// The message for anything that does not look like an address (specification §5).
pub const INVALID_EMAIL: &str = "Please enter a valid email address";

/// An e-mail address that "looks like an address": some text, an at-sign, some text, a dot, some text, with
/// no white space and no control character ([`super::text`]). Stored trimmed and lower-cased, so that two spellings of one address compare equal
/// (invitations are bound to an address compared case-insensitively).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct EmailAddress(String);

#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("{}", INVALID_EMAIL)]
pub struct InvalidEmail;

/// Longest address accepted (RFC 5321 path limit).
pub const MAX_EMAIL_LEN: usize = 254;

impl EmailAddress {
    /// Parses an address.
    ///
    /// # Errors
    /// [`InvalidEmail`] when the trimmed text is empty, longer than 254 characters, contains white space
    /// or a control character (a NUL, which PostgreSQL refuses and SQLite stores), or is not
    /// `text@text.text`.
    pub fn parse(input: &str) -> Result<Self, InvalidEmail> {
        let trimmed = input.trim();
        if trimmed.is_empty()
            || trimmed.len() > MAX_EMAIL_LEN
            || trimmed.chars().any(char::is_whitespace)
            || has_control_characters(trimmed, Lines::Single)
        {
            return Err(InvalidEmail);
        }
        let (local, domain) = trimmed.split_once('@').ok_or(InvalidEmail)?;
        if local.is_empty() || domain.contains('@') {
            return Err(InvalidEmail);
        }
        let (host, tld) = domain.rsplit_once('.').ok_or(InvalidEmail)?;
        if host.is_empty() || tld.is_empty() {
            return Err(InvalidEmail);
        }
        Ok(Self(trimmed.to_lowercase()))
    }

    #[must_use]
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The part before the at-sign.
    #[must_use]
    pub fn local_part(&self) -> &str {
        self.0.split_once('@').map_or(self.0.as_str(), |(local, _)| local)
    }
}

impl fmt::Display for EmailAddress {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl TryFrom<String> for EmailAddress {
    type Error = InvalidEmail;
    fn try_from(value: String) -> Result<Self, Self::Error> {
        Self::parse(&value)
    }
}

impl From<EmailAddress> for String {
    fn from(value: EmailAddress) -> Self {
        value.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_plain_address_is_accepted_and_lower_cased() {
        let email = EmailAddress::parse("  Ada.Lovelace@Example.COM ").unwrap();
        assert_eq!(email.as_str(), "ada.lovelace@example.com");
    }

    #[test]
    fn an_address_needs_text_at_text_dot_text() {
        for bad in [
            "",
            "   ",
            "ada",
            "ada@",
            "@example.com",
            "ada@example",
            "ada@example.",
            "ada@.com",
        ] {
            assert_eq!(
                EmailAddress::parse(bad),
                Err(InvalidEmail),
                "{bad:?} should be refused"
            );
        }
    }

    #[test]
    fn an_address_with_white_space_or_two_at_signs_is_refused() {
        assert!(EmailAddress::parse("ada love@example.com").is_err());
        assert!(EmailAddress::parse("ada@lo@example.com").is_err());
    }

    #[test]
    fn an_address_with_a_control_character_is_refused() {
        for bad in [
            "ada\0@example.com",
            "ada@example.com\0",
            "\0ada@example.com",
            "ada\u{1}@example.com",
            "ada@exa\u{7f}mple.com",
            "ada@example.c\u{85}om",
        ] {
            assert_eq!(
                EmailAddress::parse(bad),
                Err(InvalidEmail),
                "{bad:?} should be refused"
            );
        }
    }

    proptest::proptest! {
        /// Any Unicode text: parsing never panics, and nothing accepted holds a control character or white
        /// space.
        #[test]
        fn any_text_parses_or_is_refused_without_panicking(text in proptest::prelude::any::<String>()) {
            if let Ok(email) = EmailAddress::parse(&text) {
                proptest::prop_assert!(!email.as_str().chars().any(|c| c.is_control() || c.is_whitespace()));
            }
        }
    }

    #[test]
    fn an_overlong_address_is_refused() {
        let long = format!("{}@example.com", "a".repeat(250));
        assert!(EmailAddress::parse(&long).is_err());
    }

    #[test]
    fn the_refusal_message_is_the_specifications() {
        assert_eq!(InvalidEmail.to_string(), "Please enter a valid email address");
    }

    #[test]
    fn the_local_part_is_the_text_before_the_at_sign() {
        assert_eq!(
            EmailAddress::parse("john@example.com").unwrap().local_part(),
            "john"
        );
    }

    #[test]
    fn an_address_deserialises_only_when_valid() {
        assert!(serde_json::from_str::<EmailAddress>("\"a@b.co\"").is_ok());
        assert!(serde_json::from_str::<EmailAddress>("\"nope\"").is_err());
    }
}
