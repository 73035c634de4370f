//! URL normalisation (specification §5) and validated public URLs.
//!
//! The browser applies the same normalisation on blur; both sides run the vectors in
//! `tests/vectors/url_normalisation.json`.

use serde::{Deserialize, Serialize};
use std::fmt;

/// The message for a URL that does not parse (specification §5).
pub const INVALID_URL: &str = "Please enter a valid URL";

/// Normalises a URL the way the specification describes: trim white space; an empty value stays empty;
/// upgrade `http://` to `https://`; add `https://` when there is no `http(s)://` scheme; remove trailing
/// slashes after the scheme. The scheme is written in lower case. Idempotent and total.
#[must_use]
pub fn normalise_url(input: &str) -> String {
    let trimmed = input.trim();
    if trimmed.is_empty() {
        return String::new();
    }
    let rest = strip_scheme(trimmed, "https://")
        .or_else(|| strip_scheme(trimmed, "http://"))
        .unwrap_or(trimmed);
    // Slashes and white space together: "x /" must not leave "x " behind (normalising must be idempotent).
    format!(
        "https://{}",
        rest.trim_end_matches(|c: char| c == '/' || c.is_whitespace())
    )
}

fn strip_scheme<'a>(value: &'a str, scheme: &str) -> Option<&'a str> {
    let head = value.get(..scheme.len())?;
    head.eq_ignore_ascii_case(scheme).then(|| &value[scheme.len()..])
}

/// Why a URL was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum UrlError {
    /// The value was empty (after trimming). Each field says "X is required" in its own words.
    #[error("URL is required")]
    Empty,
    /// The normalised value is not an absolute https URL with a host.
    #[error("{}", INVALID_URL)]
    Invalid,
}

/// Longest URL accepted.
pub const MAX_URL_LEN: usize = 2048;

/// A normalised, absolute `https://` URL with a host.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct PublicUrl(String);

impl PublicUrl {
    /// Normalises and validates a URL.
    ///
    /// # Errors
    /// [`UrlError::Empty`] for an empty value, [`UrlError::Invalid`] when the normalised value is longer
    /// than 2048 characters, contains white space, carries a second scheme (`ftp://x` normalises to
    /// `https://ftp://x`), or is not an absolute URL with a host.
    pub fn parse(input: &str) -> Result<Self, UrlError> {
        let normalised = normalise_url(input);
        if normalised.is_empty() {
            return Err(UrlError::Empty);
        }
        let after_scheme = &normalised["https://".len()..];
        if normalised.len() > MAX_URL_LEN
            || normalised.chars().any(char::is_whitespace)
            || after_scheme.contains("://")
        {
            return Err(UrlError::Invalid);
        }
        let parsed = url::Url::parse(&normalised).map_err(|_| UrlError::Invalid)?;
        match parsed.host_str() {
            Some(host) if !host.is_empty() && parsed.scheme() == "https" => Ok(Self(normalised)),
            _ => Err(UrlError::Invalid),
        }
    }

    /// Parses an optional URL: an empty value is `None`.
    ///
    /// # Errors
    /// [`UrlError::Invalid`] as [`PublicUrl::parse`].
    pub fn parse_optional(input: &str) -> Result<Option<Self>, UrlError> {
        match Self::parse(input) {
            Ok(url) => Ok(Some(url)),
            Err(UrlError::Empty) => Ok(None),
            Err(e) => Err(e),
        }
    }

    #[must_use]
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// This URL with a path segment appended (`/webhook`, `/health`).
    #[must_use]
    pub fn join_path(&self, suffix: &str) -> String {
        format!("{}/{}", self.0, suffix.trim_start_matches('/'))
    }
}

impl fmt::Display for PublicUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl TryFrom<String> for PublicUrl {
    type Error = UrlError;
    fn try_from(value: String) -> Result<Self, Self::Error> {
        Self::parse(&value)
    }
}

impl From<PublicUrl> for String {
    fn from(value: PublicUrl) -> Self {
        value.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn white_space_is_trimmed() {
        assert_eq!(normalise_url("  https://example.com  "), "https://example.com");
    }

    #[test]
    fn an_empty_value_stays_empty() {
        assert_eq!(normalise_url(""), "");
        assert_eq!(normalise_url("   "), "");
    }

    #[test]
    fn a_value_without_a_scheme_gets_https() {
        assert_eq!(normalise_url("example.com/app"), "https://example.com/app");
    }

    #[test]
    fn http_is_upgraded_to_https() {
        assert_eq!(normalise_url("http://example.com"), "https://example.com");
        assert_eq!(normalise_url("HTTP://example.com"), "https://example.com");
    }

    #[test]
    fn trailing_slashes_are_removed() {
        assert_eq!(normalise_url("https://example.com///"), "https://example.com");
        assert_eq!(normalise_url("https://example.com/a/"), "https://example.com/a");
    }

    #[test]
    fn white_space_before_a_trailing_slash_goes_too() {
        assert_eq!(normalise_url("0 /"), "https://0");
        assert_eq!(normalise_url("example.com / / "), "https://example.com");
    }

    #[test]
    fn a_bare_scheme_keeps_its_slashes_so_normalising_twice_changes_nothing() {
        assert_eq!(normalise_url("http://"), "https://");
        assert_eq!(normalise_url("https://"), "https://");
    }

    #[test]
    fn a_normalised_url_with_a_host_is_a_public_url() {
        let url = PublicUrl::parse("my-app.example.com/").unwrap();
        assert_eq!(url.as_str(), "https://my-app.example.com");
    }

    #[test]
    fn the_webhook_is_the_public_url_plus_webhook() {
        let url = PublicUrl::parse("https://my-app.example.com").unwrap();
        assert_eq!(url.join_path("/webhook"), "https://my-app.example.com/webhook");
        assert_eq!(url.join_path("health"), "https://my-app.example.com/health");
    }

    #[test]
    fn an_empty_public_url_is_reported_as_empty() {
        assert_eq!(PublicUrl::parse("  "), Err(UrlError::Empty));
        assert_eq!(PublicUrl::parse_optional(""), Ok(None));
    }

    #[test]
    fn a_url_without_a_host_or_with_spaces_is_invalid() {
        for bad in [
            "https://",
            "not a url",
            "https://exa mple.com",
            "ftp://example.com",
        ] {
            assert_eq!(PublicUrl::parse(bad), Err(UrlError::Invalid), "{bad:?}");
        }
    }

    #[test]
    fn the_invalid_message_is_the_specifications() {
        assert_eq!(UrlError::Invalid.to_string(), "Please enter a valid URL");
    }

    proptest! {
        #[test]
        fn normalising_is_idempotent(input in "\\PC{0,40}") {
            let once = normalise_url(&input);
            prop_assert_eq!(normalise_url(&once), once.clone());
        }

        #[test]
        fn parsing_never_panics_and_accepts_only_https(input in "\\PC{0,60}") {
            if let Ok(url) = PublicUrl::parse(&input) {
                prop_assert!(url.as_str().starts_with("https://"));
            }
        }
    }
}
