//! URL normalisation (specification §5) and validated public URLs.
//!
//! The browser applies the same normalisation on blur; both sides run the vectors in
//! `tests/vectors/url_normalisation.json`.

use serde::{Deserialize, Serialize};
use std::fmt;

/// The message for a URL that does not parse (specification §5).
pub const INVALID_URL: &str = "Please enter a valid URL";

/// White space as either side trims it: Rust's (Unicode `White_Space`) and the browser's `String.trim`,
/// which also removes the byte-order mark U+FEFF (a pasted value may start with one).
#[must_use]
pub fn is_blank(c: char) -> bool {
    c.is_whitespace() || c == '\u{feff}'
}

/// `value` without leading and trailing [`is_blank`] characters, as the browser's `String.trim` does.
#[must_use]
pub fn trim_blank(value: &str) -> &str {
    value.trim_matches(is_blank)
}

/// Normalises a URL the way the specification describes: trim white space (and a byte-order mark); an
/// empty value stays empty; upgrade `http://` to `https://`; add `https://` when there is no `http(s)://`
/// scheme; remove trailing slashes after the scheme. The scheme is written in lower case. Idempotent and
/// total.
#[must_use]
pub fn normalise_url(input: &str) -> String {
    let trimmed = trim_blank(input);
    if trimmed.is_empty() {
        return String::new();
    }
    let rest = strip_scheme(trimmed, "https://")
        .or_else(|| strip_scheme(trimmed, "http://"))
        .unwrap_or(trimmed);
    // Slashes and white space together: "x /" must not leave "x " behind (normalising must be idempotent).
    format!(
        "https://{}",
        rest.trim_end_matches(|c: char| c == '/' || is_blank(c))
    )
}

/// Whether a server URL typed as `http://` on a loopback host keeps its scheme. The specification upgrades
/// every `http://` to `https://`; a portal run for local development (`PORTAL_ALLOW_PRIVATE_TARGETS`) keeps
/// `http://localhost…`, `http://127.x.y.z…` and `http://[::1]…` as typed, so that an app server on the
/// developer's own machine can be registered and monitored. Nothing else changes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum ServerUrlRule {
    /// The specification's normalisation: always `https://`.
    #[default]
    HttpsOnly,
    /// A loopback `http://` URL is kept; every other URL is normalised as by [`ServerUrlRule::HttpsOnly`].
    KeepLoopbackHttp,
}

/// [`normalise_url`] under `rule`: with [`ServerUrlRule::KeepLoopbackHttp`], a value typed with `http://`
/// whose host is `localhost`, in `127.0.0.0/8` or `[::1]` keeps `http://` (in lower case) and loses its
/// trailing slashes; everything else is normalised as the specification says. Idempotent and total.
#[must_use]
pub fn normalise_server_url(input: &str, rule: ServerUrlRule) -> String {
    if rule == ServerUrlRule::KeepLoopbackHttp {
        let trimmed = trim_blank(input);
        if let Some(rest) = strip_scheme(trimmed, "http://") {
            let kept = format!(
                "http://{}",
                rest.trim_end_matches(|c: char| c == '/' || is_blank(c))
            );
            if is_loopback_http(&kept) {
                return kept;
            }
        }
    }
    normalise_url(input)
}

/// Whether `value` is an `http://` URL whose host is `localhost`, in `127.0.0.0/8` or `::1`.
fn is_loopback_http(value: &str) -> bool {
    let Ok(parsed) = url::Url::parse(value) else {
        return false;
    };
    parsed.scheme() == "http"
        && match parsed.host() {
            Some(url::Host::Domain(name)) => name.eq_ignore_ascii_case("localhost"),
            Some(url::Host::Ipv4(address)) => address.is_loopback(),
            Some(url::Host::Ipv6(address)) => address.is_loopback(),
            None => false,
        }
}

/// Characters that show nothing: controls (`Cc`) and Unicode's `Default_Ignorable_Code_Point` set (zero-
/// width space and joiners, direction marks, soft hyphen, variation selectors, the byte-order mark…). The
/// URL parser silently drops some of them from a host, so `exa\u{200b}mple.com` would be stored with a
/// character nobody can see. The browser lists the same ranges (`frontend/src/utils/url.ts`).
#[must_use]
pub fn is_invisible(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{00AD}'
                | '\u{034F}'
                | '\u{061C}'
                | '\u{115F}'..='\u{1160}'
                | '\u{17B4}'..='\u{17B5}'
                | '\u{180B}'..='\u{180F}'
                | '\u{200B}'..='\u{200F}'
                | '\u{202A}'..='\u{202E}'
                | '\u{2060}'..='\u{206F}'
                | '\u{3164}'
                | '\u{FE00}'..='\u{FE0F}'
                | '\u{FEFF}'
                | '\u{FFA0}'
                | '\u{FFF0}'..='\u{FFF8}'
                | '\u{1BCA0}'..='\u{1BCA3}'
                | '\u{1D173}'..='\u{1D17A}'
                | '\u{E0000}'..='\u{E0FFF}'
        )
}

/// The authority (`host[:port]`, with any `user:pass@`) of a normalised URL as typed: the text after the
/// scheme up to the first `/`, `?`, `#` or backslash (which the URL parser reads as a slash).
fn authority(after_scheme: &str) -> &str {
    let rest = after_scheme;
    let end = rest.find(['/', '?', '#', '\\']).unwrap_or(rest.len());
    &rest[..end]
}

/// Whether a typed authority is a plain `host` or `host:port` with a non-empty, all-digit port. Refuses an
/// empty authority (`https:////example.com`, which the parser would read as `example.com`), credentials
/// (`user:pass@host`) and an empty or non-numeric port (`http:/example.com` normalises to
/// `https://http:/example.com`, whose host would be `http`).
fn is_plain_authority(authority: &str) -> bool {
    if authority.is_empty() || authority.contains('@') {
        return false;
    }
    // The port follows the last colon outside an IPv6 literal (`[::1]:8443`).
    let after_literal = authority.rfind(']').map_or(0, |i| i + 1);
    match authority[after_literal..].rfind(':') {
        Some(colon) => {
            let port = &authority[after_literal + colon + 1..];
            !port.is_empty() && port.bytes().all(|b| b.is_ascii_digit())
        }
        None => true,
    }
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
    /// than 2048 characters, contains white space or an invisible character ([`is_invisible`]), carries a
    /// second scheme (`ftp://x` normalises to `https://ftp://x`), has an authority that is not a plain
    /// `host[:port]` (credentials, an empty authority, an empty or non-numeric port), or is not an
    /// absolute URL with a host. The browser checks the same (`tests/vectors/url_normalisation.json`).
    pub fn parse(input: &str) -> Result<Self, UrlError> {
        Self::parse_server(input, ServerUrlRule::HttpsOnly)
    }

    /// [`PublicUrl::parse`] under `rule`: with [`ServerUrlRule::KeepLoopbackHttp`] a loopback `http://` URL
    /// is kept as typed (see [`normalise_server_url`]); the other checks are the same.
    ///
    /// # Errors
    /// As [`PublicUrl::parse`].
    pub fn parse_server(input: &str, rule: ServerUrlRule) -> Result<Self, UrlError> {
        let normalised = normalise_server_url(input, rule);
        if normalised.is_empty() {
            return Err(UrlError::Empty);
        }
        let (scheme, after_scheme) = normalised.split_once("://").unwrap_or(("", &normalised));
        if normalised.chars().count() > MAX_URL_LEN
            || normalised.chars().any(|c| is_blank(c) || is_invisible(c))
            || after_scheme.contains("://")
            || !is_plain_authority(authority(after_scheme))
        {
            return Err(UrlError::Invalid);
        }
        let parsed = url::Url::parse(&normalised).map_err(|_| UrlError::Invalid)?;
        let scheme_allowed = match scheme {
            "https" => parsed.scheme() == "https",
            // Only normalise_server_url keeps `http`, and only for a loopback host.
            "http" => is_loopback_http(&normalised),
            _ => false,
        };
        match parsed.host_str() {
            Some(host) if !host.is_empty() && scheme_allowed => Ok(Self(normalised)),
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
    fn a_loopback_http_url_is_kept_only_for_local_development() {
        let keep = ServerUrlRule::KeepLoopbackHttp;
        for (typed, kept) in [
            ("http://localhost:3000/", "http://localhost:3000"),
            (" HTTP://LocalHost:3000 ", "http://LocalHost:3000"),
            ("http://127.0.0.1:3000/app//", "http://127.0.0.1:3000/app"),
            ("http://127.8.9.10", "http://127.8.9.10"),
            ("http://[::1]:3000", "http://[::1]:3000"),
        ] {
            assert_eq!(normalise_server_url(typed, keep), kept, "{typed}");
            assert_eq!(
                PublicUrl::parse_server(typed, keep).unwrap().as_str(),
                kept,
                "{typed}"
            );
            assert_eq!(
                PublicUrl::parse_server(typed, ServerUrlRule::HttpsOnly)
                    .unwrap()
                    .as_str(),
                kept.replacen("http://", "https://", 1),
                "{typed}"
            );
        }
    }

    #[test]
    fn hosts_that_only_look_local_are_upgraded_to_https() {
        let keep = ServerUrlRule::KeepLoopbackHttp;
        for (typed, upgraded) in [
            ("http://localhost.example.com", "https://localhost.example.com"),
            ("http://127.0.0.1.example.com", "https://127.0.0.1.example.com"),
            ("http://10.0.0.5:3000", "https://10.0.0.5:3000"),
            ("http://192.168.1.2", "https://192.168.1.2"),
            ("localhost:3000", "https://localhost:3000"),
            ("https://localhost:3000", "https://localhost:3000"),
        ] {
            assert_eq!(normalise_server_url(typed, keep), upgraded, "{typed}");
        }
    }

    #[test]
    fn a_kept_loopback_url_passes_the_same_checks() {
        let keep = ServerUrlRule::KeepLoopbackHttp;
        for bad in [
            "http://user:pass@localhost:3000",
            "http://localhost:",
            "http://localhost:30a0",
            "http://local\u{200b}host:3000",
            "http://localhost:3000/a b",
        ] {
            assert_eq!(
                PublicUrl::parse_server(bad, keep),
                Err(UrlError::Invalid),
                "{bad}"
            );
        }
    }

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
    fn a_leading_or_trailing_byte_order_mark_is_trimmed_as_the_browser_does() {
        assert_eq!(
            normalise_url("\u{feff}https://example.com"),
            "https://example.com"
        );
        assert_eq!(
            normalise_url("example.com\u{feff}/\u{feff}"),
            "https://example.com"
        );
        assert_eq!(
            PublicUrl::parse("\u{feff}example.com").unwrap().as_str(),
            "https://example.com"
        );
        assert_eq!(PublicUrl::parse("\u{feff}"), Err(UrlError::Empty));
    }

    #[test]
    fn credentials_in_a_url_are_refused() {
        for bad in [
            "https://user:pass@example.com",
            "https://user@example.com/path",
            "https://@example.com",
            "user:pass@example.com",
        ] {
            assert_eq!(PublicUrl::parse(bad), Err(UrlError::Invalid), "{bad:?}");
        }
        // An @ after the host is part of the path or query, not a credential.
        assert!(PublicUrl::parse("https://example.com/@me?by=a@b").is_ok());
    }

    #[test]
    fn a_scheme_typo_or_extra_slashes_are_refused_not_read_as_another_host() {
        for bad in [
            "http:/example.com",
            "https:/example.com",
            "http:example.com",
            "https:////example.com",
            "https:///example.com",
            "//example.com",
            "https://example.com:/path",
            "https://example.com:abc",
        ] {
            assert_eq!(PublicUrl::parse(bad), Err(UrlError::Invalid), "{bad:?}");
        }
    }

    #[test]
    fn invisible_characters_are_refused() {
        for bad in [
            "https://exa\u{200b}mple.com",
            "https://example.com\u{200d}",
            "https://exa\u{00ad}mple.com",
            "https://example.com/a\u{2060}b",
            "https://example.com/\u{0007}",
            "https://\u{feff}example.com",
        ] {
            assert_eq!(PublicUrl::parse(bad), Err(UrlError::Invalid), "{bad:?}");
        }
    }

    #[test]
    fn ports_and_ip_literals_are_still_accepted() {
        for good in [
            "localhost:3000",
            "https://example.com:8443/webhook",
            "https://[::1]:8443",
            "https://[::1]",
            "https://127.0.0.1:8080",
            "https://bücher.example",
        ] {
            assert!(PublicUrl::parse(good).is_ok(), "{good:?}");
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
        fn local_normalising_is_idempotent(input in "(http://(localhost|127\\.0\\.0\\.1|\\[::1\\])(:[0-9]{1,5})?)?\\PC{0,20}") {
            let once = normalise_server_url(&input, ServerUrlRule::KeepLoopbackHttp);
            prop_assert_eq!(normalise_server_url(&once, ServerUrlRule::KeepLoopbackHttp), once);
        }

        #[test]
        fn parsing_never_panics_and_accepts_only_https(input in "\\PC{0,60}") {
            if let Ok(url) = PublicUrl::parse(&input) {
                prop_assert!(url.as_str().starts_with("https://"));
            }
        }
    }
}
