//! The portal's address as the client judges it before a token goes there: whether the way to it is
//! encrypted or stays on this machine, and whether two addresses name the same portal.

use url::{Host, Url};

use crate::error::{CliError, Result};

/// The name of the `--allow-insecure` flag, for the messages that point at it.
pub const ALLOW_INSECURE_FLAG: &str = "--allow-insecure";

/// A portal's address: an `http://` or `https://` URL with a host.
#[derive(Debug, Clone)]
pub struct PortalUrl {
    url: Url,
}

impl PortalUrl {
    /// Reads an address as the user gave it (`DEVPORTAL_URL`, `--url`, the stored login).
    ///
    /// # Errors
    /// [`CliError::Usage`] when it is not an `http://` or `https://` address with a host.
    pub fn parse(text: &str) -> Result<Self> {
        let trimmed = text.trim();
        let url = Url::parse(trimmed);
        // `portal.example.com` does not parse, and `localhost:8080` parses as the scheme `localhost`: both
        // lack the http:// or https:// a person forgot to type.
        let without_scheme = match &url {
            Err(url::ParseError::RelativeUrlWithoutBase) => true,
            Ok(url) => !trimmed.contains("://") && !matches!(url.scheme(), "http" | "https"),
            Err(_) => false,
        };
        if without_scheme && !trimmed.is_empty() {
            return Err(CliError::Usage(format!(
                "{trimmed} is not a portal address: add http:// or https:// (like https://{trimmed})."
            )));
        }
        let url = url.map_err(|error| {
            CliError::Usage(format!(
                "{text} is not a portal address ({error}): give one like https://portal.example.com."
            ))
        })?;
        if !matches!(url.scheme(), "http" | "https") || url.host().is_none() {
            return Err(CliError::Usage(format!(
                "{text} is not a portal address: give one like https://portal.example.com."
            )));
        }
        Ok(Self { url })
    }

    /// Whether the host is this machine: 127.0.0.0/8, ::1 or `localhost`.
    #[must_use]
    pub fn is_loopback(&self) -> bool {
        match self.url.host() {
            Some(Host::Ipv4(address)) => address.is_loopback(),
            Some(Host::Ipv6(address)) => address.is_loopback(),
            Some(Host::Domain(name)) => name.eq_ignore_ascii_case("localhost"),
            None => false,
        }
    }

    /// Whether a bearer token may go to this address: over `https://`, to this machine, or anywhere when
    /// `allow_insecure` (`--allow-insecure`, `DEVPORTAL_ALLOW_INSECURE=1`) says so.
    ///
    /// # Errors
    /// [`CliError::Usage`] saying what to do, when the token would cross the network in clear.
    pub fn check_transport(&self, allow_insecure: bool) -> Result<()> {
        if self.url.scheme() == "https" || self.is_loopback() || allow_insecure {
            return Ok(());
        }
        let mut encrypted = self.url.clone();
        let suggestion = if encrypted.set_scheme("https").is_ok() {
            format!("Use {}", shown(&encrypted))
        } else {
            "Use its https:// address".to_owned()
        };
        Err(CliError::Usage(format!(
            "{} is plain http:// to another machine: the token would cross the network unencrypted. \
             {suggestion}, or, only where the network in between is yours, pass {ALLOW_INSECURE_FLAG} \
             (or set {}=1).",
            shown(&self.url),
            crate::config::ENV_ALLOW_INSECURE
        )))
    }

    /// Whether `self` and `other` name the same portal: the same scheme, host and port (the default one
    /// when none is written) and path, whatever the letter case of the scheme and host and a trailing `/`.
    #[must_use]
    pub fn same_portal(&self, other: &Self) -> bool {
        self.key() == other.key()
    }

    fn key(&self) -> (&str, Option<Host<&str>>, Option<u16>, &str) {
        (
            self.url.scheme(),
            self.url.host(),
            self.url.port_or_known_default(),
            self.url.path().trim_end_matches('/'),
        )
    }
}

/// Whether the addresses `a` and `b` name the same portal ([`PortalUrl::same_portal`]); not when either is
/// not a portal address.
#[must_use]
pub fn same_portal(a: &str, b: &str) -> bool {
    match (PortalUrl::parse(a), PortalUrl::parse(b)) {
        (Ok(a), Ok(b)) => a.same_portal(&b),
        _ => false,
    }
}

/// The address as the messages show it: no trailing `/`.
fn shown(url: &Url) -> String {
    url.as_str().trim_end_matches('/').to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parsed(text: &str) -> PortalUrl {
        PortalUrl::parse(text).unwrap_or_else(|error| panic!("{text}: {error}"))
    }

    #[test]
    fn only_this_machine_is_loopback() {
        for text in [
            "http://127.0.0.1:8080",
            "http://127.8.9.10",
            "http://[::1]:8080",
            "http://localhost:3000",
            "http://LOCALHOST",
        ] {
            assert!(parsed(text).is_loopback(), "{text}");
        }
        for text in [
            "http://portal.example.com",
            "http://127.0.0.1.example.com",
            "http://localhost.example.com",
            "http://10.0.0.1",
            "http://0.0.0.0:8080",
            "http://[::ffff:10.0.0.1]",
            "http://[::2]",
        ] {
            assert!(!parsed(text).is_loopback(), "{text}");
        }
    }

    #[test]
    fn a_token_goes_in_clear_only_to_this_machine_unless_allowed() {
        assert!(
            parsed("https://portal.example.com")
                .check_transport(false)
                .is_ok()
        );
        assert!(parsed("http://127.0.0.1:8080").check_transport(false).is_ok());
        assert!(parsed("http://portal.example.com").check_transport(true).is_ok());
        let refused = parsed("http://portal.example.com:8080/")
            .check_transport(false)
            .expect_err("refused");
        assert_eq!(refused.exit_code(), 2);
        let message = refused.to_string();
        assert!(
            message.contains("Use https://portal.example.com:8080,")
                && message.contains("--allow-insecure")
                && message.contains("DEVPORTAL_ALLOW_INSECURE=1"),
            "{message}"
        );
    }

    #[test]
    fn the_same_portal_is_recognised_however_it_is_written() {
        for (a, b) in [
            ("https://portal.example.com", "https://portal.example.com/"),
            ("https://portal.example.com", "HTTPS://Portal.Example.COM"),
            ("https://portal.example.com", "https://portal.example.com:443"),
            ("http://127.0.0.1", "http://127.0.0.1:80/"),
            ("https://example.com/portal", "https://example.com/portal/"),
        ] {
            assert!(parsed(a).same_portal(&parsed(b)), "{a} and {b}");
        }
        for (a, b) in [
            ("https://portal.example.com", "http://portal.example.com"),
            ("https://portal.example.com", "https://portal.example.com:8443"),
            ("https://portal.example.com", "https://evil.example.com"),
            ("http://127.0.0.1:8080", "http://localhost:8080"),
            ("https://example.com/portal", "https://example.com/other"),
        ] {
            assert!(!parsed(a).same_portal(&parsed(b)), "{a} and {b}");
        }
    }

    #[test]
    fn an_address_that_is_not_http_is_a_usage_error() {
        for text in [
            "portal.example.com",
            "ftp://portal.example.com",
            "file:///etc/passwd",
            "",
        ] {
            let refused = PortalUrl::parse(text).expect_err(text);
            assert_eq!(refused.exit_code(), 2, "{text}");
        }
    }

    #[test]
    fn an_address_without_its_scheme_is_told_to_add_one() {
        for text in ["portal.example.com", "localhost:8080", "127.0.0.1:8080/"] {
            let refused = PortalUrl::parse(text).expect_err(text).to_string();
            assert!(refused.contains("add http:// or https://"), "{text}: {refused}");
            assert!(!refused.contains("relative URL"), "{text}: {refused}");
        }
    }
}
