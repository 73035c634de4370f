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

mod guarded;
mod head;

pub use guarded::Guarded;
#[cfg(test)]
use head::{After, read_head};

use actix_web::HttpResponse;
use actix_web::body::{EitherBody, MessageBody};
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::StatusCode;
use actix_web::middleware::Next;
use std::sync::LazyLock;

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
    fn codes_read_back_to_their_refusal() {
        assert_eq!(Refusal::from_code("BAD_HOST"), Some(Refusal::BadHost));
        assert_eq!(Refusal::from_code("NOPE"), None);
    }
}
