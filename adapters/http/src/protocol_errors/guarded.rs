//! [`Guarded`]: the layer over a connection's socket that hands actix-http a stand-in request in place of a
//! head it would refuse.

use std::io;
use std::pin::Pin;
use std::task::{Context, Poll, ready};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

use super::head::{After, read_head};

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

#[cfg(test)]
mod tests {
    use super::*;

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
}
