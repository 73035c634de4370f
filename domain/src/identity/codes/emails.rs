//! The e-mails of the identity service: sign-up confirmation, magic link and password recovery. Each carries
//! a single-use link and a six-digit code, both valid 15 minutes.

use crate::common::EmailAddress;
use crate::identity::models::{ONE_TIME_CODE_TTL_MINUTES, OtpPurpose};
use crate::mail::{EmailKind, OutgoingEmail};

/// The link of an e-mail: the identity service's `GET /auth/v1/verify` with the token, its type and, when
/// given and on this portal (see [`resolve_redirect`]), the resolved URL to go to afterwards (all query
/// values percent-encoded).
#[must_use]
pub fn verify_link(public_url: &str, token: &str, purpose: OtpPurpose, redirect_to: Option<&str>) -> String {
    let mut query = url::form_urlencoded::Serializer::new(String::new());
    query.append_pair("token", token);
    query.append_pair("type", purpose.verify_type());
    if let Some(target) = redirect_to.and_then(|t| resolve_redirect(public_url, t)) {
        query.append_pair("redirect_to", &target);
    }
    format!(
        "{}/auth/v1/verify?{}",
        public_url.trim_end_matches('/'),
        query.finish()
    )
}

/// `redirect_to` resolved against `public_url`, if it stays on this portal: an absolute URL with the same
/// scheme, host and port, or a path (`/dashboard`). The answer is the resolved absolute URL without its
/// fragment — what a browser would open — so that what is checked is what is used. A target with white
/// space or a control character anywhere is refused, not cleaned: browsers drop tabs and newlines inside
/// URLs, so `/\t/evil.example` would open `//evil.example`. Anything else is refused too, because `/verify`
/// and provider sign-in send the browser there with the new session's tokens.
#[must_use]
pub fn resolve_redirect(public_url: &str, redirect_to: &str) -> Option<String> {
    if redirect_to.is_empty() || redirect_to.chars().any(|c| c.is_control() || c.is_whitespace()) {
        return None;
    }
    let base = url::Url::parse(public_url).ok()?;
    let mut resolved = if redirect_to.starts_with('/') {
        base.join(redirect_to).ok()?
    } else {
        url::Url::parse(redirect_to).ok()?
    };
    let same_origin = resolved.origin() == base.origin() && matches!(resolved.scheme(), "http" | "https");
    if !same_origin || !resolved.username().is_empty() || resolved.password().is_some() {
        return None;
    }
    resolved.set_fragment(None);
    Some(resolved.into())
}

/// The kind of e-mail that carries a code of this purpose (e-mail change, not offered, reads as a
/// confirmation).
#[must_use]
pub const fn email_kind(purpose: OtpPurpose) -> EmailKind {
    match purpose {
        OtpPurpose::Signup | OtpPurpose::EmailChange => EmailKind::ConfirmSignup,
        OtpPurpose::MagicLink => EmailKind::MagicLink,
        OtpPurpose::Recovery => EmailKind::PasswordRecovery,
    }
}

/// Renders the e-mail carrying a link and a code.
#[must_use]
pub fn code_email(purpose: OtpPurpose, to: &EmailAddress, link: &str, code: &str) -> OutgoingEmail {
    let (subject, action, ignore) = match purpose {
        OtpPurpose::Signup | OtpPurpose::EmailChange => (
            "Confirm your email address",
            "confirm your email address for the Developer Portal",
            "If you did not create an account, you can ignore this email.",
        ),
        OtpPurpose::MagicLink => (
            "Your sign-in link",
            "sign in to the Developer Portal",
            "If you did not ask to sign in, you can ignore this email.",
        ),
        OtpPurpose::Recovery => (
            "Reset your password",
            "choose a new password for the Developer Portal",
            "If you did not ask to reset your password, you can ignore this email; your password is unchanged.",
        ),
    };
    let text = format!(
        "Hello,\n\nFollow this link to {action}:\n\n{link}\n\nOr enter this code: {code}\n\n\
         The link and the code work once and expire in {ONE_TIME_CODE_TTL_MINUTES} minutes.\n\n{ignore}\n"
    );
    OutgoingEmail {
        kind: email_kind(purpose),
        to: to.clone(),
        subject: subject.to_owned(),
        text,
        link: Some(link.to_owned()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_redirect_on_the_portal_is_resolved_and_any_other_is_refused() {
        let base = "http://127.0.0.1:8080";
        assert_eq!(
            resolve_redirect(base, "http://127.0.0.1:8080/dashboard#x").as_deref(),
            Some("http://127.0.0.1:8080/dashboard")
        );
        assert_eq!(
            resolve_redirect(base, "/signin?token=abc").as_deref(),
            Some("http://127.0.0.1:8080/signin?token=abc")
        );
        assert_eq!(
            resolve_redirect(base, "/a/../dashboard").as_deref(),
            Some("http://127.0.0.1:8080/dashboard")
        );
        for bad in [
            "https://evil.example",
            "//evil.example/x",
            "/\\evil.example",
            "/\\/evil.example",
            "/\t/evil.example",
            "/\n/evil.example",
            "/\r//evil.example",
            "/%09/evil.example/../",
            " /dashboard",
            "/dashboard ",
            "/dash board",
            "/\u{a0}/evil.example",
            "/\u{2028}/evil.example",
            "http://127.0.0.1:9999/",
            "https://127.0.0.1:8080/",
            "http://user:pw@127.0.0.1:8080/",
            "javascript:alert(1)",
            "dashboard",
            "",
            " ",
        ] {
            let resolved = resolve_redirect(base, bad);
            let stays = resolved
                .as_deref()
                .is_some_and(|url| url.starts_with("http://127.0.0.1:8080/"));
            assert!(resolved.is_none() || stays, "{bad:?} → {resolved:?}");
            if bad != "/%09/evil.example/../" {
                assert_eq!(resolved, None, "{bad:?}");
            }
        }
    }

    #[test]
    fn an_e_mail_link_never_carries_a_foreign_redirect() {
        let link = verify_link(
            "https://portal.example",
            "tok",
            OtpPurpose::MagicLink,
            Some("https://evil.example"),
        );
        assert!(!link.contains("redirect_to"), "{link}");
        let kept = verify_link(
            "https://portal.example",
            "tok",
            OtpPurpose::MagicLink,
            Some("/dashboard"),
        );
        assert!(
            kept.contains("redirect_to=https%3A%2F%2Fportal.example%2Fdashboard"),
            "{kept}"
        );
        let smuggled = verify_link(
            "https://portal.example",
            "tok",
            OtpPurpose::MagicLink,
            Some("/\t/evil.example"),
        );
        assert!(!smuggled.contains("redirect_to"), "{smuggled}");
    }

    fn to() -> EmailAddress {
        EmailAddress::parse("dev@example.com").unwrap()
    }

    #[test]
    fn the_link_goes_to_the_verify_endpoint_with_an_encoded_redirect() {
        let link = verify_link(
            "https://portal.test/",
            "abc",
            OtpPurpose::MagicLink,
            Some("https://portal.test/dashboard?x=1"),
        );
        assert_eq!(
            link,
            "https://portal.test/auth/v1/verify?token=abc&type=magiclink&redirect_to=https%3A%2F%2Fportal.test%2Fdashboard%3Fx%3D1"
        );
        assert_eq!(
            verify_link("https://p.test", "t", OtpPurpose::Recovery, Some("")),
            "https://p.test/auth/v1/verify?token=t&type=recovery"
        );
    }

    #[test]
    fn each_purpose_has_its_email_kind_and_subject() {
        let cases = [
            (
                OtpPurpose::Signup,
                EmailKind::ConfirmSignup,
                "Confirm your email address",
            ),
            (OtpPurpose::MagicLink, EmailKind::MagicLink, "Your sign-in link"),
            (
                OtpPurpose::Recovery,
                EmailKind::PasswordRecovery,
                "Reset your password",
            ),
        ];
        for (purpose, kind, subject) in cases {
            let email = code_email(purpose, &to(), "https://l.test/x", "123456");
            assert_eq!((email.kind, email.subject.as_str()), (kind, subject));
            assert!(email.text.contains("https://l.test/x") && email.text.contains("123456"));
            assert!(email.text.contains("15 minutes"));
            assert_eq!(email.link.as_deref(), Some("https://l.test/x"));
        }
    }
}
