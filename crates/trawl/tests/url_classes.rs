//! Class-aware crawling of a local site shaped like a booru: post URLs deduplicated by their class's
//! normalised form, posts fetched through their API URL (hop I), gallery pages continued by prediction when
//! they have no next link, and a watchable thread revisited until it is gone.

mod common;

use std::sync::{
    Arc, Mutex,
    atomic::{AtomicUsize, Ordering},
};

use tokio::{
    io::{AsyncReadExt, AsyncWriteExt},
    net::TcpListener,
};
use trawl_config::CrawlConfig;
use trawl_engine::{Crawl, CrawlHandle};

const CLASSES: &str = r#"
[[url_class]]
name = "booru gallery"
kind = "gallery"
example = "http://127.0.0.1/index.php?page=post&s=list&tags=cat&pid=0"
preferred_scheme = "http"
domains = ["127.0.0.1"]
path = [ { match = "fixed", value = "index.php" } ]
query = [
  { name = "page", match = "fixed", value = "post" },
  { name = "s", match = "fixed", value = "list" },
  { name = "pid", match = "numeric", default = "0" },
]
next_page = { query = "pid", delta = 3 }

[[url_class]]
name = "booru post"
kind = "post"
example = "http://127.0.0.1/index.php?page=post&s=view&id=1"
preferred_scheme = "http"
domains = ["127.0.0.1"]
path = [ { match = "fixed", value = "index.php" } ]
query = [
  { name = "page", match = "fixed", value = "post" },
  { name = "s", match = "fixed", value = "view" },
  { name = "id", match = "numeric" },
]
api = [ { regex_sub = { pattern = '^(https?://[^/]+)/index\.php\?.*id=(\d+).*$', replace = '${1}/api/post/${2}.json' } } ]

[[url_class]]
name = "booru post api"
kind = "post"
example = "http://127.0.0.1/api/post/1.json"
preferred_scheme = "http"
domains = ["127.0.0.1"]
exact_path = true
path = [ { match = "fixed", value = "api" }, { match = "fixed", value = "post" }, { match = "regex", value = '^\d+\.json$' } ]

[[url_class]]
name = "booru thread"
kind = "watchable"
example = "http://127.0.0.1/thread/1"
preferred_scheme = "http"
domains = ["127.0.0.1"]
path = [ { match = "fixed", value = "thread" }, { match = "numeric" } ]
"#;

/// Requests received, by path and query.
type Hits = Arc<Mutex<Vec<String>>>;

async fn booru() -> (u16, Hits) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let hits: Hits = Arc::default();
    let thread_visits = Arc::new(AtomicUsize::new(0));
    let log = hits.clone();
    tokio::spawn(async move {
        while let Ok((mut tcp, _)) = listener.accept().await {
            let log = log.clone();
            let visits = thread_visits.clone();
            tokio::spawn(async move {
                let mut buf = vec![0u8; 8192];
                let n = tcp.read(&mut buf).await.unwrap_or(0);
                let head = String::from_utf8_lossy(&buf[..n]).to_string();
                let target = head.split_whitespace().nth(1).unwrap_or("/").to_string();
                log.lock().unwrap().push(target.clone());
                let (status, ctype, body) = page(&target, &visits);
                let resp = format!(
                    "HTTP/1.1 {status}\r\nContent-Type: {ctype}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                    body.len()
                );
                let _ = tcp.write_all(resp.as_bytes()).await;
            });
        }
    });
    (port, hits)
}

fn page(target: &str, thread_visits: &AtomicUsize) -> (&'static str, &'static str, String) {
    let html = |b: String| {
        (
            "200 OK",
            "text/html",
            format!("<html><body>{b}</body></html>"),
        )
    };
    let query = |name: &str| {
        target
            .split(['?', '&'])
            .find_map(|kv| kv.strip_prefix(&format!("{name}=")))
            .map(str::to_string)
    };
    if target == "/" {
        return html(
            "<a href=\"/index.php?page=post&s=list&tags=cat\">cats</a> <a href=\"/thread/7\">thread</a>".into(),
        );
    }
    if target.starts_with("/index.php") && query("s").as_deref() == Some("list") {
        let pid: usize = query("pid").and_then(|p| p.parse().ok()).unwrap_or(0);
        let mut b = String::new();
        for id in (pid + 1..=pid + 3).filter(|&id| id <= 8) {
            // the same post under two spellings: extra parameter, other order
            b.push_str(&format!(
                "<a href=\"/index.php?page=post&s=view&id={id}&tags=cat\">p</a>"
            ));
            b.push_str(&format!(
                "<a href=\"/index.php?id={id}&s=view&page=post\">p</a>"
            ));
            b.push_str(&format!("<img src=\"/thumbs/{id}.png\">"));
        }
        if pid == 0 {
            b.push_str("<a href=\"/index.php?page=post&s=list&tags=cat&pid=3\">next</a>");
        }
        return html(b);
    }
    if let Some(rest) = target.strip_prefix("/api/post/") {
        let id = rest.trim_end_matches(".json");
        return (
            "200 OK",
            "application/json",
            format!("{{\"id\":{id},\"file\":\"/images/{id}.png\"}}"),
        );
    }
    if target == "/thread/7" {
        let n = thread_visits.fetch_add(1, Ordering::SeqCst);
        return if n < 2 {
            html(format!("post count {n}"))
        } else {
            ("404 Not Found", "text/html", "gone".into())
        };
    }
    if target.starts_with("/thumbs/") {
        return ("200 OK", "image/png", "png".into());
    }
    ("404 Not Found", "text/html", "nothing".into())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn booru_dedup_api_gallery_and_watch() {
    let (port, hits) = booru().await;
    let dir = tempfile::tempdir().unwrap();
    let cfg_path = dir.path().join("crawl.toml");
    std::fs::write(
        &cfg_path,
        format!("[classes]\nwatch_interval_s = 1\nwatch_unchanged_s = 60\n{CLASSES}"),
    )
    .unwrap();
    let mut config = CrawlConfig::load(&cfg_path).unwrap();
    let sel = trawl::selftest::config();
    config.frontier = sel.frontier;
    config.fetch = sel.fetch;
    assert!(
        config
            .compile_classes()
            .unwrap()
            .check_examples()
            .is_empty()
    );

    let job = dir.path().join("job");
    let seed = format!("http://127.0.0.1:{port}/");
    let summary = Crawl::new(&job, config, &[seed])
        .unwrap()
        .run(CrawlHandle::default(), |_| {})
        .await
        .unwrap();
    assert_eq!(summary.ending, trawl_engine::report::Ending::Finished);
    let log = common::crawl_log(&job);
    let hits = hits.lock().unwrap().clone();
    let count = |needle: &str| hits.iter().filter(|h| h.as_str() == needle).count();

    // Posts: fetched once each, through their API URL, never as pages.
    for id in 1..=8 {
        assert_eq!(
            count(&format!("/api/post/{id}.json")),
            1,
            "post {id}: {hits:?}"
        );
        let line = log
            .iter()
            .find(|l| l.uri.ends_with(&format!("/api/post/{id}.json")))
            .unwrap();
        assert!(line.hop_path.ends_with('I'), "{line:?}");
        assert!(line.has_annotation("api"));
    }
    assert!(
        !hits.iter().any(|h| h.contains("s=view")),
        "post pages fetched: {hits:?}"
    );

    // Gallery: pid=3 came from a link; 6 and 9 were predicted (hop I); 9 had no new links, so 12 was never tried.
    let gallery = |pid: usize| {
        log.iter()
            .find(|l| l.uri.contains("s=list") && l.uri.contains(&format!("pid={pid}&")))
    };
    assert!(gallery(3).unwrap().hop_path.ends_with('L'));
    assert!(gallery(6).unwrap().hop_path.ends_with('I'));
    assert!(gallery(9).unwrap().hop_path.ends_with('I'));
    assert!(gallery(12).is_none());
    assert_eq!(hits.iter().filter(|h| h.contains("s=list")).count(), 4);

    // Watchable: fetched, revisited, and dropped once it returned 404.
    let thread: Vec<_> = log
        .iter()
        .filter(|l| l.uri.ends_with("/thread/7"))
        .collect();
    assert_eq!(thread.len(), 3, "{thread:?}");
    assert_eq!(thread[2].status, 404);
    assert!(thread[2].has_annotation("revisit:2"), "{:?}", thread[2]);

    // The metadata record of an API fetch names the page it stands for, in its normalised form.
    let recs = common::records(&job);
    let meta = recs
        .iter()
        .find(|r| {
            r.get("WARC-Type") == Some("metadata")
                && r.get("WARC-Target-URI")
                    .unwrap()
                    .ends_with("/api/post/1.json")
        })
        .unwrap();
    let text = String::from_utf8_lossy(&meta.block);
    assert!(
        text.contains(&format!(
            "apiFor: http://127.0.0.1:{port}/index.php?id=1&page=post&s=view"
        )),
        "{text}"
    );
    // Each metadata record names what its URL is, by the class it matched (xt42a F8); a URL no class
    // matches names none.
    assert!(
        text.contains("\r\nurlClass: booru post api\r\nurlKind: post\r\n"),
        "{text}"
    );
    let metadata_of = |suffix: &str| {
        let r = recs
            .iter()
            .find(|r| {
                r.get("WARC-Type") == Some("metadata")
                    && r.get("WARC-Target-URI").unwrap().ends_with(suffix)
            })
            .unwrap_or_else(|| panic!("no metadata record of {suffix}"));
        String::from_utf8_lossy(&r.block).into_owned()
    };
    let gallery = metadata_of("s=list&tags=cat");
    assert!(
        gallery.contains("urlClass: booru gallery\r\nurlKind: gallery\r\n"),
        "{gallery}"
    );
    let robots = metadata_of("/robots.txt");
    assert!(!robots.contains("urlClass"), "{robots}");
    for file in common::warc_files(&job) {
        common::warcio_check(&file);
    }
}

/// xt5 F9: a seed handed over to its API URL writes no crawl.log line of its own, but the seeds report lists it,
/// with the API URL as its redirect and that URL's status.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_seed_fetched_through_its_api_url_is_in_the_seeds_report() {
    let (port, _hits) = booru().await;
    let dir = tempfile::tempdir().unwrap();
    let cfg_path = dir.path().join("crawl.toml");
    std::fs::write(&cfg_path, CLASSES).unwrap();
    let mut config = CrawlConfig::load(&cfg_path).unwrap();
    let sel = trawl::selftest::config();
    config.frontier = sel.frontier;
    config.fetch = sel.fetch;
    let job = dir.path().join("job");
    let seed = format!("http://127.0.0.1:{port}/index.php?page=post&s=view&id=4");
    Crawl::new(&job, config, &[seed])
        .unwrap()
        .run(CrawlHandle::default(), |_| {})
        .await
        .unwrap();
    let api = format!("http://127.0.0.1:{port}/api/post/4.json");
    assert!(
        common::crawl_log(&job)
            .iter()
            .any(|l| l.uri == api && l.status == 200)
    );
    let report: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(job.join("reports").join("seeds-report.json")).unwrap(),
    )
    .unwrap();
    let rows = report.as_array().unwrap();
    assert_eq!(rows.len(), 1, "{report}");
    assert_eq!(rows[0]["status"], 200, "{report}");
    assert_eq!(rows[0]["redirect"], api.as_str(), "{report}");
}

/// xt5 F11: a class whose `api` converter fails for a URL (here it makes an `ftp:` URL): the page itself is
/// fetched, and its crawl.log line says `classFailed:api`; a URL whose converter works is handed over.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failing_api_converter_is_noted_on_the_page_line() {
    let (port, hits) = booru().await;
    let dir = tempfile::tempdir().unwrap();
    let mut config: CrawlConfig = toml::from_str(
        r#"
[[url_class]]
name = "v"
kind = "post"
example = "http://127.0.0.1/view/1.html"
preferred_scheme = "http"
domains = ["127.0.0.1"]
path = [ { match = "fixed", value = "view" }, { match = "regex", value = '^\d+\.html$' } ]
api = [
  { regex_sub = { pattern = '(\d+)\.html$', replace = '${1}.json' } },
  { regex_sub = { pattern = '^http://127\.0\.0\.1:\d+/view/8\.json$', replace = 'ftp://x/' } },
]
"#,
    )
    .unwrap();
    let sel = trawl::selftest::config();
    config.frontier = sel.frontier;
    config.fetch = sel.fetch;
    let job = dir.path().join("job");
    let seeds = [
        format!("http://127.0.0.1:{port}/view/8.html"),
        format!("http://127.0.0.1:{port}/view/7.html"),
    ];
    Crawl::new(&job, config, &seeds)
        .unwrap()
        .run(CrawlHandle::default(), |_| {})
        .await
        .unwrap();
    let log = common::crawl_log(&job);
    let page = log
        .iter()
        .find(|l| l.uri.ends_with("/view/8.html"))
        .expect("the page with no API URL was fetched itself");
    assert!(page.has_annotation("classFailed:api"), "{page:?}");
    assert!(
        log.iter().any(|l| l.uri.ends_with("/view/7.json")),
        "{log:?}"
    );
    let hits = hits.lock().unwrap().clone();
    assert!(!hits.iter().any(|h| h == "/view/7.html"), "{hits:?}");
}
