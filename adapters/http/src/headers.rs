//! Security headers on every response.

use actix_web::middleware::DefaultHeaders;

/// `Strict-Transport-Security` of a portal served over https (PRODUCT.md §1): one year, subdomains too.
pub const STRICT_TRANSPORT_SECURITY: &str = "max-age=31536000; includeSubDomains";

/// The headers every answer carries. `connect_sources` are extra origins the browser may call (a hosted
/// identity service); `script_sources` are the hashes of the inline scripts the web UI's pages carry
/// ([`crate::spa::inline_script_sources`]); images may come from any https origin because app logos are URLs.
/// `public_url` is `PORTAL_PUBLIC_URL`: when it is `https://`, every answer also carries
/// [`STRICT_TRANSPORT_SECURITY`] (a plain-http portal, such as a local one, must not pin browsers to https).
#[must_use]
pub fn security_headers(
    connect_sources: &[String],
    script_sources: &[String],
    public_url: &str,
) -> DefaultHeaders {
    let connect = std::iter::once("'self'")
        .chain(connect_sources.iter().map(String::as_str))
        .collect::<Vec<_>>()
        .join(" ");
    let script = std::iter::once("'self'")
        .chain(script_sources.iter().map(String::as_str))
        .collect::<Vec<_>>()
        .join(" ");
    let csp = format!(
        "default-src 'self'; script-src {script}; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob: https:; \
         font-src 'self' data:; connect-src {connect}; frame-ancestors 'none'; base-uri 'self'; form-action 'self'; \
         object-src 'none'"
    );
    let headers = DefaultHeaders::new()
        .add(("Content-Security-Policy", csp))
        .add(("X-Content-Type-Options", "nosniff"))
        .add(("X-Frame-Options", "DENY"))
        .add(("Referrer-Policy", "strict-origin-when-cross-origin"))
        .add(("Permissions-Policy", "camera=(), microphone=(), geolocation=()"))
        .add(("Cross-Origin-Opener-Policy", "same-origin"));
    if is_https(public_url) {
        headers.add(("Strict-Transport-Security", STRICT_TRANSPORT_SECURITY))
    } else {
        headers
    }
}

fn is_https(public_url: &str) -> bool {
    public_url
        .trim()
        .get(..8)
        .is_some_and(|scheme| scheme.eq_ignore_ascii_case("https://"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_an_https_public_url_asks_for_strict_transport() {
        assert!(is_https("https://portal.example.com"));
        assert!(is_https(" HTTPS://portal.example.com/"));
        assert!(!is_https("http://localhost:8080"));
        assert!(!is_https("https:/"));
        assert!(!is_https(""));
    }
}
