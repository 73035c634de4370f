//! The companion app's install link (`PORTAL_COMPANION_INSTALL_URL`), a template checked at start.

/// The placeholders of `PORTAL_COMPANION_INSTALL_URL`, replaced in the browser by the URL-encoded value.
const COMPANION_PLACEHOLDERS: [&str; 2] = ["{packageName}", "{installUrl}"];

/// Checks the companion app's install-link template (`PORTAL_COMPANION_INSTALL_URL`): a URL with a scheme
/// (`https:` or the companion app's own, such as `mentra:`; never `javascript:`, `data:`, `vbscript:` or
/// `file:`, as the page makes a link of it), no spaces, and no placeholder but `{packageName}` and
/// `{installUrl}`, at least one of them. Answers the trimmed template.
pub(super) fn companion_install_url(template: &str) -> Result<String, String> {
    let template = template.trim();
    let scheme = template
        .split_once(':')
        .map(|(scheme, _)| scheme)
        .filter(|scheme| {
            scheme.len() > 1
                && scheme.starts_with(|c: char| c.is_ascii_alphabetic())
                && scheme
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
        })
        .ok_or("must be a URL with a scheme, such as https://… or mentra://…")?;
    if ["javascript", "data", "vbscript", "file"]
        .iter()
        .any(|refused| scheme.eq_ignore_ascii_case(refused))
    {
        return Err(format!("the scheme {scheme}: is not allowed"));
    }
    if template.chars().any(char::is_whitespace) {
        return Err("must not contain spaces".into());
    }
    let mut rest = template.to_owned();
    for placeholder in COMPANION_PLACEHOLDERS {
        rest = rest.replace(placeholder, "");
    }
    if rest.contains('{') || rest.contains('}') {
        return Err("the only placeholders are {packageName} and {installUrl}".into());
    }
    if rest.len() == template.len() {
        return Err("must contain {packageName} or {installUrl}".into());
    }
    Ok(template.to_owned())
}
