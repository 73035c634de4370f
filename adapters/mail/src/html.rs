//! The HTML alternative of an e-mail, rendered from its plain-text body: paragraphs kept, every character
//! escaped, and the e-mail's link (when it has one) turned into a button and a clickable address.

use domain::mail::OutgoingEmail;

/// Escapes text for HTML content and attribute values.
#[must_use]
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            other => out.push(other),
        }
    }
    out
}

/// The HTML body of an e-mail.
#[must_use]
pub fn render(email: &OutgoingEmail) -> String {
    let link = email.link.as_deref();
    let mut body = String::new();
    let mut button_shown = false;
    for paragraph in email.text.split("\n\n").map(str::trim).filter(|p| !p.is_empty()) {
        match link {
            Some(link) if paragraph == link => {
                body.push_str(&button(link));
                button_shown = true;
            }
            _ => {
                let lines: Vec<String> = paragraph.lines().map(|line| linkify(line, link)).collect();
                body.push_str("<p style=\"margin:0 0 16px\">");
                body.push_str(&lines.join("<br>"));
                body.push_str("</p>\n");
            }
        }
    }
    if let (Some(link), false) = (link, button_shown) {
        body.push_str(&button(link));
    }
    format!(
        "<!doctype html>\n<html><head><meta charset=\"utf-8\"><title>{title}</title></head>\n\
         <body style=\"font-family:Arial,Helvetica,sans-serif;font-size:15px;line-height:1.5;color:#1a1a1a\">\n\
         <div style=\"max-width:560px;margin:0 auto;padding:24px\">\n{body}</div>\n</body></html>\n",
        title = escape(&email.subject),
    )
}

/// The link as a button, with its address below for mail programs that hide buttons.
fn button(link: &str) -> String {
    let href = escape(link);
    format!(
        "<p style=\"margin:24px 0\"><a href=\"{href}\" style=\"background:#1565c0;color:#ffffff;\
         padding:12px 20px;border-radius:6px;text-decoration:none;display:inline-block\">Open the link</a></p>\n\
         <p style=\"margin:0 0 16px;font-size:13px;color:#555555\">Or paste this address into your browser:<br>\
         <a href=\"{href}\">{href}</a></p>\n"
    )
}

/// A line of text, escaped, with the e-mail's own link (if the line contains it) made clickable.
fn linkify(line: &str, link: Option<&str>) -> String {
    match link.and_then(|l| line.find(l).map(|at| (l, at))) {
        Some((l, at)) => {
            let href = escape(l);
            format!(
                "{}<a href=\"{href}\">{href}</a>{}",
                escape(&line[..at]),
                escape(&line[at + l.len()..])
            )
        }
        None => escape(line),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use domain::common::EmailAddress;
    use domain::mail::EmailKind;

    fn email(text: &str, link: Option<&str>) -> OutgoingEmail {
        OutgoingEmail {
            kind: EmailKind::MagicLink,
            to: EmailAddress::parse("dev@example.com").unwrap(),
            subject: "Your <sign-in> link".into(),
            text: text.into(),
            link: link.map(Into::into),
        }
    }

    #[test]
    fn text_is_escaped_and_paragraphs_are_kept() {
        let html = render(&email("Hello <b>you</b> & co.\n\nSecond line", None));
        assert!(html.contains("Hello &lt;b&gt;you&lt;/b&gt; &amp; co."));
        assert_eq!(html.matches("<p ").count(), 2);
        assert!(html.contains("<title>Your &lt;sign-in&gt; link</title>"));
    }

    #[test]
    fn the_link_becomes_a_button_with_its_address_escaped() {
        let link = "http://127.0.0.1:8080/auth/v1/verify?token=abc&type=magiclink";
        let html = render(&email(&format!("Sign in:\n\n{link}\n\nCode: 123456"), Some(link)));
        assert!(html.contains("href=\"http://127.0.0.1:8080/auth/v1/verify?token=abc&amp;type=magiclink\""));
        assert!(html.contains("Open the link"));
        assert!(html.contains("Code: 123456"));
        assert!(
            !html.contains("type=magiclink\"><"),
            "no raw ampersand in the address"
        );
    }

    #[test]
    fn a_link_inside_a_line_is_made_clickable() {
        let link = "https://portal.example/invite/accept?token=t";
        let html = render(&email(&format!("Accept at {link} today"), Some(link)));
        assert!(html.contains("Accept at <a href=\"https://portal.example/invite/accept?token=t\">"));
    }

    #[test]
    fn a_link_the_sender_did_not_declare_is_not_made_clickable() {
        let html = render(&email("Visit <a href=\"javascript:x\">here</a>", None));
        assert!(!html.contains("<a href=\"javascript"));
    }
}
