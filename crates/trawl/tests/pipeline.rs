//! The pipeline's promises (issue 20): every URI a page leads to goes through the candidate chain (scope
//! included), watchable revisits live in the frontier (so they survive kill -9), and a checkpoint does not
//! stop the workers.

mod common;

use std::{
    collections::{BTreeMap, HashMap},
    path::Path,
    process::{Command, Stdio},
    sync::{
        Arc, Mutex,
        atomic::{AtomicUsize, Ordering},
    },
    time::{Duration, Instant},
};

use tokio::{
    io::{AsyncReadExt, AsyncWriteExt},
    net::TcpListener,
};
use trawl_config::CrawlConfig;
use trawl_engine::{Crawl, CrawlHandle, report::Ending};

/// A page: status line, content type, body.
type Page = (&'static str, &'static str, String);

/// Serves `page(target, visit number of that target)` on 127.0.0.1 (one request per connection) from a
/// thread and runtime of its own, like a real server: a crawl that keeps its own runtime's threads busy does
/// not slow it. Returns the port and the targets requested, in order.
fn serve(page: fn(&str, usize) -> Page) -> (u16, Arc<Mutex<Vec<String>>>) {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let port = listener.local_addr().unwrap().port();
    let hits: Arc<Mutex<Vec<String>>> = Arc::default();
    let log = hits.clone();
    std::thread::spawn(move || {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        rt.block_on(async move {
            let listener = TcpListener::from_std(listener).unwrap();
            while let Ok((mut tcp, _)) = listener.accept().await {
                let log = log.clone();
                tokio::spawn(async move {
                    let mut buf = vec![0u8; 8192];
                    let n = tcp.read(&mut buf).await.unwrap_or(0);
                    let head = String::from_utf8_lossy(&buf[..n]).to_string();
                    let target = head.split_whitespace().nth(1).unwrap_or("/").to_string();
                    let visit = {
                        let mut hits = log.lock().unwrap();
                        hits.push(target.clone());
                        hits.iter().filter(|h| **h == target).count()
                    };
                    let (status, ctype, body) = page(&target, visit);
                    let resp = format!(
                        "HTTP/1.1 {status}\r\nContent-Type: {ctype}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                        body.len()
                    );
                    let _ = tcp.write_all(resp.as_bytes()).await;
                });
            }
        });
    });
    (port, hits)
}

fn html(body: String) -> Page {
    (
        "200 OK",
        "text/html",
        format!("<html><body>{body}</body></html>"),
    )
}

/// A config with the self-test's quick settings and these URL classes (and other TOML).
fn config(dir: &Path, toml: &str) -> CrawlConfig {
    let path = dir.join("crawl.toml");
    std::fs::write(&path, toml).unwrap();
    let mut config = CrawlConfig::load(&path).unwrap();
    let quick = quick();
    config.frontier = quick.frontier;
    config.fetch = quick.fetch;
    config
}

/// The self-test's quick settings with patient fetch timeouts: these tests' servers answer at once, and a
/// CI machine busy with other tests must not turn a slow moment into failed fetches.
fn quick() -> CrawlConfig {
    let mut config = trawl::selftest::config();
    config.fetch.timeout_ms = 20_000;
    config.fetch.connect_timeout_ms = 20_000;
    config.fetch.header_timeout_ms = 20_000;
    config
}

/// A gallery with posts whose API lives on another host, and a next page the class predicts.
fn gallery(target: &str, _visit: usize) -> Page {
    if target == "/robots.txt" {
        return ("404 Not Found", "text/plain", String::new());
    }
    if let Some(pid) = target.strip_prefix("/list?pid=") {
        let pid: usize = pid.parse().unwrap_or(0);
        let posts: String = (pid + 1..=pid + 2)
            .map(|id| format!("<a href=\"/post?id={id}\">post</a>"))
            .collect();
        return html(posts);
    }
    html(String::new())
}

const GALLERY_CLASSES: &str = r#"
[[url_class]]
name = "gallery"
kind = "gallery"
example = "http://127.0.0.1/list?pid=0"
preferred_scheme = "http"
domains = ["127.0.0.1"]
path = [ { match = "fixed", value = "list" } ]
query = [ { name = "pid", match = "numeric", default = "0" } ]
next_page = { query = "pid", delta = 2 }

[[url_class]]
name = "post"
kind = "post"
example = "http://127.0.0.1/post?id=1"
preferred_scheme = "http"
domains = ["127.0.0.1"]
path = [ { match = "fixed", value = "post" } ]
query = [ { name = "id", match = "numeric" } ]
api = [ { regex_sub = { pattern = '^http://127\.0\.0\.1(:\d+)?/post\?id=(\d+)$', replace = 'http://127.0.0.2${1}/api/${2}.json' } } ]

[[url_class]]
name = "post api"
kind = "post"
example = "http://127.0.0.2/api/1.json"
preferred_scheme = "http"
domains = ["127.0.0.2"]
path = [ { match = "fixed", value = "api" }, { match = "regex", value = '^\d+\.json$' } ]
"#;

// See: issue 20 (an API URL and a predicted next page went into the frontier past the scope).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn api_urls_and_predicted_pages_pass_the_scope() {
    let (port, hits) = serve(gallery);
    let dir = tempfile::tempdir().unwrap();
    // A URL filter (it joins the scope) keeps the gallery's page 2 out.
    let config = config(
        dir.path(),
        &format!("[[filters.url]]\nregexp = 'pid=2'\n{GALLERY_CLASSES}"),
    );
    let job = dir.path().join("job");
    let seed = format!("http://127.0.0.1:{port}/list?pid=0");
    let summary = Crawl::new(&job, config, &[seed])
        .unwrap()
        .run(CrawlHandle::default(), |_| {})
        .await
        .unwrap();
    assert_eq!(summary.ending, Ending::Finished);
    let hits = hits.lock().unwrap().clone();
    assert_eq!(hits, ["/robots.txt", "/list?pid=0"], "fetched: {hits:?}");
    let log = common::crawl_log(&job);
    let line = |needle: &str| {
        log.iter()
            .find(|l| l.uri.contains(needle))
            .unwrap_or_else(|| panic!("no crawl.log line for {needle}: {log:?}"))
    };
    // The posts' API URLs live on another host, outside the seed's SURT prefix: refused, with the rule.
    for id in [1, 2] {
        let api = line(&format!("127.0.0.2:{port}/api/{id}.json"));
        assert_eq!(api.status, -5000, "{api:?}");
        assert_eq!(api.hop_path, "LI");
        assert!(api.has_annotation("reject:reject"), "{api:?}");
    }
    // The predicted next gallery page: refused by the URL filter.
    let next = line("/list?pid=2");
    assert_eq!(next.status, -5000, "{next:?}");
    assert_eq!(next.hop_path, "I");
    assert!(next.has_annotation("reject:url_filter[0]"), "{next:?}");
}

/// A watchable thread: it changes on each of its first three visits, then is gone.
fn thread(target: &str, visit: usize) -> Page {
    match target {
        "/robots.txt" => ("404 Not Found", "text/plain", String::new()),
        "/" => html("<a href=\"/thread/7\">thread</a>".into()),
        "/thread/7" if visit <= 3 => html(format!("post count {visit}")),
        "/thread/7" => ("404 Not Found", "text/html", "gone".into()),
        _ => ("404 Not Found", "text/html", String::new()),
    }
}

const THREAD_CLASS: &str = r#"
[classes]
watch_interval_s = 1
watch_unchanged_s = 600

[[url_class]]
name = "thread"
kind = "watchable"
example = "http://127.0.0.1/thread/1"
preferred_scheme = "http"
domains = ["127.0.0.1"]
path = [ { match = "fixed", value = "thread" }, { match = "numeric" } ]
"#;

/// A trawl process, its standard error written to `stderr` (shown when a test fails).
fn trawl_process(args: &[&str], stderr: &Path) -> std::process::Child {
    Command::new(env!("CARGO_BIN_EXE_trawl"))
        .args(args)
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(stderr).unwrap())
        .spawn()
        .unwrap()
}

/// How many crawl.log lines of `job` end with `suffix` (0 while there is no log).
fn logged(job: &Path, suffix: &str) -> usize {
    std::fs::read_to_string(job.join("logs/crawl.log"))
        .unwrap_or_default()
        .lines()
        .filter(|l| {
            l.split_whitespace()
                .nth(3)
                .is_some_and(|u| u.ends_with(suffix))
        })
        .count()
}

fn wait_for(what: &str, limit: Duration, mut done: impl FnMut() -> bool) {
    let start = Instant::now();
    while !done() {
        assert!(start.elapsed() < limit, "{what}: not within {limit:?}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

// See: issue 20 (a watchable page's next visit was a timer outside the frontier, lost on kill -9).
#[test]
fn watched_urls_are_revisited_after_kill_9_and_resume() {
    let (port, hits) = serve(thread);
    let dir = tempfile::tempdir().unwrap();
    // Visits 3 s apart, so the kill below lands a second from either edge on a busy machine.
    let config = config(
        dir.path(),
        &THREAD_CLASS.replace("watch_interval_s = 1", "watch_interval_s = 3"),
    );
    let cfg = dir.path().join("effective.toml");
    std::fs::write(&cfg, config.to_toml()).unwrap();
    let job = dir.path().join("job");
    let job_arg = job.to_str().unwrap();
    let seed = format!("http://127.0.0.1:{port}/");

    let mut crawl = trawl_process(
        &[
            "crawl",
            "--job",
            job_arg,
            "-c",
            cfg.to_str().unwrap(),
            &seed,
        ],
        &dir.path().join("crawl.err"),
    );
    // Killed after the thread's first visit (its next visit is then due in three seconds).
    wait_for("the first visit", Duration::from_secs(30), || {
        logged(&job, "/thread/7") == 1
    });
    // Its line is written just before the frontier's commit that records its next visit: a moment later,
    // and well before that visit is due, the kill lands.
    std::thread::sleep(Duration::from_millis(1000));
    crawl.kill().unwrap(); // SIGKILL
    crawl.wait().unwrap();
    assert_eq!(logged(&job, "/thread/7"), 1);

    let resume_err = dir.path().join("resume.err");
    let mut resumed = trawl_process(&["resume", job_arg], &resume_err);
    wait_for("the resumed crawl's end", Duration::from_secs(60), || {
        resumed.try_wait().unwrap().is_some()
    });
    assert!(
        resumed.wait().unwrap().success(),
        "trawl resume failed: {}",
        std::fs::read_to_string(&resume_err).unwrap_or_default()
    );
    let hits = hits.lock().unwrap().clone();
    let visits = hits.iter().filter(|h| h.as_str() == "/thread/7").count();
    assert_eq!(visits, 4, "three changing visits, then the 404: {hits:?}");
    let log = common::crawl_log(&job);
    let lines: Vec<_> = log
        .iter()
        .filter(|l| l.uri.ends_with("/thread/7"))
        .collect();
    assert_eq!(lines.len(), 4, "{lines:?}");
    assert_eq!(lines[3].status, 404);
    assert!(lines[3].has_annotation("revisit:3"), "{:?}", lines[3]);
}

/// A watchable page's first visit answers slowly: a stop lands while it is in flight.
fn slow_thread(target: &str, visit: usize) -> Page {
    if target == "/thread/7" && visit == 1 {
        std::thread::sleep(Duration::from_millis(6000));
    }
    thread(target, visit)
}

/// A stop ends the crawl, not a watch: a watchable page that finishes while the crawl drains keeps its next
/// visit, made after `trawl resume` (it used to be dropped at a stop).
#[test]
fn a_stop_while_a_watched_page_is_fetched_keeps_its_next_visit() {
    let (port, hits) = serve(slow_thread);
    let dir = tempfile::tempdir().unwrap();
    let config = config(dir.path(), THREAD_CLASS);
    let cfg = dir.path().join("effective.toml");
    std::fs::write(&cfg, config.to_toml()).unwrap();
    let job = dir.path().join("job");
    let job_arg = job.to_str().unwrap();
    let seed = format!("http://127.0.0.1:{port}/");
    let crawl_err = dir.path().join("crawl.err");
    let mut crawl = trawl_process(
        &[
            "crawl",
            "--job",
            job_arg,
            "-c",
            cfg.to_str().unwrap(),
            &seed,
        ],
        &crawl_err,
    );
    wait_for("the first visit's request", Duration::from_secs(30), || {
        hits.lock().unwrap().iter().any(|h| h == "/thread/7")
    });
    let stop = Command::new(env!("CARGO_BIN_EXE_trawl"))
        .args(["ctl", job_arg, "stop"])
        .output()
        .unwrap();
    assert!(stop.status.success(), "{stop:?}");
    // The stop was answered while the visit was still in flight.
    assert_eq!(logged(&job, "/thread/7"), 0);
    wait_for("the stopped crawl's end", Duration::from_secs(30), || {
        crawl.try_wait().unwrap().is_some()
    });
    assert_eq!(logged(&job, "/thread/7"), 1, "the visit in flight finished");

    let resume_err = dir.path().join("resume.err");
    let mut resumed = trawl_process(&["resume", job_arg], &resume_err);
    wait_for("the resumed crawl's end", Duration::from_secs(60), || {
        resumed.try_wait().unwrap().is_some()
    });
    assert!(
        resumed.wait().unwrap().success(),
        "trawl resume failed: {}",
        std::fs::read_to_string(&resume_err).unwrap_or_default()
    );
    let hits = hits.lock().unwrap().clone();
    let visits = hits.iter().filter(|h| h.as_str() == "/thread/7").count();
    assert_eq!(visits, 4, "three changing visits, then the 404: {hits:?}");
}

/// Every file under `dir`, with its size (what a checkpoint that is taking long has written so far).
fn files_under(dir: &std::path::Path) -> Vec<(std::path::PathBuf, u64)> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.is_dir() {
            files.extend(files_under(&path));
        } else {
            let size = entry.metadata().map(|m| m.len()).unwrap_or(0);
            files.push((path, size));
        }
    }
    files
}

/// A wide tree of tiny pages: each of the first 250 links to 2,000 more, so the frontier grows large quickly
/// but stops near 500,000 (a slow machine's crawl does not outgrow its checkpoint).
fn tree(target: &str, _visit: usize) -> Page {
    if target == "/robots.txt" {
        return ("404 Not Found", "text/plain", String::new());
    }
    let n: u64 = target
        .strip_prefix("/p/")
        .and_then(|n| n.parse().ok())
        .unwrap_or(0);
    if n >= 250 {
        return html(String::new());
    }
    let links: String = (1..=2000)
        .map(|i| format!("<a href=/p/{}>.</a>", n * 2000 + i))
        .collect();
    html(links)
}

// See: issue 20 (a checkpoint copied the frontier's store while holding its lock, stalling every worker).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_checkpoint_does_not_stop_fetching() {
    let (port, _hits) = serve(tree);
    let dir = tempfile::tempdir().unwrap();
    let mut config = quick();
    config.fetch.max_connections_per_host = 4;
    config.scope.max_outlinks = 2000;
    let job = dir.path().join("job");
    let seed = format!("http://127.0.0.1:{port}/");
    let crawl = Crawl::new(&job, config.clone(), &[seed]).unwrap();
    let handle = CrawlHandle::default();
    let stop = handle.clone();
    let queued = Arc::new(AtomicUsize::new(0));
    let progress = Arc::new(Mutex::new(String::new()));
    let (seen, last) = (queued.clone(), progress.clone());
    let run = tokio::spawn(crawl.run(handle, move |snap| {
        seen.store(snap.queued as usize, Ordering::SeqCst);
        *last.lock().unwrap() = snap.line();
    }));
    // A frontier of a few hundred thousand URIs, whose copy takes a while.
    let start = Instant::now();
    while queued.load(Ordering::SeqCst) < 300_000 {
        if start.elapsed() > Duration::from_secs(120) {
            let mut statuses: BTreeMap<i32, usize> = BTreeMap::new();
            for line in common::crawl_log(&job) {
                *statuses.entry(line.status).or_default() += 1;
            }
            panic!(
                "the frontier did not grow to 300,000 within 120 s: {}; crawl.log statuses {statuses:?}",
                progress.lock().unwrap()
            );
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    stop.request_checkpoint();
    let cps = job.join("checkpoints");
    let start = Instant::now();
    while trawl_engine::checkpoint::list(&trawl_engine::job::Job::create(&job).unwrap()).is_empty()
    {
        if run.is_finished() {
            // A checkpoint that failed ends the crawl: say why instead of waiting.
            let ended = run.await.unwrap().map(|s| s.ending.to_string());
            panic!("the crawl ended before its checkpoint was written: {ended:?}");
        }
        assert!(
            start.elapsed() < Duration::from_secs(300),
            "no checkpoint written within 300 s: {}; under checkpoints/: {:?}",
            progress.lock().unwrap(),
            files_under(&cps)
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    stop.stop();
    let summary = run.await.unwrap().unwrap();
    assert_eq!(summary.ending, Ending::Stopped);

    // The first checkpoint's window, and the fetches logged in it.
    let first = std::fs::read_dir(&cps)
        .unwrap()
        .map(|e| e.unwrap().path())
        .min()
        .unwrap();
    let meta: HashMap<String, serde_json::Value> =
        serde_json::from_str(&std::fs::read_to_string(first.join("checkpoint.json")).unwrap())
            .unwrap();
    let at = |k: &str| {
        chrono::DateTime::parse_from_rfc3339(meta[k].as_str().unwrap())
            .unwrap()
            .with_timezone(&chrono::Utc)
    };
    let (began, ended) = (at("started"), at("written"));
    let mut times: Vec<_> = common::crawl_log(&job)
        .iter()
        .map(|l| {
            chrono::DateTime::parse_from_rfc3339(&l.timestamp)
                .unwrap()
                .with_timezone(&chrono::Utc)
        })
        .filter(|t| *t >= began && *t <= ended)
        .collect();
    times.sort();
    let took = (ended - began).num_milliseconds();
    let gap = std::iter::once(began)
        .chain(times.iter().copied())
        .chain(std::iter::once(ended))
        .collect::<Vec<_>>()
        .windows(2)
        .map(|w| (w[1] - w[0]).num_milliseconds())
        .max()
        .unwrap();
    eprintln!(
        "checkpoint of a {}-URI frontier took {took} ms; {} fetches logged meanwhile; longest gap {gap} ms",
        meta["queued"],
        times.len()
    );
    // More fetches ended during the checkpoint than were in flight when it began: the workers went on.
    assert!(
        times.len() > config.fetch.max_connections,
        "{} fetches during a {took} ms checkpoint",
        times.len()
    );
}
