//! A crawl of a hostile server: a raw-socket HTTP server of our own (`hostile/server.rs`) that trickles, floods,
//! lies about framing and encodings, serves bombs and sets traps. The crawl must end on its own, log every
//! scenario, keep its memory bounded and write WARCs that verify.
//!
//! What each scenario gives (pinned in [`EXPECTED`]; the framing rows reflect hyper's HTTP/1 parser as
//! configured by the fetcher, lenient about folding and invalid header lines, strict about framing):
//!
//! | scenario | crawl.log status | annotations | WARC response |
//! |---|---|---|---|
//! | `/trickle` | 200 | `timeTrunc` (cut at `max_fetch_ms`) | `WARC-Truncated: time` |
//! | `/slow-head` | -4 | `err=timeout` | none |
//! | `/huge-head` (200 KB head) | -3 | `err=malformed` (head too large) | none |
//! | `/big-head` (70 KB head, just over the limit) | -3 | `err=malformed` (head too large) | none |
//! | `/many-headers` (2000 fields) | -3 | `err=malformed` (too many headers) | none |
//! | `/big-body` (3 MB) | 200 | `lenTrunc` | `WARC-Truncated: length` |
//! | `/big-chunked` (3 MB in 3,000-byte chunks) | 200 | `lenTrunc` | `WARC-Truncated: length`, cut inside a chunk after 1 MiB of data |
//! | `/gzip-bomb` | 200 | - | wire bytes (payload starts `1f 8b`) |
//! | `/nested-bomb` (`gzip, gzip`) | 200 | - | wire bytes (payload starts `1f 8b`) |
//! | `/br-body` (not brotli) | 200 | - | wire bytes |
//! | `/dup-cl` | -3 | `err=malformed` (conflicting Content-Length) | none |
//! | `/cl-and-chunked` | 200 | - (chunked wins, body `hello world`) | yes |
//! | `/bad-chunk-size` | 200 | `midFetchTrunc` | `WARC-Truncated: disconnect` |
//! | `/no-final-chunk` | 200 | `midFetchTrunc` | `WARC-Truncated: disconnect` |
//! | `/lf-chunks` (chunk-size lines ending in a bare LF) | 200, size 0 (hyper refuses the framing) | `midFetchTrunc` | `WARC-Truncated: disconnect`, the head and the first size line: no body, as logged |
//! | `/http09` | -3 | `err=malformed` (no status line) | none |
//! | `/garbage-status` | -3 | `err=malformed` | none |
//! | `/obs-fold` | 200 | - | yes |
//! | `/nul-header` (NUL and 0xff in a value) | -3 | `err=malformed`: httparse refuses a NUL even when told to skip invalid header lines (as browsers do) | none |
//! | `/obs-text-header` (0xff, 0xe9 in a value, no NUL) | 200 | - | yes, the raw bytes kept |
//! | `/lf-only` | 200 | - | yes |
//! | `/flood-1xx` (500 x 100 Continue) | 200 | - | yes, the final response; the 1xx heads in its metadata record (`interimResponse`) |
//! | `/endless-1xx` (100 Continue without end) | -3 | `err=malformed` (more than 3 x `max_header_bytes` before the head) | none |
//! | `/junk-after-body` (bytes past Content-Length) | 200 | - | yes, cut where the message ends |
//! | `/204-tail` (a body after a 204) | 204 | - | yes, the head alone |
//! | `/reset-mid-head` | -3 | `err=broken` | none |
//! | `/reset-mid-body` | 200 | `midFetchTrunc` | `WARC-Truncated: disconnect` |
//! | `/links-100k` | 200 | `lenTrunc,outlinksTrunc` (the page is 4.2 MB) | `WARC-Truncated: length` |
//! | `/mega-attr` (5 MB attribute) | 200 | `lenTrunc` | `WARC-Truncated: length` |
//! | `/deep-nesting` (100,000 `<div>`) | 200 | - (its link is still found) | yes |
//! | `/binary-as-html` | 200 | - | yes |
//! | `/html-as-binary` | 200 | - (not parsed: its link is not followed) | yes |
//! | `/unclosed-script` | 200 | - (`<a href=/after-script>` is script text: not followed) | yes |
//! | `/long-redirect` (a 10,000-byte `Location`) | 301 | - (the target, past 8,192 bytes, is not followed) | yes |
//! | `/lying-charset` (`charset=utf-16` on latin-1) | 200 | - (decoded as UTF-16 as browsers do: its link is lost) | yes |
//! | `/session/` | 200, then one `/session/page?jsessionid=...` (the id canonicalized away) | - | yes |
//! | `/grow/a/` | 200 for `/grow/a/`, `/grow/a/a/` | `/grow/a/a/a/` logged -5000 `reject:pathological_path` | - |
//! | `/mr?n=0` | 200 for n = 0..=10 | `/mr?n=11` logged -5000 `reject:max_redirects` | - |
//! | `/deep/1` | 200 down to 20 segments | the 21-segment URI logged -5000 `reject:too_many_path_segments` | - |
//! | `/robots.txt` (20 MB) | 200, size 524288 | `lenTrunc` | `WARC-Truncated: length` |
//! | `/forbidden` | -9998 | - | none (never requested) |
//! | second server `/robots.txt` -> `/r1` ... | 301 x 6 (robots.txt, r1..r5), then allow | - | yes |
//! | second server `/page` | 200 | - | yes |

mod common;
#[path = "hostile/server.rs"]
mod server;

use std::time::{Duration, Instant};

use trawl_engine::crawl_log::LogLine;
use trawl_engine::{Crawl, CrawlHandle, report::Ending};

/// The pinned outcome of each single-response scenario: status, and the truncation annotation if any.
const EXPECTED: &[(&str, i32, Option<&str>)] = &[
    ("/trickle", 200, Some("timeTrunc")),
    ("/slow-head", -4, None),
    ("/huge-head", -3, None),
    ("/big-head", -3, None),
    ("/many-headers", -3, None),
    ("/big-body", 200, Some("lenTrunc")),
    ("/big-chunked", 200, Some("lenTrunc")),
    ("/gzip-bomb", 200, None),
    ("/nested-bomb", 200, None),
    ("/br-body", 200, None),
    ("/dup-cl", -3, None),
    ("/cl-and-chunked", 200, None),
    ("/bad-chunk-size", 200, Some("midFetchTrunc")),
    ("/no-final-chunk", 200, Some("midFetchTrunc")),
    ("/lf-chunks", 200, Some("midFetchTrunc")),
    ("/http09", -3, None),
    ("/garbage-status", -3, None),
    ("/obs-fold", 200, None),
    ("/nul-header", -3, None),
    ("/obs-text-header", 200, None),
    ("/lf-only", 200, None),
    ("/flood-1xx", 200, None),
    ("/endless-1xx", -3, None),
    ("/junk-after-body", 200, None),
    ("/204-tail", 204, None),
    ("/reset-mid-head", -3, None),
    ("/reset-mid-body", 200, Some("midFetchTrunc")),
    ("/links-100k", 200, Some("lenTrunc")),
    ("/mega-attr", 200, Some("lenTrunc")),
    ("/deep-nesting", 200, None),
    ("/binary-as-html", 200, None),
    ("/html-as-binary", 200, None),
    ("/unclosed-script", 200, None),
    ("/long-redirect", 301, None),
    ("/lying-charset", 200, None),
    ("/forbidden", -9998, None),
];

const TRUNCATIONS: &[(&str, &str)] = &[
    ("lenTrunc", "length"),
    ("timeTrunc", "time"),
    ("midFetchTrunc", "disconnect"),
];

/// The test process's peak resident memory (VmHWM), in bytes.
fn peak_rss() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let kb: u64 = status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.split_whitespace().next())
        .and_then(|v| v.parse().ok())
        .unwrap();
    kb * 1024
}

fn describe(l: &LogLine) -> String {
    format!(
        "{:>5} {:>8} {} {} [{}]",
        l.status,
        l.size.map_or("-".to_string(), |s| s.to_string()),
        l.uri,
        if l.hop_path.is_empty() {
            "-"
        } else {
            &l.hop_path
        },
        l.annotations.join(",")
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hostile_server_is_survived() {
    let bomb_len = server::gzip_bomb().len();
    assert!(
        (100 << 10..400 << 10).contains(&bomb_len),
        "the bomb is {bomb_len} bytes"
    );
    let second = server::start_redirecting().await;
    let main = server::start_main(second.addr.port()).await;

    let dir = tempfile::tempdir().unwrap();
    let mut config = trawl::selftest::config();
    config.fetch.max_fetch_ms = 3000;
    config.fetch.max_bytes = 1 << 20;
    config.frontier.max_retries = 0;
    let seed = main.url("/");
    let crawl = Crawl::new(dir.path(), config.clone(), std::slice::from_ref(&seed)).unwrap();
    let began = Instant::now();
    let summary = tokio::time::timeout(
        Duration::from_secs(90),
        crawl.run(CrawlHandle::default(), |_| {}),
    )
    .await
    .expect("the crawl finishes within 90 s")
    .unwrap();
    let took = began.elapsed();
    assert_eq!(summary.ending, Ending::Finished);
    // No connection is left open by the crawler: the trickling handlers end once their peer is gone.
    let mut open = (main.open_connections(), second.open_connections());
    for _ in 0..50 {
        if open == (0, 0) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
        open = (main.open_connections(), second.open_connections());
    }
    assert_eq!(
        open,
        (0, 0),
        "server connections still open after the crawl"
    );

    let log = common::crawl_log(dir.path());
    for l in &log {
        eprintln!("{}", describe(l));
    }
    eprintln!("crawl took {took:?}; peak RSS {} MiB", peak_rss() >> 20);
    let find = |url: &str| log.iter().find(|l| l.uri == url);
    let on_main =
        |path: &str| find(&main.url(path)).unwrap_or_else(|| panic!("{path} is not in crawl.log"));

    // Every scenario ends as a logged line.
    for path in server::SCENARIOS {
        let _ = on_main(path);
    }

    // The pinned outcomes.
    let mut wrong = Vec::new();
    for &(path, status, trunc) in EXPECTED {
        let l = on_main(path);
        let truncs: Vec<&str> = TRUNCATIONS
            .iter()
            .map(|t| t.0)
            .filter(|t| l.has_annotation(t))
            .collect();
        if l.status != status || truncs != trunc.into_iter().collect::<Vec<_>>() {
            wrong.push(format!(
                "{path}: want {status} {trunc:?}, got {}",
                describe(l)
            ));
        }
    }
    assert!(
        wrong.is_empty(),
        "unexpected outcomes:\n{}",
        wrong.join("\n")
    );

    // Time: the trickle is cut at max_fetch_ms, not after the 100,000 bytes it promised.
    let trickle = on_main("/trickle");
    let ms: u64 = trickle
        .fetch
        .as_deref()
        .and_then(|f| f.split('+').nth(1))
        .and_then(|d| d.parse().ok())
        .unwrap();
    assert!((2500..4500).contains(&ms), "trickle fetch took {ms} ms");
    assert!(on_main("/slow-head").has_annotation("err=timeout"));
    // What came is no readable response (malformed), or nothing came before the connection ended (broken).
    for path in [
        "/huge-head",
        "/big-head",
        "/many-headers",
        "/dup-cl",
        "/http09",
        "/garbage-status",
        "/nul-header",
    ] {
        assert!(
            on_main(path).has_annotation("err=malformed"),
            "{}",
            describe(on_main(path))
        );
    }
    assert!(on_main("/reset-mid-head").has_annotation("err=broken"));
    assert_eq!(on_main("/big-body").size, Some(1 << 20));
    // The archive holds what crawl.log counts: the head and max_bytes of body, not what the socket read
    // ahead before the cut.
    let records = common::records(dir.path());
    let big = records
        .iter()
        .find(|r| {
            r.get("WARC-Type") == Some("response")
                && r.get("WARC-Target-URI") == Some(&main.url("/big-body"))
        })
        .unwrap();
    let head = big.block.windows(4).position(|w| w == b"\r\n\r\n").unwrap() + 4;
    assert_eq!(big.block.len() - head, 1 << 20);
    assert_eq!(big.get("WARC-Truncated"), Some("length"));
    // Chunked, the same: max_bytes of chunk data (the framing before it kept, the cut inside a chunk), not
    // the chunks the socket read ahead.
    assert_eq!(on_main("/big-chunked").size, Some(1 << 20));
    let chunked = records
        .iter()
        .find(|r| {
            r.get("WARC-Type") == Some("response")
                && r.get("WARC-Target-URI") == Some(&main.url("/big-chunked"))
        })
        .unwrap();
    assert_eq!(chunked.get("WARC-Truncated"), Some("length"));
    assert_eq!(
        chunked.get("WARC-Payload-Digest"),
        Some(trawl_warc::sha1_digest(&vec![b'c'; 1 << 20]).as_str())
    );
    let head = chunked
        .block
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .unwrap()
        + 4;
    let chunks = (1 << 20) / 3000 + 1;
    assert_eq!(
        chunked.block.len() - head,
        (1 << 20) + chunks * b"bb8\r\n".len() + (chunks - 1) * 2
    );

    // Interim heads are kept apart from the response record, which starts at the final response as replay tools
    // read it (xt46a F1: pywb served the first 100 as the answer): each in the metadata record, as it came.
    let of_flood = |kind: &str| {
        records
            .iter()
            .find(|r| {
                r.get("WARC-Type") == Some(kind)
                    && r.get("WARC-Target-URI") == Some(&main.url("/flood-1xx"))
            })
            .unwrap()
    };
    assert!(of_flood("response").block.starts_with(b"HTTP/1.1 200 "));
    let interim = String::from_utf8_lossy(&of_flood("metadata").block)
        .lines()
        .filter(|l| *l == "interimResponse: SFRUUC8xLjEgMTAwIENvbnRpbnVlDQoNCg==")
        .count();
    assert_eq!(interim, 500);

    // Chunk-size lines ending in a bare LF: hyper takes no body from them, and the record holds none either
    // (the head and the size line it stopped at), as crawl.log says.
    assert_eq!(on_main("/lf-chunks").size, Some(0));
    let lf = records
        .iter()
        .find(|r| {
            r.get("WARC-Type") == Some("response")
                && r.get("WARC-Target-URI") == Some(&main.url("/lf-chunks"))
        })
        .unwrap();
    assert!(lf.block.ends_with(b"\r\n\r\n5\n"), "{:?}", lf.block);
    assert_eq!(
        lf.get("WARC-Payload-Digest"),
        Some(trawl_warc::sha1_digest(b"").as_str())
    );

    // Content: more links than max_outlinks; the link after 100,000 open <div>s is still found.
    assert!(on_main("/links-100k").has_annotation("outlinksTrunc"));
    assert_eq!(on_main("/deep-nesting-link").status, 404);

    // Traps.
    let sessions = log
        .iter()
        .filter(|l| l.uri.contains("/session/page"))
        .count();
    assert!(sessions <= 2, "{sessions} session pages fetched");
    let grow = on_main("/grow/a/a/a/");
    assert_eq!(grow.annotations, ["reject:pathological_path"]);
    assert!(grow.status < 0);
    let mr = log
        .iter()
        .filter(|l| l.uri.contains("/mr?n=") && l.status == 200)
        .count();
    assert_eq!(mr, config.scope.max_redirects + 1);
    let mr_cut = on_main(&format!("/mr?n={}", config.scope.max_redirects + 1));
    assert_eq!(mr_cut.annotations, ["reject:max_redirects"]);
    let deep_cut: Vec<&LogLine> = log
        .iter()
        .filter(|l| l.uri.contains("/deep/") && l.status < 0)
        .collect();
    assert_eq!(deep_cut.len(), 1, "{deep_cut:?}");
    assert!(
        deep_cut[0].has_annotation("reject:too_many_path_segments")
            || deep_cut[0].has_annotation("reject:too_many_hops"),
        "{:?}",
        deep_cut[0].annotations
    );

    // robots.txt: only 512 KiB of the 20 MB read, and its rule obeyed without a request (the `Allow` line
    // the limit cuts through is not read as the shorter rule it was cut to).
    let robots = on_main("/robots.txt");
    assert_eq!(robots.status, 200);
    assert!(robots.size.unwrap() <= config.fetch.max_robots_bytes);
    assert!(
        robots.has_annotation("lenTrunc"),
        "{:?}",
        robots.annotations
    );
    assert!(!main.requests().iter().any(|r| r == "/forbidden"));
    // A redirect past the URL length cap is not followed.
    assert!(!main.requests().iter().any(|r| r.starts_with("/long/")));

    // The second server: robots.txt redirects are followed only so far, then its pages are allowed.
    let page = find(&second.url("/page")).expect("second server's page logged");
    assert_eq!(page.status, 200);
    assert_eq!(page.hop_path, "E");
    let robots_fetches = second
        .requests()
        .iter()
        .filter(|r| r.as_str() != "/page")
        .count();
    assert!(
        (1..=6).contains(&robots_fetches),
        "{robots_fetches} robots fetches: {:?}",
        second.requests()
    );

    // WARCs: a response record for every parsed response, truncation marked, wire bytes kept.
    let recs = common::records(dir.path());
    let response_for = |url: &str| {
        recs.iter().find(|r| {
            r.get("WARC-Type") == Some("response") && r.get("WARC-Target-URI") == Some(url)
        })
    };
    for l in log.iter().filter(|l| l.status > 0) {
        let rec =
            response_for(&l.uri).unwrap_or_else(|| panic!("no WARC response for {}", describe(l)));
        let want = TRUNCATIONS
            .iter()
            .find(|t| l.has_annotation(t.0))
            .map(|t| t.1);
        assert_eq!(rec.get("WARC-Truncated"), want, "{}", describe(l));
    }
    for path in ["/gzip-bomb", "/nested-bomb"] {
        let rec = response_for(&main.url(path)).unwrap();
        let body_at = rec.block.windows(4).position(|w| w == b"\r\n\r\n").unwrap() + 4;
        assert_eq!(&rec.block[body_at..body_at + 2], b"\x1f\x8b", "{path}");
    }
    // The message alone: what a server sends after it is no part of the response.
    let junk = response_for(&main.url("/junk-after-body")).unwrap();
    assert!(junk.block.ends_with(b"<p>the body</p>"), "{:?}", junk.block);
    let no_content = response_for(&main.url("/204-tail")).unwrap();
    assert!(no_content.block.ends_with(b"Connection: close\r\n\r\n"));
    let bomb = response_for(&main.url("/gzip-bomb")).unwrap();
    assert!(bomb.block.ends_with(server::gzip_bomb()));
    for file in common::warc_files(dir.path()) {
        common::warcio_check(&file);
    }

    let peak = peak_rss();
    assert!(peak < 1 << 30, "peak RSS {} MiB", peak >> 20);
}

/// Header fields read as browsers read them: a redirect's non-ASCII `Location` bytes percent-encoded (UTF-8 as
/// the URL parser encodes it, a latin-1 byte kept as `%E9`), robots.txt's redirect too; of two `Content-Type`
/// lines the last; two `Content-Encoding` lines as one list; a coding that cannot be undone read as the body came,
/// noted `decodeFailed` (xt46a F2).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn odd_header_fields_are_read_as_browsers_do() {
    let site = server::start_fields().await;
    let dir = tempfile::tempdir().unwrap();
    let seed = site.url("/");
    let crawl = Crawl::new(
        dir.path(),
        trawl::selftest::config(),
        std::slice::from_ref(&seed),
    )
    .unwrap();
    let summary = tokio::time::timeout(
        Duration::from_secs(60),
        crawl.run(CrawlHandle::default(), |_| {}),
    )
    .await
    .expect("the crawl finishes within 60 s")
    .unwrap();
    assert_eq!(summary.ending, Ending::Finished);
    let log = common::crawl_log(dir.path());
    let lines: Vec<String> = log.iter().map(describe).collect();
    let logged = |path: &str| log.iter().find(|l| l.uri == site.url(path));
    let mut wrong = Vec::new();
    for (path, via) in [
        ("/leaf/caf%C3%A9-%E2%82%AC", "/utf8"),
        ("/leaf/caf%E9", "/latin1"),
    ] {
        let followed = logged(path).is_some_and(|l| {
            l.status == 200
                && l.hop_path.ends_with('R')
                && l.via.as_deref() == Some(site.url(via).as_str())
        });
        if !followed {
            wrong.push(format!("{via}'s redirect to {path} not followed"));
        }
    }
    let mime = logged("/two-types").and_then(|l| l.mime.as_deref());
    if mime != Some("text/html") {
        wrong.push(format!("/two-types logged as {mime:?}"));
    }
    for path in ["/typed-leaf", "/coded-leaf", "/unknown-leaf", "/wrong-leaf"] {
        if logged(path).is_none_or(|l| l.status != 200) {
            wrong.push(format!("{path} not fetched"));
        }
    }
    for path in ["/unknown-coding", "/wrong-coding"] {
        if logged(path).is_none_or(|l| !l.has_annotation("decodeFailed")) {
            wrong.push(format!("{path} not noted decodeFailed"));
        }
    }
    if logged("/two-codings").is_none_or(|l| l.has_annotation("decodeFailed")) {
        wrong.push("/two-codings noted decodeFailed".into());
    }
    // A `Refresh` field is followed as a meta refresh (R); a `Link` preload is an embed (E), a `next` is not
    // followed (xt46a F9).
    for (path, hop) in [("/refreshed", 'R'), ("/linked.css", 'E')] {
        if logged(path).is_none_or(|l| l.status != 200 || !l.hop_path.ends_with(hop)) {
            wrong.push(format!("{path} not fetched as {hop}"));
        }
    }
    if logged("/next-page").is_some() {
        wrong.push("/next-page followed".into());
    }
    // robots.txt's redirect to `/robots-%E9.txt` is followed: its rule keeps `/private` unrequested.
    let requests = site.requests();
    if !requests.iter().any(|r| r == "/robots-%E9.txt") || requests.iter().any(|r| r == "/private")
    {
        wrong.push(format!("robots.txt's redirect not followed: {requests:?}"));
    }
    assert!(
        wrong.is_empty(),
        "{}\ncrawl.log:\n{}",
        wrong.join("\n"),
        lines.join("\n")
    );
}
