//! Sharing an app with testers (specification §2 share dialog, PRODUCT.md §4): the unguessable share
//! token, the install link built from it, and the tester e-mail list.
//!
//! The share token is stored as issued (not hashed): `GET …/share` must answer the same link every time,
//! and the link grants only read-only tester access.

use crate::common::email::InvalidEmail;
use crate::common::{EmailAddress, SecretGenerator};

/// Random bytes in a share token (hex-encoded to 64 characters).
pub const SHARE_TOKEN_BYTES: usize = 32;

/// Most tester addresses kept on one app.
pub const MAX_SHARE_EMAILS: usize = 500;

/// Issues a share token: 64 lowercase hex characters from 32 random bytes.
#[must_use]
pub fn issue_share_token(secrets: &dyn SecretGenerator) -> String {
    secrets.token_hex(SHARE_TOKEN_BYTES)
}

/// Whether `token` has the shape of a share token (checked before any lookup).
#[must_use]
pub fn looks_like_share_token(token: &str) -> bool {
    token.len() == SHARE_TOKEN_BYTES * 2
        && token
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

/// The tester link: `{store_base}/install/{token}`, the base's trailing slashes removed.
#[must_use]
pub fn install_url(store_base: &str, token: &str) -> String {
    format!("{}/install/{token}", store_base.trim_end_matches('/'))
}

/// Why a tester list was refused (field `emails`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ShareEmailsError {
    /// One entry is not an address; carries the entry as received.
    #[error("{msg}: {0}", msg = crate::common::email::INVALID_EMAIL)]
    Invalid(String),
    #[error("At most {} tester emails can be added", MAX_SHARE_EMAILS)]
    TooMany,
}

/// Parses a tester list: every entry must be an address; duplicates (compared case-insensitively) are
/// kept once, in first-seen order.
///
/// # Errors
/// [`ShareEmailsError::Invalid`] for the first entry that is not an address; [`ShareEmailsError::TooMany`]
/// when more than 500 distinct addresses remain.
pub fn parse_share_emails(raw: &[String]) -> Result<Vec<EmailAddress>, ShareEmailsError> {
    let mut out: Vec<EmailAddress> = Vec::with_capacity(raw.len());
    for entry in raw {
        let email =
            EmailAddress::parse(entry).map_err(|InvalidEmail| ShareEmailsError::Invalid(entry.clone()))?;
        if !out.contains(&email) {
            out.push(email);
        }
    }
    if out.len() > MAX_SHARE_EMAILS {
        return Err(ShareEmailsError::TooMany);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::RepeatingBytes;

    #[test]
    fn a_share_token_is_sixty_four_hex_characters() {
        let token = issue_share_token(&RepeatingBytes(0x5a));
        assert_eq!(token, "5a".repeat(32));
        assert!(looks_like_share_token(&token));
        assert!(!looks_like_share_token("5a5a"));
    }

    #[test]
    fn the_install_link_is_under_the_store_base() {
        assert_eq!(
            install_url("https://store.example.com/", "abc"),
            "https://store.example.com/install/abc"
        );
    }

    #[test]
    fn tester_emails_are_validated_and_de_duplicated() {
        let raw = vec![
            "a@example.com".to_owned(),
            " A@Example.com ".to_owned(),
            "b@example.com".to_owned(),
        ];
        let emails = parse_share_emails(&raw).unwrap();
        let shown: Vec<_> = emails.iter().map(EmailAddress::as_str).collect();
        assert_eq!(shown, ["a@example.com", "b@example.com"]);
    }

    #[test]
    fn a_tester_entry_that_is_not_an_address_is_refused() {
        let err = parse_share_emails(&["ok@example.com".to_owned(), "nope".to_owned()]).unwrap_err();
        assert_eq!(err, ShareEmailsError::Invalid("nope".into()));
        assert_eq!(err.to_string(), "Please enter a valid email address: nope");
    }

    #[test]
    fn too_many_testers_are_refused() {
        let raw: Vec<_> = (0..=MAX_SHARE_EMAILS)
            .map(|i| format!("t{i}@example.com"))
            .collect();
        assert_eq!(parse_share_emails(&raw), Err(ShareEmailsError::TooMany));
    }
}
