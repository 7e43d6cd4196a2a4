//! A hostile HTTP/1.x server on raw tokio sockets: every scenario writes exact bytes (malformed framing, endless
//! trickles, bombs, traps), so the crawler under test meets what a plain HTTP library would refuse to send.
//!
//! Each connection is served in its own task and closed after one response. Big bodies are generated as
//! streams; only the ~200 KB gzip bomb is held in memory (built once).

use std::{
    io::Write,
    net::SocketAddr,
    sync::{
        Arc, Mutex, OnceLock, PoisonError,
        atomic::{AtomicU64, Ordering},
    },
    time::Duration,
};

use flate2::{Compression, write::GzEncoder};
use tokio::{
    io::{AsyncReadExt, AsyncWriteExt},
    net::{TcpListener, TcpStream},
};

/// Every scenario path the seed page links to (the traps by their first page).
pub(crate) const SCENARIOS: &[&str] = &[
    // time
    "/trickle",
    "/slow-head",
    // size
    "/huge-head",
    "/big-head",
    "/many-headers",
    "/big-body",
    "/big-chunked",
    // bombs
    "/gzip-bomb",
    "/nested-bomb",
    "/br-body",
    // framing
    "/dup-cl",
    "/cl-and-chunked",
    "/bad-chunk-size",
    "/no-final-chunk",
    "/lf-chunks",
    "/http09",
    "/garbage-status",
    "/obs-fold",
    "/nul-header",
    "/obs-text-header",
    "/lf-only",
    "/flood-1xx",
    "/endless-1xx",
    "/junk-after-body",
    "/204-tail",
    "/reset-mid-head",
    "/reset-mid-body",
    // content
    "/links-100k",
    "/mega-attr",
    "/deep-nesting",
    "/binary-as-html",
    "/html-as-binary",
    "/unclosed-script",
    "/long-redirect",
    "/lying-charset",
    // traps
    "/session/",
    "/grow/a/",
    "/mr?n=0",
    "/deep/1",
    // robots.txt
    "/forbidden",
];

/// Which of the two servers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Role {
    /// The main hostile site (the seed).
    Main {
        /// The second server's port, embedded from the seed page.
        other: u16,
    },
    /// The second site: a robots.txt that redirects seven times, and one page.
    Redirecting,
    /// Header fields as browsers read them: redirects with non-ASCII `Location` bytes, repeated
    /// `Content-Type` and `Content-Encoding` lines.
    Fields,
}

/// A running server and the request targets it has seen.
#[derive(Debug, Clone)]
pub(crate) struct Server {
    /// Where it listens.
    pub(crate) addr: SocketAddr,
    requests: Arc<Mutex<Vec<String>>>,
    open: Arc<AtomicU64>,
}

impl Server {
    /// The request targets received so far (path and query), in order of arrival.
    pub(crate) fn requests(&self) -> Vec<String> {
        self.requests
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// Connections whose handler is still running.
    pub(crate) fn open_connections(&self) -> u64 {
        self.open.load(Ordering::SeqCst)
    }

    /// `http://127.0.0.1:PORT` + `path`.
    pub(crate) fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }
}

/// Starts the second server (robots.txt redirecting 7 times, and `/page`).
pub(crate) async fn start_redirecting() -> Server {
    start(Role::Redirecting).await
}

/// Starts the server of odd header fields ([`fields_site`]).
pub(crate) async fn start_fields() -> Server {
    start(Role::Fields).await
}

/// Starts the main hostile server, whose seed page embeds `other`'s `/page`.
pub(crate) async fn start_main(other: u16) -> Server {
    start(Role::Main { other }).await
}

async fn start(role: Role) -> Server {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let server = Server {
        addr: listener.local_addr().unwrap(),
        requests: Arc::default(),
        open: Arc::default(),
    };
    let s = server.clone();
    tokio::spawn(async move {
        loop {
            let Ok((sock, _)) = listener.accept().await else {
                return;
            };
            let s = s.clone();
            tokio::spawn(async move {
                s.open.fetch_add(1, Ordering::SeqCst);
                let _ = serve(&s, role, sock).await;
                s.open.fetch_sub(1, Ordering::SeqCst);
            });
        }
    });
    server
}

type Io = std::io::Result<()>;

/// Reads one request head and answers it; the connection is then closed.
async fn serve(s: &Server, role: Role, mut sock: TcpStream) -> Io {
    let _ = sock.set_nodelay(true);
    let mut buf = Vec::new();
    let mut chunk = [0u8; 4096];
    while !buf.windows(4).any(|w| w == b"\r\n\r\n") {
        let n = sock.read(&mut chunk).await?;
        if n == 0 || buf.len() > 64 << 10 {
            return Ok(());
        }
        buf.extend_from_slice(&chunk[..n]);
    }
    let line = String::from_utf8_lossy(&buf[..buf.iter().position(|&b| b == b'\r').unwrap_or(0)])
        .to_string();
    let target = line.split_whitespace().nth(1).unwrap_or("/").to_string();
    s.requests
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .push(target.clone());
    match role {
        Role::Main { other } => main_site(&mut sock, &target, other).await?,
        Role::Redirecting => redirecting_site(&mut sock, &target).await?,
        Role::Fields => fields_site(&mut sock, &target).await?,
    }
    sock.flush().await?;
    let _ = sock.shutdown().await;
    Ok(())
}

/// A complete response with `Content-Length` and `Connection: close`.
fn response(status: &str, content_type: &str, extra: &str, body: &[u8]) -> Vec<u8> {
    let mut out = format!(
        "HTTP/1.1 {status}\r\nContent-Type: {content_type}\r\n{extra}Content-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    )
    .into_bytes();
    out.extend_from_slice(body);
    out
}

fn html(body: &str) -> Vec<u8> {
    response("200 OK", "text/html", "", body.as_bytes())
}

/// Writes `total` bytes produced by `block(i)` (a 64 KiB block each), stopping when the peer is gone.
async fn stream(sock: &mut TcpStream, total: u64, mut block: impl FnMut(u64) -> Vec<u8>) -> Io {
    let mut sent = 0u64;
    let mut i = 0;
    while sent < total {
        let mut b = block(i);
        b.truncate((total - sent).min(b.len() as u64) as usize);
        sock.write_all(&b).await?;
        sent += b.len() as u64;
        i += 1;
    }
    Ok(())
}

/// Writes `bytes` one at a time, `every` apart (at most `limit` bytes), stopping when the peer is gone.
async fn trickle(
    sock: &mut TcpStream,
    bytes: impl Iterator<Item = u8>,
    every: Duration,
    limit: usize,
) -> Io {
    for b in bytes.take(limit) {
        sock.write_all(&[b]).await?;
        tokio::time::sleep(every).await;
    }
    Ok(())
}

/// A cheap deterministic generator (xorshift64*), seeded per call site or per request.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn bytes(&mut self, n: usize) -> Vec<u8> {
        (0..n).map(|_| self.next() as u8).collect()
    }

    fn hex32(&mut self) -> String {
        format!("{:016x}{:016x}", self.next(), self.next())
    }
}

static SESSION_SEED: AtomicU64 = AtomicU64::new(0x9e37_79b9_7f4a_7c15);

/// A gzip of 200 MB of spaces (about 200 KB), compressed once by streaming the encoder.
pub(crate) fn gzip_bomb() -> &'static [u8] {
    static BOMB: OnceLock<Vec<u8>> = OnceLock::new();
    BOMB.get_or_init(|| {
        let mut enc = GzEncoder::new(Vec::new(), Compression::best());
        let block = vec![b' '; 1 << 20];
        for _ in 0..200 {
            enc.write_all(&block).unwrap();
        }
        enc.finish().unwrap()
    })
}

/// The bomb gzipped once more, served as `Content-Encoding: gzip, gzip`.
fn nested_bomb() -> &'static [u8] {
    static NESTED: OnceLock<Vec<u8>> = OnceLock::new();
    NESTED.get_or_init(|| {
        let mut enc = GzEncoder::new(Vec::new(), Compression::best());
        enc.write_all(gzip_bomb()).unwrap();
        enc.finish().unwrap()
    })
}

async fn main_site(sock: &mut TcpStream, target: &str, other: u16) -> Io {
    let (path, query) = target.split_once('?').unwrap_or((target, ""));
    let ok_head = |ct: &str, len: u64| {
        format!(
            "HTTP/1.1 200 OK\r\nContent-Type: {ct}\r\nContent-Length: {len}\r\nConnection: close\r\n\r\n"
        )
    };
    match path {
        "/" => {
            let mut page = String::from("<html><body>\n");
            for p in SCENARIOS {
                page.push_str(&format!("<a href=\"{p}\">{p}</a>\n"));
            }
            page.push_str(&format!(
                "<img src=http://127.0.0.1:{other}/page>\n</body></html>\n"
            ));
            sock.write_all(&html(&page)).await
        }
        "/robots.txt" => {
            // 20 MB: the rule first, then comment lines, an `Allow: /forbidden-not` line that the size
            // limit (512 KiB) cuts right after `Allow: /forbidden` (read whole, it would allow the
            // forbidden page), then more comment lines.
            let rule = b"User-agent: *\nDisallow: /forbidden\n";
            let (allow, cut_at) = (b"Allow: /forbidden-not\n", b"Allow: /forbidden".len());
            let mut head = rule.to_vec();
            let mut pad = (512usize << 10) - rule.len() - cut_at;
            while pad > 0 {
                let n = pad.min(64);
                head.extend(std::iter::repeat_n(b'#', n - 1));
                head.push(b'\n');
                pad -= n;
            }
            head.extend_from_slice(allow);
            let filler = 20u64 << 20;
            sock.write_all(ok_head("text/plain", head.len() as u64 + filler).as_bytes())
                .await?;
            sock.write_all(&head).await?;
            let line = b"# this robots.txt goes on and on and on and on and on and on..\n";
            let block: Vec<u8> = line.iter().copied().cycle().take(64 << 10).collect();
            stream(sock, filler, |_| block.clone()).await
        }
        "/trickle" => {
            sock.write_all(ok_head("text/html", 100_000).as_bytes())
                .await?;
            trickle(
                sock,
                std::iter::repeat(b'x'),
                Duration::from_millis(300),
                1000,
            )
            .await
        }
        "/slow-head" => {
            let head = b"HTTP/1.1 200 OK\r\nX-Slow: ".iter().copied();
            trickle(
                sock,
                head.chain(std::iter::repeat(b'a')),
                Duration::from_millis(200),
                1000,
            )
            .await
        }
        "/huge-head" => {
            sock.write_all(b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n")
                .await?;
            let value = "v".repeat(4000);
            for i in 0..50 {
                sock.write_all(format!("X-Huge-{i}: {value}\r\n").as_bytes())
                    .await?;
            }
            sock.write_all(b"Content-Length: 2\r\nConnection: close\r\n\r\nok")
                .await
        }
        "/big-head" => {
            // 70 KB: over the 64 KiB limit, under what hyper's read buffer lets through by itself.
            let mut head = String::from("HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n");
            for i in 0..14 {
                head.push_str(&format!("X-Big-{i}: {}\r\n", "v".repeat(5000)));
            }
            head.push_str("Content-Length: 2\r\nConnection: close\r\n\r\nok");
            sock.write_all(head.as_bytes()).await
        }
        "/many-headers" => {
            let mut head = String::from("HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n");
            for i in 0..2000 {
                head.push_str(&format!("X-H{i}: {i}\r\n"));
            }
            head.push_str("Content-Length: 2\r\nConnection: close\r\n\r\nok");
            sock.write_all(head.as_bytes()).await
        }
        "/big-body" => {
            let total = 3u64 << 20;
            sock.write_all(ok_head("text/plain", total).as_bytes())
                .await?;
            let block = vec![b'b'; 64 << 10];
            stream(sock, total, |_| block.clone()).await
        }
        "/big-chunked" => {
            // 3 MB in chunks of 3,000 bytes: the 1 MiB limit falls inside a chunk.
            sock.write_all(
                b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked\r\n\
                  Connection: close\r\n\r\n",
            )
            .await?;
            let chunk = [b"bb8\r\n".as_slice(), &[b'c'; 3000], b"\r\n"].concat();
            for _ in 0..1000 {
                sock.write_all(&chunk).await?;
            }
            sock.write_all(b"0\r\n\r\n").await
        }
        "/gzip-bomb" => {
            sock.write_all(&response(
                "200 OK",
                "text/html",
                "Content-Encoding: gzip\r\n",
                gzip_bomb(),
            ))
            .await
        }
        "/nested-bomb" => {
            sock.write_all(&response(
                "200 OK",
                "text/html",
                "Content-Encoding: gzip, gzip\r\n",
                nested_bomb(),
            ))
            .await
        }
        "/br-body" => {
            let mut body = b"this is not brotli \xff\xfe\x00".to_vec();
            body.extend(Rng(7).bytes(4096));
            sock.write_all(&response(
                "200 OK",
                "text/html",
                "Content-Encoding: br\r\n",
                &body,
            ))
            .await
        }
        "/dup-cl" => {
            sock.write_all(
                b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: 5\r\nContent-Length: 11\r\n\
                  Connection: close\r\n\r\nhello world",
            )
            .await
        }
        "/cl-and-chunked" => {
            sock.write_all(
                b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: 100\r\n\
                  Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n\
                  5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n",
            )
            .await
        }
        "/bad-chunk-size" => {
            sock.write_all(
                b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nTransfer-Encoding: chunked\r\n\
                  Connection: close\r\n\r\nzz\r\nhello\r\n0\r\n\r\n",
            )
            .await
        }
        "/no-final-chunk" => {
            sock.write_all(
                b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nTransfer-Encoding: chunked\r\n\
                  Connection: close\r\n\r\n5\r\nhello\r\n6\r\n world\r\n",
            )
            .await
        }
        "/lf-chunks" => {
            sock.write_all(
                b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nTransfer-Encoding: chunked\r\n\
                  Connection: close\r\n\r\n5\nhello\n6\n world\n0\n\n",
            )
            .await
        }
        "/http09" => {
            sock.write_all(b"<html><body>no status line <a href=/from-http09>x</a></body></html>\n")
                .await
        }
        "/garbage-status" => {
            sock.write_all(
                b"HTTP/1.1 abc OK\r\nContent-Type: text/html\r\nContent-Length: 2\r\n\
                  Connection: close\r\n\r\nhi",
            )
            .await
        }
        "/obs-fold" => {
            sock.write_all(
                b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nX-Folded: part one\r\n   part two\r\n\
                  \tpart three\r\nContent-Length: 9\r\nConnection: close\r\n\r\n<p>ok</p>",
            )
            .await
        }
        "/nul-header" => {
            sock.write_all(
                b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nX-Nul: a\x00b\xff\xfe\xffc\r\n\
                  Content-Length: 9\r\nConnection: close\r\n\r\n<p>ok</p>",
            )
            .await
        }
        "/obs-text-header" => {
            sock.write_all(
                b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nX-Latin: caf\xe9 \xff\xfe\xff\r\n\
                  Content-Length: 9\r\nConnection: close\r\n\r\n<p>ok</p>",
            )
            .await
        }
        "/lf-only" => {
            sock.write_all(
                b"HTTP/1.1 200 OK\nContent-Type: text/html\nContent-Length: 37\nConnection: close\n\n\
                  <html><a href=/from-lf>x</a></html>\n\n",
            )
            .await
        }
        "/flood-1xx" => {
            let mut out = b"HTTP/1.1 100 Continue\r\n\r\n".repeat(500);
            out.extend(html("<p>finally</p>"));
            sock.write_all(&out).await
        }
        "/endless-1xx" => {
            // Interim heads without end (hyper drops them and reads on): up to 64 MB, or until the
            // crawler hangs up.
            stream(sock, 64 << 20, |_| b"HTTP/1.1 100 Continue\r\n\r\n".repeat(2621)).await
        }
        "/junk-after-body" => {
            let mut out = html("<p>the body</p>");
            out.extend_from_slice(b"JUNK AFTER THE MESSAGE");
            sock.write_all(&out).await
        }
        "/204-tail" => {
            sock.write_all(b"HTTP/1.1 204 No Content\r\nConnection: close\r\n\r\na body a 204 has not")
                .await
        }
        "/reset-mid-head" => {
            sock.write_all(b"HTTP/1.1 200 OK\r\nContent-Type: text/ht")
                .await
        }
        "/reset-mid-body" => {
            sock.write_all(ok_head("text/html", 1000).as_bytes())
                .await?;
            sock.write_all(b"<p>0123456").await
        }
        "/links-100k" => {
            // 100,000 distinct links to another host (out of scope, so none is fetched).
            let total_links = 100_000u64;
            let link = |n: u64| format!("<a href=http://links.invalid/{n:06}>x</a>\n");
            let len = 12 + total_links * link(0).len() as u64;
            sock.write_all(ok_head("text/html", len).as_bytes()).await?;
            sock.write_all(b"<html><body>").await?;
            let per_block = 1000;
            stream(sock, len - 12, |i| {
                (i * per_block..(i + 1) * per_block)
                    .map(link)
                    .collect::<String>()
                    .into_bytes()
            })
            .await
        }
        "/mega-attr" => {
            let pre = b"<html><body><a title=\"";
            let post = b"\" href=/after-mega>x</a></body></html>";
            let attr = 5u64 << 20;
            sock.write_all(
                ok_head("text/html", pre.len() as u64 + attr + post.len() as u64).as_bytes(),
            )
            .await?;
            sock.write_all(pre).await?;
            let block = vec![b'm'; 64 << 10];
            stream(sock, attr, |_| block.clone()).await?;
            sock.write_all(post).await
        }
        "/deep-nesting" => {
            let mut page = String::from("<html><body>");
            page.push_str(&"<div>".repeat(100_000));
            page.push_str("<a href=/deep-nesting-link>x</a></body></html>");
            sock.write_all(&html(&page)).await
        }
        "/binary-as-html" => {
            sock.write_all(&response(
                "200 OK",
                "text/html",
                "",
                &Rng(42).bytes(256 << 10),
            ))
            .await
        }
        "/html-as-binary" => {
            sock.write_all(&response(
                "200 OK",
                "application/octet-stream",
                "",
                b"<html><body><a href=/from-octet-stream>x</a></body></html>",
            ))
            .await
        }
        "/long-redirect" => {
            // A Location of 10,000 bytes: past the 8,192 bytes a link may have.
            let target = format!("/long/{}", "l".repeat(10_000));
            sock.write_all(&response(
                "301 Moved Permanently",
                "text/html",
                &format!("Location: {target}\r\n"),
                b"",
            ))
            .await
        }
        "/unclosed-script" => {
            sock.write_all(&html(
                "<html><body><script>var a = 1; // never closed\n<a href=/after-script>after</a>\n",
            ))
            .await
        }
        "/lying-charset" => {
            sock.write_all(&response(
                "200 OK",
                "text/html; charset=utf-16",
                "",
                b"<html><body>caf\xe9 na\xefve d\xe9j\xe0 vu <a href=/after-charset>x</a></body></html>",
            ))
            .await
        }
        "/session/" | "/session/page" => {
            let mut rng = Rng(SESSION_SEED.fetch_add(0x1234_5678_9abc_def1, Ordering::SeqCst));
            let page = format!(
                "<html><body><a href=\"/session/page?jsessionid={}\">more</a></body></html>",
                rng.hex32()
            );
            sock.write_all(&html(&page)).await
        }
        p if p.starts_with("/grow/") => {
            let next = format!("{p}a/");
            sock.write_all(&html(&format!("<a href=\"{next}\">grow</a>")))
                .await
        }
        "/mr" => {
            let n: u64 = query
                .strip_prefix("n=")
                .and_then(|n| n.parse().ok())
                .unwrap_or(0);
            let page = format!(
                "<html><head><meta http-equiv=refresh content=\"0; url=/mr?n={}\"></head></html>",
                n + 1
            );
            sock.write_all(&html(&page)).await
        }
        p if p.starts_with("/deep/") => {
            let depth = p.split('/').filter(|s| !s.is_empty()).count();
            let page = format!("<a href=\"{p}/{depth}\">deeper</a>");
            sock.write_all(&html(&page)).await
        }
        _ => {
            sock.write_all(&response("404 Not Found", "text/html", "", b"not here"))
                .await
        }
    }
}

async fn redirecting_site(sock: &mut TcpStream, target: &str) -> Io {
    let redirect = |to: &str| {
        format!(
            "HTTP/1.1 301 Moved Permanently\r\nLocation: {to}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
        )
        .into_bytes()
    };
    let out = match target {
        "/robots.txt" => redirect("/r1"),
        "/page" => html("<html><body>page on the second server</body></html>"),
        r => match r.strip_prefix("/r").and_then(|n| n.parse::<u32>().ok()) {
            Some(n) if n < 7 => redirect(&format!("/r{}", n + 1)),
            // Reached only if all seven redirects were followed: then the page would be forbidden.
            Some(_) => response("200 OK", "text/plain", "", b"User-agent: *\nDisallow: /\n"),
            None => response("404 Not Found", "text/html", "", b"not here"),
        },
    };
    sock.write_all(&out).await
}

/// `data` as a brotli stream of one uncompressed meta-block (RFC 7932 §9.2; up to 64 KiB), then an empty last
/// one: brotli that needs no encoder.
fn brotli(data: &[u8]) -> Vec<u8> {
    // WBITS `0` (16), ISLAST 0, MNIBBLES 0 (four), MLEN - 1 in 16 bits, ISUNCOMPRESSED 1; padded.
    let head = ((data.len() as u32 - 1) << 4) | (1 << 20);
    let mut out = head.to_le_bytes()[..3].to_vec();
    out.extend_from_slice(data);
    out.push(0b11); // ISLAST, ISLASTEMPTY
    out
}

/// Redirects whose `Location` holds raw UTF-8 and latin-1 bytes (robots.txt's too, to a file that forbids
/// `/private`), a page sent as `text/plain` then `text/html`, and one coded `gzip` then `br` on two lines.
/// Each page links to a leaf of its own.
async fn fields_site(sock: &mut TcpStream, target: &str) -> Io {
    let redirect = |to: &[u8]| {
        let mut out = b"HTTP/1.1 302 Found\r\nLocation: ".to_vec();
        out.extend_from_slice(to);
        out.extend_from_slice(b"\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
        out
    };
    let out = match target {
        "/robots.txt" => redirect(b"/robots-\xe9.txt"),
        "/robots-%E9.txt" => response(
            "200 OK",
            "text/plain",
            "",
            b"User-agent: *\nDisallow: /private\n",
        ),
        "/" => html(
            "<a href=/utf8>utf8</a> <a href=/latin1>latin1</a> <a href=/two-types>types</a> \
             <a href=/two-codings>codings</a> <a href=/private>private</a> \
             <a href=/unknown-coding>unknown</a> <a href=/wrong-coding>wrong</a> \
             <a href=/header-links>header links</a>",
        ),
        // A page whose way on is its head: a `Refresh` field, and `Link` preloads.
        "/header-links" => response(
            "200 OK",
            "text/html",
            "Refresh: 0; url=/refreshed\r\nLink: </linked.css>; rel=preload; as=style, </next-page>; rel=next\r\n",
            b"please wait",
        ),
        // A coding no one knows, and plain HTML labelled gzip: read as they came.
        "/unknown-coding" => response(
            "200 OK",
            "text/html",
            "Content-Encoding: x-custom\r\n",
            b"<a href=/unknown-leaf>leaf</a>",
        ),
        "/wrong-coding" => response(
            "200 OK",
            "text/html",
            "Content-Encoding: gzip\r\n",
            b"<a href=/wrong-leaf>leaf</a>",
        ),
        "/utf8" => redirect("/leaf/café-€".as_bytes()),
        "/latin1" => redirect(b"/leaf/caf\xe9"),
        "/two-types" => response(
            "200 OK",
            "text/plain",
            "Content-Type: text/html\r\n",
            b"<a href=/typed-leaf>leaf</a>",
        ),
        "/two-codings" => {
            let mut gz = GzEncoder::new(Vec::new(), Compression::fast());
            gz.write_all(b"<a href=/coded-leaf>leaf</a>")?;
            let body = brotli(&gz.finish()?);
            response(
                "200 OK",
                "text/html",
                "Content-Encoding: gzip\r\nContent-Encoding: br\r\n",
                &body,
            )
        }
        "/leaf/caf%C3%A9-%E2%82%AC"
        | "/leaf/caf%E9"
        | "/typed-leaf"
        | "/coded-leaf"
        | "/unknown-leaf"
        | "/wrong-leaf"
        | "/refreshed"
        | "/linked.css" => html("leaf"),
        _ => response("404 Not Found", "text/html", "", b"not here"),
    };
    sock.write_all(&out).await
}
