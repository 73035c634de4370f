//! The rules of the single fields of both bodies: texts with their lengths, the server, logo and webview
//! URLs, and the app type. Each records its error under the API's field name and answers `None` then.

use crate::apps::AppType;
use crate::common::url::{MAX_URL_LEN, UrlError, is_blank, is_invisible};
use crate::common::{FieldErrors, PublicUrl, ServerUrlRule};

pub const SERVER_URL_REQUIRED: &str = "Server URL is required";
pub const LOGO_REQUIRED: &str = "Logo is required";
pub const INVALID_URL: &str = crate::common::url::INVALID_URL;
pub const INVALID_APP_TYPE: &str = "App type must be background or standard";

pub(super) fn required_text(
    errors: &mut FieldErrors,
    field: &str,
    value: &str,
    required: &str,
    max: usize,
    too_long: &str,
) -> Option<String> {
    let trimmed = value.trim();
    let message = if trimmed.is_empty() {
        required
    } else if trimmed.chars().count() > max {
        too_long
    } else {
        return Some(trimmed.to_owned());
    };
    errors.add(field.to_owned(), message.to_owned());
    None
}

pub(super) fn optional_text(
    errors: &mut FieldErrors,
    field: &str,
    value: &str,
    max: usize,
    too_long: &str,
) -> Option<String> {
    let trimmed = value.trim();
    if trimmed.chars().count() > max {
        errors.add(field.to_owned(), too_long.to_owned());
        return None;
    }
    Some(trimmed.to_owned())
}

pub(super) fn public_url(errors: &mut FieldErrors, value: &str, rule: ServerUrlRule) -> Option<PublicUrl> {
    PublicUrl::parse_server(value, rule)
        .map_err(|e| {
            let message = if e == UrlError::Empty {
                SERVER_URL_REQUIRED
            } else {
                INVALID_URL
            };
            errors.add("publicUrl", message)
        })
        .ok()
}

/// The logo comes from the image upload, whose URL is under the server's own public URL; that may be plain
/// `http` on a local install, so it is checked (absolute `http(s)` URL with a host, no credentials, no
/// white space or invisible characters) but not normalised.
pub(super) fn logo_url(errors: &mut FieldErrors, value: &str) -> Option<String> {
    let trimmed = value.trim();
    let message = if trimmed.is_empty() {
        LOGO_REQUIRED
    } else if is_web_url(trimmed) {
        return Some(trimmed.to_owned());
    } else {
        INVALID_URL
    };
    errors.add("logoURL", message);
    None
}

pub(super) fn is_web_url(value: &str) -> bool {
    value.chars().count() <= MAX_URL_LEN
        && !value.chars().any(|c| is_blank(c) || is_invisible(c))
        && url::Url::parse(value).is_ok_and(|u| {
            matches!(u.scheme(), "http" | "https")
                && u.host_str().is_some_and(|h| !h.is_empty())
                && u.username().is_empty()
                && u.password().is_none()
        })
}

pub(super) fn webview_url(errors: &mut FieldErrors, value: &str) -> Option<Option<PublicUrl>> {
    PublicUrl::parse_optional(value)
        .map_err(|_| errors.add("webviewURL", INVALID_URL))
        .ok()
}

pub(super) fn app_type(errors: &mut FieldErrors, value: &str) -> Option<AppType> {
    let parsed = AppType::parse(value);
    if parsed.is_none() {
        errors.add("appType", INVALID_APP_TYPE);
    }
    parsed
}
