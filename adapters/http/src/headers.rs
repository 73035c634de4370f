//! Security headers on every response.

use actix_web::middleware::DefaultHeaders;

/// The headers every answer carries. `connect_sources` are extra origins the browser may call (a hosted
/// identity service); `script_sources` are the hashes of the inline scripts the web UI's pages carry
/// ([`crate::spa::inline_script_sources`]); images may come from any https origin because app logos are URLs.
#[must_use]
pub fn security_headers(connect_sources: &[String], script_sources: &[String]) -> DefaultHeaders {
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
    DefaultHeaders::new()
        .add(("Content-Security-Policy", csp))
        .add(("X-Content-Type-Options", "nosniff"))
        .add(("X-Frame-Options", "DENY"))
        .add(("Referrer-Policy", "strict-origin-when-cross-origin"))
        .add(("Permissions-Policy", "camera=(), microphone=(), geolocation=()"))
        .add(("Cross-Origin-Opener-Policy", "same-origin"))
}
