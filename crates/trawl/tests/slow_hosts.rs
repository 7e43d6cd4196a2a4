//! Hosts that fail or crawl along: a URL that fails (a 5xx) is tried again later on its own while its host goes
//! on at its politeness pace; a body trickling in slower than the minimum rate is cut after about one window.

mod common;

use std::{
    net::SocketAddr,
    sync::{Arc, Mutex},
    time::{Duration, Instant},
};

use axum::{
    Router,
    body::Body,
    extract::{Request, State},
    http::{StatusCode, header},
    response::{IntoResponse, Response},
};

/// The requests the server saw, in order, with when.
type Seen = Arc<Mutex<Vec<(String, Instant)>>>;

async fn site(State(seen): State<Seen>, req: Request) -> Response {
    let path = req.uri().path().to_string();
    seen.lock().unwrap().push((path.clone(), Instant::now()));
    let html = |body: String| ([(header::CONTENT_TYPE, "text/html")], body).into_response();
    match path.as_str() {
        "/" => html(
            (0..10)
                .map(|i| format!("<a href=\"/bad/{i}\">b</a> <a href=\"/good/{i}\">g</a> "))
                .collect(),
        ),
        "/all-bad" => html(
            (0..6)
                .map(|i| format!("<a href=\"/bad/{i}\">b</a> "))
                .collect(),
        ),
        "/stall" => {
            // One chunk, then a minute of silence.
            let stream = futures_util::stream::unfold(0, |n| async move {
                if n > 0 {
                    tokio::time::sleep(Duration::from_secs(60)).await;
                }
                Some((Ok::<_, std::convert::Infallible>(&b"0123456789"[..]), n + 1))
            });
            Response::builder()
                .header(header::CONTENT_TYPE, "text/plain")
                .body(Body::from_stream(stream))
                .unwrap()
        }
        "/busy" => (
            StatusCode::SERVICE_UNAVAILABLE,
            [(header::RETRY_AFTER, "3600")],
            "come back in an hour",
        )
            .into_response(),
        p if p.starts_with("/bad/") => {
            (StatusCode::INTERNAL_SERVER_ERROR, "broken").into_response()
        }
        p if p.starts_with("/good/") => html(format!("good {p}")),
        "/halves" => {
            // Ten thousand bytes, a second of silence, ten thousand more.
            let stream = futures_util::stream::unfold(0, |n| async move {
                match n {
                    0 => {}
                    1 => tokio::time::sleep(Duration::from_secs(1)).await,
                    _ => return None,
                }
                Some((Ok::<_, std::convert::Infallible>(vec![b'x'; 10_000]), n + 1))
            });
            Response::builder()
                .header(header::CONTENT_TYPE, "text/plain")
                .body(Body::from_stream(stream))
                .unwrap()
        }
        "/trickle" => {
            // Ten bytes a second, for a minute, unless the client hangs up.
            let stream = async_stream(60);
            Response::builder()
                .header(header::CONTENT_TYPE, "text/plain")
                .body(Body::from_stream(stream))
                .unwrap()
        }
        _ => (StatusCode::NOT_FOUND, "none").into_response(),
    }
}

/// A body of `secs` chunks of ten bytes, one a second.
fn async_stream(
    secs: u64,
) -> impl futures_util::Stream<Item = Result<&'static [u8], std::convert::Infallible>> + Send {
    futures_util::stream::unfold(0, move |n| async move {
        if n >= secs {
            return None;
        }
        if n > 0 {
            tokio::time::sleep(Duration::from_secs(1)).await;
        }
        Some((Ok(&b"0123456789"[..]), n + 1))
    })
}

async fn serve() -> (SocketAddr, Seen) {
    let seen: Seen = Arc::default();
    let addr = common::listen(Router::new().fallback(site).with_state(seen.clone())).await;
    (addr, seen)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failing_url_does_not_stall_its_host() {
    let (addr, seen) = serve().await;
    let dir = tempfile::tempdir().unwrap();
    let cfg = dir.path().join("c.toml");
    std::fs::write(
        &cfg,
        format!("[seeds]\nurls = [\"http://127.0.0.1:{}/\"]\n", addr.port()),
    )
    .unwrap();
    let job = dir.path().join("job");
    common::crawl_quickly_with(&cfg, &job, |c| {
        c.fetch.obey_robots = false;
        c.frontier.max_retries = 1;
        c.frontier.retry_delay_ms = 4000;
    })
    .await;
    let seen: Vec<String> = seen
        .lock()
        .unwrap()
        .iter()
        .map(|(p, _)| p.clone())
        .collect();
    // Every good page came before any broken one was tried a second time: the 500s did not rest the host.
    let last_good = seen.iter().rposition(|p| p.starts_with("/good/")).unwrap();
    let first_retry = seen
        .iter()
        .enumerate()
        .find(|(i, p)| p.starts_with("/bad/") && seen[..*i].contains(p))
        .map(|(i, _)| i)
        .expect("the broken pages are tried again");
    assert!(last_good < first_retry, "{seen:?}");
    // Each broken page twice (one retry), each logged once as 500 with its tries.
    for i in 0..10 {
        let path = format!("/bad/{i}");
        assert_eq!(seen.iter().filter(|p| **p == path).count(), 2, "{seen:?}");
    }
    let log = common::crawl_log(&job);
    let bad: Vec<_> = log.iter().filter(|l| l.uri.contains("/bad/")).collect();
    assert_eq!(bad.len(), 10);
    assert!(
        bad.iter()
            .all(|l| l.status == 500 && l.has_annotation("2t")),
        "{bad:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_trickling_body_is_cut_by_the_minimum_rate() {
    let (addr, _) = serve().await;
    let dir = tempfile::tempdir().unwrap();
    let cfg = dir.path().join("c.toml");
    let seed = format!("http://127.0.0.1:{}/trickle", addr.port());
    std::fs::write(&cfg, format!("[seeds]\nurls = [\"{seed}\"]\n")).unwrap();
    let job = dir.path().join("job");
    common::crawl_quickly_with(&cfg, &job, |c| {
        c.fetch.obey_robots = false;
        c.fetch.timeout_ms = 30_000;
        c.fetch.max_fetch_ms = 120_000;
        c.fetch.min_rate_bytes_per_s = 100;
        c.fetch.min_rate_window_ms = 2_000;
    })
    .await;
    let log = common::crawl_log(&job);
    let line = log.iter().find(|l| l.uri == seed).unwrap();
    assert!(line.has_annotation("timeTrunc"), "{line:?}");
    // Cut after about one window of 20 bytes, not after the minute the server would have gone on.
    assert!(line.size.is_some_and(|s| s < 100), "{line:?}");
}

/// Three URLs of one host failing in a row (500s here) are taken as the host's trouble: it rests
/// `retry_delay_ms` before its next request, whether the failures are to be tried again or not
/// (`max_retries = 0`, xt6c F12: a crawl that does not retry still rests a failing host).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn three_failures_in_a_row_rest_the_host() {
    for retries in [1, 0] {
        let (addr, seen) = serve().await;
        let dir = tempfile::tempdir().unwrap();
        let cfg = dir.path().join("c.toml");
        let seed = format!("http://127.0.0.1:{}/all-bad", addr.port());
        std::fs::write(&cfg, format!("[seeds]\nurls = [\"{seed}\"]\n")).unwrap();
        let job = dir.path().join("job");
        common::crawl_quickly_with(&cfg, &job, |c| {
            c.fetch.obey_robots = false;
            c.frontier.max_retries = retries;
            c.frontier.retry_delay_ms = 1500;
        })
        .await;
        let seen = seen.lock().unwrap().clone();
        assert_eq!(
            seen[..4]
                .iter()
                .map(|(p, _)| p.as_str())
                .collect::<Vec<_>>(),
            ["/all-bad", "/bad/0", "/bad/1", "/bad/2"],
            "max_retries = {retries}"
        );
        let rest = seen[4].1 - seen[3].1;
        assert!(
            rest >= Duration::from_millis(1400),
            "max_retries = {retries}: the host rested only {rest:?}: {seen:?}"
        );
        // Before the third failure in a row, the host went on at its politeness pace.
        assert!(
            seen[2].1 - seen[1].1 < Duration::from_millis(1000),
            "max_retries = {retries}: {seen:?}"
        );
    }
}

/// A minimum rate whose window asks for no bytes (a tiny rate or window) cuts nothing, and a stalled body
/// still meets the idle timeout (`fetch.timeout_ms`), not the whole-fetch cap.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stalled_body_meets_the_idle_timeout_under_any_minimum_rate() {
    let (addr, _) = serve().await;
    let dir = tempfile::tempdir().unwrap();
    let cfg = dir.path().join("c.toml");
    let seed = format!("http://127.0.0.1:{}/stall", addr.port());
    std::fs::write(&cfg, format!("[seeds]\nurls = [\"{seed}\"]\n")).unwrap();
    let job = dir.path().join("job");
    let started = Instant::now();
    common::crawl_quickly_with(&cfg, &job, |c| {
        c.fetch.obey_robots = false;
        c.fetch.timeout_ms = 1_000;
        c.fetch.max_fetch_ms = 30_000;
        c.fetch.min_rate_bytes_per_s = 1;
        c.fetch.min_rate_window_ms = 200;
    })
    .await;
    let log = common::crawl_log(&job);
    let line = log.iter().find(|l| l.uri == seed).unwrap();
    assert!(line.has_annotation("timeTrunc"), "{line:?}");
    assert!(
        started.elapsed() < Duration::from_secs(15),
        "took {:?}",
        started.elapsed()
    );
}

/// A TLS handshake that never comes is the host's failure: `-2 err=connect` within the connect timeout.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_silent_handshake_is_a_connect_failure() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    tokio::spawn(async move {
        let mut held = Vec::new();
        while let Ok((c, _)) = listener.accept().await {
            held.push(c);
        }
    });
    let dir = tempfile::tempdir().unwrap();
    let cfg = dir.path().join("c.toml");
    let seed = format!("https://127.0.0.1:{port}/");
    std::fs::write(&cfg, format!("[seeds]\nurls = [\"{seed}\"]\n")).unwrap();
    let job = dir.path().join("job");
    common::crawl_quickly_with(&cfg, &job, |c| {
        c.fetch.obey_robots = false;
        c.fetch.connect_timeout_ms = 300;
        c.frontier.max_retries = 0;
    })
    .await;
    let log = common::crawl_log(&job);
    let line = log.iter().find(|l| l.uri == seed).unwrap();
    assert_eq!(line.status, -2, "{line:?}");
    assert!(line.has_annotation("err=connect"), "{line:?}");
}

/// A server asking for an hour's pause (`Retry-After: 3600`) holds its own host only: the other host is
/// crawled meanwhile, and the crawl report says which host waits, and until when.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_long_retry_after_holds_only_its_host_and_is_reported() {
    let (addr, seen) = serve().await;
    let dir = tempfile::tempdir().unwrap();
    let cfg = dir.path().join("c.toml");
    let busy = format!("http://127.0.0.1:{}/busy", addr.port());
    let other = format!("http://localhost:{}/", addr.port());
    std::fs::write(&cfg, format!("[seeds]\nurls = [\"{busy}\", \"{other}\"]\n")).unwrap();
    let job = dir.path().join("job");
    let mut config = trawl_config::CrawlConfig::load(&cfg).unwrap();
    config.fetch = trawl::selftest::config().fetch;
    config.fetch.obey_robots = false;
    config.frontier.delay_factor = 0.0;
    config.frontier.min_delay_ms = 0;
    config.frontier.max_delay_ms = 0;
    config.frontier.max_retries = 1;
    config.fetch.max_retry_after_s = 7200;
    let handle = trawl_engine::CrawlHandle::default();
    let stopper = handle.clone();
    let watched = seen.clone();
    tokio::spawn(async move {
        // Once the other host's pages are all fetched (its 10 good and 10 bad pages), stop: the busy host
        // still waits its hour.
        loop {
            let n = watched
                .lock()
                .unwrap()
                .iter()
                .filter(|(p, _)| p.starts_with("/good/"))
                .count();
            if n >= 10 {
                break;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        stopper.stop();
    });
    let started = Instant::now();
    trawl_engine::Crawl::new(&job, config, &[])
        .unwrap()
        .run(handle, |_| {})
        .await
        .unwrap();
    assert!(started.elapsed() < Duration::from_secs(60));
    let busy_asked = seen
        .lock()
        .unwrap()
        .iter()
        .filter(|(p, _)| p == "/busy")
        .count();
    assert_eq!(busy_asked, 1, "the busy host waits its hour");
    let report = std::fs::read_to_string(job.join("reports/crawl-report.txt")).unwrap();
    let section = report
        .split("[hosts asked to wait]")
        .nth(1)
        .unwrap_or_default();
    let line = section
        .lines()
        .find(|l| l.ends_with(&format!(" 127.0.0.1:{}", addr.port())))
        .unwrap_or_default();
    let until = chrono::DateTime::parse_from_rfc3339(line.split_whitespace().next().unwrap_or(""))
        .unwrap_or_else(|e| panic!("{e}: {report}"));
    let left = until
        .signed_duration_since(chrono::Utc::now())
        .num_seconds();
    assert!((3500..=3600).contains(&left), "{left} s left: {report}");
}

/// A robots.txt redirected to an address the policy refuses is a robots.txt that cannot be had (-61, as a
/// 5xx is), not the origin's own address refused (-5001): the message must not send the operator to the seed.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_robots_txt_redirected_to_a_refused_address_is_unavailable() {
    let app = Router::new()
        .route(
            "/robots.txt",
            axum::routing::get(|| async {
                (
                    StatusCode::FOUND,
                    [(header::LOCATION, "http://127.0.0.2:9/robots.txt")],
                )
            }),
        )
        .fallback(|| async { "<a href=\"/x\">x</a>" });
    let addr = common::listen(app).await;
    let dir = tempfile::tempdir().unwrap();
    let cfg = dir.path().join("c.toml");
    let seed = format!("http://{addr}/");
    std::fs::write(&cfg, format!("[seeds]\nurls = [\"{seed}\"]\n")).unwrap();
    let job = dir.path().join("job");
    common::crawl_quickly(&cfg, &job).await;
    let log = common::crawl_log(&job);
    let line = common::log_line(&log, &seed);
    assert_eq!(line.status, -61, "{log:?}");
    let target = common::log_line(&log, "http://127.0.0.2:9/robots.txt");
    assert_eq!(target.status, -5001, "{target:?}");
}

/// A stop is not held by a body trickling in above the minimum rate (xt6b F7), nor by a body gone silent
/// for less than `fetch.timeout_ms`: ten seconds after the stop the body is cut, archived as far as it came
/// and logged `timeTrunc`, where the crawl used to wait for the server (or `fetch.max_fetch_ms`).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stop_cuts_a_trickling_or_silent_body_after_a_grace() {
    for path in ["/trickle", "/stall"] {
        let (addr, seen) = serve().await;
        let dir = tempfile::tempdir().unwrap();
        let cfg = dir.path().join("c.toml");
        let seed = format!("http://127.0.0.1:{}{path}", addr.port());
        std::fs::write(&cfg, format!("[seeds]\nurls = [\"{seed}\"]\n")).unwrap();
        let job = dir.path().join("job");
        let mut config = trawl_config::CrawlConfig::load(&cfg).unwrap();
        config.fetch = trawl::selftest::config().fetch;
        config.fetch.obey_robots = false;
        config.fetch.timeout_ms = 40_000;
        config.fetch.max_fetch_ms = 120_000;
        config.fetch.min_rate_bytes_per_s = 0;
        let handle = trawl_engine::CrawlHandle::default();
        let stopper = handle.clone();
        let watched = seen.clone();
        let stopped_at = Arc::new(Mutex::new(None));
        let stopped = stopped_at.clone();
        tokio::spawn(async move {
            while watched.lock().unwrap().is_empty() {
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
            tokio::time::sleep(Duration::from_secs(1)).await;
            *stopped.lock().unwrap() = Some(Instant::now());
            stopper.stop();
        });
        trawl_engine::Crawl::new(&job, config, &[])
            .unwrap()
            .run(handle, |_| {})
            .await
            .unwrap();
        let waited = stopped_at.lock().unwrap().expect("stopped").elapsed();
        assert!(
            (Duration::from_secs(8)..Duration::from_secs(16)).contains(&waited),
            "{path}: the stop took {waited:?}"
        );
        let log = common::crawl_log(&job);
        let line = common::log_line(&log, &seed);
        assert!(line.has_annotation("timeTrunc"), "{line:?}");
        assert!(line.size.is_some_and(|s| s >= 10), "{line:?}");
        let records = common::records(&job);
        assert!(
            records
                .iter()
                .any(|r| r.get("WARC-Type") == Some("response")
                    && r.get("WARC-Target-URI") == Some(seed.as_str())),
            "{path}: the cut body is archived"
        );
    }
}

/// A panic while a URI is processed (a bug; here asked for with the debug build's `TRAWL_PANIC_ON`) ends
/// that URI with -5 `err=panic` and its line: the crawl goes on and ends, where the worker used to die with
/// the URI in flight and the crawl never ended.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_panic_ends_its_uri_not_the_crawl() {
    let app = Router::new().fallback(|req: Request| async move {
        let body = match req.uri().path() {
            "/" => "<a href=\"/a\">a</a> <a href=\"/panic-here\">p</a> <a href=\"/b\">b</a>"
                .to_string(),
            p => format!("page {p}"),
        };
        ([(header::CONTENT_TYPE, "text/html")], body)
    });
    let addr = common::listen(app).await;
    let dir = tempfile::tempdir().unwrap();
    let seed = format!("http://127.0.0.1:{}/", addr.port());
    let toml = "[fetch]\nobey_robots = false\n[frontier]\nmin_delay_ms = 0\nmax_delay_ms = 0\n";
    let (ok, said, job) = crawl_panicking_on(dir.path(), &seed, toml, "/panic-here").await;
    assert!(ok, "{said}");
    assert!(said.contains("panicked (a bug in trawl"), "{said}");
    let log = common::crawl_log(&job);
    let line = common::log_line(&log, &format!("{seed}panic-here"));
    assert_eq!(line.status, -5, "{line:?}");
    assert!(line.has_annotation("err=panic"), "{line:?}");
    assert_eq!(line.hop_path, "L", "{line:?}");
    for page in ["a", "b"] {
        assert_eq!(common::log_line(&log, &format!("{seed}{page}")).status, 200);
    }
}

/// A panic on a robots.txt settles its host as a failed robots.txt fetch does (nothing fetched from it,
/// -61): the pages waiting for it are not held forever.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_panic_on_a_robots_txt_does_not_hold_its_pages() {
    let app = Router::new().fallback(|| async { ([(header::CONTENT_TYPE, "text/html")], "page") });
    let addr = common::listen(app).await;
    let dir = tempfile::tempdir().unwrap();
    let seed = format!("http://127.0.0.1:{}/", addr.port());
    let toml = "[frontier]\nmin_delay_ms = 0\nmax_delay_ms = 0\nretry_delay_ms = 500\n";
    let (_, said, job) = crawl_panicking_on(dir.path(), &seed, toml, "/robots.txt").await;
    // It ends (with no seed fetched, which the exit status says).
    assert!(said.contains("FINISHED"), "{said}");
    let log = common::crawl_log(&job);
    let robots = common::log_line(&log, &format!("{seed}robots.txt"));
    assert_eq!(robots.status, -5, "{robots:?}");
    assert_eq!(common::log_line(&log, &seed).status, -61, "{log:?}");
}

/// Crawls `seed` with the settings `toml` below its `[seeds]` table, the debug build's fail point panicking
/// on URLs holding `panic_on`, and waits at most a minute for the crawl to end: whether it exited 0, what
/// it said, and its job.
async fn crawl_panicking_on(
    dir: &std::path::Path,
    seed: &str,
    toml: &str,
    panic_on: &'static str,
) -> (bool, String, std::path::PathBuf) {
    let cfg = common::write(
        &dir.join("c.toml"),
        &format!("[seeds]\nurls = [\"{seed}\"]\n{toml}"),
    );
    let job = dir.join("job");
    let run = tokio::task::spawn_blocking(move || {
        let mut cmd = common::trawl_command();
        cmd.env("TRAWL_PANIC_ON", panic_on)
            .arg("crawl")
            .arg("-c")
            .arg(&cfg)
            .arg("--job")
            .arg(&job);
        (common::run(&mut cmd), job)
    });
    let ((ok, said), job) = tokio::time::timeout(Duration::from_secs(60), run)
        .await
        .expect("the crawl ends")
        .unwrap();
    (ok, said, job)
}

/// A crawler suspended (Ctrl-Z, SIGSTOP, a paused VM) for longer than `fetch.timeout_ms` while a body came in
/// (test round xt8, F7): the rest of the body waited in the socket, so the silence was trawl's, not the
/// server's. The page is archived whole, not cut as `timeTrunc`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_crawler_suspended_mid_body_archives_it_whole() {
    let (addr, seen) = serve().await;
    let dir = tempfile::tempdir().unwrap();
    let seed = format!("http://127.0.0.1:{}/halves", addr.port());
    let cfg = common::write(
        &dir.path().join("c.toml"),
        &format!(
            "[seeds]\nurls = [\"{seed}\"]\n[fetch]\nobey_robots = false\ntimeout_ms = 2000\n\
             [frontier]\nmax_retries = 0\n"
        ),
    );
    let job = dir.path().join("job");
    let mut child = common::trawl_command()
        .arg("crawl")
        .arg("-c")
        .arg(&cfg)
        .arg("--job")
        .arg(&job)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let pid = child.id().to_string();
    let signal = |name: &str| {
        let sent = std::process::Command::new("kill")
            .args([name, pid.as_str()])
            .status()
            .is_ok_and(|s| s.success());
        assert!(sent, "kill {name} {pid}");
    };
    let asked = Instant::now();
    while !seen.lock().unwrap().iter().any(|(p, _)| p == "/halves") {
        assert!(asked.elapsed() < Duration::from_secs(30), "no request came");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    // Within the second between the halves; suspended past the 2 s silence limit and past the second half.
    tokio::time::sleep(Duration::from_millis(300)).await;
    signal("-STOP");
    tokio::time::sleep(Duration::from_secs(4)).await;
    signal("-CONT");
    let status = tokio::task::spawn_blocking(move || child.wait())
        .await
        .unwrap()
        .unwrap();
    assert!(status.success(), "{status}");
    let log = common::crawl_log(&job);
    let line = common::log_line(&log, &seed);
    assert_eq!(line.status, 200, "{line:?}");
    assert!(!line.has_annotation("timeTrunc"), "{line:?}");
    assert_eq!(line.size, Some(20_000), "{line:?}");
}

/// A response head still not come when a stop's cut does (ten seconds after the stop) is not a try of the
/// URI (xt6b): with no retries left it used to end as a -4 timeout, logged failed and never fetched again;
/// now it stays in the frontier unlogged and `trawl resume` fetches it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_head_cut_by_a_stop_is_fetched_on_resume() {
    use std::sync::atomic::Ordering;
    let (addr, asked) = common::listen_silent_at_first().await;
    let dir = tempfile::tempdir().unwrap();
    let job = dir.path().join("job");
    let seed = format!("http://127.0.0.1:{}/slow", addr.port());
    let mut config = trawl_config::CrawlConfig::default();
    let quick = trawl::selftest::config();
    (config.fetch, config.frontier) = (quick.fetch, quick.frontier);
    config.fetch.obey_robots = false;
    config.fetch.header_timeout_ms = 40_000;
    config.fetch.timeout_ms = 40_000;
    config.frontier.max_retries = 0;
    let handle = trawl_engine::CrawlHandle::default();
    let stopper = handle.clone();
    let watched = asked.clone();
    tokio::spawn(async move {
        while watched.load(Ordering::SeqCst) == 0 {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        stopper.stop();
    });
    let summary = trawl_engine::Crawl::new(&job, config, std::slice::from_ref(&seed))
        .unwrap()
        .run(handle, |_| {})
        .await
        .unwrap();
    assert_eq!(summary.ending, trawl_engine::report::Ending::Stopped);
    let log = std::fs::read_to_string(job.join("logs/crawl.log")).unwrap_or_default();
    assert!(!log.contains(&seed), "no line before the resume: {log}");

    trawl_engine::Crawl::resume(&job, None)
        .unwrap()
        .run(trawl_engine::CrawlHandle::default(), |_| {})
        .await
        .unwrap();
    assert_eq!(asked.load(Ordering::SeqCst), 2, "fetched again on resume");
    let log = common::crawl_log(&job);
    let line = common::log_line(&log, &seed);
    assert_eq!(line.status, 200, "{log:#?}");
    assert!(
        common::records(&job)
            .iter()
            .any(|r| r.get("WARC-Type") == Some("response")
                && r.get("WARC-Target-URI") == Some(seed.as_str())),
        "the resumed fetch is archived"
    );
}

/// A short `Retry-After` is the retry's wait, not raised to `frontier.retry_delay_ms` (xt12a b F7: a 1 s
/// Retry-After was waited 30 s, the default retry delay).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_short_retry_after_is_waited_as_asked() {
    use std::sync::atomic::{AtomicUsize, Ordering};
    let asked = Arc::new(AtomicUsize::new(0));
    let count = asked.clone();
    let app = Router::new().route(
        "/soon",
        axum::routing::get(move || {
            let n = count.fetch_add(1, Ordering::SeqCst);
            async move {
                if n == 0 {
                    (
                        StatusCode::TOO_MANY_REQUESTS,
                        [(header::RETRY_AFTER, "1")],
                        "later",
                    )
                        .into_response()
                } else {
                    "<p>now</p>".into_response()
                }
            }
        }),
    );
    let addr = common::listen(app).await;
    let dir = tempfile::tempdir().unwrap();
    let cfg = dir.path().join("c.toml");
    let seed = format!("http://127.0.0.1:{}/soon", addr.port());
    std::fs::write(&cfg, format!("[seeds]\nurls = [\"{seed}\"]\n")).unwrap();
    let job = dir.path().join("job");
    let started = Instant::now();
    common::crawl_quickly_with(&cfg, &job, |c| {
        c.fetch.obey_robots = false;
        c.frontier.max_retries = 1;
        c.frontier.retry_delay_ms = 60_000;
    })
    .await;
    assert!(
        started.elapsed() < Duration::from_secs(20),
        "waited {:?}",
        started.elapsed()
    );
    let log = common::crawl_log(&job);
    assert_eq!(common::log_line(&log, &seed).status, 200, "{log:?}");
    assert_eq!(asked.load(Ordering::SeqCst), 2);
}

/// A robots.txt expiry at or under the host's delay still lets the page behind it be fetched: the robots.txt
/// is trusted until that page's turn (xt12a b F3: it was fetched again at every turn and no page ever was).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_robots_expiry_under_the_delay_lets_pages_through() {
    let site = trawl::selftest::site::start().await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let cfg = dir.path().join("c.toml");
    std::fs::write(
        &cfg,
        format!(
            "[seeds]\nurls = [\"{}\"]\n[scope]\nmax_hops = 0\n",
            site.seed()
        ),
    )
    .unwrap();
    let job = dir.path().join("job");
    let crawl = common::crawl_quickly_with(&cfg, &job, |c| {
        c.fetch.robots_expiry_s = 0;
        c.frontier.min_delay_ms = 300;
        c.frontier.max_delay_ms = 300;
    });
    tokio::time::timeout(Duration::from_secs(60), crawl)
        .await
        .expect("the crawl ends");
    let log = common::crawl_log(&job);
    assert_eq!(common::log_line(&log, &site.seed()).status, 200, "{log:?}");
    let robots = log
        .iter()
        .filter(|l| l.uri.ends_with("/robots.txt"))
        .count();
    assert_eq!(robots, 1, "{log:?}");
}

/// A server whose `/robots.txt` is answered by `robots` (called with how many times it was asked before), and
/// whose other paths are pages; with the number of robots.txt requests.
async fn robots_site(
    robots: fn(usize) -> Response,
) -> (SocketAddr, Arc<std::sync::atomic::AtomicUsize>) {
    use std::sync::atomic::{AtomicUsize, Ordering};
    let asked = Arc::new(AtomicUsize::new(0));
    let count = asked.clone();
    let app = Router::new()
        .route(
            "/robots.txt",
            axum::routing::get(move || {
                let n = count.fetch_add(1, Ordering::SeqCst);
                async move { robots(n) }
            }),
        )
        .fallback(|| async { "<p>a page</p>" });
    (common::listen(app).await, asked)
}

/// Seeds `/p0` to `/p{n-1}` of `addr`, crawled with one retry; the crawl.log.
async fn crawl_pages(
    addr: SocketAddr,
    n: usize,
    tweak: impl FnOnce(&mut trawl_config::CrawlConfig),
) -> Vec<trawl_engine::crawl_log::LogLine> {
    let dir = tempfile::tempdir().unwrap();
    let cfg = dir.path().join("c.toml");
    let seeds: Vec<String> = (0..n).map(|i| format!("\"http://{addr}/p{i}\"")).collect();
    std::fs::write(&cfg, format!("[seeds]\nurls = [{}]\n", seeds.join(", "))).unwrap();
    let job = dir.path().join("job");
    let crawl = common::crawl_quickly_with(&cfg, &job, |c| {
        c.frontier.max_retries = 1;
        c.frontier.retry_delay_ms = 100;
        tweak(c);
    });
    tokio::time::timeout(Duration::from_secs(60), crawl)
        .await
        .expect("the crawl ends");
    common::crawl_log(&job)
}

/// xt19b F2: a robots.txt cut short by a timeout (or a broken connection) was read as far as it came and
/// trusted for a day, so a `Disallow` in its lost part was not obeyed. It is no answer: tried again, then
/// every page ends -61 `robots:timeTrunc`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_robots_txt_cut_short_allows_nothing() {
    let (addr, asked) = robots_site(|_| {
        // Its first rules, then silence past the timeout: what follows might disallow everything.
        let stream = futures_util::stream::unfold(0, |n| async move {
            if n > 0 {
                tokio::time::sleep(Duration::from_secs(60)).await;
            }
            Some((
                Ok::<_, std::convert::Infallible>(&b"User-agent: *\nDisallow: /a\n"[..]),
                n + 1,
            ))
        });
        Response::builder()
            .header(header::CONTENT_TYPE, "text/plain")
            .body(Body::from_stream(stream))
            .unwrap()
    })
    .await;
    let log = crawl_pages(addr, 3, |c| c.fetch.timeout_ms = 1000).await;
    assert_eq!(
        asked.load(std::sync::atomic::Ordering::SeqCst),
        2,
        "{log:#?}"
    );
    for i in 0..3 {
        let page = common::log_line(&log, &format!("http://{addr}/p{i}"));
        assert_eq!(page.status, -61, "{page:?}");
        assert_eq!(page.annotations, ["robots:timeTrunc"], "{page:?}");
    }
}

/// xt19b F3: a robots.txt answering 503 with a `Retry-After` longer than `retry_delay_ms` was asked for
/// again by every page: its failure's verdict lapsed while the host rested. It now lasts past the rest, so
/// the pages end -61 after one round of tries.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_robots_txt_asking_to_wait_is_asked_for_once_per_round() {
    let (addr, asked) = robots_site(|_| {
        (
            StatusCode::SERVICE_UNAVAILABLE,
            [(header::RETRY_AFTER, "2")],
            "busy",
        )
            .into_response()
    })
    .await;
    let log = crawl_pages(addr, 6, |_| {}).await;
    assert_eq!(
        asked.load(std::sync::atomic::Ordering::SeqCst),
        2,
        "{log:#?}"
    );
    for i in 0..6 {
        let page = common::log_line(&log, &format!("http://{addr}/p{i}"));
        assert_eq!(page.status, -61, "{page:?}");
    }
}
