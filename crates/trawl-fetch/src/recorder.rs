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

use crate::message;

/// The bytes recorded on one connection since the last [`Tap::take`].
#[derive(Debug, Default)]
pub(crate) struct Tap {
    sent: Vec<u8>,
    received: Vec<u8>,
    /// While a response head is awaited: the most bytes that may arrive before hyper hands it over. hyper
    /// drops interim `1xx` heads and reads on, so a server sending them without end would grow the
    /// recording without bound.
    head_room: Option<usize>,
    /// Set when more than `head_room` came: the read failed.
    heads_over: bool,
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
            t.head_room = None;
            t.heads_over = false;
        });
    }

    /// Bounds what may arrive before the response head is handed over (`None`: no bound, once it is).
    pub(crate) fn head_room(&self, room: Option<usize>) {
        self.with(|t| t.head_room = room);
    }

    /// Whether a read failed because more than the head room came before the response head.
    pub(crate) fn heads_over(&self) -> bool {
        self.with(|t| t.heads_over)
    }

    /// Takes the bytes sent and received since the last clear.
    pub(crate) fn take(&self) -> (Vec<u8>, Vec<u8>) {
        self.with(|t| (std::mem::take(&mut t.sent), std::mem::take(&mut t.received)))
    }

    /// The length of the response heads received since the last clear (interim `1xx` ones and the final one,
    /// through its blank line), when it is over `limit` bytes; `None` otherwise. Nothing is scanned while no
    /// more than `limit` bytes came, as for nearly every response.
    pub(crate) fn head_over(&self, limit: usize) -> Option<usize> {
        self.with(|t| {
            if t.received.len() <= limit {
                return None;
            }
            message::heads(&t.received)
                .map(|(_, end)| end)
                .filter(|&n| n > limit)
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
            let over = !new.is_empty()
                && self.tap.with(|t| {
                    let room = t.head_room.unwrap_or(usize::MAX);
                    t.heads_over = t.received.len().saturating_add(new.len()) > room;
                    if !t.heads_over {
                        t.received.extend_from_slice(new);
                    }
                    t.heads_over
                });
            if over {
                buf.set_filled(before);
                let said = "more bytes before the response head than fetch.max_header_bytes allows";
                return Poll::Ready(Err(io::Error::new(io::ErrorKind::InvalidData, said)));
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
        tap.clear();
        tap.with(|t| {
            t.received
                .extend_from_slice(b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\n\r\nbody")
        });
        assert_eq!(tap.head_over(10), Some(44), "interim heads count");
    }

    #[tokio::test]
    async fn reads_past_the_head_room_fail_and_are_not_kept() {
        let (client, mut server) = tokio::io::duplex(64);
        let tap = TapHandle::default();
        let mut rec = Recorder::new(client, tap.clone());
        tap.head_room(Some(30));
        server.write_all(&[b'x'; 25]).await.unwrap();
        let mut buf = [0u8; 64];
        assert_eq!(rec.read(&mut buf).await.unwrap(), 25);
        server.write_all(&[b'y'; 10]).await.unwrap();
        let err = rec.read(&mut buf).await.unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::InvalidData);
        assert!(tap.heads_over());
        assert_eq!(tap.received_len(), 25);
        // Once the head is handed over, no bound.
        tap.head_room(None);
        server.write_all(&[b'z'; 40]).await.unwrap();
        assert_eq!(rec.read(&mut buf).await.unwrap(), 40);
        assert_eq!(tap.received_len(), 65);
        tap.clear();
        assert!(!tap.heads_over());
    }
}
