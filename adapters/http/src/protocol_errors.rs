//! Refusals at the protocol level answered with the JSON error envelope.
//!
//! actix-http refuses a request head it cannot read (a bad request line, a malformed or negative
//! `Content-Length`, too many headers, a head over 128 KB, …) itself, before any middleware, with an empty
//! 400 or 431 and no hook to shape that answer. [`Guarded`] is a thin layer over each connection's socket
//! that reads every request head before actix-http does, with the same parser (`httparse`) and the same
//! rules. A head actix-http would refuse is not handed to it: in its place goes a request of its own
//! (`GET /.protocol-error` with `Connection: close` and a header carrying this process's secret and the
//! refusal's code), which [`answer`] turns into the JSON envelope (`{"error", "code"}`, 400 or 431) and
//! after which the connection closes, as actix-http would have closed it. So the refusal passes through the
//! same middleware as every answer (request log, security headers, metrics).
//!
//! What stays actix-http's bare answer: everything after a request whose body is chunked or that upgrades
//! the connection on that same connection (telling where such a body ends would mean decoding it a second
//! time; the layer steps aside), a malformed chunked body, and a request head that does not arrive within
//! the head timeout (408, from actix-http's timer).

use actix_web::HttpResponse;
use actix_web::body::{EitherBody, MessageBody};
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::StatusCode;
use actix_web::middleware::Next;
use std::io;
use std::pin::Pin;
use std::sync::LazyLock;
use std::task::{Context, Poll, ready};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

/// The most headers actix-http reads in one request head.
const MAX_HEADERS: usize = 96;
/// The largest request head actix-http reads (its read buffer's limit); beyond it, 431.
const MAX_HEAD_BYTES: usize = 131_072;
/// The header that carries a refusal from [`Guarded`] to [`answer`].
const REFUSAL_HEADER: &str = "x-portal-protocol-error";
/// The path of the request that stands for a refused head (it matches no route).
pub const REFUSAL_PATH: &str = "/.protocol-error";

/// This process's secret: only a refusal made by [`Guarded`] carries it, so a client cannot make one up.
static SECRET: LazyLock<String> = LazyLock::new(|| uuid::Uuid::new_v4().simple().to_string());

/// Why a request head is refused; each has its code in the error envelope.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    /// The request line is not `METHOD target HTTP/1.x`, or its method or target cannot be read.
    BadRequestLine,
    /// A header line is malformed (a name with a space, a bare CR, a control character, …).
    BadHeader,
    /// `Content-Length` is negative, not a number, repeated, or signed.
    BadContentLength,
    /// `Transfer-Encoding` other than `chunked`, repeated, on HTTP/1.0, or together with `Content-Length`.
    BadTransferEncoding,
    /// An HTTP/1.1 request without `Host`, or with two.
    BadHost,
    /// An HTTP/1.0 `POST` without `Content-Length`.
    LengthRequired,
    /// More than 96 headers.
    TooManyHeaders,
    /// A request head over 128 KB (one over-long header or many).
    HeadTooLarge,
}

impl Refusal {
    /// The error envelope's `code`.
    #[must_use]
    pub const fn code(self) -> &'static str {
        match self {
            Self::BadRequestLine => "BAD_REQUEST_LINE",
            Self::BadHeader => "BAD_HEADER",
            Self::BadContentLength => "BAD_CONTENT_LENGTH",
            Self::BadTransferEncoding => "BAD_TRANSFER_ENCODING",
            Self::BadHost => "BAD_HOST",
            Self::LengthRequired => "LENGTH_REQUIRED",
            Self::TooManyHeaders => "TOO_MANY_HEADERS",
            Self::HeadTooLarge => "HEADERS_TOO_LARGE",
        }
    }

    /// The status actix-http answers for it: 431 for a head too large or with too many headers, else 400.
    #[must_use]
    pub const fn status(self) -> StatusCode {
        match self {
            Self::TooManyHeaders | Self::HeadTooLarge => StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE,
            _ => StatusCode::BAD_REQUEST,
        }
    }

    const fn message(self) -> &'static str {
        match self {
            Self::BadRequestLine => "The request line could not be read.",
            Self::BadHeader => "A request header could not be read.",
            Self::BadContentLength => "Content-Length must be one non-negative whole number.",
            Self::BadTransferEncoding => {
                "Transfer-Encoding must be chunked, once, on HTTP/1.1 and without Content-Length."
            }
            Self::BadHost => "An HTTP/1.1 request needs exactly one Host header.",
            Self::LengthRequired => "An HTTP/1.0 POST needs Content-Length.",
            Self::TooManyHeaders => "The request has more than 96 headers.",
            Self::HeadTooLarge => "The request's headers are larger than 128 KB.",
        }
    }

    fn from_code(code: &str) -> Option<Self> {
        [
            Self::BadRequestLine,
            Self::BadHeader,
            Self::BadContentLength,
            Self::BadTransferEncoding,
            Self::BadHost,
            Self::LengthRequired,
            Self::TooManyHeaders,
            Self::HeadTooLarge,
        ]
        .into_iter()
        .find(|refusal| refusal.code() == code)
    }

    /// The request handed to actix-http in place of the refused head.
    fn stand_in(self) -> Vec<u8> {
        format!(
            "GET {REFUSAL_PATH} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n{REFUSAL_HEADER}: {} {}\r\n\r\n",
            *SECRET,
            self.code()
        )
        .into_bytes()
    }
}

/// What follows a request head actix-http accepts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum After {
    /// Another head.
    Head,
    /// A body of this many bytes, then another head.
    Body(u64),
    /// Bytes this layer does not follow (a chunked body, an upgrade, `CONNECT`): passed through as they are.
    Blind,
}

/// Reads a complete or partial request head as actix-http does: `Ok(None)` when more bytes are needed,
/// else its length and what follows it, or why actix-http would refuse it.
fn read_head(bytes: &[u8]) -> Result<Option<(usize, After)>, Refusal> {
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

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    Follow(After),
    /// A refusal was handed on: nothing more is read from this connection.
    Refused,
}

/// A connection's socket whose request heads are read before actix-http reads them (see the module).
#[derive(Debug)]
pub struct Guarded<T> {
    inner: T,
    state: State,
    /// Bytes read from the socket and not yet looked at.
    input: Vec<u8>,
    /// Bytes looked at, ready for actix-http.
    output: Vec<u8>,
    eof: bool,
}

impl<T> Guarded<T> {
    pub const fn new(inner: T) -> Self {
        Self {
            inner,
            state: State::Follow(After::Head),
            input: Vec::new(),
            output: Vec::new(),
            eof: false,
        }
    }

    /// The socket itself (for its addresses and options).
    pub const fn get_ref(&self) -> &T {
        &self.inner
    }

    /// Moves what can be decided from `input` to `output`; answers whether anything moved.
    fn advance(&mut self) -> bool {
        let before = self.input.len();
        while !self.input.is_empty() {
            match self.state {
                State::Refused => self.input.clear(),
                State::Follow(After::Blind) => self.output.append(&mut self.input),
                State::Follow(After::Body(left)) => {
                    let take =
                        usize::try_from(left).map_or(self.input.len(), |left| left.min(self.input.len()));
                    self.output.extend(self.input.drain(..take));
                    let left = left - take as u64;
                    self.state = State::Follow(if left == 0 { After::Head } else { After::Body(left) });
                }
                State::Follow(After::Head) => match read_head(&self.input) {
                    Ok(Some((length, next))) => {
                        self.output.extend(self.input.drain(..length));
                        self.state = State::Follow(next);
                    }
                    Ok(None) => break,
                    Err(refusal) => {
                        self.output.extend(refusal.stand_in());
                        self.input.clear();
                        self.state = State::Refused;
                    }
                },
            }
        }
        before != self.input.len()
    }
}

impl<T: AsyncRead + Unpin> AsyncRead for Guarded<T> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = &mut *self;
        loop {
            if !this.output.is_empty() {
                let n = this.output.len().min(buf.remaining());
                buf.put_slice(&this.output[..n]);
                this.output.drain(..n);
                return Poll::Ready(Ok(()));
            }
            if this.eof || this.state == State::Refused {
                // End of input: after a refusal actix-http answers the stand-in and closes.
                return Poll::Ready(Ok(()));
            }
            if this.state == State::Follow(After::Blind) && this.input.is_empty() {
                return Pin::new(&mut this.inner).poll_read(cx, buf);
            }
            let mut chunk = [0_u8; 8192];
            let mut read = ReadBuf::new(&mut chunk);
            ready!(Pin::new(&mut this.inner).poll_read(cx, &mut read))?;
            if read.filled().is_empty() {
                // The peer closed: whatever was not decided goes to actix-http as it is.
                this.eof = true;
                this.output.append(&mut this.input);
                continue;
            }
            this.input.extend_from_slice(read.filled());
            this.advance();
        }
    }
}

impl<T: AsyncWrite + Unpin> AsyncWrite for Guarded<T> {
    fn poll_write(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.inner).poll_write(cx, buf)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.inner).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}

/// Middleware: answers the stand-in of a refused head (one carrying this process's secret) with the JSON
/// envelope; every other request goes on (a made-up header without the secret changes nothing).
///
/// # Errors
/// Whatever the inner service answers.
pub async fn answer(
    req: ServiceRequest,
    next: Next<impl MessageBody>,
) -> Result<ServiceResponse<EitherBody<impl MessageBody>>, actix_web::Error> {
    let refusal = req
        .headers()
        .get(REFUSAL_HEADER)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.split_once(' '))
        .filter(|(secret, _)| *secret == SECRET.as_str())
        .and_then(|(_, code)| Refusal::from_code(code));
    let Some(refusal) = refusal else {
        return Ok(next.call(req).await?.map_into_left_body());
    };
    // The request log's line says `GET (unmatched) 400`: this one says what was refused.
    tracing::info!(code = refusal.code(), "request head refused");
    let response = HttpResponse::build(refusal.status())
        .insert_header(("Connection", "close"))
        .json(serde_json::json!({ "error": refusal.message(), "code": refusal.code() }));
    Ok(req.into_response(response).map_into_right_body())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refusal(head: &str) -> Option<Refusal> {
        read_head(head.as_bytes()).err()
    }

    #[test]
    fn heads_actix_accepts_pass_with_their_framing() {
        assert_eq!(
            read_head(b"GET / HTTP/1.1\r\nHost: a\r\n\r\n"),
            Ok(Some((27, After::Head)))
        );
        assert_eq!(
            read_head(b"POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\n\r\nhello"),
            Ok(Some((47, After::Body(5))))
        );
        assert_eq!(
            read_head(b"POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n")
                .map(|h| h.map(|h| h.1)),
            Ok(Some(After::Blind))
        );
        assert_eq!(
            read_head(b"GET / HTTP/1.0\r\n\r\n").map(|h| h.map(|h| h.1)),
            Ok(Some(After::Head))
        );
        assert_eq!(read_head(b"GET / HTTP/1.1\r\nHost: a\r\nX-A: b"), Ok(None));
    }

    #[test]
    fn heads_actix_refuses_are_refused_with_their_code() {
        assert_eq!(refusal("GARBAGE\r\n\r\n"), Some(Refusal::BadRequestLine));
        assert_eq!(
            refusal("GET / HTTP/9.9\r\nHost: a\r\n\r\n"),
            Some(Refusal::BadRequestLine)
        );
        assert_eq!(
            refusal("GET / HTTP/1.1\r\nHost: a\r\nBad Name: x\r\n\r\n"),
            Some(Refusal::BadHeader)
        );
        for length in ["-1", "abc", "+5", "1.5", ""] {
            assert_eq!(
                refusal(&format!(
                    "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: {length}\r\n\r\n"
                )),
                Some(Refusal::BadContentLength),
                "{length:?}"
            );
        }
        assert_eq!(
            refusal("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 1\r\nContent-Length: 1\r\n\r\n"),
            Some(Refusal::BadContentLength)
        );
        assert_eq!(
            refusal("POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: gzip\r\n\r\n"),
            Some(Refusal::BadTransferEncoding)
        );
        assert_eq!(
            refusal("POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n"),
            Some(Refusal::BadTransferEncoding)
        );
        assert_eq!(refusal("GET / HTTP/1.1\r\n\r\n"), Some(Refusal::BadHost));
        assert_eq!(refusal("POST / HTTP/1.0\r\n\r\n"), Some(Refusal::LengthRequired));
        let many: String = (0..100).map(|i| format!("X-{i}: v\r\n")).collect();
        assert_eq!(
            refusal(&format!("GET / HTTP/1.1\r\nHost: a\r\n{many}\r\n")),
            Some(Refusal::TooManyHeaders)
        );
        let long = "a".repeat(MAX_HEAD_BYTES);
        assert_eq!(
            refusal(&format!("GET / HTTP/1.1\r\nHost: a\r\nX-Long: {long}")),
            Some(Refusal::HeadTooLarge)
        );
    }

    #[test]
    fn a_refusal_after_a_body_is_found_and_nothing_after_it_is_read() {
        let mut guarded = Guarded::new(());
        guarded.input = b"POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\n\r\nabcGET / HTTP/1.1\r\nContent-Length: -1\r\nHost: a\r\n\r\nGET / HTTP/1.1\r\nHost: a\r\n\r\n".to_vec();
        guarded.advance();
        let output = String::from_utf8(guarded.output.clone()).unwrap();
        assert!(
            output.starts_with(
                "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\n\r\nabcGET /.protocol-error HTTP/1.1\r\n"
            ),
            "{output}"
        );
        assert!(output.ends_with("BAD_CONTENT_LENGTH\r\n\r\n"), "{output}");
        assert_eq!(guarded.state, State::Refused);
        assert!(guarded.input.is_empty());
    }

    #[test]
    fn codes_read_back_to_their_refusal() {
        assert_eq!(Refusal::from_code("BAD_HOST"), Some(Refusal::BadHost));
        assert_eq!(Refusal::from_code("NOPE"), None);
    }
}
