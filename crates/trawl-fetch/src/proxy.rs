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

/// A stream to `origin` through `proxy`.
pub(super) async fn tunnel(proxy: &Proxy, origin: SocketAddr) -> Result<Box<dyn Io>, FetchError> {
    let failed = |what: &str, e: &dyn std::fmt::Display| {
        FetchError::Proxy(format!("{what} {}: {e}", proxy.address))
    };
    let tcp = TcpStream::connect(&proxy.address)
        .await
        .map_err(|e| failed("cannot connect to", &e))?;
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
            .map_err(|e| failed("SOCKS5 proxy", &e))?;
            Ok(Box::new(stream))
        }
        ProxyKind::HttpConnect => connect(tcp, origin)
            .await
            .map(|s| Box::new(s) as Box<dyn Io>),
    }
}

/// Asks an HTTP proxy for a tunnel to `origin`; the stream is the tunnel once it answers 2xx.
async fn connect(mut tcp: TcpStream, origin: SocketAddr) -> Result<TcpStream, FetchError> {
    let request = format!("CONNECT {origin} HTTP/1.1\r\nHost: {origin}\r\n\r\n");
    tcp.write_all(request.as_bytes())
        .await
        .map_err(|e| FetchError::Proxy(format!("sending CONNECT: {e}")))?;
    // Read byte by byte up to the blank line: nothing of the tunnel may be consumed here.
    let mut head = Vec::new();
    while !head.ends_with(b"\r\n\r\n") {
        if head.len() >= MAX_CONNECT_HEAD {
            return Err(FetchError::Proxy("CONNECT response head too long".into()));
        }
        let b = tcp
            .read_u8()
            .await
            .map_err(|e| FetchError::Proxy(format!("reading the CONNECT response: {e}")))?;
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
        _ => Err(FetchError::Proxy(format!(
            "CONNECT {origin} refused: {line}"
        ))),
    }
}
