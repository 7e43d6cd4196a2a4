//! The loopback proxy a page's browser context sends every request to.
//!
//! Plain `http://` requests arrive in absolute form; `https://` ones as `CONNECT`, answered by ending TLS here
//! with a certificate made at start (the browser is told to accept it), so the request inside can be read.
//! Each request goes to the [`Upstream`] — the crawl's fetcher, scope and archive — and the proxy only moves
//! bytes: one answer per connection, then the connection closes and the browser opens another. A page's
//! proxy counts its requests and bytes (the page's caps) and knows when the network has gone quiet.

use std::{
    future::Future,
    sync::{
        Arc, Mutex, PoisonError,
        atomic::{AtomicU32, AtomicU64, AtomicUsize, Ordering},
    },
    time::{Duration, Instant},
};

use futures_util::{StreamExt, stream::FuturesUnordered};
use tokio::{
    io::{AsyncBufReadExt, AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, BufReader},
    net::{TcpListener, TcpStream},
};
use tokio_rustls::TlsAcceptor;
use url::Url;

use crate::error::BrowserError;

/// The longest request head read from the browser.
const MAX_HEAD: usize = 64 << 10;
/// The largest request body read from the browser (a form post, an API call); a request with a longer one is
/// handed on unread ([`BrowserRequest::body_too_large`]), to be refused, never sent cut.
pub const MAX_BODY: usize = 16 << 20;

/// One request the browser made, as the page sent it.
#[derive(Debug, Clone)]
pub struct BrowserRequest {
    /// `GET`, `POST`, …
    pub method: String,
    /// The absolute URL.
    pub url: Url,
    /// The header fields in order (hop-by-hop fields of the proxy leg removed).
    pub headers: Vec<(String, String)>,
    /// The body, if any.
    pub body: Vec<u8>,
    /// The declared length of a body over [`MAX_BODY`], which was not read (`body` is then empty).
    pub body_too_large: Option<usize>,
    /// The page's byte budget, which the upstream checks when the request gets its host's turn and charges
    /// with the answer before it lets the host's next request go.
    pub budget: Budget,
}

/// A page's byte budget (`max_bytes_per_page`), shared by its requests. Checked when a request gets its
/// turn, not only when it arrives: a page that asks for its files all at once (a gallery, `Promise.all`)
/// had every one fetched before the first answer was counted (xt9b F2).
#[derive(Debug, Clone)]
pub struct Budget {
    traffic: Arc<Traffic>,
    max_bytes: u64,
}

impl Budget {
    /// Whether the page has had its bytes: then the request is refused, and the page's line notes
    /// `browser:maxBytes`.
    pub fn spent(&self) -> bool {
        let spent = self.traffic.bytes.load(Ordering::SeqCst) >= self.max_bytes;
        if spent {
            self.traffic.cap("maxBytes");
        }
        spent
    }

    /// Counts `bytes` of an answer against the budget.
    pub fn charge(&self, bytes: usize) {
        self.traffic.bytes.fetch_add(bytes as u64, Ordering::SeqCst);
    }
}

/// What the browser gets for a request.
#[derive(Debug, Clone)]
pub enum Answer {
    /// An HTTP response as it crossed the wire (status line, header, framed body); sent to the browser with
    /// `Connection: close`.
    Response(Vec<u8>),
    /// Refused before any server was asked: the browser gets `status` with `reason` as its body.
    Refused {
        /// The status the browser sees (403 out of scope or robots.txt, 502 a failed fetch, …).
        status: u16,
        /// Why, in words.
        reason: String,
    },
}

/// Answers the browser's requests: the crawl's side of the proxy. It charges each answer it gives to the
/// request's [`Budget`] (the proxy charges only its own refusals).
pub trait Upstream: Sync {
    /// The answer to one request of the page.
    fn exchange(&self, request: BrowserRequest) -> impl Future<Output = Answer> + Send;
}

/// A page's traffic so far: what its caps and its network-idle wait look at.
#[derive(Debug)]
pub(crate) struct Traffic {
    in_flight: AtomicUsize,
    last: Mutex<Instant>,
    requests: AtomicU32,
    /// Requests let through to the upstream (`max_requests_per_page`), counted as they arrive.
    admitted: AtomicU32,
    bytes: AtomicU64,
    /// Set when a request was refused for a cap: `maxRequests` or `maxBytes`.
    capped: Mutex<Option<&'static str>>,
}

impl Traffic {
    fn new() -> Traffic {
        Traffic {
            in_flight: AtomicUsize::new(0),
            last: Mutex::new(Instant::now()),
            requests: AtomicU32::new(0),
            admitted: AtomicU32::new(0),
            bytes: AtomicU64::new(0),
            capped: Mutex::new(None),
        }
    }

    /// Counts now as the last activity.
    pub(crate) fn touch(&self) {
        *self.last.lock().unwrap_or_else(PoisonError::into_inner) = Instant::now();
    }

    /// Whether no request has been in flight for `quiet`.
    pub(crate) fn idle_for(&self, quiet: Duration) -> bool {
        self.in_flight.load(Ordering::SeqCst) == 0
            && self
                .last
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .elapsed()
                >= quiet
    }

    /// Requests answered or refused so far.
    pub(crate) fn requests(&self) -> u32 {
        self.requests.load(Ordering::SeqCst)
    }

    /// Notes that a request was refused for `cap`.
    fn cap(&self, cap: &'static str) {
        *self.capped.lock().unwrap_or_else(PoisonError::into_inner) = Some(cap);
    }

    /// The cap a request was refused for, if any.
    pub(crate) fn capped(&self) -> Option<&'static str> {
        *self.capped.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// A page's caps.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Caps {
    pub(crate) max_requests: u32,
    pub(crate) max_bytes: u64,
}

/// A proxy bound to a loopback port, for one page.
pub(crate) struct Proxy {
    listener: TcpListener,
    tls: TlsAcceptor,
    pub(crate) traffic: Arc<Traffic>,
    caps: Caps,
}

impl Proxy {
    /// A proxy on a free port of 127.0.0.1.
    pub(crate) async fn bind(tls: TlsAcceptor, caps: Caps) -> Result<Proxy, BrowserError> {
        let listener = TcpListener::bind("127.0.0.1:0")
            .await
            .map_err(BrowserError::Proxy)?;
        Ok(Proxy {
            listener,
            tls,
            traffic: Arc::new(Traffic::new()),
            caps,
        })
    }

    /// `http://127.0.0.1:PORT`, for the browser context's `proxyServer`.
    pub(crate) fn address(&self) -> Result<String, BrowserError> {
        let port = self
            .listener
            .local_addr()
            .map_err(BrowserError::Proxy)?
            .port();
        Ok(format!("http://127.0.0.1:{port}"))
    }

    /// Serves the browser's connections through `upstream` until `done` resolves; then the connections still
    /// open are dropped (their requests are the page's unfinished business).
    pub(crate) async fn serve<U: Upstream, T>(
        &self,
        upstream: &U,
        done: impl Future<Output = T>,
    ) -> T {
        let mut connections = FuturesUnordered::new();
        tokio::pin!(done);
        loop {
            tokio::select! {
                out = &mut done => return out,
                accepted = self.listener.accept() => {
                    if let Ok((socket, _)) = accepted {
                        connections.push(self.connection(socket, upstream));
                    }
                }
                Some(()) = connections.next(), if !connections.is_empty() => {}
            }
        }
    }

    /// One connection from the browser: a plain request, or `CONNECT` and then one request inside TLS.
    async fn connection<U: Upstream>(&self, socket: TcpStream, upstream: &U) {
        let mut reader = BufReader::new(socket);
        let Some(head) = read_head(&mut reader).await else {
            return;
        };
        let Some(parsed) = parse_request(&head) else {
            return;
        };
        if parsed.method.eq_ignore_ascii_case("CONNECT") {
            let mut socket = reader.into_inner();
            if socket
                .write_all(b"HTTP/1.1 200 Connection Established\r\n\r\n")
                .await
                .is_err()
            {
                return;
            }
            let authority = parsed.target;
            // A `ws://` WebSocket comes through a tunnel too, in plain text: a tunnel whose first byte opens no
            // TLS handshake (0x16) holds a plain request, read as one so that it is refused with its line.
            let mut first = [0u8; 1];
            if matches!(socket.peek(&mut first).await, Ok(1) if first[0] != 0x16) {
                let mut reader = BufReader::new(socket);
                let Some(inner) = read_head(&mut reader)
                    .await
                    .as_deref()
                    .and_then(parse_request)
                else {
                    return;
                };
                let url = tunnel_url("ws", &authority, &inner.target);
                self.exchange(reader, inner, url, upstream).await;
                return;
            }
            let Ok(tls) = self.tls.accept(socket).await else {
                return;
            };
            let mut reader = BufReader::new(tls);
            let Some(head) = read_head(&mut reader).await else {
                return;
            };
            let Some(inner) = parse_request(&head) else {
                return;
            };
            let scheme = if upgrades_to_websocket(&inner) {
                "wss"
            } else {
                "https"
            };
            let url = tunnel_url(scheme, &authority, &inner.target);
            self.exchange(reader, inner, url, upstream).await;
        } else {
            let url = Url::parse(&parsed.target).ok();
            self.exchange(reader, parsed, url, upstream).await;
        }
    }

    /// Reads the body, asks the upstream (within the page's caps), writes the answer and closes.
    async fn exchange<S, U>(
        &self,
        mut reader: BufReader<S>,
        req: Parsed,
        url: Option<Url>,
        upstream: &U,
    ) where
        S: AsyncRead + AsyncWrite + Unpin,
        U: Upstream,
    {
        let traffic = &self.traffic;
        traffic.in_flight.fetch_add(1, Ordering::SeqCst);
        traffic.touch();
        let answer = match url {
            None => Answer::Refused {
                status: 400,
                reason: "not an absolute URL".into(),
            },
            Some(url) => {
                let length = req
                    .headers
                    .iter()
                    .find(|(n, _)| n.eq_ignore_ascii_case("content-length"))
                    .and_then(|(_, v)| v.trim().parse::<usize>().ok())
                    .unwrap_or(0);
                // A body over the limit is not read: the request is refused whole, not sent cut.
                let too_large = (length > MAX_BODY).then_some(length);
                let mut body = vec![0; if too_large.is_some() { 0 } else { length }];
                // A WebSocket or another upgrade goes to the upstream, which refuses it with its line.
                if reader.read_exact(&mut body).await.is_err() {
                    Answer::Refused {
                        status: 400,
                        reason: "the request body ended early".into(),
                    }
                } else if let Some(cap) = self.admit() {
                    traffic.cap(cap);
                    Answer::Refused {
                        status: 429,
                        reason: format!("the page's {cap} was reached"),
                    }
                } else {
                    let headers = req
                        .headers
                        .into_iter()
                        .filter(|(n, _)| !is_proxy_hop(n))
                        .collect();
                    upstream
                        .exchange(BrowserRequest {
                            method: req.method,
                            url,
                            headers,
                            body,
                            body_too_large: too_large,
                            budget: Budget {
                                traffic: traffic.clone(),
                                max_bytes: self.caps.max_bytes,
                            },
                        })
                        .await
                }
            }
        };
        traffic.requests.fetch_add(1, Ordering::SeqCst);
        let bytes = match &answer {
            // Charged by the upstream, at its host's turn.
            Answer::Response(raw) => for_browser(raw),
            Answer::Refused { status, reason } => {
                let bytes = refusal(*status, reason);
                traffic
                    .bytes
                    .fetch_add(bytes.len() as u64, Ordering::SeqCst);
                bytes
            }
        };
        let mut stream = reader.into_inner();
        let _ = stream.write_all(&bytes).await;
        let _ = stream.shutdown().await;
        traffic.in_flight.fetch_sub(1, Ordering::SeqCst);
        traffic.touch();
    }

    /// The cap that refuses a request arriving now, if any; else it is counted against
    /// `max_requests_per_page` at once, so requests made together cannot all pass (xt9b F2).
    fn admit(&self) -> Option<&'static str> {
        if self.traffic.admitted.fetch_add(1, Ordering::SeqCst) >= self.caps.max_requests {
            Some("maxRequests")
        } else if self.traffic.bytes.load(Ordering::SeqCst) >= self.caps.max_bytes {
            Some("maxBytes")
        } else {
            None
        }
    }
}

/// A request line and header.
#[derive(Debug)]
struct Parsed {
    method: String,
    target: String,
    headers: Vec<(String, String)>,
}

/// The bytes up to and including the blank line after the header; `None` when the browser closed first or
/// the head is too long.
async fn read_head<R: AsyncRead + Unpin>(reader: &mut BufReader<R>) -> Option<Vec<u8>> {
    let mut head = Vec::new();
    loop {
        let n = reader.read_until(b'\n', &mut head).await.ok()?;
        if n == 0 || head.len() > MAX_HEAD {
            return None;
        }
        if head.ends_with(b"\r\n\r\n") || head == b"\r\n" || head.ends_with(b"\n\n") {
            return Some(head);
        }
    }
}

fn parse_request(head: &[u8]) -> Option<Parsed> {
    let mut fields = [httparse::EMPTY_HEADER; 128];
    let mut req = httparse::Request::new(&mut fields);
    match req.parse(head) {
        Ok(httparse::Status::Complete(_)) => {}
        _ => return None,
    }
    Some(Parsed {
        method: req.method?.to_owned(),
        target: req.path?.to_owned(),
        headers: req
            .headers
            .iter()
            .map(|h| {
                (
                    h.name.to_owned(),
                    String::from_utf8_lossy(h.value).into_owned(),
                )
            })
            .collect(),
    })
}

/// The URL of a request read inside a `CONNECT` tunnel to `authority`, whose scheme is `scheme` (`https`,
/// or a WebSocket's `wss` or `ws`) unless the target is absolute.
fn tunnel_url(scheme: &str, authority: &str, target: &str) -> Option<Url> {
    // An origin-form target starts with `/`, though its query may hold a URL (`/l?next=https://…`).
    if !target.starts_with('/') {
        return Url::parse(target).ok();
    }
    let default = if matches!(scheme, "https" | "wss") {
        ":443"
    } else {
        ":80"
    };
    let host = authority.strip_suffix(default).unwrap_or(authority);
    Url::parse(&format!("{scheme}://{host}{target}")).ok()
}

/// Whether a request asks to become a WebSocket (`Upgrade: websocket`).
fn upgrades_to_websocket(req: &Parsed) -> bool {
    req.headers.iter().any(|(n, v)| {
        n.eq_ignore_ascii_case("upgrade") && v.trim().eq_ignore_ascii_case("websocket")
    })
}

/// Header fields of the browser-to-proxy leg, not the request's own.
fn is_proxy_hop(name: &str) -> bool {
    [
        "proxy-connection",
        "proxy-authorization",
        "connection",
        "keep-alive",
    ]
    .iter()
    .any(|h| name.eq_ignore_ascii_case(h))
}

/// A recorded response as the browser gets it: the same status line, header and framed body, with its
/// connection fields replaced by `Connection: close` (the proxy answers once per connection).
pub(crate) fn for_browser(raw: &[u8]) -> Vec<u8> {
    let Some(end) = raw.windows(4).position(|w| w == b"\r\n\r\n") else {
        return raw.to_vec();
    };
    let head = &raw[..end];
    let mut out = Vec::with_capacity(raw.len() + 19);
    for (i, line) in head.split(|&b| b == b'\n').enumerate() {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        let name = line.split(|&b| b == b':').next().unwrap_or_default();
        if i > 0
            && ["connection", "keep-alive", "proxy-connection"]
                .iter()
                .any(|h| name.eq_ignore_ascii_case(h.as_bytes()))
        {
            continue;
        }
        out.extend_from_slice(line);
        out.extend_from_slice(b"\r\n");
    }
    out.extend_from_slice(b"Connection: close\r\n\r\n");
    out.extend_from_slice(&raw[end + 4..]);
    out
}

/// The browser's answer to a refused request.
fn refusal(status: u16, reason: &str) -> Vec<u8> {
    format!(
        "HTTP/1.1 {status} Refused by trawl\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: {}\r\n\
         Connection: close\r\n\r\n{reason}",
        reason.len()
    )
    .into_bytes()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_browser_gets_the_recorded_bytes_with_connection_close() {
        let raw = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nConnection: keep-alive\r\n\
                    Content-Encoding: gzip\r\n\r\n3\r\nabc\r\n0\r\n\r\n";
        let got = String::from_utf8(for_browser(raw)).unwrap();
        assert_eq!(
            got,
            "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Encoding: gzip\r\nConnection: close\r\n\r\n\
             3\r\nabc\r\n0\r\n\r\n"
        );
    }

    #[test]
    fn urls_inside_a_tunnel_take_its_scheme() {
        for (scheme, authority, target, url) in [
            ("https", "a.test:443", "/x?y", "https://a.test/x?y"),
            ("https", "a.test:8443", "/", "https://a.test:8443/"),
            ("ws", "a.test:80", "/sock", "ws://a.test/sock"),
            ("ws", "a.test:8080", "/sock", "ws://a.test:8080/sock"),
            ("wss", "a.test:443", "/sock", "wss://a.test/sock"),
            (
                "https",
                "a.test:443",
                "https://b.test/z",
                "https://b.test/z",
            ),
            (
                "https",
                "a.test:443",
                "/l?next=https://b.test/",
                "https://a.test/l?next=https://b.test/",
            ),
        ] {
            assert_eq!(tunnel_url(scheme, authority, target).unwrap().as_str(), url);
        }
    }
    #[test]
    fn request_heads_parse() {
        let p = parse_request(
            b"GET http://a.test/x HTTP/1.1\r\nHost: a.test\r\nProxy-Connection: keep-alive\r\n\r\n",
        )
        .unwrap();
        assert_eq!(
            (p.method.as_str(), p.target.as_str()),
            ("GET", "http://a.test/x")
        );
        assert!(p.headers.iter().any(|(n, _)| is_proxy_hop(n)));
        assert!(parse_request(b"\x00\x01garbage\r\n\r\n").is_none());
    }
}
