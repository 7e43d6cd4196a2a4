//! A sheet slows one host down while another keeps its pace, and a download-mode URL filter lets pages be
//! fetched and followed but keeps them out of the archive: both visible in crawl.log and the WARC.

mod common;

use chrono::NaiveDateTime;
use trawl_config::CrawlConfig;
use trawl_engine::{Crawl, CrawlHandle};

/// (start, end) in ms of the fetches of URIs starting with `prefix`, sorted.
fn spans(job: &std::path::Path, prefix: &str) -> Vec<(i64, i64)> {
    let mut v: Vec<(i64, i64)> = common::crawl_log(job)
        .iter()
        .filter(|l| l.uri.starts_with(prefix))
        .filter_map(|l| l.fetch.clone())
        .map(|f| {
            let (stamp, ms) = f.split_once('+').unwrap();
            let start = NaiveDateTime::parse_from_str(stamp, "%Y%m%d%H%M%S%3f")
                .unwrap()
                .and_utc()
                .timestamp_millis();
            (start, start + ms.parse::<i64>().unwrap())
        })
        .collect();
    v.sort();
    v
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sheet_slows_one_host_and_download_filter_skips_the_archive() {
    let slow = trawl::selftest::site::start().await.unwrap();
    let fast = trawl::selftest::site::start().await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let text = format!(
        r#"
[seeds]
urls = ["{slow}", "{fast}"]

[scope]
max_hops = 2

[filters]
url_mode = "download"

[[filters.url]]
path = "-/dir/*"

[[sheet]]
name = "slow-host"
surt_prefixes = ["http://(127.0.0.1:{port})/"]
set = {{ "frontier.min_delay_ms" = 250, "frontier.max_delay_ms" = 250, "fetch.max_bytes" = 100000 }}

[[sheet]]
name = "shallow-host"
surt_prefixes = ["http://(127.0.0.1:{fast_port})/"]
set = {{ "scope.max_hops" = 1 }}
"#,
        slow = slow.seed(),
        fast = fast.seed(),
        port = slow.addr.port(),
        fast_port = fast.addr.port(),
    );
    let path = dir.path().join("crawl.toml");
    std::fs::write(&path, text).unwrap();
    let job = dir.path().join("job");
    common::crawl_quickly(&path, &job).await;

    // The sheet's host: every gap at least 250 ms. The other host: back to back.
    let slow_spans = spans(&job, slow.seed().trim_end_matches('/'));
    assert!(slow_spans.len() > 5);
    for w in slow_spans.windows(2) {
        assert!(w[1].0 - w[0].1 >= 249, "slow host fetched {w:?}");
    }
    let fast_spans = spans(&job, fast.seed().trim_end_matches('/'));
    let quick_gaps = fast_spans
        .windows(2)
        .filter(|w| w[1].0 - w[0].1 < 100)
        .count();
    assert!(
        quick_gaps > 5,
        "the other host was slowed too: {fast_spans:?}"
    );

    // Sheets change fetch and scope settings per host too: a smaller size limit on one, fewer hops on the other.
    let log = common::crawl_log(&job);
    let big = log.iter().find(|l| l.uri == slow.url("/big")).unwrap();
    assert_eq!(big.size, Some(100_000), "{big:?}");
    assert!(big.has_annotation("lenTrunc"));
    let fast_prefix = fast.seed();
    // (links only: embeds and redirects of in-scope pages are accepted past max_hops by design)
    let links_only = |l: &&trawl_engine::crawl_log::LogLine| {
        l.status > 0 && l.hop_path.chars().all(|c| c == 'L')
    };
    let deepest_fast = log
        .iter()
        .filter(|l| l.uri.starts_with(&fast_prefix))
        .filter(links_only)
        .map(|l| l.hop_path.len())
        .max();
    let deepest_slow = log
        .iter()
        .filter(|l| l.uri.starts_with(&slow.seed()))
        .filter(links_only)
        .map(|l| l.hop_path.len())
        .max();
    assert_eq!(
        deepest_fast,
        Some(1),
        "the shallow sheet's host went deeper"
    );
    assert!(deepest_slow >= Some(2));

    // The download-mode filter: /dir/... fetched, its links followed, but not archived.
    let log = common::crawl_log(&job);
    let filtered = log
        .iter()
        .find(|l| l.uri == slow.url("/dir/sub/page.html"))
        .expect("filtered page fetched");
    assert_eq!(filtered.status, 200);
    assert!(
        filtered
            .annotations
            .iter()
            .any(|a| a.starts_with("notWritten:url_filter")),
        "{filtered:?}"
    );
    assert!(
        log.iter().any(|l| l.uri == slow.url("/dir/rel-target")),
        "links of a filtered page not followed"
    );
    let archived: Vec<String> = common::records(&job)
        .iter()
        .filter(|r| r.get("WARC-Type") == Some("response"))
        .filter_map(|r| r.get("WARC-Target-URI").map(str::to_string))
        .collect();
    assert!(
        !archived.iter().any(|u| u.contains("/dir/")),
        "filtered pages were archived"
    );
    assert!(archived.contains(&slow.seed()) && archived.contains(&fast.seed()));
    for file in common::warc_files(&job) {
        common::warcio_check(&file);
    }
}

/// A text filter in crawl mode: the matching page is fetched (it had to be read) but neither archived nor
/// followed, so the calendar trap ends there.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn text_filter_in_crawl_mode_stops_at_the_matching_page() {
    let site = trawl::selftest::site::start().await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("crawl.toml");
    std::fs::write(
        &path,
        "[filters]\ntext_mode = \"crawl\"\n\n[[filters.text]]\ncontent = \"2026-03\"\n",
    )
    .unwrap();
    let mut config = CrawlConfig::load(&path).unwrap();
    let sel = trawl::selftest::config();
    config.fetch = sel.fetch;
    config.frontier = sel.frontier;
    let job = dir.path().join("job");
    Crawl::new(&job, config, &[site.seed()])
        .unwrap()
        .run(CrawlHandle::default(), |_| {})
        .await
        .unwrap();
    let log = common::crawl_log(&job);
    let march = log
        .iter()
        .find(|l| l.uri == site.url("/calendar/2026/3"))
        .expect("the matching page was fetched");
    assert_eq!(march.status, 200);
    assert!(
        march
            .annotations
            .iter()
            .any(|a| a.starts_with("text_filter")),
        "{march:?}"
    );
    assert!(
        !log.iter().any(|l| l.uri == site.url("/calendar/2026/4")),
        "links of a filtered page were followed"
    );
    assert!(log.iter().any(|l| l.uri == site.url("/calendar/2026/2")));
    let archived = common::records(&job).iter().any(|r| {
        r.get("WARC-Type") == Some("response")
            && r.get("WARC-Target-URI") == Some(march.uri.as_str())
    });
    assert!(!archived, "a text-filtered page was archived");
}

/// `before_write = [{ rule = "fetch_status_matches" }]` (its default statuses, 404 and 5xx) keeps a page
/// answering 500 out of the archive on every try, the last one included, and a 404 too (xt12a F6: a response
/// to be tried again skipped the gates, so every 5xx was archived; F18: `statuses` had to be written).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_status_gate_keeps_failing_tries_out_of_the_archive() {
    let site = trawl::selftest::site::start().await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let text = format!(
        r#"
[seeds]
urls = ["{seed}"]

[scope]
max_hops = 1

[decide]
before_write = [{{ rule = "fetch_status_matches" }}]
"#,
        seed = site.seed(),
    );
    let path = dir.path().join("crawl.toml");
    std::fs::write(&path, text).unwrap();
    let job = dir.path().join("job");
    common::crawl_quickly_with(&path, &job, |c| {
        c.frontier.max_retries = 1;
        c.frontier.retry_delay_ms = 10;
    })
    .await;
    let log = common::crawl_log(&job);
    assert!(
        common::log_line(&log, &site.url("/error500"))
            .annotations
            .iter()
            .any(|a| a == "2t"),
        "{log:?}"
    );
    for page in ["/error500", "/missing"] {
        let line = common::log_line(&log, &site.url(page));
        assert!(
            line.has_annotation("notWritten:fetch_status_matches"),
            "{line:?}"
        );
    }
    let archived: Vec<String> = common::records(&job)
        .iter()
        .filter(|r| r.get("WARC-Type") == Some("response"))
        .filter_map(|r| r.get("WARC-Target-URI").map(str::to_string))
        .collect();
    assert!(archived.contains(&site.seed()), "{archived:?}");
    for page in ["/error500", "/missing"] {
        assert!(
            !archived.contains(&site.url(page)),
            "{page} archived: {archived:?}"
        );
    }
}

/// xt20b F4: `before_write` says whether a robots.txt is archived, as Heritrix's writer judges prerequisites;
/// the robots.txt is read and obeyed all the same.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn before_write_judges_robots_txt_which_is_obeyed_all_the_same() {
    let site = trawl::selftest::site::start().await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let text = format!(
        r#"
[seeds]
urls = ["{seed}"]

[scope]
max_hops = 1

[decide]
before_write = [{{ rule = "matches_regex", regex = 'robots\.txt$', decision = "reject" }}]
"#,
        seed = site.seed(),
    );
    let path = dir.path().join("crawl.toml");
    std::fs::write(&path, text).unwrap();
    let job = dir.path().join("job");
    common::crawl_quickly(&path, &job).await;
    let log = common::crawl_log(&job);
    let robots = common::log_line(&log, &site.url("/robots.txt"));
    assert!(
        robots.status == 200 && robots.has_annotation("notWritten:matches_regex"),
        "{robots:?}"
    );
    let archived: Vec<String> = common::records(&job)
        .iter()
        .filter_map(|r| r.get("WARC-Target-URI").map(str::to_string))
        .collect();
    assert!(archived.contains(&site.seed()), "{archived:?}");
    assert!(
        !archived.iter().any(|u| u.ends_with("/robots.txt")),
        "{archived:?}"
    );
    let private = log.iter().find(|l| l.uri.contains("/private/"));
    assert!(
        private.is_some_and(|l| l.status == -9998),
        "robots.txt still obeyed: {private:?}"
    );
}

/// An `after_headers` REJECT stops the download at the head: a refused video (by its type) or a file (by its
/// declared length) is not read, its line gives what came, and nothing of it is archived (xt12a F5: the
/// 30 MB were read whole, then dropped).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_body_refused_on_its_head_is_not_downloaded() {
    use axum::{Router, http::header, response::Html, routing::get};
    const BIG: usize = 8 << 20;
    let app = Router::new()
        .route(
            "/",
            get(|| async { Html("<a href=\"/big.mp4\">v</a> <a href=\"/big.bin\">b</a>") }),
        )
        .route(
            "/big.mp4",
            get(|| async { ([(header::CONTENT_TYPE, "video/mp4")], vec![7u8; 2 << 20]) }),
        )
        .route(
            "/big.bin",
            get(|| async {
                (
                    [(header::CONTENT_TYPE, "application/octet-stream")],
                    vec![7u8; BIG],
                )
            }),
        );
    let addr = common::listen(app).await;
    let seed = format!("http://{addr}/");
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("crawl.toml");
    std::fs::write(
        &path,
        format!(
            "[seeds]\nurls = [\"{seed}\"]\n[decide]\nafter_headers = [\
             {{ rule = \"content_type_matches_regex\", regex = \"^video/\" }}, \
             {{ rule = \"content_length\", longer_than = 4000000 }}]\n"
        ),
    )
    .unwrap();
    let job = dir.path().join("job");
    common::crawl_quickly_with(&path, &job, |c| c.fetch.obey_robots = false).await;
    let log = common::crawl_log(&job);
    // The video (2 MB) is refused by its type alone, the file (8 MB) by its declared length; neither body read.
    for (page, rule) in [
        ("big.mp4", "reject:content_type_matches_regex"),
        ("big.bin", "reject:content_length"),
    ] {
        let line = common::log_line(&log, &format!("{seed}{page}"));
        assert!(line.has_annotation(rule), "{line:?}");
        assert_eq!(line.size, Some(0), "{line:?}");
    }
    let archived: Vec<String> = common::records(&job)
        .iter()
        .filter_map(|r| r.get("WARC-Target-URI").map(str::to_string))
        .collect();
    assert!(archived.contains(&seed), "{archived:?}");
    assert!(!archived.iter().any(|u| u.contains("big.")), "{archived:?}");
}
