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

/// A robots.txt `Crawl-delay` spaces the starts of a host's fetches even with several connections to it
/// (xt12a F4: three connections sent three requests per delay).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_crawl_delay_holds_between_connections_too() {
    use axum::{Router, extract::Request, response::Html};
    use std::sync::{Arc, Mutex};
    let seen: Arc<Mutex<Vec<(String, std::time::Instant)>>> = Arc::default();
    let log = seen.clone();
    let app = Router::new().fallback(move |req: Request| {
        let log = log.clone();
        async move {
            let path = req.uri().path().to_owned();
            log.lock()
                .unwrap()
                .push((path.clone(), std::time::Instant::now()));
            if path == "/robots.txt" {
                return "User-agent: *\nCrawl-delay: 1\n".to_owned().into_response();
            }
            let links: String = (0..5).map(|i| format!("<a href=\"/p{i}\">p</a>")).collect();
            Html(links).into_response()
        }
    });
    use axum::response::IntoResponse;
    let addr = common::listen(app).await;
    let dir = tempfile::tempdir().unwrap();
    let cfg = dir.path().join("c.toml");
    std::fs::write(
        &cfg,
        format!("[seeds]\nurls = [\"http://{addr}/\"]\n[scope]\nmax_hops = 1\n"),
    )
    .unwrap();
    let job = dir.path().join("job");
    common::crawl_quickly_with(&cfg, &job, |c| c.fetch.max_connections_per_host = 3).await;
    let seen = seen.lock().unwrap().clone();
    let pages: Vec<_> = seen.iter().filter(|(p, _)| p != "/robots.txt").collect();
    assert_eq!(pages.len(), 6, "{seen:?}");
    for pair in pages.windows(2) {
        let gap = pair[1].1 - pair[0].1;
        assert!(
            gap >= std::time::Duration::from_millis(950),
            "{} then {} after {gap:?}: {:?}",
            pair[0].0,
            pair[1].0,
            seen.iter()
                .map(|(p, t)| (p, *t - seen[0].1))
                .collect::<Vec<_>>()
        );
    }
}
