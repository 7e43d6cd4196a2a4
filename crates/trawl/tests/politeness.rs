//! Politeness as a server sees it: the delay between one fetch's end and the next fetch's start on a host, and
//! the per-host bandwidth cap, read off crawl.log's fetch timestamps.

mod common;

use chrono::NaiveDateTime;
use trawl_engine::{Crawl, CrawlHandle};

/// (start, end) of every fetch in crawl.log, in milliseconds since the epoch, sorted by start.
fn fetch_spans(job: &std::path::Path) -> Vec<(i64, i64)> {
    let mut spans: Vec<(i64, i64)> = common::crawl_log(job)
        .iter()
        .filter_map(|l| l.fetch.as_deref())
        .map(|f| {
            let (stamp, ms) = f.split_once('+').unwrap();
            let start = NaiveDateTime::parse_from_str(stamp, "%Y%m%d%H%M%S%3f")
                .unwrap()
                .and_utc()
                .timestamp_millis();
            (start, start + ms.parse::<i64>().unwrap())
        })
        .collect();
    spans.sort();
    spans
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_host_waits_between_fetches() {
    let site = trawl::selftest::site::start().await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let mut config = trawl::selftest::config();
    config.frontier.min_delay_ms = 150;
    config.frontier.max_delay_ms = 150;
    config.scope.max_hops = 2; // a short crawl is enough
    Crawl::new(dir.path(), config, &[site.seed()])
        .unwrap()
        .run(CrawlHandle::default(), |_| {})
        .await
        .unwrap();
    let spans = fetch_spans(dir.path());
    assert!(spans.len() > 10, "{spans:?}");
    for pair in spans.windows(2) {
        let gap = pair[1].0 - pair[0].1;
        // crawl.log has millisecond timestamps: allow one for rounding.
        assert!(gap >= 149, "fetches {pair:?} only {gap} ms apart");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bandwidth_cap_spreads_a_host_out() {
    let site = trawl::selftest::site::start().await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let mut config = trawl::selftest::config();
    config.frontier.max_host_bytes_per_s = 1_000_000;
    config.scope.max_hops = 1;
    // /big read to 1 MiB (the self-test reads 256 KiB, which left the crawl's bytes within a few KiB of the
    // 300 kB this test needs: how far past the cap a read goes decided the outcome).
    config.fetch.max_bytes = 1 << 20;
    let summary = Crawl::new(dir.path(), config, &[site.seed()])
        .unwrap()
        .run(CrawlHandle::default(), |_| {})
        .await
        .unwrap();
    let spans = fetch_spans(dir.path());
    let elapsed_ms = spans.last().unwrap().0 - spans.first().unwrap().0;
    // Everything but the last fetch must have "paid" for its bytes before the next one started.
    let floor_ms = (summary.stats.wire_bytes as i64 - 300_000) * 1000 / 1_000_000;
    assert!(
        elapsed_ms >= floor_ms.max(0),
        "{} bytes in {elapsed_ms} ms",
        summary.stats.wire_bytes
    );
    assert!(
        summary.stats.wire_bytes > 300_000,
        "the /big page should make the cap bite: {} bytes",
        summary.stats.wire_bytes
    );
}

/// A robots.txt's `Crawl-delay` holds from the robots.txt fetch on: the first page waits it too (it used to
/// wait only the configured delay, the Crawl-delay being read after the delay was set).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_crawl_delay_holds_from_the_robots_txt_fetch_on() {
    use axum::{Router, extract::Request, http::header, response::IntoResponse};
    let app = Router::new().fallback(|req: Request| async move {
        match req.uri().path() {
            "/robots.txt" => "User-agent: *\nCrawl-delay: 1\n".into_response(),
            "/" => (
                [(header::CONTENT_TYPE, "text/html")],
                "<a href=\"/a\">a</a> <a href=\"/b\">b</a>",
            )
                .into_response(),
            _ => ([(header::CONTENT_TYPE, "text/html")], "leaf").into_response(),
        }
    });
    let port = common::listen(app).await.port();
    let dir = tempfile::tempdir().unwrap();
    let mut config = trawl::selftest::config();
    config.frontier.min_delay_ms = 100;
    config.frontier.max_delay_ms = 100;
    config.frontier.delay_factor = 0.0;
    Crawl::new(dir.path(), config, &[format!("http://127.0.0.1:{port}/")])
        .unwrap()
        .run(CrawlHandle::default(), |_| {})
        .await
        .unwrap();
    let spans = fetch_spans(dir.path());
    assert_eq!(spans.len(), 4, "robots.txt and 3 pages: {spans:?}");
    for pair in spans.windows(2) {
        let gap = pair[1].0 - pair[0].1;
        assert!(gap >= 999, "fetches {pair:?} only {gap} ms apart");
    }
}
