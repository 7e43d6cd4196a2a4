//! Proxies: a SOCKS5 connection (tokio-socks) or an HTTP `CONNECT` tunnel to the origin's address, resolved
//! and judged by the address policy before. Everything after the tunnel is the origin's exchange, which is
//! what the archive records. The CONNECT handshake is one request and one response head, written here rather
//! than through hyper's upgrade machinery, which would hand back the same stream with more moving parts.

use std::net::SocketAddr;

use tokio::{
    io::{AsyncReadExt, AsyncWriteExt},
    net::TcpStream,
};

use super::{FetchError, Io};
use trawl_config::settings::{Proxy, ProxyKind};

/// The longest `CONNECT` response head read.
const MAX_CONNECT_HEAD: usize = 16 * 1024;

/// Why a proxy gave no tunnel: which proxy, and what it said.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProxyFailure {
    /// The proxy, `http://HOST:PORT` or `socks5://HOST:PORT` (never a user or password).
    pub proxy: String,
    /// The short kind crawl.log carries as `proxy:KIND`: the proxy's status (`407`, `403`), `down` (no
    /// connection to it), `timeout`, `broken` (the handshake broke off or was unreadable), `socks` (the SOCKS5
    /// handshake failed), `config` (the proxy setting is not one).
    pub kind: String,
    /// What it said, for people: its status line without the version (`407 Proxy Authentication
    /// Required`), or the error (`connection refused`).
    pub said: String,
}

impl ProxyFailure {
    fn new(proxy: &Proxy, kind: impl Into<String>, said: impl Into<String>) -> ProxyFailure {
        let scheme = match proxy.kind {
            ProxyKind::Socks5 => "socks5",
            ProxyKind::HttpConnect => "http",
        };
        ProxyFailure {
            proxy: format!("{scheme}://{}", proxy.address),
            kind: kind.into(),
            said: said.into(),
        }
    }

    /// A proxy setting that is not one.
    pub(super) fn config(setting: &str, why: impl Into<String>) -> ProxyFailure {
        ProxyFailure {
            proxy: trawl_config::settings::access::proxy_without_password(setting),
            kind: "config".into(),
            said: why.into(),
        }
    }

    /// No tunnel within the connect timeout.
    pub(super) fn timeout(proxy: &Proxy, ms: u64) -> ProxyFailure {
        ProxyFailure::new(proxy, "timeout", format!("no tunnel within {ms} ms"))
    }
}

impl std::fmt::Display for ProxyFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let ProxyFailure { proxy, kind, said } = self;
        match kind.as_str() {
            "down" => write!(f, "the proxy {proxy} could not be reached: {said}"),
            "config" => write!(f, "the proxy setting {proxy} is not usable: {said}"),
            k if k.bytes().all(|b| b.is_ascii_digit()) => {
                write!(f, "the proxy {proxy} refused the tunnel: {said}")
            }
            _ => write!(f, "the proxy {proxy} gave no tunnel: {said}"),
        }
    }
}

/// An I/O error in a few words (`connection refused`), without the OS error number.
fn io_words(e: &std::io::Error) -> String {
    use std::io::ErrorKind;
    match e.kind() {
        ErrorKind::ConnectionRefused => "connection refused".into(),
        ErrorKind::ConnectionReset => "connection reset".into(),
        ErrorKind::UnexpectedEof => "connection closed".into(),
        ErrorKind::HostUnreachable => "host unreachable".into(),
        ErrorKind::NetworkUnreachable => "network unreachable".into(),
        _ => e.to_string(),
    }
}

/// A stream to `origin` through `proxy`.
pub(super) async fn tunnel(proxy: &Proxy, origin: SocketAddr) -> Result<Box<dyn Io>, FetchError> {
    let failed = |kind: &str, said: String| FetchError::Proxy(ProxyFailure::new(proxy, kind, said));
    let tcp = TcpStream::connect(&proxy.address).await.map_err(|e| {
        if super::descriptors::is_shortage(&e) {
            FetchError::Local(super::descriptors::shortage_words(&e))
        } else {
            failed("down", io_words(&e))
        }
    })?;
    let _ = tcp.set_nodelay(true);
    match proxy.kind {
        ProxyKind::Socks5 => {
            let stream = match &proxy.auth {
                Some((user, pass)) => {
                    tokio_socks::tcp::Socks5Stream::connect_with_password_and_socket(
                        tcp, origin, user, pass,
                    )
                    .await
                }
                None => tokio_socks::tcp::Socks5Stream::connect_with_socket(tcp, origin).await,
            }
            .map_err(|e| failed("socks", e.to_string()))?;
            Ok(Box::new(stream))
        }
        ProxyKind::HttpConnect => connect(tcp, origin, proxy.auth.as_ref())
            .await
            .map(|s| Box::new(s) as Box<dyn Io>)
            .map_err(|(kind, said)| failed(&kind, said)),
    }
}

/// Asks an HTTP proxy for a tunnel to `origin`, with `auth`'s user and password as Basic credentials (RFC
/// 7617: corporate and institutional proxies ask for them with a 407); the stream is the tunnel once it
/// answers 2xx. A failure is its kind and words (see [`ProxyFailure`]).
async fn connect(
    mut tcp: TcpStream,
    origin: SocketAddr,
    auth: Option<&(String, String)>,
) -> Result<TcpStream, (String, String)> {
    let broken =
        |what: &str, e: &std::io::Error| ("broken".to_string(), format!("{what}: {}", io_words(e)));
    let credentials = auth.map_or(String::new(), |(user, password)| {
        let token = data_encoding::BASE64.encode(format!("{user}:{password}").as_bytes());
        format!("Proxy-Authorization: Basic {token}\r\n")
    });
    let request = format!("CONNECT {origin} HTTP/1.1\r\nHost: {origin}\r\n{credentials}\r\n");
    tcp.write_all(request.as_bytes())
        .await
        .map_err(|e| broken("sending CONNECT", &e))?;
    // Read byte by byte up to the blank line: nothing of the tunnel may be consumed here.
    let mut head = Vec::new();
    while !head.ends_with(b"\r\n\r\n") {
        if head.len() >= MAX_CONNECT_HEAD {
            return Err(("broken".into(), "CONNECT response head too long".into()));
        }
        let b = tcp
            .read_u8()
            .await
            .map_err(|e| broken("reading the CONNECT response", &e))?;
        head.push(b);
    }
    // The status is the second word of the first line (`HTTP/1.1 200 Connection established`).
    let line = String::from_utf8_lossy(head.split(|&b| b == b'\r').next().unwrap_or_default())
        .into_owned();
    let status = line
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse::<u16>().ok());
    match status {
        Some(s) if (200..300).contains(&s) => Ok(tcp),
        Some(s) => {
            // `407 Proxy Authentication Required`: the line after its version, cut to a sane length.
            let said: String = line
                .split_once(' ')
                .map_or(line.as_str(), |(_, rest)| rest)
                .trim()
                .chars()
                .filter(|c| !c.is_control())
                .take(120)
                .collect();
            Err((s.to_string(), said))
        }
        None => Err((
            "broken".into(),
            format!(
                "not an HTTP status line: {:?}",
                line.chars().take(80).collect::<String>()
            ),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::net::TcpListener;

    /// A proxy on 127.0.0.1 answering every CONNECT with `answer`.
    async fn answering(answer: &'static [u8]) -> String {
        answering_by(move |_| answer).await
    }

    /// A proxy on 127.0.0.1 answering each CONNECT with what `answer` gives for its head.
    async fn answering_by(
        answer: impl Fn(&[u8]) -> &'static [u8] + Copy + Send + 'static,
    ) -> String {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap().to_string();
        tokio::spawn(async move {
            while let Ok((mut c, _)) = listener.accept().await {
                tokio::spawn(async move {
                    let mut head = Vec::new();
                    while !head.ends_with(b"\r\n\r\n") {
                        head.push(c.read_u8().await?);
                    }
                    c.write_all(answer(&head)).await?;
                    Ok::<_, std::io::Error>(())
                });
            }
        });
        addr
    }

    /// A proxy on 127.0.0.1 that opens a tunnel (to nothing) only for `user:pass`'s Basic credentials.
    async fn asking_for_credentials() -> String {
        answering_by(|head| {
            let right = String::from_utf8_lossy(head)
                .contains("\r\nProxy-Authorization: Basic dXNlcjpwYXNz\r\n");
            if right {
                b"HTTP/1.1 200 Connection established\r\n\r\n"
            } else {
                b"HTTP/1.1 407 Proxy Authentication Required\r\n\r\n"
            }
        })
        .await
    }

    /// An HTTP proxy's user and password go as Basic credentials on the CONNECT (xt46a F8: only SOCKS5 took
    /// them, and a proxy asking for them could not be used).
    #[tokio::test]
    async fn an_http_proxy_gets_its_credentials() {
        let address = asking_for_credentials().await;
        let origin: SocketAddr = "127.0.0.1:9".parse().unwrap();
        let with = Proxy {
            auth: Some(("user".into(), "pass".into())),
            ..http_proxy(address.clone())
        };
        assert!(tunnel(&with, origin).await.is_ok());
        assert_eq!(failure(&http_proxy(address)).await.kind, "407");
    }

    fn http_proxy(address: String) -> Proxy {
        Proxy {
            kind: ProxyKind::HttpConnect,
            address,
            auth: None,
        }
    }

    async fn failure(proxy: &Proxy) -> ProxyFailure {
        let origin: SocketAddr = "127.0.0.1:9".parse().unwrap();
        match tunnel(proxy, origin).await {
            Err(FetchError::Proxy(f)) => f,
            Err(e) => panic!("not a proxy failure: {e}"),
            Ok(_) => panic!("a tunnel"),
        }
    }

    #[tokio::test]
    async fn each_proxy_failure_says_what_the_proxy_said() {
        let auth = http_proxy(
            answering(
                b"HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic\r\n\r\n",
            )
            .await,
        );
        let f = failure(&auth).await;
        assert_eq!(
            (f.kind.as_str(), f.said.as_str()),
            ("407", "407 Proxy Authentication Required")
        );
        assert_eq!(
            f.to_string(),
            format!(
                "the proxy http://{} refused the tunnel: 407 Proxy Authentication Required",
                auth.address
            )
        );
        let forbidden = http_proxy(answering(b"HTTP/1.0 403 Forbidden\r\n\r\n").await);
        let f = failure(&forbidden).await;
        assert_eq!((f.kind.as_str(), f.said.as_str()), ("403", "403 Forbidden"));
        let garbled = http_proxy(answering(b"SSH-2.0-OpenSSH\r\n\r\n").await);
        assert_eq!(failure(&garbled).await.kind, "broken");
        // A port nothing listens on: bind one, then free it.
        let closed = {
            let l = TcpListener::bind("127.0.0.1:0").await.unwrap();
            l.local_addr().unwrap().to_string()
        };
        let f = failure(&http_proxy(closed.clone())).await;
        assert_eq!(
            (f.kind.as_str(), f.said.as_str()),
            ("down", "connection refused")
        );
        assert_eq!(
            f.to_string(),
            format!("the proxy http://{closed} could not be reached: connection refused")
        );
    }
}
