//! The self-test site: one small page per crawler scenario, served on 127.0.0.1 only.
//!
//! The main site listens on `127.0.0.1:PORT`; a second "offsite" server on `127.0.0.2` (or, if that
//! address cannot be bound, another port of `localhost`) stands for the rest of the web, which the
//! crawl must not leave its seed's host for. Both servers count every request they receive.

use std::collections::HashMap;
use std::convert::Infallible;
use std::io::Write as _;
use std::net::{Ipv4Addr, SocketAddr};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::extract::State;
use axum::http::header::{CONTENT_ENCODING, CONTENT_TYPE, LOCATION};
use axum::http::{StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use tokio::net::TcpListener;
use tokio::sync::watch;
use tokio::task::JoinHandle;

/// How long `/slow` waits before answering (the self-test timeout is far shorter).
pub const SLOW_DELAY: Duration = Duration::from_secs(10);
/// The exact size of `/big`, sent with a `Content-Length`.
pub const BIG_BYTES: usize = 2 << 20;
/// The request path the non-ASCII link on `/legacy-charset` must become: `/charset/привет`,
/// decoded from windows-1251 and percent-encoded as UTF-8.
pub const CHARSET_UTF8_PATH: &str = "/charset/%D0%BF%D1%80%D0%B8%D0%B2%D0%B5%D1%82";
/// The first month of the calendar trap; it has no earlier months, only later ones, forever.
pub const CALENDAR_START: (u32, u32) = (2026, 1);

const HTML: &str = "text/html; charset=utf-8";
/// A 1x1 transparent PNG.
const PNG: &[u8] = &[
    0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0x00, 0x00, 0x00, 0x0D, 0x49, 0x48, 0x44, 0x52,
    0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x06, 0x00, 0x00, 0x00, 0x1F, 0x15, 0xC4,
    0x89, 0x00, 0x00, 0x00, 0x0A, 0x49, 0x44, 0x41, 0x54, 0x78, 0x9C, 0x63, 0x00, 0x01, 0x00, 0x00,
    0x05, 0x00, 0x01, 0x0D, 0x0A, 0x2D, 0xB4, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45, 0x4E, 0x44, 0xAE,
    0x42, 0x60, 0x82,
];

type Hits = Arc<Mutex<HashMap<String, usize>>>;

/// The running test site. Dropping it (or calling [`Site::shutdown`]) stops both servers.
#[derive(Debug)]
pub struct Site {
    /// The main site's address (always on 127.0.0.1).
    pub addr: SocketAddr,
    /// The offsite server's address (127.0.0.2, or 127.0.0.1 when 127.0.0.2 is unavailable).
    pub offsite_addr: SocketAddr,
    offsite_url: String,
    hits: Hits,
    stop: watch::Sender<bool>,
    tasks: Vec<JoinHandle<()>>,
}

/// What every handler shares.
#[derive(Clone)]
struct Shared {
    hits: Hits,
    offsite_url: String,
    /// `http://127.0.0.1:PORT`, for the sitemaps' absolute URLs.
    origin: String,
    stop: watch::Receiver<bool>,
}

/// Starts the main site on `127.0.0.1:0` and the offsite server on `127.0.0.2:0`.
pub async fn start() -> std::io::Result<Site> {
    let main = TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).await?;
    let (offsite, offsite_host) = match TcpListener::bind((Ipv4Addr::new(127, 0, 0, 2), 0)).await {
        Ok(l) => (l, "127.0.0.2"),
        Err(_) => (
            TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).await?,
            "localhost",
        ),
    };
    let (addr, offsite_addr) = (main.local_addr()?, offsite.local_addr()?);
    let offsite_url = format!("http://{offsite_host}:{}/offsite-page", offsite_addr.port());
    let (stop, stop_rx) = watch::channel(false);
    let shared = Shared {
        hits: Hits::default(),
        offsite_url: offsite_url.clone(),
        origin: format!("http://{addr}"),
        stop: stop_rx,
    };
    let tasks = vec![
        serve(
            main,
            Router::new().fallback(main_site).with_state(shared.clone()),
            &shared,
        ),
        serve(
            offsite,
            Router::new()
                .fallback(offsite_site)
                .with_state(shared.clone()),
            &shared,
        ),
    ];
    Ok(Site {
        addr,
        offsite_addr,
        offsite_url,
        hits: shared.hits,
        stop,
        tasks,
    })
}

impl Site {
    /// The crawl's seed: `http://127.0.0.1:PORT/`.
    pub fn seed(&self) -> String {
        format!("http://{}/", self.addr)
    }

    /// The absolute URL of `path_and_query` on the main site.
    pub fn url(&self, path_and_query: &str) -> String {
        format!("http://{}{path_and_query}", self.addr)
    }

    /// The offsite page the home page links to.
    pub fn offsite_url(&self) -> &str {
        &self.offsite_url
    }

    /// Requests received for exactly this path and query (as sent, percent-encoding kept);
    /// offsite requests are counted under `"offsite:" + path`.
    pub fn hits(&self, path_and_query: &str) -> usize {
        self.hits
            .lock()
            .unwrap()
            .get(path_and_query)
            .copied()
            .unwrap_or(0)
    }

    /// Requests received for every path starting with `prefix` (e.g. `"/calendar/"`, `"offsite:"`).
    pub fn hits_under(&self, prefix: &str) -> usize {
        let hits = self.hits.lock().unwrap();
        hits.iter()
            .filter(|(k, _)| k.starts_with(prefix))
            .map(|(_, n)| n)
            .sum()
    }

    /// Stops both servers, waiting (at most a few seconds) for open connections to finish.
    pub async fn shutdown(mut self) {
        let _ = self.stop.send(true);
        for task in std::mem::take(&mut self.tasks) {
            let _ = tokio::time::timeout(Duration::from_secs(3), task).await;
        }
    }
}

impl Drop for Site {
    fn drop(&mut self) {
        let _ = self.stop.send(true);
    }
}

/// Serves `app` until the site is stopped; `shared` supplies the stop signal.
fn serve(listener: TcpListener, app: Router<()>, shared: &Shared) -> JoinHandle<()> {
    let stop = stopped(shared.stop.clone());
    tokio::spawn(async move {
        let _ = axum::serve(listener, app)
            .with_graceful_shutdown(stop)
            .await;
    })
}

/// Completes once the site is told to stop (or the [`Site`] is gone).
async fn stopped(mut stop: watch::Receiver<bool>) {
    while !*stop.borrow_and_update() {
        if stop.changed().await.is_err() {
            return;
        }
    }
}

impl Shared {
    fn count(&self, key: String) {
        *self.hits.lock().unwrap().entry(key).or_default() += 1;
    }
}

fn path_and_query(uri: &Uri) -> String {
    uri.path_and_query()
        .map_or_else(|| uri.path().to_owned(), |pq| pq.as_str().to_owned())
}

async fn offsite_site(State(s): State<Shared>, uri: Uri) -> Response {
    s.count(format!("offsite:{}", path_and_query(&uri)));
    page(
        "Offsite",
        "<p>Another host: a crawl scoped to its seed's host never comes here.</p>",
    )
}

async fn main_site(State(s): State<Shared>, uri: Uri) -> Response {
    if let Some(r) = sitemaps(uri.path(), &s.origin) {
        s.count(path_and_query(&uri));
        return r;
    }
    s.count(path_and_query(&uri));
    let path = uri.path();
    if path == "/slow" {
        tokio::select! {
            () = tokio::time::sleep(SLOW_DELAY) => {}
            () = stopped(s.stop.clone()) => {}
        }
    }
    respond(path, &s.offsite_url)
}

/// The pages reachable only through the robots.txt `Sitemap:` line (an index, its gzipped child, the page), a
/// feed, or a PDF (a link annotation and a URL in its text).
fn sitemaps(path: &str, origin: &str) -> Option<Response> {
    Some(match path {
        "/sitemap-index.xml" => typed(
            "application/xml",
            format!(
                "<?xml version=\"1.0\"?><sitemapindex xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\
                 <sitemap><loc>{origin}/sitemap-pages.xml.gz</loc></sitemap></sitemapindex>"
            ),
        ),
        "/sitemap-pages.xml.gz" => {
            let xml = format!(
                "<?xml version=\"1.0\"?><urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\
                 <url><loc>{origin}/sitemap-only.html</loc><lastmod>2026-11-25</lastmod></url></urlset>"
            );
            let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
            std::io::Write::write_all(&mut gz, xml.as_bytes()).ok()?;
            typed("application/gzip", gz.finish().ok()?)
        }
        "/sitemap-only.html" => page(
            "Sitemap only",
            "<link rel=\"alternate\" type=\"application/rss+xml\" href=\"/feed.xml\"><p>Listed only in the sitemap.</p>",
        ),
        "/feed.xml" => typed(
            "application/rss+xml",
            format!(
                "<?xml version=\"1.0\"?><rss version=\"2.0\"><channel><title>selftest</title>\
                 <item><title>One</title><link>{origin}/feed-only.html</link></item></channel></rss>"
            ),
        ),
        "/feed-only.html" => page("Feed only", "<p>Listed only in the feed.</p>"),
        "/report.pdf" => typed(
            "application/pdf",
            trawl_extract::pdf::sample_pdf(
                &[&[
                    "Quarterly report.",
                    &format!("Details at {origin}/pdf-text-only.html."),
                ]],
                &["/pdf-only.html"],
            ),
        ),
        "/pdf-only.html" => page(
            "PDF only",
            "<p>Linked only from a PDF's link annotation.</p>",
        ),
        "/pdf-text-only.html" => page("PDF text only", "<p>Written only in a PDF's text.</p>"),
        _ => return None,
    })
}

/// The site's routing table: one arm per scenario page.
fn respond(path: &str, offsite_url: &str) -> Response {
    match path {
        "/" => home(offsite_url),
        "/robots.txt" => typed(
            "text/plain",
            "User-agent: *\nDisallow: /private/\nSitemap: /sitemap-index.xml\n",
        ),
        "/private/secret" => page(
            "Secret",
            "<p>Disallowed by robots.txt: must never be fetched.</p>",
        ),
        "/redirect/1" => redirect(StatusCode::MOVED_PERMANENTLY, "/redirect/2"),
        "/redirect/2" => redirect(StatusCode::FOUND, "/redirect/3"),
        "/redirect/3" => redirect(StatusCode::TEMPORARY_REDIRECT, "/final"),
        "/loop/a" => redirect(StatusCode::FOUND, "/loop/b"),
        "/loop/b" => redirect(StatusCode::FOUND, "/loop/a"),
        "/missing" => (
            StatusCode::NOT_FOUND,
            page("Not found", "<p>No such page.</p>"),
        )
            .into_response(),
        "/error500" => (
            StatusCode::INTERNAL_SERVER_ERROR,
            page("Error", "<p>Always fails.</p>"),
        )
            .into_response(),
        "/gzip" => gzip(),
        "/chunked" => chunked(),
        "/legacy-charset" => legacy_charset(),
        "/big" => big(),
        "/slow" => page("Slow", "<p>Ten seconds late.</p>"),
        "/embeds" => page(
            "Embeds",
            "<img src=\"/img/logo.png\"><link rel=\"stylesheet\" href=\"/style.css\">\
             <script src=\"/app.js\"></script><script>var more = \"/inline-only.html\";</script>\
             <a href=\"/report.pdf\">report</a>",
        ),
        "/inline-only.html" => page(
            "Inline script only",
            "<p>Named only in an inline script.</p>",
        ),
        "/style.css" => typed(
            "text/css",
            "@import \"/import.css\";\nbody { background: url(/img/bg.png) }\n",
        ),
        "/import.css" => typed("text/css", "p { color: #333 }\n"),
        "/app.js" => typed(
            "text/javascript",
            "var page = \"/js-only.html\", junk = \"a/b\", data = \"/data.json\";\nconsole.log(\"trawl selftest\");\n",
        ),
        "/js-only.html" => page("Script only", "<p>Named only in a script string.</p>"),
        "/data.json" => typed(
            "application/json",
            "{\"items\": [{\"title\": \"one\", \"href\": \"/json-only.html\"}], \"note\": \"not/a/link\"}\n",
        ),
        "/json-only.html" => page("JSON only", "<p>Named only in a JSON response.</p>"),
        "/img/logo.png" | "/img/bg.png" => typed("image/png", PNG),
        "/dir/sub/page.html" => page(
            "Relative links",
            "<a href=\"../rel-target\">up</a> <a href=\"./same-dir\">here</a>",
        ),
        "/base-test" => page(
            "Base",
            "<base href=\"/based/\"><a href=\"target\">based</a>",
        ),
        "/final" | "/gzip-target" | "/chunked-target" | "/charset-target" | "/dup"
        | "/dir/rel-target" | "/dir/sub/same-dir" | "/based/target" | CHARSET_UTF8_PATH => {
            page("Target", &format!("<p>You reached {path}.</p>"))
        }
        _ => calendar(path).unwrap_or_else(|| {
            (
                StatusCode::NOT_FOUND,
                page("Not found", "<p>No such page.</p>"),
            )
                .into_response()
        }),
    }
}

fn home(offsite_url: &str) -> Response {
    let links = [
        "/dup#a",
        "/dup#b",
        "/dup",
        "/private/secret",
        offsite_url,
        "/redirect/1",
        "/loop/a",
        "/missing",
        "/error500",
        "/calendar/2026/1",
        "/gzip",
        "/chunked",
        "/legacy-charset",
        "/big",
        "/slow",
        "/embeds",
        "/dir/sub/page.html",
        "/base-test",
    ];
    let list: String = links
        .iter()
        .map(|l| format!("<li><a href=\"{l}\">{l}</a></li>\n"))
        .collect();
    page("trawl selftest", &format!("<ul>\n{list}</ul>"))
}

/// `/calendar/Y/M`: links to the next month forever (a crawler trap) and back to the previous
/// month, never before [`CALENDAR_START`].
fn calendar(path: &str) -> Option<Response> {
    let (y, m) = path.strip_prefix("/calendar/")?.split_once('/')?;
    let (y, m): (u32, u32) = (y.parse().ok()?, m.parse().ok()?);
    if path != format!("/calendar/{y}/{m}") || !(1..=12).contains(&m) || (y, m) < CALENDAR_START {
        return None;
    }
    let next = if m == 12 { (y + 1, 1) } else { (y, m + 1) };
    let prev = if m == 1 { (y - 1, 12) } else { (y, m - 1) };
    let mut body = format!(
        "<h1>{y}-{m:02}</h1><a href=\"/calendar/{}/{}\">next</a>",
        next.0, next.1
    );
    if prev >= CALENDAR_START {
        body += &format!(" <a href=\"/calendar/{}/{}\">previous</a>", prev.0, prev.1);
    }
    Some(page("Calendar", &body))
}

fn gzip() -> Response {
    let html = page_html("Gzip", "<a href=\"/gzip-target\">gzip target</a>");
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    enc.write_all(html.as_bytes())
        .expect("writing to a Vec cannot fail");
    let gz = enc.finish().expect("writing to a Vec cannot fail");
    ([(CONTENT_TYPE, HTML), (CONTENT_ENCODING, "gzip")], gz).into_response()
}

/// A body of unknown length, so hyper sends it with `Transfer-Encoding: chunked`.
fn chunked() -> Response {
    let chunks = [
        "<!doctype html><html><head><title>Chunked</title></head><body>\n",
        "<p>This page arrives in several chunks.</p>\n",
        "<a href=\"/chunked-target\">chunked target</a>\n",
        "</body></html>\n",
    ];
    let stream = futures_util::stream::iter(chunks.map(Ok::<_, Infallible>));
    ([(CONTENT_TYPE, HTML)], Body::from_stream(stream)).into_response()
}

/// A windows-1251 page with Cyrillic text, an ASCII link and a link with a Cyrillic path.
fn legacy_charset() -> Response {
    let html = "<!doctype html><html><head><title>Кодировка</title></head><body>\n\
        <p>Привет, мир! Эта страница в кодировке windows-1251.</p>\n\
        <a href=\"/charset-target\">цель</a> <a href=\"/charset/привет\">привет</a>\n</body></html>\n";
    (
        [(CONTENT_TYPE, "text/html; charset=windows-1251")],
        cp1251(html),
    )
        .into_response()
}

/// Encodes ASCII and the basic Cyrillic letters А..я (all this site uses) as windows-1251.
fn cp1251(s: &str) -> Vec<u8> {
    s.chars()
        .map(|c| match c {
            c if c.is_ascii() => c as u8,
            'А'..='я' => (c as u32 - 'А' as u32 + 0xC0) as u8,
            _ => unreachable!("{c:?} is not in this site's windows-1251 subset"),
        })
        .collect()
}

/// Exactly [`BIG_BYTES`] of HTML.
fn big() -> Response {
    let (head, line, tail) = (
        "<!doctype html><html><body>\n",
        "<p>trawl selftest filler text.</p>\n",
        "</body></html>\n",
    );
    let mut html = String::with_capacity(BIG_BYTES);
    html.push_str(head);
    while html.len() + line.len() + tail.len() <= BIG_BYTES {
        html.push_str(line);
    }
    html.extend(std::iter::repeat_n(
        ' ',
        BIG_BYTES - html.len() - tail.len(),
    ));
    html.push_str(tail);
    ([(CONTENT_TYPE, HTML)], html).into_response()
}

fn redirect(status: StatusCode, to: &'static str) -> Response {
    (
        status,
        [(LOCATION, to)],
        page("Moved", &format!("<a href=\"{to}\">moved</a>")),
    )
        .into_response()
}

fn typed(content_type: &'static str, body: impl Into<Body>) -> Response {
    ([(CONTENT_TYPE, content_type)], body.into()).into_response()
}

fn page(title: &str, body: &str) -> Response {
    ([(CONTENT_TYPE, HTML)], page_html(title, body)).into_response()
}

fn page_html(title: &str, body: &str) -> String {
    format!(
        "<!doctype html>\n<html><head><title>{title}</title></head><body>\n{body}\n</body></html>\n"
    )
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use std::io::Read as _;
    use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};

    /// One raw HTTP/1.1 GET; returns the whole reply, exactly as received.
    pub(crate) async fn get_raw(addr: SocketAddr, path: &str) -> Vec<u8> {
        let mut conn = tokio::net::TcpStream::connect(addr).await.unwrap();
        let req = format!("GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n");
        conn.write_all(req.as_bytes()).await.unwrap();
        let mut reply = Vec::new();
        conn.read_to_end(&mut reply).await.unwrap();
        reply
    }

    /// One raw HTTP/1.1 GET; returns the head (lowercased) and the undecoded body bytes.
    async fn get(addr: SocketAddr, path: &str) -> (String, Vec<u8>) {
        let reply = get_raw(addr, path).await;
        let end = reply
            .windows(4)
            .position(|w| w == b"\r\n\r\n")
            .expect("no end of head");
        let head = String::from_utf8(reply[..end].to_vec())
            .unwrap()
            .to_ascii_lowercase();
        (head, reply[end + 4..].to_vec())
    }

    fn status(head: &str) -> &str {
        &head[9..12]
    }

    #[tokio::test]
    async fn serves_statuses_and_redirects() {
        let site = start().await.unwrap();
        for (path, want, location) in [
            ("/", "200", None),
            ("/robots.txt", "200", None),
            ("/redirect/1", "301", Some("/redirect/2")),
            ("/redirect/2", "302", Some("/redirect/3")),
            ("/redirect/3", "307", Some("/final")),
            ("/final", "200", None),
            ("/loop/b", "302", Some("/loop/a")),
            ("/missing", "404", None),
            ("/error500", "500", None),
            ("/no-such-page", "404", None),
            ("/calendar/2025/12", "404", None),
            ("/calendar/2026/01", "404", None),
            ("/dir/rel-target", "200", None),
            (CHARSET_UTF8_PATH, "200", None),
        ] {
            let (head, _) = get(site.addr, path).await;
            assert_eq!(status(&head), want, "{path}: {head}");
            if let Some(to) = location {
                assert!(
                    head.contains(&format!("\r\nlocation: {to}")),
                    "{path}: {head}"
                );
            }
        }
        assert_eq!(site.hits("/redirect/1"), 1);
        assert_eq!(site.hits("/private/secret"), 0);
    }

    #[tokio::test]
    async fn home_links_everywhere_and_calendar_is_endless() {
        let site = start().await.unwrap();
        let (_, body) = get(site.addr, "/").await;
        let home = String::from_utf8(body).unwrap();
        for link in [
            "/dup#a",
            "/private/secret",
            "/calendar/2026/1",
            "/base-test",
            site.offsite_url(),
        ] {
            assert!(
                home.contains(&format!("href=\"{link}\"")),
                "{link} missing from {home}"
            );
        }
        let (_, body) = get(site.addr, "/calendar/2026/1").await;
        let first = String::from_utf8(body).unwrap();
        assert!(first.contains("/calendar/2026/2") && !first.contains("/calendar/2025/12"));
        let (_, body) = get(site.addr, "/calendar/2031/12").await;
        let later = String::from_utf8(body).unwrap();
        assert!(later.contains("\"/calendar/2032/1\"") && later.contains("\"/calendar/2031/11\""));
        assert_eq!(site.hits_under("/calendar/"), 2);
    }

    #[tokio::test]
    async fn gzip_is_content_encoded() {
        let site = start().await.unwrap();
        let (head, body) = get(site.addr, "/gzip").await;
        assert!(head.contains("\r\ncontent-encoding: gzip"), "{head}");
        assert_eq!(&body[..2], [0x1f, 0x8b]);
        let mut html = String::new();
        flate2::read::GzDecoder::new(&body[..])
            .read_to_string(&mut html)
            .unwrap();
        assert!(html.contains("href=\"/gzip-target\""), "{html}");
    }

    #[tokio::test]
    async fn chunked_is_transfer_encoded() {
        let site = start().await.unwrap();
        let (head, body) = get(site.addr, "/chunked").await;
        assert!(head.contains("\r\ntransfer-encoding: chunked"), "{head}");
        assert!(!head.contains("content-length"), "{head}");
        let body = String::from_utf8(body).unwrap();
        assert!(
            body.contains("href=\"/chunked-target\"") && body.ends_with("0\r\n\r\n"),
            "{body}"
        );
    }

    #[tokio::test]
    async fn big_and_legacy_charset_bodies() {
        let site = start().await.unwrap();
        let (head, body) = get(site.addr, "/big").await;
        assert!(
            head.contains(&format!("\r\ncontent-length: {BIG_BYTES}")),
            "{head}"
        );
        assert_eq!(body.len(), BIG_BYTES);
        let (head, body) = get(site.addr, "/legacy-charset").await;
        assert!(head.contains("charset=windows-1251"), "{head}");
        let privet = [0xEF, 0xF0, 0xE8, 0xE2, 0xE5, 0xF2]; // "привет" in windows-1251
        assert!(body.windows(6).any(|w| w == privet));
        assert!(body.windows(22).any(|w| w == b"href=\"/charset-target\""));
    }

    #[tokio::test]
    async fn offsite_hits_are_counted_apart() {
        let site = start().await.unwrap();
        assert!(site.offsite_addr.ip().is_loopback() && site.offsite_addr != site.addr);
        let (head, _) = get(site.offsite_addr, "/offsite-page").await;
        assert_eq!(status(&head), "200");
        assert_eq!(site.hits("offsite:/offsite-page"), 1);
        assert_eq!(site.hits_under("offsite:"), 1);
        assert_eq!(site.hits("/offsite-page"), 0);
    }

    #[tokio::test]
    async fn shutdown_does_not_wait_for_slow() {
        let site = start().await.unwrap();
        let addr = site.addr;
        let slow = tokio::spawn(async move { get(addr, "/slow").await });
        tokio::time::sleep(Duration::from_millis(200)).await;
        assert_eq!(site.hits("/slow"), 1);
        let started = std::time::Instant::now();
        site.shutdown().await;
        let (head, _) = tokio::time::timeout(Duration::from_secs(3), slow)
            .await
            .unwrap()
            .unwrap();
        assert_eq!(status(&head), "200");
        assert!(started.elapsed() < Duration::from_secs(3));
        assert!(
            tokio::net::TcpStream::connect(addr).await.is_err(),
            "still listening"
        );
    }
}
