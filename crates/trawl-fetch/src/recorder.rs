//! The recorder: a stream wrapper that keeps a copy of every byte sent and received.
//!
//! It sits above TLS and below hyper, so the copy is exactly the HTTP/1.1 bytes that crossed the connection
//! (chunk framing, odd header folding and trailers included) while hyper still parses them.

use std::{
    io,
    pin::Pin,
    sync::{Arc, Mutex, PoisonError},
    task::{Context, Poll},
};

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

/// The bytes recorded on one connection since the last [`Tap::take`].
#[derive(Debug, Default)]
pub(crate) struct Tap {
    sent: Vec<u8>,
    received: Vec<u8>,
}

/// A shared handle on a connection's tap.
#[derive(Debug, Clone, Default)]
pub(crate) struct TapHandle(Arc<Mutex<Tap>>);

impl TapHandle {
    fn with<R>(&self, f: impl FnOnce(&mut Tap) -> R) -> R {
        f(&mut self.0.lock().unwrap_or_else(PoisonError::into_inner))
    }

    /// Forgets what was recorded so far: called before each request on a reused connection.
    pub(crate) fn clear(&self) {
        self.with(|t| {
            t.sent.clear();
            t.received.clear();
        });
    }

    /// Takes the bytes sent and received since the last clear.
    pub(crate) fn take(&self) -> (Vec<u8>, Vec<u8>) {
        self.with(|t| (std::mem::take(&mut t.sent), std::mem::take(&mut t.received)))
    }

    /// The length of the first response head received since the last clear (through its blank line), when
    /// it is over `limit` bytes; `None` otherwise. Nothing is scanned while no more than `limit` bytes came,
    /// as for nearly every response.
    pub(crate) fn head_over(&self, limit: usize) -> Option<usize> {
        self.with(|t| {
            let got = &t.received;
            if got.len() <= limit {
                return None;
            }
            // A blank line of bare line feeds counts only before the first CRLF CRLF: one scan of the head.
            let crlf = memchr::memmem::find(got, b"\r\n\r\n").map(|i| i + 4);
            let head = &got[..crlf.unwrap_or(got.len())];
            let lf = memchr::memmem::find(head, b"\n\n").map(|i| i + 2);
            lf.or(crlf).filter(|&n| n > limit)
        })
    }

    /// Bytes received since the last clear.
    pub(crate) fn received_len(&self) -> usize {
        self.with(|t| t.received.len())
    }
}

/// A stream whose traffic is copied into a [`TapHandle`].
#[derive(Debug)]
pub(crate) struct Recorder<S> {
    inner: S,
    tap: TapHandle,
}

impl<S> Recorder<S> {
    /// Wraps `inner`, recording into `tap`.
    pub(crate) fn new(inner: S, tap: TapHandle) -> Recorder<S> {
        Recorder { inner, tap }
    }
}

impl<S: AsyncRead + Unpin> AsyncRead for Recorder<S> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let before = buf.filled().len();
        let poll = Pin::new(&mut self.inner).poll_read(cx, buf);
        if let Poll::Ready(Ok(())) = poll {
            let new = &buf.filled()[before..];
            if !new.is_empty() {
                self.tap.with(|t| t.received.extend_from_slice(new));
            }
        }
        poll
    }
}

impl<S: AsyncWrite + Unpin> AsyncWrite for Recorder<S> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let poll = Pin::new(&mut self.inner).poll_write(cx, buf);
        if let Poll::Ready(Ok(n)) = poll {
            self.tap.with(|t| t.sent.extend_from_slice(&buf[..n]));
        }
        poll
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
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    use super::*;

    #[tokio::test]
    async fn records_both_directions_exactly() {
        let (client, mut server) = tokio::io::duplex(64);
        let tap = TapHandle::default();
        let mut rec = Recorder::new(client, tap.clone());
        rec.write_all(b"GET / HTTP/1.1\r\n\r\n").await.unwrap();
        server
            .write_all(b"HTTP/1.1 200 OK\r\n\r\nhi")
            .await
            .unwrap();
        let mut buf = [0u8; 64];
        let n = rec.read(&mut buf).await.unwrap();
        assert_eq!(n, 21);
        assert_eq!(tap.head_over(0), Some(19));
        assert_eq!(tap.head_over(19), None, "not over its limit");
        let (sent, received) = tap.take();
        assert_eq!(sent, b"GET / HTTP/1.1\r\n\r\n");
        assert_eq!(received, b"HTTP/1.1 200 OK\r\n\r\nhi");
        assert_eq!(tap.received_len(), 0);
        assert_eq!(tap.head_over(0), None, "no head yet");
        tap.with(|t| {
            t.received
                .extend_from_slice(b"HTTP/1.0 200 OK\nA: b\n\nbody\r\n\r\n")
        });
        assert_eq!(tap.head_over(0), Some(22), "a head of bare line feeds");
    }
}
