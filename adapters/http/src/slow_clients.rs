//! Slow clients: a request body that stalls or trickles is cut off with 408 instead of holding its
//! connection (and a worker's attention) for good. The request head is bounded by actix's own
//! `client_request_timeout` (set where the server is built), which also answers 408.

use actix_web::body::{EitherBody, MessageBody};
use actix_web::dev::{Payload, ServiceRequest, ServiceResponse};
use actix_web::error::PayloadError;
use actix_web::middleware::Next;
use actix_web::rt::time::{Instant, Sleep};
use actix_web::web::Bytes;
use actix_web::{HttpMessage, ResponseError};
use std::cell::Cell;
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll};
use std::time::Duration;

use crate::ApiError;

/// How long a request body may take to arrive.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BodyTimeouts {
    /// The whole body, from the end of the request head.
    pub total: Duration,
    /// The longest pause between two pieces of the body.
    pub idle: Duration,
}

/// A request body that fails with a timeout once it stalls longer than `idle` or runs past `total`.
struct Deadline<S> {
    inner: S,
    idle: Duration,
    end: Instant,
    timer: Pin<Box<Sleep>>,
    timed_out: Rc<Cell<bool>>,
    done: bool,
}

impl<S> futures_util::Stream for Deadline<S>
where
    S: futures_util::Stream<Item = Result<Bytes, PayloadError>> + Unpin,
{
    type Item = Result<Bytes, PayloadError>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        if self.done {
            return Poll::Ready(None);
        }
        match Pin::new(&mut self.inner).poll_next(cx) {
            Poll::Ready(Some(Ok(chunk))) => {
                let next = (Instant::now() + self.idle).min(self.end);
                self.timer.as_mut().reset(next);
                Poll::Ready(Some(Ok(chunk)))
            }
            Poll::Ready(other) => {
                self.done = other.is_none();
                Poll::Ready(other)
            }
            Poll::Pending => match self.timer.as_mut().poll(cx) {
                Poll::Ready(()) => {
                    self.done = true;
                    self.timed_out.set(true);
                    Poll::Ready(Some(Err(PayloadError::Io(std::io::Error::new(
                        std::io::ErrorKind::TimedOut,
                        "the request body did not arrive in time",
                    )))))
                }
                Poll::Pending => Poll::Pending,
            },
        }
    }
}

/// The middleware: `actix_web::middleware::from_fn(move |req, next| slow_clients::limit(timeouts, req, next))`.
/// Whatever the handler made of a body that timed out (a JSON or upload error), the answer is 408
/// `REQUEST_TIMEOUT`, and the connection is closed (the rest of the body was never read).
///
/// # Errors
/// Whatever the inner service answers.
pub async fn limit(
    timeouts: BodyTimeouts,
    mut req: ServiceRequest,
    next: Next<impl MessageBody>,
) -> Result<ServiceResponse<EitherBody<impl MessageBody>>, actix_web::Error> {
    let timed_out = Rc::new(Cell::new(false));
    let now = Instant::now();
    let end = now + timeouts.total;
    let payload = req.take_payload();
    let bounded: Pin<Box<dyn futures_util::Stream<Item = Result<Bytes, PayloadError>>>> =
        Box::pin(Deadline {
            inner: payload,
            idle: timeouts.idle,
            end,
            timer: Box::pin(actix_web::rt::time::sleep_until((now + timeouts.idle).min(end))),
            timed_out: timed_out.clone(),
            done: false,
        });
    req.set_payload(Payload::from(bounded));
    let outcome = next.call(req).await;
    if !timed_out.get() {
        return outcome.map(ServiceResponse::map_into_left_body);
    }
    tracing::warn!(
        total_secs = timeouts.total.as_secs(),
        idle_secs = timeouts.idle.as_secs(),
        "a request body did not arrive in time; the connection is closed"
    );
    let error = ApiError::RequestTimeout.error_response();
    match outcome {
        Ok(response) => Ok(response.into_response(error).map_into_right_body()),
        Err(other) => Err(other),
    }
}
