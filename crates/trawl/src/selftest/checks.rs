//! The self-test's scenario checks: each judges one trap of the test site by the crawl's log,
//! its WARC records and the server's own hit counts.

use super::site::{BIG_BYTES, CHARSET_UTF8_PATH, Site};
use trawl_engine::crawl_log::LogLine;

/// The `max_retries` the self-test crawl must be configured with: `/error500` is then requested
/// `1 + SELFTEST_MAX_RETRIES` times.
pub const SELFTEST_MAX_RETRIES: u32 = 2;
/// The most `/calendar/` fetches allowed: the self-test crawl rejects URIs beyond 20 hops.
pub const CALENDAR_MAX_FETCHES: usize = 25;
/// The fewest `/calendar/` fetches expected: the trap must actually be entered.
pub const CALENDAR_MIN_FETCHES: usize = 5;

/// One WARC record, as read back from the crawl's archives.
#[derive(Debug, Clone)]
pub struct WarcRec {
    /// `WARC-Type`: `warcinfo`, `request`, `response`, ...
    pub warc_type: String,
    /// `WARC-Target-URI`, if present.
    pub target_uri: Option<String>,
    /// All WARC headers, in order, as (name, value).
    pub headers: Vec<(String, String)>,
    /// The record block (for a response: the HTTP head and body exactly as received).
    pub block: Vec<u8>,
}

impl WarcRec {
    /// The first WARC header called `name` (case-insensitive).
    pub fn header(&self, name: &str) -> Option<&str> {
        let mut found = self
            .headers
            .iter()
            .filter(|(n, _)| n.eq_ignore_ascii_case(name));
        found.next().map(|(_, v)| v.as_str())
    }

    /// For an HTTP response record: the HTTP head (status line and headers) and the body bytes.
    pub fn http_parts(&self) -> Option<(String, &[u8])> {
        let end = self.block.windows(4).position(|w| w == b"\r\n\r\n")?;
        let head = String::from_utf8_lossy(&self.block[..end]).into_owned();
        Some((head, &self.block[end + 4..]))
    }

    /// Whether the HTTP head has the header `name: value` (both case-insensitive).
    pub fn has_http_header(&self, name: &str, value: &str) -> bool {
        let Some((head, _)) = self.http_parts() else {
            return false;
        };
        head.lines()
            .skip(1)
            .filter_map(|l| l.split_once(':'))
            .any(|(n, v)| {
                n.trim().eq_ignore_ascii_case(name) && v.trim().eq_ignore_ascii_case(value)
            })
    }
}

/// Everything a finished self-test crawl left behind.
#[derive(Debug)]
pub struct Outcome<'a> {
    /// The site that was crawled (for its hit counts and URLs).
    pub site: &'a Site,
    /// The parsed `crawl.log`.
    pub log: Vec<LogLine>,
    /// Every record of every WARC file, in file then record order.
    pub records: Vec<WarcRec>,
    /// One message per WARC file that failed verification.
    pub verify_errors: Vec<String>,
    /// How many WARC files the crawl wrote.
    pub warc_files: usize,
}

/// The verdict on one scenario.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckResult {
    /// The scenario, e.g. `robots_disallow_honoured`.
    pub name: &'static str,
    /// Whether the crawl behaved as expected.
    pub passed: bool,
    /// What was seen; on failure, what was expected instead.
    pub detail: String,
}

/// A scenario check: `Ok(what was seen)` or `Err(what was expected, and what was seen instead)`.
type Check = fn(&Outcome) -> Verdict;

/// Every scenario, in the order the site's home page lists them.
const CHECKS: &[(&str, Check)] = &[
    ("seed_fetched", seed_fetched),
    ("robots_disallow_honoured", robots_disallow_honoured),
    ("redirect_chain_followed", redirect_chain_followed),
    ("redirect_loop_stopped", redirect_loop_stopped),
    ("not_found_recorded", not_found_recorded),
    ("server_error_retried", server_error_retried),
    ("relative_links_resolved", relative_links_resolved),
    (
        "fragments_and_duplicates_once",
        fragments_and_duplicates_once,
    ),
    ("embeds_fetched", embeds_fetched),
    ("offsite_not_followed", offsite_not_followed),
    ("calendar_trap_stopped", calendar_trap_stopped),
    ("gzip_content_encoding", gzip_content_encoding),
    ("chunked_transfer", chunked_transfer),
    ("legacy_charset_page", legacy_charset_page),
    ("size_limit_truncated", size_limit_truncated),
    ("slow_response_timed_out", slow_response_timed_out),
    ("sitemap_pages_found", sitemap_pages_found),
    ("feed_items_found", feed_items_found),
    ("pdf_links_found", pdf_links_found),
    ("script_strings_guessed", script_strings_guessed),
    ("warcs_verify", warcs_verify),
];

/// Runs every scenario check; one [`CheckResult`] per scenario.
pub fn run_all(o: &Outcome) -> Vec<CheckResult> {
    CHECKS
        .iter()
        .map(|&(name, check)| {
            let (passed, detail) = match check(o) {
                Ok(seen) => (true, seen),
                Err(problem) => (false, problem),
            };
            CheckResult {
                name,
                passed,
                detail,
            }
        })
        .collect()
}

/// What a [`Check`] returns.
type Verdict = Result<String, String>;

/// Fails with `msg` unless `cond` holds.
fn ensure(cond: bool, msg: impl FnOnce() -> String) -> Result<(), String> {
    if cond { Ok(()) } else { Err(msg()) }
}

/// The log lines for `path` on the main site.
fn lines<'o>(o: &'o Outcome, path: &str) -> Vec<&'o LogLine> {
    let uri = o.site.url(path);
    o.log.iter().filter(|l| l.uri == uri).collect()
}

/// A short account of how `path` was logged, for failure messages.
fn logged(o: &Outcome, path: &str) -> String {
    let seen: Vec<String> = lines(o, path)
        .iter()
        .map(|l| format!("{} hop {:?}", l.status, l.hop_path))
        .collect();
    if seen.is_empty() {
        format!("{path}: no log line, {} hits", o.site.hits(path))
    } else {
        format!(
            "{path}: logged [{}], {} hits",
            seen.join("; "),
            o.site.hits(path)
        )
    }
}

/// The one log line for `path`, which must have `status`.
fn logged_once_with<'o>(o: &'o Outcome, path: &str, status: i32) -> Result<&'o LogLine, String> {
    match lines(o, path)[..] {
        [line] if line.status == status => Ok(line),
        _ => Err(format!(
            "expected one log line with status {status}; {}",
            logged(o, path)
        )),
    }
}

/// `path` was fetched: logged once with status 200, and the server saw it.
fn fetched<'o>(o: &'o Outcome, path: &str) -> Result<&'o LogLine, String> {
    let line = logged_once_with(o, path, 200)?;
    ensure(o.site.hits(path) >= 1, || {
        format!("{path} logged as 200 but the server saw no request")
    })?;
    Ok(line)
}

/// The WARC response record for `path`.
fn response<'o>(o: &'o Outcome, path: &str) -> Result<&'o WarcRec, String> {
    let uri = o.site.url(path);
    o.records
        .iter()
        .find(|r| r.warc_type == "response" && r.target_uri.as_deref() == Some(&uri))
        .ok_or_else(|| format!("no WARC response record for {uri}"))
}

fn seed_fetched(o: &Outcome) -> Verdict {
    let line = fetched(o, "/")?;
    ensure(line.hop_path.is_empty() && line.via.is_none(), || {
        format!(
            "the seed should have hop path and via `-`, saw {:?} via {:?}",
            line.hop_path, line.via
        )
    })?;
    Ok("seed fetched".into())
}

fn robots_disallow_honoured(o: &Outcome) -> Verdict {
    let hits = o.site.hits("/private/secret");
    ensure(hits == 0, || {
        format!("/private/secret is disallowed but was requested {hits} times")
    })?;
    logged_once_with(o, "/private/secret", -9998)?;
    let robots = fetched(o, "/robots.txt")?;
    ensure(robots.last_hop() == Some('P'), || {
        format!(
            "/robots.txt should be a prerequisite (hop P), saw hop path {:?}",
            robots.hop_path
        )
    })?;
    Ok(
        "/robots.txt fetched as a prerequisite; /private/secret logged -9998, never requested"
            .into(),
    )
}

fn redirect_chain_followed(o: &Outcome) -> Verdict {
    for (path, status) in [
        ("/redirect/1", 301),
        ("/redirect/2", 302),
        ("/redirect/3", 307),
    ] {
        logged_once_with(o, path, status)?;
    }
    let last = fetched(o, "/final")?;
    ensure(last.hop_path.ends_with("RRR"), || {
        format!(
            "/final is three redirects deep: expected a hop path ending RRR, saw {:?}",
            last.hop_path
        )
    })?;
    Ok(format!(
        "301 -> 302 -> 307 -> /final (hop path {})",
        last.hop_path
    ))
}

fn redirect_loop_stopped(o: &Outcome) -> Verdict {
    for path in ["/loop/a", "/loop/b"] {
        let fetches = lines(o, path).iter().filter(|l| l.status > 0).count();
        let hits = o.site.hits(path);
        ensure(hits == 1 && fetches == 1, || {
            format!("expected one fetch; {}", logged(o, path))
        })?;
    }
    Ok("/loop/a and /loop/b fetched once each".into())
}

fn not_found_recorded(o: &Outcome) -> Verdict {
    logged_once_with(o, "/missing", 404)?;
    let hits = o.site.hits("/missing");
    ensure(hits == 1, || {
        format!("a 404 is final: expected 1 request for /missing, saw {hits}")
    })?;
    Ok("/missing logged 404".into())
}

fn server_error_retried(o: &Outcome) -> Verdict {
    logged_once_with(o, "/error500", 500)?;
    let (hits, want) = (o.site.hits("/error500"), 1 + SELFTEST_MAX_RETRIES as usize);
    ensure(hits == want, || {
        format!(
            "expected {want} requests for /error500 (1 + {SELFTEST_MAX_RETRIES} retries), saw {hits}"
        )
    })?;
    Ok(format!(
        "/error500 requested {hits} times, logged once as 500"
    ))
}

fn relative_links_resolved(o: &Outcome) -> Verdict {
    for path in ["/dir/rel-target", "/dir/sub/same-dir", "/based/target"] {
        fetched(o, path)?;
    }
    let wrong = o.site.hits("/target");
    ensure(wrong == 0, || {
        format!("<base href> ignored: /target requested {wrong} times")
    })?;
    Ok("../, ./ and <base href> links resolved".into())
}

fn fragments_and_duplicates_once(o: &Outcome) -> Verdict {
    let (hits, n) = (o.site.hits("/dup"), lines(o, "/dup").len());
    ensure(hits == 1 && n == 1, || {
        format!(
            "/dup, /dup#a and /dup#b are one URI: expected 1 request and 1 log line, saw {hits} and {n}"
        )
    })?;
    let with_fragment: Vec<&str> = o
        .log
        .iter()
        .filter(|l| l.uri.contains('#'))
        .map(|l| l.uri.as_str())
        .collect();
    ensure(with_fragment.is_empty(), || {
        format!("fragments must be dropped, logged {with_fragment:?}")
    })?;
    Ok("/dup fetched once".into())
}

fn embeds_fetched(o: &Outcome) -> Verdict {
    for path in [
        "/img/logo.png",
        "/style.css",
        "/app.js",
        "/img/bg.png",
        "/import.css",
    ] {
        let line = fetched(o, path)?;
        ensure(line.last_hop() == Some('E'), || {
            format!(
                "{path} is an embed: expected a hop path ending E, saw {:?}",
                line.hop_path
            )
        })?;
    }
    Ok("img, stylesheet, script, CSS url() and @import fetched as embeds".into())
}

fn offsite_not_followed(o: &Outcome) -> Verdict {
    let url = o.site.offsite_url();
    let hits = o.site.hits_under("offsite:");
    ensure(hits == 0, || {
        format!("the offsite server received {hits} requests, expected none")
    })?;
    let bad: Vec<i32> = o
        .log
        .iter()
        .filter(|l| l.uri == url && l.status != -5000)
        .map(|l| l.status)
        .collect();
    ensure(bad.is_empty(), || {
        format!("{url} must not be logged (or only as -5000), saw statuses {bad:?}")
    })?;
    Ok(format!("{url} never requested"))
}

fn calendar_trap_stopped(o: &Outcome) -> Verdict {
    let prefix = o.site.url("/calendar/");
    let fetches = o
        .log
        .iter()
        .filter(|l| l.uri.starts_with(&prefix) && l.status > 0)
        .count();
    let hits = o.site.hits_under("/calendar/");
    let range = CALENDAR_MIN_FETCHES..=CALENDAR_MAX_FETCHES;
    ensure(range.contains(&fetches) && range.contains(&hits), || {
        format!(
            "expected {range:?} calendar fetches (max hops 20), saw {fetches} logged and {hits} requests"
        )
    })?;
    Ok(format!("{fetches} calendar pages fetched, then stopped"))
}

fn gzip_content_encoding(o: &Outcome) -> Verdict {
    fetched(o, "/gzip-target")?;
    let rec = response(o, "/gzip")?;
    ensure(rec.has_http_header("Content-Encoding", "gzip"), || {
        "the WARC response for /gzip lacks `Content-Encoding: gzip` in its HTTP head".into()
    })?;
    let body = rec.http_parts().map(|(_, body)| body).unwrap_or_default();
    ensure(body.starts_with(&[0x1f, 0x8b]), || {
        format!(
            "the WARC must keep /gzip's body compressed (1f 8b), it starts {:02x?}",
            &body[..body.len().min(4)]
        )
    })?;
    Ok("/gzip archived compressed, its link followed".into())
}

fn chunked_transfer(o: &Outcome) -> Verdict {
    fetched(o, "/chunked-target")?;
    let rec = response(o, "/chunked")?;
    ensure(rec.has_http_header("Transfer-Encoding", "chunked"), || {
        "the WARC response for /chunked lacks `Transfer-Encoding: chunked` in its HTTP head".into()
    })?;
    Ok("/chunked archived as sent, its link followed".into())
}

fn legacy_charset_page(o: &Outcome) -> Verdict {
    fetched(o, "/charset-target")?;
    fetched(o, CHARSET_UTF8_PATH).map_err(|e| {
        let wrong = o.site.hits_under("/charset/");
        format!(
            "the windows-1251 link /charset/привет must become {CHARSET_UTF8_PATH}: {e} \
             ({wrong} requests under /charset/)"
        )
    })?;
    Ok("windows-1251 page decoded, both links followed".into())
}

fn size_limit_truncated(o: &Outcome) -> Verdict {
    let line = logged_once_with(o, "/big", 200)?;
    ensure(line.has_annotation("lenTrunc"), || {
        format!(
            "/big exceeds max_bytes: expected annotation lenTrunc, saw {:?}",
            line.annotations
        )
    })?;
    let rec = response(o, "/big")?;
    ensure(rec.header("WARC-Truncated").is_some(), || {
        "the WARC response for /big lacks WARC-Truncated".into()
    })?;
    let len = rec.block.len();
    ensure(len < BIG_BYTES, || {
        format!("the WARC block for /big is {len} bytes, expected under {BIG_BYTES}")
    })?;
    Ok(format!("/big truncated to a {len}-byte block"))
}

fn slow_response_timed_out(o: &Outcome) -> Verdict {
    let slow = lines(o, "/slow");
    ensure(
        !slow.is_empty() && slow.iter().all(|l| l.status == -4),
        || {
            format!(
                "/slow outlasts the timeout: expected status -4; {}",
                logged(o, "/slow")
            )
        },
    )?;
    Ok("/slow timed out (-4) and the crawl finished".into())
}

/// The robots.txt `Sitemap:` line leads to an index, its gzipped child, and a page listed only there, each an
/// `S` hop.
fn sitemap_pages_found(o: &Outcome) -> Verdict {
    let page = fetched(o, "/sitemap-only.html")?;
    let child = fetched(o, "/sitemap-pages.xml.gz")?;
    ensure(
        page.hop_path.ends_with("SSS") && child.hop_path.ends_with("SS"),
        || {
            format!(
                "hop paths {:?} and {:?}, want …SSS and …SS",
                page.hop_path, child.hop_path
            )
        },
    )?;
    ensure(
        page.annotations
            .iter()
            .any(|a| a == "lastmod:2026-11-25T00:00:00Z"),
        || {
            format!(
                "the sitemap's <lastmod> was not kept: annotations {:?}",
                page.annotations
            )
        },
    )?;
    Ok(format!(
        "/sitemap-only.html reached through robots.txt, an index and a gzipped sitemap ({}), its lastmod kept",
        page.hop_path
    ))
}

/// A PDF linked from a page leads to a page named in its link annotation and one written in its text, each an
/// `L` hop from the PDF.
fn pdf_links_found(o: &Outcome) -> Verdict {
    let pdf = fetched(o, "/report.pdf")?;
    for path in ["/pdf-only.html", "/pdf-text-only.html"] {
        let page = fetched(o, path)?;
        ensure(page.hop_path == format!("{}L", pdf.hop_path), || {
            format!(
                "hop paths {:?} (PDF) and {:?} ({path}), want it one L past the PDF",
                pdf.hop_path, page.hop_path
            )
        })?;
    }
    Ok(format!(
        "/pdf-only.html (link annotation) and /pdf-text-only.html (text) reached through /report.pdf ({}L)",
        pdf.hop_path
    ))
}

/// A page's `<link rel="alternate">` feed leads to a page listed only in the feed, an `L` hop from it.
fn feed_items_found(o: &Outcome) -> Verdict {
    let feed = fetched(o, "/feed.xml")?;
    let item = fetched(o, "/feed-only.html")?;
    ensure(item.hop_path == format!("{}L", feed.hop_path), || {
        format!(
            "hop paths {:?} (feed) and {:?} (item), want the item one L past the feed",
            feed.hop_path, item.hop_path
        )
    })?;
    Ok(format!(
        "/feed-only.html reached through the feed ({})",
        item.hop_path
    ))
}

/// A path in a script's string literal is fetched as a speculative (`X`) link; a junk string (`"a/b"`) is not.
fn script_strings_guessed(o: &Outcome) -> Verdict {
    let page = fetched(o, "/js-only.html")?;
    ensure(page.hop_path.ends_with('X'), || {
        format!("hop path {:?}, want …X", page.hop_path)
    })?;
    let inline = fetched(o, "/inline-only.html")?;
    ensure(inline.hop_path.ends_with('X'), || {
        format!(
            "hop path {:?} of the page named in an inline script, want …X",
            inline.hop_path
        )
    })?;
    let from_json = fetched(o, "/json-only.html")?;
    ensure(from_json.hop_path.ends_with("XX"), || {
        format!(
            "hop path {:?} of the page named in /data.json, want …XX",
            from_json.hop_path
        )
    })?;
    ensure(lines(o, "/not/a/link").is_empty(), || {
        "the JSON string not/a/link was fetched".into()
    })?;
    ensure(
        lines(o, "/a/b").is_empty() && lines(o, "/a").is_empty(),
        || "the junk string a/b was fetched".into(),
    )?;
    Ok(format!(
        "/js-only.html guessed from /app.js ({}), /json-only.html from /data.json ({}); junk left alone",
        page.hop_path, from_json.hop_path
    ))
}

fn warcs_verify(o: &Outcome) -> Verdict {
    ensure(o.warc_files >= 1, || "the crawl wrote no WARC file".into())?;
    ensure(o.verify_errors.is_empty(), || {
        format!("WARC verification failed: {}", o.verify_errors.join("; "))
    })?;
    let first = o.records.first().map(|r| r.warc_type.as_str());
    ensure(first == Some("warcinfo"), || {
        format!("the first WARC record must be warcinfo, saw {first:?}")
    })?;
    let archived = |uri: &str| {
        o.records
            .iter()
            .any(|r| r.warc_type == "response" && r.target_uri.as_deref() == Some(uri))
    };
    let missing: Vec<&str> = o
        .log
        .iter()
        .filter(|l| l.status > 0 && !archived(&l.uri))
        .map(|l| l.uri.as_str())
        .collect();
    ensure(missing.is_empty(), || {
        format!("logged as fetched but no WARC response record: {missing:?}")
    })?;
    Ok(format!(
        "{} WARC files, {} records, all verified",
        o.warc_files,
        o.records.len()
    ))
}

#[cfg(test)]
mod tests;
