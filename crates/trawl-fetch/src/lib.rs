//! trawl's fetcher: a request in, a recorded exchange out.
//!
//! DNS (hickory, with a cache sized for broad crawls, [`DnsAnswer`]s kept for `dns:` records), the address
//! policy ([`AddressPolicy`]: nothing the crawl may not reach), TCP directly or through a SOCKS5 or HTTP
//! CONNECT proxy, TLS (rustls; invalid certificates accepted and noted), the idle-connection pool, and
//! HTTP/1.1 through a recorder that keeps the exact bytes on the wire — or HTTP/2 when ALPN agrees on it,
//! whose exchange is written down in HTTP/1.1 form (`h2_form.rs`), since its frames are not a message an
//! archive tool reads. [`access`] holds what the crawl presents to get in (cookie jars, Basic and Digest
//! answers, form logins); [`robots`] what an origin's robots.txt allows (RFC 9309).
//!
//! What this crate must not know: the frontier, the crawl loop, WARC writing, decide rules. Redirects are
//! never followed here: the crawl turns a `Location` into an `R`-hop outlink. Another crate (browser capture,
//! a tool) can fetch through a [`Fetcher`] without the engine.

pub mod access;
mod address;
mod descriptors;
mod dns;
mod h2_form;
mod idle;
pub mod message;
mod proxy;
pub use self::dns::DnsAnswer;
use self::idle::IdlePool;
pub use self::proxy::ProxyFailure;
mod recorder;
pub mod robots;
mod tls;

pub use self::address::{AddressPolicy, classify};

use std::{
    net::{IpAddr, SocketAddr},
    sync::{Arc, Mutex, OnceLock, PoisonError},
    time::{Duration, Instant},
};

use bytes::Bytes;
use chrono::{DateTime, Utc};
use http_body_util::{BodyExt, Full};
use hyper::client::conn::{http1, http2};
use hyper_util::rt::{TokioExecutor, TokioIo};
use rustls::{client::WebPkiServerVerifier, pki_types::ServerName};
use tokio::{
    io::{AsyncRead, AsyncWrite},
    net::TcpStream,
    time::timeout,
};
use url::Url;

use self::{
    dns::{Dns, DnsError},
    recorder::{Recorder, TapHandle},
};
use trawl_config::annotation::{Refusal, Truncation};
use trawl_config::settings::{FetchConfig, Proxy};

/// A response as received.
#[derive(Debug)]
pub struct Response {
    /// The status code.
    pub status: u16,
    /// The parsed header fields.
    pub headers: http::HeaderMap,
    /// The request exactly as sent.
    pub request_bytes: bytes::Bytes,
    /// The response exactly as received (status line, headers, framed body).
    pub response_bytes: bytes::Bytes,
    /// The interim `1xx` heads received before it (`100 Continue`, `103 Early Hints`), exactly as received:
    /// kept apart, so that the response record starts at the final response, as every replay tool reads it.
    pub interim_bytes: bytes::Bytes,
    /// The entity body: transfer coding removed, content coding kept.
    pub body: Vec<u8>,
    /// Set when the body was cut short.
    pub truncated: Option<Truncation>,
    /// Set when the TLS certificate would fail web PKI validation: the reason.
    pub invalid_cert: Option<String>,
    /// The protocols the exchange used, for `WARC-Protocol`.
    pub protocol: Protocol,
    /// Set when the header fields of [`RequestParts::guarded`] were left out of the request: the TLS
    /// certificate failed validation.
    pub withheld: bool,
    /// Why the body was not downloaded ([`RequestParts::after_head`]): the head is all there is.
    pub stopped_after_head: Option<String>,
}

/// The protocols of an exchange, as WARC 1.1's `WARC-Protocol` names them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Protocol {
    /// `http/1.1` or `h2`.
    pub http: &'static str,
    /// `tls/1.3` or `tls/1.2` over TLS; `None` in the clear.
    pub tls: Option<&'static str>,
}

impl Protocol {
    /// The `WARC-Protocol` values, application protocol first.
    pub fn warc_values(&self) -> impl Iterator<Item = &'static str> {
        std::iter::once(self.http).chain(self.tls)
    }
}

/// What a request carries besides its URL and the fetcher's own fields (set by the fetch stage).
#[derive(Debug, Default)]
pub struct RequestParts<'a> {
    /// The validators of an earlier capture: a conditional request.
    pub validators: Option<&'a Validators>,
    /// More header fields (`Cookie`, `Authorization`).
    pub headers: Vec<(http::HeaderName, http::HeaderValue)>,
    /// A form to POST instead of a GET.
    pub form: Option<Vec<u8>>,
    /// A `HEAD` instead of a GET (without a form): the response is its head alone.
    pub head: bool,
    /// The form's `Content-Type`. Default: `application/x-www-form-urlencoded`.
    pub form_type: Option<&'a str>,
    /// The request carries a credential's secret (a password, an `Authorization` answer): it is not sent over
    /// a TLS connection whose certificate failed validation ([`FetchError::Untrusted`]).
    pub secret: bool,
    /// Fields of `headers` (a login's session cookies) left out over a TLS connection whose certificate
    /// failed validation: the request goes without them, and [`Response::withheld`] says so.
    pub guarded: Vec<http::HeaderName>,
    /// Asked once the response head is in: a reason not to read the body (the crawl's `after_headers` gate
    /// refusing a video by its type or declared length); the body is then not downloaded.
    pub after_head: Option<HeadCheck<'a>>,
}

/// A question put to a response head (status, fields, the address connected to): `Some(why)` stops the
/// download there.
#[derive(Clone, Copy)]
pub struct HeadCheck<'a>(pub &'a HeadQuestion<'a>);

/// What [`HeadCheck`] asks: of a status, the head's fields and the address connected to, a reason to stop.
pub type HeadQuestion<'a> =
    dyn Fn(u16, &http::HeaderMap, Option<IpAddr>) -> Option<String> + Send + Sync + 'a;

impl std::fmt::Debug for HeadCheck<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("HeadCheck")
    }
}

/// Why a fetch produced no response.
#[derive(Debug, Clone, thiserror::Error)]
#[non_exhaustive]
pub enum FetchError {
    /// The host name did not resolve.
    #[error("DNS lookup failed: {0}")]
    Dns(String),
    /// No connection could be made.
    #[error("connect failed: {0}")]
    Connect(String),
    /// No connection could be made for want of the machine's own resources (too many open files, no buffer
    /// space, out of memory): not the host's failure.
    #[error("no connection for want of trawl's own resources: {0}")]
    Local(String),
    /// The connection broke before a response arrived.
    #[error("connection broken: {0}")]
    Broken(String),
    /// What arrived is not an HTTP response trawl can read: a garbled status line, a head over
    /// `fetch.max_header_bytes` or `fetch.max_headers`, an invalid Content-Length.
    #[error("not a readable HTTP response: {0}")]
    Malformed(String),
    /// Nothing arrived within the timeout.
    #[error("timed out after {0} ms")]
    Timeout(u64),
    /// Given up after this many ms by a stopping crawl's cut ([`Fetcher::cut_at`]) before a response head
    /// came: not the server's failure, so not a try of the URL (the crawl fetches it again when resumed).
    #[error("given up after {0} ms: the crawl is stopping and no response head had come")]
    Stopped(u64),
    /// The URL or a header cannot be written as an HTTP/1.1 request.
    #[error("cannot be sent as an HTTP request: {0}")]
    InvalidRequest(String),
    /// The address policy forbids connecting to the host's address.
    #[error("refused by the address policy: {1} is a {0} address")]
    Refused(Refusal, IpAddr),
    /// The proxy could not be reached or refused the tunnel.
    #[error("{0}")]
    Proxy(ProxyFailure),
    /// Not sent: the request carries a credential's secret and the server's TLS certificate failed
    /// validation (the reason).
    #[error("not sent: it carries a credential, and the TLS certificate failed validation ({0})")]
    Untrusted(String),
}

impl FetchError {
    /// The crawl.log status for this failure (negative; see [`trawl_config::status`]).
    pub fn status(&self) -> i32 {
        use trawl_config::status;
        match self {
            FetchError::Dns(_) => status::DNS_FAILED,
            FetchError::Connect(_) | FetchError::Local(_) => status::CONNECT_FAILED,
            FetchError::Broken(_) | FetchError::Malformed(_) => status::CONNECTION_BROKEN,
            FetchError::Timeout(_) | FetchError::Stopped(_) => status::TIMEOUT,
            FetchError::InvalidRequest(_) => status::UNFETCHABLE,
            FetchError::Refused(..) => status::ADDRESS_REFUSED,
            FetchError::Proxy(_) => status::CONNECT_FAILED,
            FetchError::Untrusted(_) => status::UNFETCHABLE,
        }
    }

    /// Its crawl.log annotation.
    pub fn annotation(&self) -> trawl_config::Annotation {
        use trawl_config::Annotation;
        match self {
            FetchError::Dns(_) => Annotation::FetchFailed("dns"),
            FetchError::Connect(_) => Annotation::FetchFailed("connect"),
            FetchError::Local(_) => Annotation::FetchFailed("local"),
            FetchError::Broken(_) => Annotation::FetchFailed("broken"),
            FetchError::Malformed(_) => Annotation::FetchFailed("malformed"),
            FetchError::Timeout(_) => Annotation::FetchFailed("timeout"),
            FetchError::Stopped(_) => Annotation::FetchFailed("stopped"),
            FetchError::InvalidRequest(_) => Annotation::FetchFailed("invalid-request"),
            FetchError::Refused(why, _) => Annotation::Refused(*why),
            FetchError::Proxy(_) => Annotation::FetchFailed("proxy"),
            FetchError::Untrusted(_) => Annotation::FetchFailed("untrusted"),
        }
    }

    /// The second crawl.log annotation of a proxy failure, `proxy:KIND` (what the proxy said: `proxy:407`,
    /// `proxy:down`; see [`ProxyFailure::kind`]), beside `err=proxy`.
    pub fn proxy_note(&self) -> Option<trawl_config::Annotation> {
        match self {
            FetchError::Proxy(f) => Some(trawl_config::Annotation::Proxy(f.kind.clone())),
            _ => None,
        }
    }

    /// Whether trying again later may succeed.
    pub fn is_retryable(&self) -> bool {
        !matches!(
            self,
            FetchError::Refused(..) | FetchError::InvalidRequest(_) | FetchError::Untrusted(_)
        )
    }
}

/// The validators of an earlier capture of a URL, sent back as `If-None-Match` / `If-Modified-Since` so an
/// unchanged page answers `304 Not Modified` (`[fetch] conditional_recrawl`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Validators {
    /// The earlier response's `ETag`.
    pub etag: Option<String>,
    /// The earlier response's `Last-Modified`.
    pub last_modified: Option<String>,
}

/// One fetch attempt: when, where, and what came of it.
#[derive(Debug)]
pub struct Fetched {
    /// When the request began.
    pub started: DateTime<Utc>,
    /// How long the fetch took.
    pub duration: Duration,
    /// The address connected to.
    pub ip: Option<IpAddr>,
    /// The response, or why there was none.
    pub result: Result<Response, FetchError>,
}

/// A connection's request side: HTTP/1.1 or HTTP/2.
enum Sender {
    H1(http1::SendRequest<Full<Bytes>>),
    H2(http2::SendRequest<Full<Bytes>>),
}

/// How much later than due a body's wait may end before it is taken as trawl not having run (rather than
/// the server being silent or slow): timers on a busy runtime end a few milliseconds late, a suspended process
/// seconds late.
const NOT_RUNNING: Duration = Duration::from_millis(200);

/// How long a body is given, after trawl was found not running, to show what the server sent meanwhile.
const LATE_GRACE: Duration = Duration::from_secs(1);

/// Header fields an HTTP/2 request may not carry (RFC 9113 §8.2.2; `Host` is `:authority` there).
const H2_FORBIDDEN: [&str; 7] = [
    "connection",
    "keep-alive",
    "proxy-connection",
    "transfer-encoding",
    "upgrade",
    "te",
    "host",
];

impl Sender {
    fn is_closed(&self) -> bool {
        match self {
            Sender::H1(s) => s.is_closed(),
            Sender::H2(s) => s.is_closed(),
        }
    }

    async fn send(
        &mut self,
        request: http::Request<Full<Bytes>>,
    ) -> Result<http::Response<hyper::body::Incoming>, hyper::Error> {
        match self {
            Sender::H1(s) => {
                s.ready().await?;
                s.send_request(request).await
            }
            Sender::H2(s) => {
                s.ready().await?;
                s.send_request(request).await
            }
        }
    }
}

/// An idle keep-alive connection.
struct Conn {
    sender: Sender,
    tap: TapHandle,
    ip: IpAddr,
    invalid_cert: Option<String>,
    protocol: Protocol,
    /// Whether a response came over it (it went back to the idle pool).
    answered: bool,
}

trait Io: AsyncRead + AsyncWrite + Unpin + Send {}
impl<T: AsyncRead + AsyncWrite + Unpin + Send> Io for T {}

/// The most origins whose failures (a TLS handshake, h2c) are said one by one (a broad crawl meets many).
const MAX_FAILURES_SAID: usize = 100;

/// The HTTP fetcher: a resolver, a TLS config and a pool of keep-alive connections per origin.
pub struct Fetcher {
    config: FetchConfig,
    policy: AddressPolicy,
    dns: Dns,
    /// TLS offering HTTP/1.1 only, and offering h2 first.
    tls: Arc<rustls::ClientConfig>,
    tls_h2: Arc<rustls::ClientConfig>,
    strict: Arc<WebPkiServerVerifier>,
    idle: Mutex<IdlePool<Conn>>,
    /// Proxy failures seen, one per proxy and kind ([`Fetcher::proxy_failures`]).
    proxy_failures: Mutex<Vec<ProxyFailure>>,
    /// Failures of an origin's own making said so far, one per origin ([`Fetcher::origin_failures`]).
    origin_failures: Mutex<Vec<String>>,
    /// When the crawl is stopping, the instant past which no fetch waits any more ([`Fetcher::cut_at`]).
    cut: OnceLock<Instant>,
    /// Wakes the waits of fetches in flight when `cut` is set.
    cut_set: tokio::sync::Notify,
}

impl std::fmt::Debug for Fetcher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Fetcher")
            .field("config", &self.config)
            .finish_non_exhaustive()
    }
}

impl Fetcher {
    /// A fetcher with `config`'s limits and user agent, connecting only where `policy` allows.
    pub fn new(config: FetchConfig, policy: AddressPolicy) -> Fetcher {
        let (tls, strict) = tls::client_config();
        let with_alpn = |protocols: &[&[u8]]| {
            let mut c = (*tls).clone();
            c.alpn_protocols = protocols.iter().map(|p| p.to_vec()).collect();
            Arc::new(c)
        };
        let idle = Mutex::new(IdlePool::new(idle::idle_max(
            config.max_connections,
            descriptors::open_files_limit(config.max_connections),
        )));
        Fetcher {
            dns: Dns::new(&config.dns_servers),
            config,
            policy,
            tls: with_alpn(&[b"http/1.1"]),
            tls_h2: with_alpn(&[b"h2", b"http/1.1"]),
            strict,
            idle,
            proxy_failures: Mutex::default(),
            origin_failures: Mutex::default(),
            cut: OnceLock::new(),
            cut_set: tokio::sync::Notify::new(),
        }
    }

    /// Closes every idle keep-alive connection: at a crawl's end no fetch will take them, and the final
    /// checkpoint needs the descriptors they hold (under a low open-files limit it could not open its store).
    pub fn close_idle(&self) {
        let closed = self
            .idle
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clear();
        drop(closed);
    }

    /// A stopping crawl's bound on its fetches in flight: past `at` (the first call's), a body still
    /// arriving is cut and kept as far as it came (`timeTrunc`), and a response head not yet come is given
    /// up ([`FetchError::Stopped`]), so that a stop is not held for `fetch.max_fetch_ms` by a server
    /// trickling a body or `fetch.header_timeout_ms` by one that has not answered yet.
    pub fn cut_at(&self, at: Instant) {
        if self.cut.set(at).is_ok() {
            self.cut_set.notify_waiters();
        }
    }

    /// Comes when a stop's cut ([`Fetcher::cut_at`]) does, so a wait begun before the stop ends with it.
    async fn cut_reached(&self) {
        loop {
            // Armed before the cut is read, so a cut set between the two is not missed.
            let set = self.cut_set.notified();
            tokio::pin!(set);
            set.as_mut().enable();
            if let Some(at) = self.cut.get() {
                tokio::time::sleep_until((*at).into()).await;
                return;
            }
            set.await;
        }
    }

    /// Whether a stop's cut ([`Fetcher::cut_at`]) has come.
    fn cut_passed(&self) -> bool {
        self.cut.get().is_some_and(|at| Instant::now() >= *at)
    }

    /// `failure` as the fetch's error, warned about in the log the first time this proxy fails this way
    /// (one line per proxy and kind, not one per URL).
    fn proxy_failed(&self, failure: ProxyFailure) -> FetchError {
        let mut seen = self
            .proxy_failures
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if !seen
            .iter()
            .any(|f| f.proxy == failure.proxy && f.kind == failure.kind)
        {
            tracing::warn!(
                "{failure}; URLs fetched through it fail with `err=proxy,proxy:{}`",
                failure.kind
            );
            seen.push(failure.clone());
        }
        FetchError::Proxy(failure)
    }

    /// Why the address policy refuses `url`'s host, where that is known without a DNS lookup: an address
    /// written in the URL, or `localhost` (always a loopback address, RFC 6761). `None` when allowed, or when
    /// only a lookup would tell.
    pub fn refused_without_lookup(
        &self,
        url: &url::Url,
    ) -> Option<trawl_config::annotation::Refusal> {
        let host = url.host_str()?;
        let ips: Vec<std::net::IpAddr> = match url.host()? {
            url::Host::Ipv4(ip) => vec![ip.into()],
            url::Host::Ipv6(ip) => vec![ip.into()],
            // Either of its addresses may be the one connected to: refused only if both are.
            url::Host::Domain(d) if d.trim_end_matches('.').eq_ignore_ascii_case("localhost") => {
                vec![
                    std::net::Ipv4Addr::LOCALHOST.into(),
                    std::net::Ipv6Addr::LOCALHOST.into(),
                ]
            }
            url::Host::Domain(_) => return None,
        };
        let refusals: Vec<_> = ips
            .into_iter()
            .map(|ip| self.policy.check(host, ip).err())
            .collect();
        if refusals.iter().all(Option::is_some) {
            refusals.into_iter().next().flatten()
        } else {
            None
        }
    }

    /// Lets the crawl connect to the host of a seed an operator added, whatever its address, as to the first
    /// seeds' hosts.
    pub fn add_seed_host(&self, host: &str) {
        self.policy.add_seed_host(host);
    }

    /// A TLS handshake with `url`'s origin that failed as `error`: the fetch's error, said in the log the first
    /// time for the origin with what it likely means (a crawl.log `err=connect` is also a refused port: xt46a
    /// F3, an old server's TLS 1.0 was said as "no connection could be made").
    fn tls_failed(&self, url: &Url, error: &std::io::Error) -> FetchError {
        let cause = tls::likely_cause(error);
        self.said_once(
            url,
            &format!("the TLS handshake failed: {error}{cause}"),
            "err=connect` (-2",
        );
        FetchError::Connect(format!("TLS handshake: {error}"))
    }

    /// `failure` of `url`'s origin said in the log, the first time for the origin (the first 100 origins),
    /// with the crawl.log code its URLs get, and kept for the crawl's summary.
    fn said_once(&self, url: &Url, failure: &str, code: &str) {
        let origin = url.origin().ascii_serialization();
        let mut seen = self
            .origin_failures
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if seen.len() < MAX_FAILURES_SAID
            && !seen.iter().any(|f| f.starts_with(&format!("{origin}: ")))
        {
            let failure = format!("{origin}: {failure}");
            tracing::warn!("{failure}; its URLs fail with `{code})");
            seen.push(failure);
        }
    }

    /// Each origin whose TLS handshake failed, or that answered HTTP/2 in HTTP/1 (`fetch.h2c`), so far (the
    /// first 100), with why, in the order first seen.
    pub fn origin_failures(&self) -> Vec<String> {
        self.origin_failures
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// Each way a proxy has failed so far, once per proxy and kind, in the order first seen.
    pub fn proxy_failures(&self) -> Vec<ProxyFailure> {
        self.proxy_failures
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// The DNS answer for `url`'s host looked up since the last call, to be archived as a `dns:` record.
    pub fn take_dns_answer(&self, url: &Url) -> Option<DnsAnswer> {
        self.dns.take_answer(url.host_str()?)
    }

    /// Fetches `url` with GET, cutting the body at `max_bytes`.
    pub async fn get(&self, url: &Url, max_bytes: u64) -> Fetched {
        self.fetch(url, max_bytes, &self.config, &RequestParts::default())
            .await
    }

    /// Fetches `url` with the limits, timeouts, user agent, headers and proxy of `settings` (a URI's effective
    /// settings, sheets applied) instead of the fetcher's own; `parts` adds validators, header fields or a
    /// form to post.
    pub async fn fetch(
        &self,
        url: &Url,
        max_bytes: u64,
        settings: &FetchConfig,
        parts: &RequestParts<'_>,
    ) -> Fetched {
        let started = Utc::now();
        let clock = Instant::now();
        let origin = pool_key(url, settings);
        let deadline = clock + Duration::from_millis(settings.max_fetch_ms);
        let pooled = self.take_idle(&origin);
        let reused = pooled.is_some();
        let mut result = self
            .attempt(url, max_bytes, pooled, deadline, settings, parts)
            .await;
        if reused && matches!(&result, Err((_, true))) {
            // The server closed an idle connection before reading our request: a fresh one is fair.
            result = self
                .attempt(url, max_bytes, None, deadline, settings, parts)
                .await;
        }
        let (ip, result) = match result {
            Ok((resp, conn)) => {
                let ip = conn.as_ref().map(|c| c.ip).or(resp.1);
                if let Some(conn) = conn {
                    self.put_idle(origin, conn);
                }
                (ip, Ok(resp.0))
            }
            Err(((e, ip), _)) => {
                if matches!(e, FetchError::Local(_)) {
                    self.close_idle();
                }
                (ip, Err(e))
            }
        };
        Fetched {
            started,
            duration: clock.elapsed(),
            ip,
            result,
        }
    }

    fn take_idle(&self, origin: &str) -> Option<Conn> {
        self.idle
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take(origin, Instant::now(), |c| !c.sender.is_closed())
    }

    fn put_idle(&self, origin: String, mut conn: Conn) {
        conn.answered = true;
        self.idle
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .put(origin, conn, Instant::now(), |c| !c.sender.is_closed());
    }

    /// One try on `conn` (or a new connection). The error carries whether nothing at all was received, in
    /// which case a retry on a fresh connection is safe.
    #[allow(clippy::type_complexity)]
    async fn attempt(
        &self,
        url: &Url,
        max_bytes: u64,
        conn: Option<Conn>,
        deadline: Instant,
        settings: &FetchConfig,
        parts: &RequestParts<'_>,
    ) -> Result<((Response, Option<IpAddr>), Option<Conn>), ((FetchError, Option<IpAddr>), bool)>
    {
        let idle = Duration::from_millis(settings.timeout_ms);
        let within =
            |limit: Duration| limit.min(deadline.saturating_duration_since(Instant::now()));
        let mut conn = match conn {
            Some(c) => c,
            None => self
                .connect(url, deadline, settings)
                .await
                .map_err(|(e, ip)| ((e, ip), false))?,
        };
        let ip = Some(conn.ip);
        // A credential's secret never leaves on a connection to a server whose certificate failed validation;
        // nothing was sent on it, so it stays in the pool.
        if parts.secret
            && let Some(reason) = conn.invalid_cert.clone()
        {
            self.put_idle(pool_key(url, settings), conn);
            return Err(((FetchError::Untrusted(reason), ip), false));
        }
        conn.tap.clear();
        let h2 = matches!(conn.sender, Sender::H2(_));
        if !h2 {
            conn.tap.head_room(Some(head_room(settings)));
        }
        let withheld = conn.invalid_cert.is_some()
            && parts
                .headers
                .iter()
                .any(|(name, _)| parts.guarded.contains(name));
        let request = match self.request(url, settings, parts, h2, withheld) {
            Ok(r) => r,
            Err(e) => return Err(((e, ip), false)),
        };
        // HTTP/2 frames are not kept: the request is written down in HTTP/1.1 form before it goes.
        let h2_request = h2.then(|| h2_form::request(&request, url, parts.form.as_deref()));
        let head_only = parts.head && parts.form.is_none();
        let head_wait = within(Duration::from_millis(settings.header_timeout_ms));
        let asked = Instant::now();
        // One wait for a stop's cut for the whole exchange (made once: arming it takes the notifier's lock).
        let cut = self.cut_reached();
        tokio::pin!(cut);
        // The head is awaited up to `header_timeout_ms` in all, and up to `timeout_ms` of silence: a server
        // that sends nothing at all is left after `timeout_ms`, as the docs say (xt12a b F2: it held the
        // fetch for the whole head deadline).
        let head_by = asked + head_wait;
        let tap = conn.tap.clone();
        let sent = {
            let sending = conn.sender.send(request);
            tokio::pin!(sending);
            // Bytes are looked for a quarter of `timeout_ms` at a time, so a silence is ended at most a
            // quarter late (review R6: looked for once per whole `timeout_ms`, a silence after a few bytes
            // could last nearly twice as long).
            let look = (idle / 4).max(Duration::from_millis(1));
            let mut heard = tap.received_len();
            let mut heard_at = Instant::now();
            loop {
                let left = head_by.saturating_duration_since(Instant::now());
                let wait = left.min(look);
                tokio::select! {
                    biased;
                    sent = timeout(wait, &mut sending) => match sent {
                        Ok(sent) => break Ok(sent),
                        Err(_) if wait >= left => break Err(head_wait),
                        Err(_) => {
                            let now_heard = tap.received_len();
                            if now_heard != heard {
                                heard = now_heard;
                                heard_at = Instant::now();
                            } else if heard_at.elapsed() >= idle {
                                break Err(idle);
                            }
                        }
                    },
                    () = &mut cut => {
                        let ms = asked.elapsed().as_millis() as u64;
                        return Err(((FetchError::Stopped(ms), ip), false));
                    }
                }
            }
        };
        let response = match sent {
            Err(waited) => {
                let ms = waited.as_millis() as u64;
                return Err(((FetchError::Timeout(ms), ip), false));
            }
            Ok(Err(e)) => {
                let nothing = conn.tap.received_len() == 0;
                let error = if conn.tap.heads_over() {
                    FetchError::Malformed(format!(
                        "more than {} bytes came before the response head (interim 1xx heads without end?), \
                         over fetch.max_header_bytes ({})",
                        head_room(settings),
                        settings.max_header_bytes
                    ))
                } else if e.is_parse() {
                    FetchError::Malformed(error_chain(&e))
                } else {
                    FetchError::Broken(error_chain(&e))
                };
                // HTTP/2 by prior knowledge to a server that answers in HTTP/1, or closes at its preface (xt46a
                // F11: said as "no answer or a 5xx").
                let received = conn.tap.take().1;
                // Not one that answered before: a server closing an idle h2c connection speaks h2c (review
                // 85 R7).
                if conn.protocol.http == "h2"
                    && conn.protocol.tls.is_none()
                    && !conn.answered
                    && (received.is_empty() || received.starts_with(b"HTTP/1."))
                {
                    self.said_once(
                        url,
                        "the HTTP/2 connection (fetch.h2c = true) ended before any HTTP/2 answer, as a server that \
                         does not speak h2c ends it; set h2c in a sheet for the hosts that do",
                        "err=broken` (-3",
                    );
                }
                return Err(((error, ip), nothing));
            }
            Ok(Ok(r)) => {
                conn.tap.head_room(None);
                r
            }
        };
        // hyper bounds the head by its read buffer, which one read can overrun by up to half again: the
        // limit is checked on the heads as received (interim 1xx ones included).
        if let Some(len) = conn
            .tap
            .head_over(settings.max_header_bytes)
            .filter(|_| !h2)
        {
            let said = format!(
                "a response head of {len} bytes, over fetch.max_header_bytes ({})",
                settings.max_header_bytes
            );
            return Err(((FetchError::Malformed(said), ip), false));
        }
        let stopped = parts
            .after_head
            .and_then(|check| (check.0)(response.status().as_u16(), response.headers(), ip));
        let (parts, mut body) = response.into_parts();
        let room = if stopped.is_some() {
            0
        } else {
            body_room(&parts, max_bytes)
        };
        let mut data = Vec::with_capacity(room);
        let mut truncated = None;
        let mut trailing = false;
        // The minimum-rate rule: each window must bring its share of bytes, or the body is cut (a share of 0
        // bytes, from a tiny rate or window, cuts nothing: the rule is off).
        let window = Duration::from_millis(settings.min_rate_window_ms.max(1));
        let min_bytes = settings
            .min_rate_bytes_per_s
            .saturating_mul(window.as_millis() as u64)
            / 1000;
        let min_rate = min_bytes > 0;
        let mut window_end = Instant::now() + window;
        let mut window_start_len = 0usize;
        // The idle timeout counts from the last bytes, not from each turn of the loop.
        let mut last_data = Instant::now();
        // The fetch's deadline, moved on by the time trawl itself was not running (below).
        let mut deadline = deadline;
        // The time forgiven so far as trawl's own (below), at most about `idle` for a body: a runtime late
        // again and again (a starved machine) must not hold a slow or silent server for ever.
        let mut forgiven = Duration::ZERO;
        // A body the head check refused is not read at all.
        while stopped.is_none() {
            // A body that keeps coming (so that no wait times out) is cut here.
            if self.cut_passed() {
                truncated = Some(Truncation::Time);
                break;
            }
            let now = Instant::now();
            if min_rate && now >= window_end {
                // A window this loop could not watch (trawl not running: see `NOT_RUNNING`) is not judged.
                let unwatched = now - window_end;
                if unwatched > NOT_RUNNING && forgiven < idle {
                    forgiven += unwatched;
                } else if ((data.len() - window_start_len) as u64) < min_bytes {
                    truncated = Some(Truncation::Time);
                    break;
                }
                window_end = now + window;
                window_start_len = data.len();
            }
            let silence_left = idle
                .saturating_sub(last_data.elapsed())
                .min(deadline.saturating_duration_since(now));
            let wait = if min_rate {
                silence_left
                    .min(window_end.saturating_duration_since(now) + Duration::from_millis(1))
            } else {
                silence_left
            };
            let due = now + wait;
            let frame = tokio::select! {
                biased;
                frame = timeout(wait, body.frame()) => frame,
                () = &mut cut => {
                    truncated = Some(Truncation::Time);
                    break;
                }
            };
            if frame.is_err() {
                let now = Instant::now();
                let late = now.saturating_duration_since(due);
                if late > NOT_RUNNING && forgiven < idle {
                    forgiven += late + LATE_GRACE;
                    // The wait ended long after it was due: trawl itself was not running (suspended with
                    // Ctrl-Z or SIGSTOP, a paused VM, a starved machine), and what the server sent meanwhile
                    // may be waiting unread. That time is not the server's silence: every limit moves on
                    // by it, and the body gets `LATE_GRACE` to show what has come.
                    last_data = last_data.max((now + LATE_GRACE).checked_sub(idle).unwrap_or(now));
                    deadline += late + LATE_GRACE;
                    window_end = now + window;
                    window_start_len = data.len();
                    continue;
                }
            }
            let frame = match frame {
                // The window ended before the idle timeout: judge the window at the top of the loop.
                Err(_)
                    if min_rate
                        && Instant::now() >= window_end
                        && idle
                            .saturating_sub(last_data.elapsed())
                            .min(deadline.saturating_duration_since(Instant::now()))
                            > Duration::ZERO =>
                {
                    continue;
                }
                other => other,
            };
            match frame {
                Err(_) => {
                    truncated = Some(Truncation::Time);
                    break;
                }
                Ok(None) => break,
                Ok(Some(Err(_))) => {
                    truncated = Some(Truncation::Disconnect);
                    break;
                }
                Ok(Some(Ok(frame))) => {
                    last_data = Instant::now();
                    if let Ok(chunk) = frame.into_data() {
                        data.extend_from_slice(&chunk);
                        if data.len() as u64 > max_bytes {
                            data.truncate(max_bytes as usize);
                            truncated = Some(Truncation::Length);
                            break;
                        }
                    }
                }
            }
        }
        drop(body);
        if data.capacity() > 2 * data.len() {
            // A Content-Length that promised more than came: the body is kept to the end of the crawl.
            data.shrink_to_fit();
        }
        let (request_bytes, response_bytes) = match h2_request {
            Some(request_bytes) => {
                conn.tap.clear();
                (request_bytes, h2_form::response(&parts, &data))
            }
            None => {
                let (request_bytes, mut response_bytes) = conn.tap.take();
                if truncated.is_some() || stopped.is_some() {
                    // The body as far as it was taken: `max_bytes` of it, or what came before a stall or
                    // a break (hyper refuses framing the recording may still hold past it: chunk-size lines
                    // ending in a bare LF), so that the record and crawl.log agree.
                    cut_recording(&mut response_bytes, &parts.headers, data.len() as u64);
                } else if let Some(end) = if head_only {
                    // A HEAD's answer is its head, whatever its Content-Length says.
                    message::heads(&response_bytes).map(|(_, end)| end)
                } else {
                    message::end(&response_bytes, parts.status.as_u16(), &parts.headers)
                } && end < response_bytes.len()
                {
                    // Bytes after the message (junk past a Content-Length body, a body after a 204)
                    // are no part of this response, and the connection is not to be trusted again.
                    response_bytes.truncate(end);
                    trailing = true;
                }
                (request_bytes, response_bytes)
            }
        };
        // Interim heads before the final response (HTTP/1.1 only: an h2 record starts at the final head).
        let mut response_bytes = bytes::Bytes::from(response_bytes);
        let interim = message::heads(&response_bytes).map_or(0, |(interim, _)| interim);
        let interim_bytes = response_bytes.split_to(interim);
        let response = Response {
            status: parts.status.as_u16(),
            headers: parts.headers,
            request_bytes: request_bytes.into(),
            response_bytes,
            interim_bytes,
            body: data,
            truncated,
            invalid_cert: conn.invalid_cert.clone(),
            protocol: conn.protocol,
            withheld,
            stopped_after_head: stopped.clone(),
        };
        let reusable =
            truncated.is_none() && stopped.is_none() && !trailing && !conn.sender.is_closed();
        Ok(((response, ip), reusable.then_some(conn)))
    }

    /// The request for `url` (a GET, a HEAD, or a POST of `parts.form`); a target or header value HTTP cannot carry
    /// is an error, not a panic. Over HTTP/2 the target is the absolute URL (hyper sends its authority as
    /// `:authority`) and connection-specific fields are left out; so are the guarded fields of `parts` when
    /// `withhold`.
    fn request(
        &self,
        url: &Url,
        settings: &FetchConfig,
        parts: &RequestParts<'_>,
        h2: bool,
        withhold: bool,
    ) -> Result<http::Request<Full<Bytes>>, FetchError> {
        let mut target = url.path().to_string();
        if let Some(q) = url.query() {
            target.push('?');
            target.push_str(q);
        }
        let invalid = |e: &dyn std::fmt::Display| FetchError::InvalidRequest(e.to_string());
        let (method, body) = match &parts.form {
            Some(form) => (http::Method::POST, Bytes::from(form.clone())),
            None if parts.head => (http::Method::HEAD, Bytes::new()),
            None => (http::Method::GET, Bytes::new()),
        };
        let uri = if h2 {
            // No user or password in `:authority`: credentials go in an Authorization field, if at all.
            let mut absolute = url.clone();
            absolute.set_fragment(None);
            let _ = absolute.set_username("");
            let _ = absolute.set_password(None);
            absolute.to_string()
        } else {
            target
        };
        let mut request = http::Request::builder().method(method).uri(uri);
        if let Some(v) = parts.validators {
            if let Some(etag) = &v.etag {
                request = request.header("If-None-Match", etag);
            }
            if let Some(date) = &v.last_modified {
                request = request.header("If-Modified-Since", date);
            }
        }
        if !h2 {
            request = request.header("Host", host_header(url));
        }
        // The crawl's launch user agent, whatever a sheet or a live change says: robots.txt is read for the
        // agent named at launch, so a request must not announce another (xt12a b F1: the new name was sent
        // and robots.txt obeyed for the old one). `fetch.user_agent` is read when a crawl starts.
        request = request.header("User-Agent", &self.config.user_agent);
        // Defaults that an operator's `fetch.headers`, or a field of `parts` (a browser page's own `Accept`),
        // may replace (not add a second field to).
        let given = |name: &str| {
            settings
                .headers
                .keys()
                .any(|k| k.eq_ignore_ascii_case(name))
                || parts
                    .headers
                    .iter()
                    .any(|(k, _)| k.as_str().eq_ignore_ascii_case(name))
        };
        if !given("Accept") {
            request = request.header(
                "Accept",
                "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8",
            );
        }
        if !given("Accept-Encoding") {
            request = request.header("Accept-Encoding", "gzip, deflate");
        }
        if !h2 {
            request = request.header("Connection", "keep-alive");
        }
        for (name, value) in &settings.headers {
            // HTTP/2 has no connection-specific fields (hyper would drop them unsent, and the record would
            // show what was not sent).
            if h2 && H2_FORBIDDEN.contains(&name.to_ascii_lowercase().as_str()) {
                continue;
            }
            request = request.header(name.as_str(), value.as_str());
        }
        for (name, value) in &parts.headers {
            if withhold && parts.guarded.contains(name) {
                continue;
            }
            request = request.header(name, value);
        }
        if parts.form.is_some() {
            request = request
                .header(
                    "Content-Type",
                    parts
                        .form_type
                        .unwrap_or("application/x-www-form-urlencoded"),
                )
                .header("Content-Length", body.len());
        }
        request.body(Full::new(body)).map_err(|e| invalid(&e))
    }

    async fn connect(
        &self,
        url: &Url,
        deadline: Instant,
        settings: &FetchConfig,
    ) -> Result<Conn, (FetchError, Option<IpAddr>)> {
        let connect_by =
            deadline.min(Instant::now() + Duration::from_millis(settings.connect_timeout_ms));
        let wait = || connect_by.saturating_duration_since(Instant::now());
        // The origin's address is looked up and judged here even through a proxy: the policy is the origin's.
        let ip = match timeout(wait(), self.dns.resolve(url)).await {
            Err(_) => return Err((FetchError::Dns("timed out".into()), None)),
            Ok(Err(DnsError::Shortage(words))) => return Err((FetchError::Local(words), None)),
            Ok(Err(e)) => return Err((FetchError::Dns(e.to_string()), None)),
            Ok(Ok(ip)) => ip,
        };
        if let Err(why) = self.policy.check(url.host_str().unwrap_or_default(), ip) {
            return Err((FetchError::Refused(why, ip), Some(ip)));
        }
        let port = url.port_or_known_default().unwrap_or(80);
        // A connection, tunnel or handshake that does not come in time is the host's failure (it rests), not
        // one URL's: a connect error, not a `Timeout`.
        let ms = settings.connect_timeout_ms;
        let timed_out = || FetchError::Connect(format!("no connection within {ms} ms"));
        let origin = SocketAddr::new(ip, port);
        let proxy = match settings.proxy.as_deref().map(Proxy::parse) {
            None => None,
            Some(Ok(p)) => Some(p),
            Some(Err(e)) => {
                let failure = ProxyFailure::config(
                    settings.proxy.as_deref().unwrap_or_default(),
                    e.to_string(),
                );
                return Err((self.proxy_failed(failure), Some(ip)));
            }
        };
        let raw: Box<dyn Io> = match &proxy {
            None => {
                let tcp = match timeout(wait(), TcpStream::connect(origin)).await {
                    Err(_) => return Err((timed_out(), Some(ip))),
                    Ok(Err(e)) if descriptors::is_shortage(&e) => {
                        let words = descriptors::shortage_words(&e);
                        return Err((FetchError::Local(words), Some(ip)));
                    }
                    Ok(Err(e)) => return Err((FetchError::Connect(e.to_string()), Some(ip))),
                    Ok(Ok(s)) => s,
                };
                let _ = tcp.set_nodelay(true);
                Box::new(tcp)
            }
            Some(proxy) => match timeout(wait(), proxy::tunnel(proxy, origin)).await {
                Err(_) => {
                    let failure = ProxyFailure::timeout(proxy, ms);
                    return Err((self.proxy_failed(failure), Some(ip)));
                }
                Ok(Err(FetchError::Proxy(failure))) => {
                    return Err((self.proxy_failed(failure), Some(ip)));
                }
                Ok(Err(e)) => return Err((e, Some(ip))),
                Ok(Ok(s)) => s,
            },
        };
        let mut invalid_cert = None;
        let mut protocol = Protocol {
            http: "http/1.1",
            tls: None,
        };
        let stream: Box<dyn Io> = if url.scheme() == "https" {
            let name = ServerName::try_from(url.host_str().unwrap_or_default().to_string())
                .map_err(|e| {
                    (
                        FetchError::Connect(format!("bad TLS server name: {e}")),
                        Some(ip),
                    )
                })?;
            let config = if settings.http2 {
                self.tls_h2.clone()
            } else {
                self.tls.clone()
            };
            let connector = tokio_rustls::TlsConnector::from(config);
            let tls = match timeout(wait(), connector.connect(name.clone(), raw)).await {
                Err(_) => {
                    let why = format!("TLS handshake: no answer within {ms} ms");
                    return Err((FetchError::Connect(why), Some(ip)));
                }
                Ok(Err(e)) => return Err((self.tls_failed(url, &e), Some(ip))),
                Ok(Ok(s)) => s,
            };
            let session = tls.get_ref().1;
            let certs = session.peer_certificates().unwrap_or_default();
            invalid_cert = tls::judge(&self.strict, certs, &name);
            if session.alpn_protocol() == Some(b"h2") {
                protocol.http = "h2";
            }
            protocol.tls = match session.protocol_version() {
                Some(rustls::ProtocolVersion::TLSv1_3) => Some("tls/1.3"),
                Some(rustls::ProtocolVersion::TLSv1_2) => Some("tls/1.2"),
                _ => None,
            };
            Box::new(tls)
        } else {
            if settings.h2c {
                protocol.http = "h2";
            }
            raw
        };
        let tap = TapHandle::default();
        let io = TokioIo::new(Recorder::new(stream, tap.clone()));
        let sender = if protocol.http == "h2" {
            let (sender, connection) = http2::Builder::new(TokioExecutor::new())
                .max_header_list_size(settings.max_header_bytes.max(8192) as u32)
                .handshake(io)
                .await
                .map_err(|e| (FetchError::Connect(error_chain(&e)), Some(ip)))?;
            tokio::spawn(async move {
                let _ = connection.await;
            });
            Sender::H2(sender)
        } else {
            // Lenient parsing: an archive wants what the server sent, odd headers and all; sizes stay bounded.
            let (sender, connection) = http1::Builder::new()
                .title_case_headers(true)
                .allow_obsolete_multiline_headers_in_responses(true)
                .allow_spaces_after_header_name_in_responses(true)
                .ignore_invalid_headers_in_responses(true)
                .max_headers(settings.max_headers)
                .max_buf_size(settings.max_header_bytes.max(8192))
                .handshake(io)
                .await
                .map_err(|e| (FetchError::Connect(error_chain(&e)), Some(ip)))?;
            tokio::spawn(async move {
                let _ = connection.await;
            });
            Sender::H1(sender)
        };
        Ok(Conn {
            sender,
            tap,
            ip,
            invalid_cert,
            protocol,
            answered: false,
        })
    }
}

/// The key of a keep-alive pool: the origin, and the proxy and HTTP versions its connections were made with.
fn pool_key(url: &Url, settings: &FetchConfig) -> String {
    let proxy = settings.proxy.as_deref().unwrap_or("-");
    let mut key = trawl_config::origin(url);
    key.reserve(proxy.len() + 4);
    key.push(' ');
    key.push_str(proxy);
    key.push(' ');
    key.push(if settings.http2 { '1' } else { '0' });
    key.push(if settings.h2c { '1' } else { '0' });
    key
}

/// The room to make for a body up front: its Content-Length when it gives one, within `max_bytes` and a
/// cap, so that a page's body is not copied again each time its buffer doubles. A longer body grows as it
/// would without it; room a shorter one left unused is given back after the read. A 204 or 304 has no body
/// whatever its length says.
fn body_room(head: &http::response::Parts, max_bytes: u64) -> usize {
    const CAP: u64 = 8 << 20;
    if matches!(head.status.as_u16(), 204 | 304) {
        return 0;
    }
    head.headers
        .get(http::header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok()?.trim().parse::<u64>().ok())
        .map_or(0, |n| n.min(max_bytes).min(CAP) as usize)
}

/// The Host header: the host, and the port when it is not the scheme's default.
fn host_header(url: &Url) -> String {
    let host = url.host_str().unwrap_or_default();
    match url.port() {
        Some(p) => format!("{host}:{p}"),
        None => host.to_string(),
    }
}

/// An error and its causes on one line.
fn error_chain(e: &dyn std::error::Error) -> String {
    let mut s = e.to_string();
    let mut cur = e.source();
    while let Some(c) = cur {
        s.push_str(": ");
        s.push_str(&c.to_string());
        cur = c.source();
    }
    s
}

/// Cuts the recording of a response whose body was cut short (at `fetch.max_bytes`, a stall, a break) after
/// its heads and `max_bytes` of body — of chunk data, the framing before it kept, for a chunked one — so that
/// the archive holds what crawl.log counts (the socket may have brought far more before the cut: hyper reads
/// ahead).
fn cut_recording(recorded: &mut Vec<u8>, headers: &http::HeaderMap, max_bytes: u64) {
    if let Some(keep) = message::cut(recorded, headers, max_bytes) {
        recorded.truncate(keep);
    }
}

/// The most bytes that may arrive before hyper hands over a response head: its read buffer (which bounds
/// one head) and a read's overrun, twice over, for interim 1xx heads. A server sending those without end is
/// stopped here instead of growing the recording until the head timeout.
fn head_room(settings: &FetchConfig) -> usize {
    settings.max_header_bytes.max(8192).saturating_mul(3)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cut_recording_keeps_every_head_and_max_bytes_of_body() {
        let none = http::HeaderMap::new();
        let mut plain = b"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n0123456789".to_vec();
        cut_recording(&mut plain, &none, 4);
        assert_eq!(plain, b"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n0123");
        let mut hints =
            b"HTTP/1.1 103 Early Hints\r\nLink: <a>\r\n\r\nHTTP/1.1 200 OK\n\nabcdef".to_vec();
        cut_recording(&mut hints, &none, 2);
        assert_eq!(
            hints,
            b"HTTP/1.1 103 Early Hints\r\nLink: <a>\r\n\r\nHTTP/1.1 200 OK\n\nab"
        );
        // No end to the head: nothing is cut.
        let mut torn = b"HTTP/1.1 200 OK\r\nX: y".to_vec();
        cut_recording(&mut torn, &none, 0);
        assert_eq!(torn, b"HTTP/1.1 200 OK\r\nX: y");
    }

    #[test]
    fn pool_keys_name_the_origin_and_the_connection_settings() {
        let url = Url::parse("http://a.org:9/").unwrap();
        let proxied = FetchConfig {
            proxy: Some("http://127.0.0.1:3128".into()),
            http2: false,
            h2c: true,
            ..FetchConfig::default()
        };
        assert_eq!(
            pool_key(&url, &proxied),
            "http://a.org:9 http://127.0.0.1:3128 01"
        );
        let direct = FetchConfig {
            proxy: None,
            http2: true,
            h2c: false,
            ..FetchConfig::default()
        };
        assert_eq!(pool_key(&url, &direct), "http://a.org:9 - 10");
    }

    #[test]
    fn body_room_follows_content_length_within_its_limits() {
        let head = |status: u16, length: Option<&str>| {
            let mut b = http::Response::builder().status(status);
            if let Some(l) = length {
                b = b.header("Content-Length", l);
            }
            b.body(()).unwrap().into_parts().0
        };
        assert_eq!(body_room(&head(200, Some("13500")), u64::MAX), 13_500);
        assert_eq!(body_room(&head(200, Some(" 42 ")), u64::MAX), 42);
        assert_eq!(body_room(&head(200, Some("13500")), 1000), 1000);
        assert_eq!(
            body_room(&head(200, Some("99999999999")), u64::MAX),
            8 << 20
        );
        assert_eq!(body_room(&head(200, Some("-1")), u64::MAX), 0);
        assert_eq!(body_room(&head(200, Some("lots")), u64::MAX), 0);
        assert_eq!(body_room(&head(200, None), u64::MAX), 0);
        assert_eq!(body_room(&head(304, Some("13500")), u64::MAX), 0);
        assert_eq!(body_room(&head(204, Some("13500")), u64::MAX), 0);
    }

    #[tokio::test]
    async fn an_unsendable_header_is_an_error_not_a_panic() {
        let fetcher = Fetcher::new(FetchConfig::default(), AddressPolicy::default());
        let url = Url::parse("http://a.org/x?q={1}").unwrap();
        let parts = RequestParts::default();
        assert!(
            fetcher
                .request(&url, &FetchConfig::default(), &parts, false, false)
                .is_ok()
        );
        let bad = FetchConfig {
            user_agent: "trawl\u{1}/1".into(),
            ..FetchConfig::default()
        };
        let err = Fetcher::new(bad.clone(), AddressPolicy::default())
            .request(&url, &bad, &parts, false, false)
            .unwrap_err();
        assert_eq!((err.status(), err.is_retryable()), (-7, false));
    }

    /// The user agent sent is the crawl's launch one, whatever the URI's settings (a sheet, a live change)
    /// say: robots.txt was read for that agent (xt12a b F1).
    #[tokio::test]
    async fn the_launch_user_agent_is_sent_whatever_a_sheet_says() {
        let launch = FetchConfig {
            user_agent: "launchbot/1 (+http://127.0.0.1/)".into(),
            ..FetchConfig::default()
        };
        let fetcher = Fetcher::new(launch.clone(), AddressPolicy::default());
        let sheet = FetchConfig {
            user_agent: "otherbot/2 (+http://127.0.0.1/)".into(),
            ..launch
        };
        let url = Url::parse("http://a.org/x").unwrap();
        let request = fetcher
            .request(&url, &sheet, &RequestParts::default(), false, false)
            .unwrap();
        assert_eq!(
            request.headers().get("user-agent").unwrap(),
            "launchbot/1 (+http://127.0.0.1/)"
        );
    }

    /// A server that reads the request and says nothing is left after `timeout_ms` of silence, not after
    /// the whole `header_timeout_ms` (xt12a b F2: it held the fetch 30 s with `timeout_ms = 500`).
    #[tokio::test]
    async fn silence_before_the_head_ends_at_the_timeout() {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        std::thread::spawn(move || {
            if let Ok((mut stream, _)) = listener.accept() {
                let mut buf = [0u8; 4096];
                let _ = std::io::Read::read(&mut stream, &mut buf);
                std::thread::sleep(Duration::from_secs(15));
            }
        });
        let config = FetchConfig {
            timeout_ms: 300,
            header_timeout_ms: 10_000,
            ..FetchConfig::default()
        };
        let policy = AddressPolicy::new(vec!["127.0.0.0/8".parse().unwrap()], []);
        let fetcher = Fetcher::new(config.clone(), policy);
        let url = Url::parse(&format!("http://{addr}/")).unwrap();
        let started = Instant::now();
        let fetched = fetcher
            .fetch(&url, 1 << 20, &config, &RequestParts::default())
            .await;
        assert!(
            matches!(fetched.result, Err(FetchError::Timeout(300))),
            "{:?}",
            fetched.result
        );
        assert!(started.elapsed() < Duration::from_secs(5));
    }

    #[tokio::test]
    async fn a_field_of_the_request_replaces_the_default_and_head_is_head() {
        let fetcher = Fetcher::new(FetchConfig::default(), AddressPolicy::default());
        let url = Url::parse("http://a.org/api").unwrap();
        let mut parts = RequestParts {
            head: true,
            ..RequestParts::default()
        };
        parts.headers.push((
            http::header::ACCEPT,
            http::HeaderValue::from_static("application/json"),
        ));
        let request = fetcher
            .request(&url, &FetchConfig::default(), &parts, false, false)
            .unwrap();
        assert_eq!(request.method(), http::Method::HEAD);
        let accept: Vec<_> = request.headers().get_all("accept").iter().collect();
        assert_eq!(accept, ["application/json"]);
    }

    #[tokio::test]
    async fn a_proxy_failure_is_noted_once_per_proxy_and_kind() {
        // A port nothing listens on: bind one, then free it.
        let closed = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap();
        let config = FetchConfig {
            proxy: Some(format!("http://{closed}")),
            ..FetchConfig::default()
        };
        let policy = AddressPolicy::new(vec!["127.0.0.0/8".parse().unwrap()], []);
        let fetcher = Fetcher::new(config, policy);
        for path in ["/a", "/b"] {
            let url = Url::parse(&format!("http://127.0.0.1:9{path}")).unwrap();
            let err = fetcher.get(&url, 100).await.result.unwrap_err();
            assert_eq!(err.annotation().to_string(), "err=proxy");
            assert_eq!(err.proxy_note().unwrap().to_string(), "proxy:down");
            assert_eq!(err.status(), trawl_config::status::CONNECT_FAILED);
        }
        let seen = fetcher.proxy_failures();
        assert_eq!(seen.len(), 1, "{seen:?}");
        assert_eq!(seen[0].proxy, format!("http://{closed}"));
        assert_eq!(seen[0].said, "connection refused");
    }

    /// A server on 127.0.0.1 that answers whatever comes with an HTTP/1.1 `400` and closes, as an HTTP/1.1
    /// server answers a TLS ClientHello or an HTTP/2 preface.
    async fn a_plain_http_server() -> std::net::SocketAddr {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(async move {
            while let Ok((mut socket, _)) = listener.accept().await {
                let mut buf = [0u8; 1024];
                let _ = socket.read(&mut buf).await;
                let _ = socket
                    .write_all(b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
                    .await;
            }
        });
        addr
    }

    /// HTTP/2 by prior knowledge (`h2c`) to a server that answers in HTTP/1 is said once per origin as such
    /// (xt46a F11: only `err=broken`, read as "no answer or a 5xx").
    #[tokio::test]
    async fn an_origin_that_does_not_speak_h2c_is_said_once() {
        let addr = a_plain_http_server().await;
        let policy = AddressPolicy::new(vec!["127.0.0.0/8".parse().unwrap()], []);
        let config = FetchConfig {
            h2c: true,
            ..FetchConfig::default()
        };
        let fetcher = Fetcher::new(config, policy);
        for path in ["/a", "/b"] {
            let url = Url::parse(&format!("http://{addr}{path}")).unwrap();
            assert!(fetcher.get(&url, 100).await.result.is_err());
        }
        let seen = fetcher.origin_failures();
        assert_eq!(seen.len(), 1, "{seen:?}");
        assert!(seen[0].contains("does not speak h2c ends it"), "{seen:?}");
    }

    /// A TLS handshake that fails is said once per origin with what it likely means: here an https:// URL of a
    /// port that speaks plain HTTP (xt46a F3: said as a closed port's "no connection could be made").
    #[tokio::test]
    async fn a_failed_tls_handshake_is_said_once_per_origin() {
        let addr = a_plain_http_server().await;
        let policy = AddressPolicy::new(vec!["127.0.0.0/8".parse().unwrap()], []);
        let fetcher = Fetcher::new(FetchConfig::default(), policy);
        for path in ["/a", "/b"] {
            let url = Url::parse(&format!("https://{addr}{path}")).unwrap();
            let err = fetcher.get(&url, 100).await.result.unwrap_err();
            assert_eq!(err.annotation().to_string(), "err=connect");
        }
        let seen = fetcher.origin_failures();
        assert_eq!(seen.len(), 1, "{seen:?}");
        assert!(
            seen[0].starts_with(&format!("https://{addr}: the TLS handshake failed: "))
                && seen[0].ends_with("the port may speak plain HTTP; try the http:// URL)"),
            "{seen:?}"
        );
    }
}
