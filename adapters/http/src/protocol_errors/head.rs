//! Reading a request head as actix-http does (`httparse`, its limits and framing rules), to tell what it
//! would refuse and where the request ends.

use super::{MAX_HEAD_BYTES, MAX_HEADERS, Refusal};

/// What follows a request head actix-http accepts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum After {
    /// Another head.
    Head,
    /// A body of this many bytes, then another head.
    Body(u64),
    /// Bytes this layer does not follow (a chunked body, an upgrade, `CONNECT`): passed through as they are.
    Blind,
}

/// Reads a complete or partial request head as actix-http does: `Ok(None)` when more bytes are needed,
/// else its length and what follows it, or why actix-http would refuse it.
pub(super) fn read_head(bytes: &[u8]) -> Result<Option<(usize, After)>, Refusal> {
    let mut headers = [httparse::EMPTY_HEADER; MAX_HEADERS];
    let mut request = httparse::Request::new(&mut headers);
    let length = match request.parse(bytes) {
        Ok(httparse::Status::Complete(length)) => length,
        Ok(httparse::Status::Partial) if bytes.len() >= MAX_HEAD_BYTES => return Err(Refusal::HeadTooLarge),
        Ok(httparse::Status::Partial) => return Ok(None),
        Err(httparse::Error::TooManyHeaders) => return Err(Refusal::TooManyHeaders),
        Err(httparse::Error::HeaderName | httparse::Error::HeaderValue | httparse::Error::NewLine) => {
            return Err(Refusal::BadHeader);
        }
        Err(_) => return Err(Refusal::BadRequestLine),
    };
    let method = actix_web::http::Method::from_bytes(request.method.unwrap_or_default().as_bytes())
        .map_err(|_| Refusal::BadRequestLine)?;
    actix_web::http::Uri::try_from(request.path.unwrap_or_default()).map_err(|_| Refusal::BadRequestLine)?;
    let http11 = request.version == Some(1);
    let mut content_length = None;
    let mut transfer_encoding = None;
    let mut host = false;
    let mut websocket = false;
    for header in request.headers.iter() {
        let value = std::str::from_utf8(header.value).map(str::trim);
        if header.name.eq_ignore_ascii_case("content-length") {
            let value = value.map_err(|_| Refusal::BadContentLength)?;
            if content_length.is_some() || value.starts_with('+') {
                return Err(Refusal::BadContentLength);
            }
            content_length = Some(value.parse::<u64>().map_err(|_| Refusal::BadContentLength)?);
        } else if header.name.eq_ignore_ascii_case("transfer-encoding") {
            if transfer_encoding.is_some() {
                return Err(Refusal::BadTransferEncoding);
            }
            let value = value.map_err(|_| Refusal::BadTransferEncoding)?;
            if http11 && !value.eq_ignore_ascii_case("chunked") && !value.eq_ignore_ascii_case("identity") {
                return Err(Refusal::BadTransferEncoding);
            }
            transfer_encoding = Some(value.to_owned());
        } else if header.name.eq_ignore_ascii_case("host") {
            if host {
                return Err(Refusal::BadHost);
            }
            host = true;
        } else if header.name.eq_ignore_ascii_case("upgrade") {
            websocket |= value.is_ok_and(|v| v.eq_ignore_ascii_case("websocket"));
        }
    }
    if http11 && !host {
        return Err(Refusal::BadHost);
    }
    let chunked = match &transfer_encoding {
        None => false,
        Some(_) if !http11 || content_length.is_some() => return Err(Refusal::BadTransferEncoding),
        Some(value)
            if !value
                .rsplit(',')
                .next()
                .is_some_and(|t| t.trim().eq_ignore_ascii_case("chunked")) =>
        {
            return Err(Refusal::BadTransferEncoding);
        }
        Some(_) => true,
    };
    if !http11 && method == actix_web::http::Method::POST && content_length.is_none() {
        return Err(Refusal::LengthRequired);
    }
    let next =
        if chunked || websocket || (method == actix_web::http::Method::CONNECT && content_length.is_none()) {
            After::Blind
        } else {
            match content_length {
                Some(length) if length > 0 => After::Body(length),
                _ => After::Head,
            }
        };
    Ok(Some((length, next)))
}
