//! The checks judged against a hand-made perfect crawl (requests sent raw to a real site).

use super::*;
use crate::selftest::site::{self, tests::get_raw};
use trawl_engine::crawl_log::parse_line;

/// One row of a perfect crawl: path, logged status, hop path, annotations, requests the server sees.
type Row = (&'static str, i32, &'static str, &'static str, usize);

const PERFECT: &[Row] = &[
    ("/", 200, "", "-", 1),
    ("/robots.txt", 200, "P", "-", 1),
    ("/private/secret", -9998, "L", "-", 0),
    ("/redirect/1", 301, "L", "-", 1),
    ("/redirect/2", 302, "LR", "-", 1),
    ("/redirect/3", 307, "LRR", "-", 1),
    ("/final", 200, "LRRR", "-", 1),
    ("/loop/a", 302, "L", "-", 1),
    ("/loop/b", 302, "LR", "-", 1),
    ("/missing", 404, "L", "-", 1),
    ("/error500", 500, "L", "retries:2", 3),
    ("/dir/sub/page.html", 200, "L", "-", 1),
    ("/dir/rel-target", 200, "LL", "-", 1),
    ("/dir/sub/same-dir", 200, "LL", "-", 1),
    ("/base-test", 200, "L", "-", 1),
    ("/based/target", 200, "LL", "-", 1),
    ("/dup", 200, "L", "-", 1),
    ("/embeds", 200, "L", "-", 1),
    ("/img/logo.png", 200, "LE", "-", 1),
    ("/style.css", 200, "LE", "-", 1),
    ("/app.js", 200, "LE", "-", 1),
    ("/img/bg.png", 200, "LEE", "-", 1),
    ("/import.css", 200, "LEE", "-", 1),
    ("/calendar/2026/1", 200, "L", "-", 1),
    ("/calendar/2026/2", 200, "LL", "-", 1),
    ("/calendar/2026/3", 200, "LLL", "-", 1),
    ("/calendar/2026/4", 200, "LLLL", "-", 1),
    ("/calendar/2026/5", 200, "LLLLL", "-", 1),
    ("/calendar/2026/6", 200, "LLLLLL", "-", 1),
    ("/gzip", 200, "L", "-", 1),
    ("/gzip-target", 200, "LL", "-", 1),
    ("/chunked", 200, "L", "-", 1),
    ("/chunked-target", 200, "LL", "-", 1),
    ("/legacy-charset", 200, "L", "-", 1),
    ("/charset-target", 200, "LL", "-", 1),
    (CHARSET_UTF8_PATH, 200, "LL", "-", 1),
    ("/big", 200, "L", "lenTrunc", 1),
    ("/slow", -4, "L", "err=timeout", 0),
    ("/sitemap-index.xml", 200, "PS", "-", 1),
    ("/sitemap-pages.xml.gz", 200, "PSS", "-", 1),
    (
        "/sitemap-only.html",
        200,
        "PSSS",
        "lastmod:2026-11-25T00:00:00Z",
        1,
    ),
    ("/feed.xml", 200, "PSSSL", "-", 1),
    ("/feed-only.html", 200, "PSSSLL", "-", 1),
    ("/js-only.html", 200, "LEX", "-", 1),
    ("/inline-only.html", 200, "LX", "-", 1),
    ("/data.json", 200, "LEX", "-", 1),
    ("/json-only.html", 200, "LEXX", "-", 1),
    ("/report.pdf", 200, "LL", "-", 1),
    ("/pdf-only.html", 200, "LLL", "-", 1),
    ("/pdf-text-only.html", 200, "LLL", "-", 1),
];

fn rec(
    warc_type: &str,
    target_uri: Option<String>,
    headers: &[(&str, &str)],
    block: Vec<u8>,
) -> WarcRec {
    let headers = headers
        .iter()
        .map(|(n, v)| (n.to_string(), v.to_string()))
        .collect();
    WarcRec {
        warc_type: warc_type.into(),
        target_uri,
        headers,
        block,
    }
}

/// Sends the requests of `rows` to `site` and builds the log and records a correct crawl would leave.
async fn crawl(site: &Site, rows: &[Row]) -> (Vec<LogLine>, Vec<WarcRec>) {
    let mut log = Vec::new();
    let mut records = vec![rec("warcinfo", None, &[], b"software: trawl\r\n".to_vec())];
    for &(path, status, hop, notes, requests) in rows {
        let uri = site.url(path);
        let (hop, via) = if hop.is_empty() {
            ("-", "-".into())
        } else {
            (hop, site.seed())
        };
        let text = format!(
            "2026-11-22T08:25:01.123Z {status} 10 {uri} {hop} {via} text/html #001 \
             20261122082501100+1 sha1:AAAA - {notes}"
        );
        log.push(parse_line(&text).unwrap());
        let mut reply = Vec::new();
        for _ in 0..requests {
            reply = get_raw(site.addr, path).await;
        }
        if status > 0 {
            let truncated = path == "/big";
            if truncated {
                reply.truncate(256 << 10);
            }
            let headers: &[(&str, &str)] = if truncated {
                &[("WARC-Truncated", "length")]
            } else {
                &[]
            };
            records.push(rec("response", Some(uri), headers, reply));
        }
    }
    (log, records)
}

fn outcome(site: &Site, log: Vec<LogLine>, records: Vec<WarcRec>) -> Outcome<'_> {
    Outcome {
        site,
        log,
        records,
        verify_errors: Vec::new(),
        warc_files: 1,
    }
}

#[tokio::test]
async fn perfect_crawl_passes_every_check() {
    let site = site::start().await.unwrap();
    let (log, records) = crawl(&site, PERFECT).await;
    let results = run_all(&outcome(&site, log, records));
    let failed: Vec<_> = results.iter().filter(|r| !r.passed).collect();
    assert!(failed.is_empty(), "{failed:#?}");
    assert_eq!(results.len(), 21);
}

#[tokio::test]
async fn empty_crawl_fails_with_details() {
    let site = site::start().await.unwrap();
    for r in run_all(&outcome(&site, Vec::new(), Vec::new())) {
        // Nothing fetched is the one way never to go offsite.
        assert_eq!(r.passed, r.name == "offsite_not_followed", "{r:?}");
        assert!(!r.detail.is_empty(), "{r:?}");
    }
}

#[tokio::test]
async fn mistakes_are_caught() {
    let site = site::start().await.unwrap();
    let mut rows = PERFECT.to_vec();
    for row in &mut rows {
        match row.0 {
            "/private/secret" => *row = ("/private/secret", 200, "L", "-", 1),
            "/error500" => row.4 = 1,
            "/final" => row.2 = "LR",
            "/big" => row.3 = "-",
            "/sitemap-only.html" => row.3 = "-",
            "/pdf-text-only.html" => row.2 = "LLLX",
            _ => {}
        }
    }
    let (log, records) = crawl(&site, &rows).await;
    let results = run_all(&outcome(&site, log, records));
    let failed: Vec<&str> = results
        .iter()
        .filter(|r| !r.passed)
        .map(|r| r.name)
        .collect();
    assert_eq!(
        failed,
        [
            "robots_disallow_honoured",
            "redirect_chain_followed",
            "server_error_retried",
            "size_limit_truncated",
            "sitemap_pages_found",
            "pdf_links_found"
        ]
    );
    let robots = &results[1];
    assert!(robots.detail.contains("requested 1 times"), "{robots:?}");
}
