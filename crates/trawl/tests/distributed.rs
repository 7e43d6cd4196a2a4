//! Several trawl processes share one crawl through a real `redis-server` (installed by the test command):
//! every page fetched exactly once without faults; after `kill -9` of a worker every page still fetched, with
//! duplicates bounded by that worker's leases; a Redis restart (AOF) waited out; and no host fetched by two
//! workers closer than its politeness delay, judged from the site's own request log.

use std::{
    collections::HashMap,
    net::SocketAddr,
    path::{Path, PathBuf},
    process::{Child, Command, Stdio},
    sync::{Arc, Mutex},
    time::{Duration, Instant},
};

use common::redis::Redis;

use axum::{
    Router,
    extract::{Request, State},
    http::header,
    response::{IntoResponse, Response},
};

/// Hosts of the site, 127.0.0.2 onwards.
const HOSTS: usize = 6;
/// Pages per host.
const PAGES: usize = 25;
/// The politeness delay the crawl keeps.
const DELAY_MS: u64 = 150;

/// (host, path, when) of every request the site saw.
type Seen = Arc<Mutex<Vec<(String, String, Instant)>>>;

async fn page(State(seen): State<Seen>, req: Request) -> Response {
    let host = req
        .headers()
        .get(header::HOST)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_string();
    let path = req.uri().path().to_string();
    seen.lock()
        .unwrap()
        .push((host.clone(), path.clone(), Instant::now()));
    // Some latency: the site, not trawl, is the limit.
    tokio::time::sleep(Duration::from_millis(20)).await;
    if path == "/robots.txt" {
        return "User-agent: *\nDisallow:\n".into_response();
    }
    let n: usize = path
        .trim_start_matches("/p")
        .trim_end_matches(".html")
        .parse()
        .unwrap_or(0);
    // Each page links the next two of its host, the same page of the next host, one of three paths the
    // default scope refuses as a trap (a segment repeated), each logged once crawl-wide, and its host's
    // robots.txt, which the crawl fetched first and does not fetch again.
    let ip: u8 = host
        .split(':')
        .next()
        .and_then(|h| h.rsplit('.').next())
        .and_then(|o| o.parse().ok())
        .unwrap_or(2);
    let port = host.rsplit(':').next().unwrap_or_default();
    let other = 2 + (ip as usize - 1) % HOSTS;
    let links: String = [(n + 1) % PAGES, (n + 2) % PAGES]
        .iter()
        .map(|m| format!("<a href=\"/p{m}.html\">n</a> "))
        .chain(std::iter::once(format!(
            "<a href=\"http://127.0.0.{other}:{port}/p{n}.html\">o</a>"
        )))
        .chain(std::iter::once(format!(
            "<a href=\"/t/t/t/out{}.html\">x</a> <a href=\"/robots.txt\">r</a>",
            n % 3
        )))
        .collect();
    (
        [(header::CONTENT_TYPE, "text/html")],
        format!("<html><body>page {n} of {host} {links}</body></html>"),
    )
        .into_response()
}

/// The site on 127.0.0.2.. (one port), and what it saw.
async fn site() -> (Vec<String>, Seen) {
    let seen: Seen = Arc::default();
    let first = tokio::net::TcpListener::bind("127.0.0.2:0").await.unwrap();
    let port = first.local_addr().unwrap().port();
    let mut listeners = vec![first];
    for h in 1..HOSTS {
        let addr: SocketAddr = format!("127.0.0.{}:{port}", 2 + h).parse().unwrap();
        listeners.push(tokio::net::TcpListener::bind(addr).await.unwrap());
    }
    let mut seeds = Vec::new();
    for l in listeners {
        seeds.push(format!("http://{}/p0.html", l.local_addr().unwrap()));
        let app = Router::new().fallback(page).with_state(seen.clone());
        tokio::spawn(async move { axum::serve(l, app).await.unwrap() });
    }
    (seeds, seen)
}

/// Leases of 6 s, renewed every 2 s: a live worker's lease outlasts the Redis restart below (1.5 s down,
/// then its start), so only the killed worker's leases are taken over.
fn config(dir: &Path) -> PathBuf {
    let path = dir.join("crawl.toml");
    std::fs::write(
        &path,
        format!(
            "[frontier]\nmin_delay_ms = {DELAY_MS}\nmax_delay_ms = {DELAY_MS}\ndelay_factor = 0.0\nlease_ms = 6000\n\
             [fetch]\nmax_connections = 4\n"
        ),
    )
    .unwrap();
    path
}

/// A trawl process, killed if the test ends (or fails) before it does.
struct Proc(Option<Child>);

impl Proc {
    fn id(&self) -> u32 {
        self.0.as_ref().map_or(0, Child::id)
    }

    fn kill(&mut self) {
        if let Some(mut c) = self.0.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

impl Drop for Proc {
    fn drop(&mut self) {
        self.kill();
    }
}

/// Starts `trawl crawl --frontier` (the first) or `trawl worker` into `root/wN/crawl`.
fn start(root: &Path, n: usize, redis: &str, seeds: &[String], cfg: &Path) -> Proc {
    let job = root.join(format!("w{n}")).join("crawl");
    std::fs::create_dir_all(job.parent().unwrap()).unwrap();
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_trawl"));
    if n == 0 {
        cmd.args(["crawl", "--frontier", redis, "--job"])
            .arg(&job)
            .arg("-c")
            .arg(cfg)
            .args(seeds);
    } else {
        cmd.args(["worker", redis, "--job"]).arg(&job);
    }
    Proc(Some(
        cmd.stdout(Stdio::null())
            .stderr(std::fs::File::create(root.join(format!("w{n}.err"))).unwrap())
            .spawn()
            .unwrap(),
    ))
}

/// What every worker under `root` has written to its standard error so far (for a failing test's message).
fn stderrs(root: &Path) -> String {
    (0..3)
        .map(|n| {
            let err = std::fs::read_to_string(root.join(format!("w{n}.err"))).unwrap_or_default();
            format!("w{n}: {err}")
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn wait(mut proc: Proc, what: &str, root: &Path) {
    let mut child = proc.0.take().unwrap();
    let started = Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            let err = std::fs::read_to_string(root.join(format!("{what}.err"))).unwrap_or_default();
            assert!(status.success(), "{what}: {status}\n{err}");
            return;
        }
        if started.elapsed() > Duration::from_secs(120) {
            let _ = child.kill();
            panic!("{what} did not finish");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Pages requested (robots.txt aside) and how often each.
fn counts(seen: &Seen) -> HashMap<(String, String), usize> {
    let mut out = HashMap::new();
    for (host, path, _) in seen.lock().unwrap().iter() {
        if path != "/robots.txt" {
            *out.entry((host.clone(), path.clone())).or_default() += 1;
        }
    }
    out
}

/// The pages of the site no worker fetched.
fn missing(counts: &HashMap<(String, String), usize>, seen: &Seen) -> Vec<String> {
    let hosts: std::collections::BTreeSet<String> = seen
        .lock()
        .unwrap()
        .iter()
        .map(|(h, _, _)| h.clone())
        .collect();
    let mut out = Vec::new();
    for host in &hosts {
        for n in 0..PAGES {
            if !counts.contains_key(&(host.clone(), format!("/p{n}.html"))) {
                out.push(format!("{host}/p{n}.html"));
            }
        }
    }
    if hosts.len() < HOSTS {
        out.push(format!("only {} hosts asked", hosts.len()));
    }
    out
}

/// The smallest gap between two requests to one host, over the whole crawl and every worker.
fn smallest_gap(seen: &Seen) -> Duration {
    let mut by_host: HashMap<String, Vec<Instant>> = HashMap::new();
    for (host, _, at) in seen.lock().unwrap().iter() {
        by_host.entry(host.clone()).or_default().push(*at);
    }
    by_host
        .values_mut()
        .flat_map(|times| {
            times.sort();
            times.windows(2).map(|w| w[1] - w[0]).collect::<Vec<_>>()
        })
        .min()
        .unwrap_or(Duration::MAX)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn three_workers_fetch_every_page_once_and_stay_polite() {
    let (seeds, seen) = site().await;
    let redis = Redis::start();
    let dir = tempfile::tempdir().unwrap();
    let cfg = config(dir.path());
    let root = dir.path().to_path_buf();
    let url = redis.url();
    let pids = tokio::task::spawn_blocking(move || {
        let first = start(&root, 0, &url, &seeds, &cfg);
        std::thread::sleep(Duration::from_millis(300));
        let others: Vec<Proc> = (1..3).map(|n| start(&root, n, &url, &[], &cfg)).collect();
        let mut pids = vec![first.id()];
        pids.extend(others.iter().map(Proc::id));
        wait(first, "w0", &root);
        for (n, c) in others.into_iter().enumerate() {
            wait(c, &format!("w{}", n + 1), &root);
        }
        pids
    })
    .await
    .unwrap();
    let counts = counts(&seen);
    let missing = missing(&counts, &seen);
    let logs: String = (0..3)
        .map(|n| {
            std::fs::read_to_string(dir.path().join(format!("w{n}/crawl/logs/crawl.log")))
                .unwrap_or_default()
        })
        .collect();
    let about: Vec<&str> = logs
        .lines()
        .filter(|l| missing.iter().any(|m| l.contains(m.as_str())))
        .collect();
    assert!(
        missing.is_empty(),
        "never fetched: {missing:?}\n{}",
        about.join("\n")
    );
    let twice: Vec<_> = counts.iter().filter(|(_, n)| **n > 1).collect();
    assert!(twice.is_empty(), "fetched more than once: {twice:?}");
    let mut robots: HashMap<String, usize> = HashMap::new();
    for (host, path, _) in seen.lock().unwrap().iter() {
        if path == "/robots.txt" {
            *robots.entry(host.clone()).or_default() += 1;
        }
    }
    robots.retain(|_, n| *n != 1);
    assert!(robots.is_empty(), "robots.txt not fetched once: {robots:?}");
    // Each refused URL has one line in all the workers' crawl.logs together.
    for n in 0..3 {
        let out = format!("/t/t/t/out{n}.html");
        let lines: Vec<&str> = logs
            .lines()
            .filter(|l| l.contains("//127.0.0.2:") && l.contains(&out))
            .collect();
        assert!(
            lines.len() == 1 && lines[0].contains(" -5000 "),
            "{out}: {lines:?}"
        );
    }
    let gap = smallest_gap(&seen);
    assert!(
        gap >= Duration::from_millis(DELAY_MS - 10),
        "a host was fetched {gap:?} apart"
    );
    // The job-wide manifest names every worker's WARC files.
    let out = Command::new(env!("CARGO_BIN_EXE_trawl"))
        .args(["ctl", "--frontier", &redis.url(), "crawl", "warcs"])
        .output()
        .unwrap();
    let manifest = String::from_utf8_lossy(&out.stdout).into_owned();
    for n in 0..3 {
        for w in common::warc_files(&dir.path().join(format!("w{n}/crawl"))) {
            if w.to_string_lossy().contains(".warc") && !w.to_string_lossy().ends_with(".cdxj") {
                assert!(
                    manifest.contains(&*w.to_string_lossy()),
                    "{w:?} not in {manifest}"
                );
            }
        }
    }
    // Each worker that ended cleanly is listed so, not as silent as a killed one is (xt44a F5).
    let out = Command::new(env!("CARGO_BIN_EXE_trawl"))
        .args(["ctl", "--frontier", &redis.url(), "crawl", "workers"])
        .output()
        .unwrap();
    let workers = String::from_utf8_lossy(&out.stdout).into_owned();
    assert_eq!(workers.matches(" finished ").count(), 3, "{workers}");
    // Every worker took part, with WARCs named by its worker id.
    for (n, pid) in pids.iter().enumerate() {
        let job = dir.path().join(format!("w{n}/crawl"));
        let lines = common::crawl_log(&job);
        assert!(!lines.is_empty(), "worker {n} fetched nothing");
        let warcs = common::warc_files(&job);
        let id = format!("-{pid}-");
        assert!(
            !warcs.is_empty()
                && warcs
                    .iter()
                    .all(|w| w.file_name().unwrap().to_string_lossy().contains(&id)),
            "{warcs:?} named without the worker id {id}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_killed_worker_and_a_redis_restart_lose_nothing() {
    let (seeds, seen) = site().await;
    let mut redis = Redis::start();
    let dir = tempfile::tempdir().unwrap();
    let cfg = config(dir.path());
    let root = dir.path().to_path_buf();
    let url = redis.url();
    let manifest_url = url.clone();
    let watched = seen.clone();
    let killed_leases = tokio::task::spawn_blocking(move || {
        let first = start(&root, 0, &url, &seeds, &cfg);
        std::thread::sleep(Duration::from_millis(300));
        let mut victim = start(&root, 1, &url, &[], &cfg);
        let other = start(&root, 2, &url, &[], &cfg);
        let pages = || watched.lock().unwrap().len();
        let started = Instant::now();
        while pages() < HOSTS * PAGES / 4 {
            assert!(
                started.elapsed() < Duration::from_secs(60),
                "the crawl does not start: {} pages in 60 s; {}",
                pages(),
                stderrs(&root)
            );
            std::thread::sleep(Duration::from_millis(20));
        }
        victim.kill();
        // Started again on its job: it repairs the WARC the kill left open, and joins.
        let again = start(&root, 1, &url, &[], &cfg);
        // Redis goes away and comes back with its AOF; the workers wait it out.
        while pages() < HOSTS * PAGES / 2 {
            assert!(
                started.elapsed() < Duration::from_secs(90),
                "the crawl stalled: {} pages in 90 s; {}",
                pages(),
                stderrs(&root)
            );
            std::thread::sleep(Duration::from_millis(20));
        }
        redis.stop();
        std::thread::sleep(Duration::from_millis(1500));
        redis.restart();
        wait(first, "w0", &root);
        wait(other, "w2", &root);
        wait(again, "w1", &root);
        // The killed worker held at most one lease per fetch slot (Redis kept for the manifest).
        (4, redis)
    })
    .await
    .unwrap();
    let (killed_leases, _redis) = killed_leases;
    // No WARC is left open, and the manifest names every worker's, the repaired one too.
    let out = Command::new(env!("CARGO_BIN_EXE_trawl"))
        .args(["ctl", "--frontier", &manifest_url, "crawl", "warcs"])
        .output()
        .unwrap();
    let manifest = String::from_utf8_lossy(&out.stdout).into_owned();
    let err = std::fs::read_to_string(dir.path().join("w1.err")).unwrap_or_default();
    assert!(err.contains("trawl: repaired "), "{err}");
    for n in 0..3 {
        for entry in std::fs::read_dir(dir.path().join(format!("w{n}/crawl/warcs"))).unwrap() {
            let path = entry.unwrap().path().to_string_lossy().into_owned();
            assert!(!path.ends_with(".open"), "{path} left open");
            if !path.ends_with(".cdxj") {
                assert!(manifest.contains(&path), "{path} not in {manifest}");
            }
        }
    }
    let counts = counts(&seen);
    assert_eq!(
        counts.len(),
        HOSTS * PAGES,
        "every page, though a worker died"
    );
    // Each refused URL of each host still has its line: a claim the killed worker left is taken over.
    let logs: String = (0..3)
        .map(|n| {
            std::fs::read_to_string(dir.path().join(format!("w{n}/crawl/logs/crawl.log")))
                .unwrap_or_default()
        })
        .collect();
    let hosts: std::collections::BTreeSet<&String> = counts.keys().map(|(h, _)| h).collect();
    for host in hosts {
        for n in 0..3 {
            let out = format!("//{host}/t/t/t/out{n}.html");
            assert!(
                logs.lines()
                    .any(|l| l.contains(&out) && l.contains(" -5000 ")),
                "no line for {out}"
            );
        }
    }
    let duplicates: usize = counts.values().map(|n| n - 1).sum();
    assert!(
        duplicates <= killed_leases,
        "{duplicates} duplicate fetches, more than the killed worker's {killed_leases} leases"
    );
    let gap = smallest_gap(&seen);
    assert!(
        gap >= Duration::from_millis(DELAY_MS - 10),
        "a host was fetched {gap:?} apart"
    );
}

mod common;

/// A Redis that lost the crawl (restarted without persistence; here `FLUSHALL`) fails the worker, which says
/// so, instead of ending the crawl as if it were done.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_crawl_lost_from_redis_fails_instead_of_finishing() {
    let (seeds, seen) = site().await;
    let redis = Redis::start();
    let dir = tempfile::tempdir().unwrap();
    let cfg = config(dir.path());
    let root = dir.path().to_path_buf();
    let url = redis.url();
    tokio::task::spawn_blocking(move || {
        let mut first = start(&root, 0, &url, &seeds, &cfg);
        let pages = || seen.lock().unwrap().len();
        let started = Instant::now();
        while pages() < HOSTS * PAGES / 4 {
            assert!(
                started.elapsed() < Duration::from_secs(60),
                "the crawl does not start: {}",
                stderrs(&root)
            );
            std::thread::sleep(Duration::from_millis(20));
        }
        redis.flush();
        let mut child = first.0.take().unwrap();
        let status = loop {
            if let Some(status) = child.try_wait().unwrap() {
                break status;
            }
            assert!(
                started.elapsed() < Duration::from_secs(120),
                "the worker did not end: {}",
                stderrs(&root)
            );
            std::thread::sleep(Duration::from_millis(50));
        };
        let err = std::fs::read_to_string(root.join("w0.err")).unwrap();
        assert!(!status.success(), "{err}");
        assert!(
            err.contains("is gone from") && !err.contains("FINISHED"),
            "{err}"
        );
        // Said once, not by each worker task (xt16b F7).
        let said = err
            .lines()
            .filter(|l| l.contains("ERROR") && l.contains("is gone from"))
            .count();
        assert_eq!(said, 1, "{err}");
        assert!(
            pages() < HOSTS * PAGES,
            "the whole site was fetched before the flush"
        );
        // The worker's job is no place for a new crawl of that name, nor for another server's crawl: its
        // archive would mix two crawls (xt44a F9).
        let job = root.join("w0").join("crawl");
        let refused = |args: &[&str]| {
            let out = Command::new(env!("CARGO_BIN_EXE_trawl"))
                .args(args)
                .arg("--job")
                .arg(&job)
                .output()
                .unwrap();
            assert!(!out.status.success());
            String::from_utf8_lossy(&out.stderr).into_owned()
        };
        let again = refused(&["crawl", "--frontier", &url, "http://127.0.0.1:9/"]);
        assert!(again.contains("which Redis no longer holds"), "{again}");
        let elsewhere = refused(&["worker", "redis://127.0.0.1:9/3"]);
        assert!(
            elsewhere.contains("a worker's job of the crawl \"crawl\"")
                && elsewhere.contains("not at redis://127.0.0.1:9/3"),
            "{elsewhere}"
        );
        // Nor for a later crawl of that name, made by another job after the first was lost: joining it would
        // put the old WARCs in its manifest (xt44a F9's rest: joined silently).
        std::fs::create_dir_all(root.join("later")).unwrap();
        let mut later = start(&root.join("later"), 0, &url, &seeds[..1], &cfg);
        let started = Instant::now();
        while !Command::new(env!("CARGO_BIN_EXE_trawl"))
            .args(["ctl", "--frontier", &url, "crawl", "report"])
            .output()
            .unwrap()
            .status
            .success()
        {
            assert!(
                started.elapsed() < Duration::from_secs(30),
                "the later crawl was not made"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        let marker = root.join("w0/crawl/state/shared.json");
        let before = std::fs::read_to_string(&marker).unwrap();
        let rejoin = refused(&["worker", &url]);
        assert!(
            rejoin.contains("a worker's job of an earlier crawl \"crawl\""),
            "{rejoin}"
        );
        assert_eq!(std::fs::read_to_string(&marker).unwrap(), before);
        later.kill();
    })
    .await
    .unwrap();
}

/// `trawl ctl --frontier` acts on every worker: pause holds them all, `workers` lists them, stop ends them.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_operator_pauses_lists_and_stops_every_worker() {
    let (seeds, seen) = site().await;
    let redis = Redis::start();
    let dir = tempfile::tempdir().unwrap();
    let cfg = config(dir.path());
    let root = dir.path().to_path_buf();
    let url = redis.url();
    let watched = seen.clone();
    tokio::task::spawn_blocking(move || {
        let ctl = |args: &[&str]| {
            let out = Command::new(env!("CARGO_BIN_EXE_trawl"))
                .args(["ctl", "--frontier", &url, "crawl"])
                .args(args)
                .output()
                .unwrap();
            assert!(
                out.status.success(),
                "{}",
                String::from_utf8_lossy(&out.stderr)
            );
            String::from_utf8_lossy(&out.stdout).into_owned()
        };
        let first = start(&root, 0, &url, &seeds, &cfg);
        std::thread::sleep(Duration::from_millis(300));
        let second = start(&root, 1, &url, &[], &cfg);
        let pages = || watched.lock().unwrap().len();
        let started = Instant::now();
        while pages() < 20 {
            assert!(
                started.elapsed() < Duration::from_secs(60),
                "the crawl does not start: {} pages in 60 s; {}",
                pages(),
                stderrs(&root)
            );
            std::thread::sleep(Duration::from_millis(20));
        }
        ctl(&["pause"]);
        // What was in flight finishes; then nothing.
        std::thread::sleep(Duration::from_millis(500));
        let held = pages();
        std::thread::sleep(Duration::from_millis(1500));
        assert_eq!(pages(), held, "a worker went on while paused");
        let workers = ctl(&["workers"]);
        assert_eq!(workers.matches("alive").count(), 2, "{workers}");
        let report = ctl(&["report"]);
        assert!(
            report.contains("(paused)") && report.contains("queued"),
            "{report}"
        );
        // Each worker's own report says it is paused (xt44a F10: RUNNING).
        let own = Command::new(env!("CARGO_BIN_EXE_trawl"))
            .args(["ctl"])
            .arg(root.join("w1").join("crawl"))
            .args(["report", "crawl"])
            .output()
            .unwrap();
        let own = String::from_utf8_lossy(&own.stdout);
        assert!(own.contains("PAUSED"), "{own}");
        // A settings change reaches every worker (its crawl.toml is rewritten when it takes it up).
        let said = ctl(&["set", "frontier.max_delay_ms=170"]);
        assert!(said.contains("settings version 1"), "{said}");
        for n in 0..2 {
            let path = root.join(format!("w{n}/crawl/crawl.toml"));
            let started = Instant::now();
            while !std::fs::read_to_string(&path)
                .unwrap_or_default()
                .contains("max_delay_ms = 170")
            {
                assert!(
                    started.elapsed() < Duration::from_secs(10),
                    "worker {n} kept its settings"
                );
                std::thread::sleep(Duration::from_millis(50));
            }
        }
        // Seeds added crawl-wide join every worker's settings (its scope takes them in); a worker's own job
        // directory holds no queue, so a queue command sent there is refused, naming the form that works.
        let added = seeds[0].replace("/p0.html", "/added/p3.html");
        let said = ctl(&["add-seeds", &added]);
        assert!(
            said.contains("every worker's scope takes them in"),
            "{said}"
        );
        for n in 0..2 {
            let path = root.join(format!("w{n}/crawl/crawl.toml"));
            let started = Instant::now();
            while !std::fs::read_to_string(&path)
                .unwrap_or_default()
                .contains(&added)
            {
                assert!(
                    started.elapsed() < Duration::from_secs(10),
                    "worker {n} did not take up the added seed"
                );
                std::thread::sleep(Duration::from_millis(50));
            }
        }
        let local = Command::new(env!("CARGO_BIN_EXE_trawl"))
            .arg("ctl")
            .arg(root.join("w0/crawl"))
            .args(["add-seeds", &added])
            .output()
            .unwrap();
        let refusal = String::from_utf8_lossy(&local.stdout).into_owned()
            + &String::from_utf8_lossy(&local.stderr);
        assert!(
            !local.status.success() && refusal.contains("trawl ctl --frontier"),
            "{refusal}"
        );
        // A checkpoint or a lookup of one URL does not exist for a shared crawl: refused on a worker's job
        // (which used to answer "checkpoint requested" and write nothing) and with --frontier (which used to
        // send the operator to the worker's job), each saying where the state is.
        let refused = |args: &[&str]| {
            let out = Command::new(env!("CARGO_BIN_EXE_trawl"))
                .arg("ctl")
                .args(args)
                .output()
                .unwrap();
            let said = String::from_utf8_lossy(&out.stdout).into_owned()
                + &String::from_utf8_lossy(&out.stderr);
            assert!(!out.status.success(), "{args:?} was not refused: {said}");
            said
        };
        let w0 = root.join("w0/crawl");
        let w0 = w0.to_str().unwrap();
        for action in [&["checkpoint"][..], &["lookup", &seeds[0]]] {
            let said = refused(&[&[w0][..], action].concat());
            assert!(said.contains("Redis's own persistence"), "{said}");
            let said = refused(&[&["--frontier", &url, "crawl"][..], action].concat());
            assert!(
                said.contains("does not exist for a shared crawl") && !said.contains('{'),
                "{said}"
            );
        }
        assert!(!root.join("w0/crawl/checkpoints").exists());
        // Pausing or setting one worker alone is refused: it would sit idle unseen, or fetch at a pace of its
        // own (xt16b F2).
        // A queue's command is named as given (xt46c N5: "the queue action").
        for action in [
            &["pause"][..],
            &["set", "frontier.min_delay_ms=1"],
            &["unpause-queue", "x"],
        ] {
            let said = refused(&[&[w0][..], action].concat());
            assert!(
                said.contains(&format!("trawl ctl --frontier {url} crawl {}", action[0])),
                "{said}"
            );
        }
        assert!(
            !std::fs::read_to_string(root.join("w0/crawl/crawl.toml"))
                .unwrap()
                .contains("min_delay_ms = 1\n")
        );
        // A full Redis takes none of the commands that write, each said as not recorded (xt46c N6: the
        // workers' "the crawl waits … it goes on", or the transaction's raw abort).
        let maxmemory = |bytes: &str| {
            let out = Command::new("redis-cli")
                .args(["-u", &url, "CONFIG", "SET", "maxmemory", bytes])
                .output()
                .unwrap();
            assert!(String::from_utf8_lossy(&out.stdout).contains("OK"));
        };
        let queue = seeds[0].split('/').nth(2).unwrap();
        maxmemory("1");
        for (action, change) in [
            (&["pause-queue", queue][..], "the queue's pause"),
            (&["queue-delay", queue, "900"], "the queue's delay"),
            (
                &["set", "frontier.max_delay_ms=180"],
                "the settings' change",
            ),
            (&["add-seeds", &added], "the seeds"),
            (&["unpause"], "the crawl's unpause"),
        ] {
            let said = refused(&[&["--frontier", &url, "crawl"][..], action].concat());
            assert!(
                said.contains("is full (maxmemory reached)")
                    && said.contains(&format!("{change} was not recorded, nothing was changed"))
                    && !said.contains("Transaction aborted")
                    && !said.contains("it goes on"),
                "{action:?}: {said}"
            );
        }
        maxmemory("0");
        ctl(&["unpause"]);
        while pages() < held + 10 {
            assert!(
                started.elapsed() < Duration::from_secs(60),
                "unpause did not resume"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
        ctl(&["stop"]);
        wait(first, "w0", &root);
        wait(second, "w1", &root);
        // The manifest names each worker's WARCs by absolute path, to be found from any directory.
        let manifest = ctl(&["warcs"]);
        assert!(
            manifest.lines().count() >= 2
                && manifest
                    .lines()
                    .all(|l| l.split('\t').nth(1).is_some_and(|p| p.starts_with('/'))),
            "{manifest}"
        );
        // A worker's job is continued by `trawl worker`, not `trawl resume`: the refusal names the former.
        let resume = Command::new(env!("CARGO_BIN_EXE_trawl"))
            .args(["resume", w0])
            .output()
            .unwrap();
        let said = String::from_utf8_lossy(&resume.stderr).into_owned();
        assert!(
            !resume.status.success() && said.contains(&format!("trawl worker {url} --job {w0}")),
            "{said}"
        );
        // Joining the stopped crawl ends at once, saying why and what lets the workers go on.
        let join = Command::new(env!("CARGO_BIN_EXE_trawl"))
            .args(["worker", &url, "--job"])
            .arg(root.join("w2/crawl"))
            .output()
            .unwrap();
        let said = String::from_utf8_lossy(&join.stderr).into_owned();
        assert!(
            said.contains("is stopped in Redis")
                && said.contains(&format!("trawl ctl --frontier {url} crawl unpause")),
            "{said}"
        );
        // A WARC an earlier run closed without listing it (one that failed on a full disk) is listed when
        // the worker starts again on its job.
        let warcs = root.join("w1/crawl/warcs");
        let closed = std::fs::read_dir(&warcs)
            .unwrap()
            .flatten()
            .map(|e| e.path())
            .find(|p| p.to_string_lossy().ends_with(".warc.gz"))
            .expect("worker 1 closed a WARC");
        let unlisted = warcs.join("trawl-earlier-run-00000.warc.gz");
        std::fs::copy(&closed, &unlisted).unwrap();
        let unlisted = std::fs::canonicalize(&unlisted).unwrap();
        assert!(!ctl(&["warcs"]).contains(unlisted.to_str().unwrap()));
        let again = Command::new(env!("CARGO_BIN_EXE_trawl"))
            .args(["worker", &url, "--job"])
            .arg(root.join("w1/crawl"))
            .output()
            .unwrap();
        let manifest = ctl(&["warcs"]);
        assert!(
            manifest.contains(unlisted.to_str().unwrap()),
            "{manifest}\n{}",
            String::from_utf8_lossy(&again.stderr)
        );
    })
    .await
    .unwrap();
    assert!(
        counts(&seen).len() < HOSTS * PAGES,
        "stopped before the end"
    );
}

/// A Redis that stops answering (SIGSTOP: the connection stays open, nothing answers, as with a dead host or
/// a dropped link) pauses the crawl and says so, and Ctrl-C still stops it, naming what continues a
/// worker; before, every step waited on the silent connection forever and Ctrl-C was not even said.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_redis_that_stops_answering_pauses_the_crawl_and_ctrl_c_still_stops_it() {
    let (seeds, seen) = site().await;
    let redis = Redis::start();
    let dir = tempfile::tempdir().unwrap();
    let cfg = config(dir.path());
    let root = dir.path().to_path_buf();
    let url = redis.url();
    tokio::task::spawn_blocking(move || {
        let mut first = start(&root, 0, &url, &seeds, &cfg);
        let pages = || seen.lock().unwrap().len();
        let started = Instant::now();
        while pages() < 10 {
            assert!(
                started.elapsed() < Duration::from_secs(60),
                "the crawl does not start; {}",
                stderrs(&root)
            );
            std::thread::sleep(Duration::from_millis(20));
        }
        redis.signal("-STOP");
        let err = || std::fs::read_to_string(root.join("w0.err")).unwrap_or_default();
        let started = Instant::now();
        while !err().contains("redis is unreachable") {
            if started.elapsed() > Duration::from_secs(20) {
                redis.signal("-CONT");
                panic!("a silent redis was not said within 20 s: {}", err());
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        let held = pages();
        std::thread::sleep(Duration::from_secs(1));
        assert!(
            pages() <= held + 1,
            "the crawl went on without its frontier"
        );
        let _ = Command::new("kill")
            .args(["-INT", &first.id().to_string()])
            .status();
        let mut child = first.0.take().unwrap();
        let started = Instant::now();
        let status = loop {
            if let Some(status) = child.try_wait().unwrap() {
                break status;
            }
            if started.elapsed() > Duration::from_secs(30) {
                let _ = child.kill();
                redis.signal("-CONT");
                panic!("Ctrl-C did not stop a worker of a silent redis: {}", err());
            }
            std::thread::sleep(Duration::from_millis(50));
        };
        redis.signal("-CONT");
        let said = err();
        let job = root.join("w0/crawl");
        assert!(
            said.contains("Ctrl-C: stopping")
                && !said.contains("writing a checkpoint")
                && said.contains(&format!("`trawl worker {url} --job {}`", job.display())),
            "{status}: {said}"
        );
        first.kill();
    })
    .await
    .unwrap();
}

/// Joining a crawl that exists with a config of one's own: its seeds are added (and fetched), and the
/// settings the crawl's stored ones overrule are named, with the command that changes them.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn joining_with_another_config_adds_its_seeds_and_names_the_settings_not_applied() {
    let (seeds, seen) = site().await;
    let redis = Redis::start();
    let dir = tempfile::tempdir().unwrap();
    let cfg = config(dir.path());
    let root = dir.path().to_path_buf();
    let url = redis.url();
    let added = seeds[1].replace("/p0.html", "/added/p3.html");
    let other = root.join("other.toml");
    std::fs::write(
        &other,
        format!(
            "[seeds]\nurls = [\"{added}\"]\n[frontier]\nmin_delay_ms = 2000\nmax_delay_ms = 2000\n\
             lease_ms = 6000\n[fetch]\nmax_connections = 4\n"
        ),
    )
    .unwrap();
    let watched = seen.clone();
    tokio::task::spawn_blocking(move || {
        wait(start(&root, 0, &url, &seeds[..1], &cfg), "w0", &root);
        let again = root.join("again");
        std::fs::create_dir_all(&again).unwrap();
        wait(start(&again, 0, &url, &[], &other), "w0", &again);
        let said = std::fs::read_to_string(again.join("w0.err")).unwrap();
        assert!(
            said.contains("frontier.min_delay_ms")
                && said.contains(&format!("trawl ctl --frontier {url} crawl set")),
            "{said}"
        );
        assert!(
            watched
                .lock()
                .unwrap()
                .iter()
                .any(|(_, path, _)| path == "/added/p3.html"),
            "the seed of the joining config was not fetched: {said}"
        );
        // The seed is the crawl's, published for every worker's scope (xt16b F2: it was the joiner's alone).
        let published = Command::new("redis-cli")
            .args(["-u", &url, "GET", "trawl:{crawl}:config"])
            .output()
            .unwrap();
        let published = String::from_utf8_lossy(&published.stdout);
        assert!(published.contains(&added), "{published}");
        assert!(said.contains("seeds queued for every worker"), "{said}");
        assert!(!said.contains("has finished"), "{said}");
        // A worker joining the crawl once it has finished is told so (xt16b F11).
        let late = root.join("late");
        std::fs::create_dir_all(&late).unwrap();
        wait(start(&late, 1, &url, &[], &cfg), "w1", &late);
        let said = std::fs::read_to_string(late.join("w1.err")).unwrap();
        assert!(said.contains("has finished"), "{said}");
    })
    .await
    .unwrap();
}

/// A job holding a local crawl (its queues in state/frontier) is never made a worker's job: `trawl crawl
/// --frontier` and `trawl worker` refuse it before anything is made in Redis, and it stays resumable (xt16b F3).
#[test]
fn a_local_job_is_not_joined_to_a_shared_crawl() {
    let redis = Redis::start();
    let url = redis.url();
    let dir = tempfile::tempdir().unwrap();
    let job = dir.path().join("local");
    std::fs::create_dir_all(job.join("state/frontier")).unwrap();
    let config = "[seeds]\nurls = [\"http://127.0.0.1:9/\"]\n";
    std::fs::write(job.join("crawl.toml"), config).unwrap();
    refused_both_ways(&url, &job, &["already holds a crawl", "trawl resume"]);
    assert_eq!(
        std::fs::read_to_string(job.join("crawl.toml")).unwrap(),
        config
    );
    assert!(!job.join("state/shared.json").exists());
    assert_eq!(redis_keys(&url), "0");
}

/// `trawl crawl --frontier URL` and `trawl worker URL` into `job` both fail, saying each of `wants`.
fn refused_both_ways(url: &str, job: &Path, wants: &[&str]) {
    let job = job.to_str().unwrap();
    let crawl = [
        "crawl",
        "--frontier",
        url,
        "--job",
        job,
        "http://127.0.0.1:9/",
    ];
    let worker = ["worker", url, "--job", job];
    for args in [&crawl[..], &worker[..]] {
        let out = Command::new(env!("CARGO_BIN_EXE_trawl"))
            .args(args)
            .output()
            .unwrap();
        let said = String::from_utf8_lossy(&out.stderr);
        assert!(
            !out.status.success() && wants.iter().all(|w| said.contains(w)),
            "{args:?}: {said}"
        );
    }
}

/// How many keys the Redis at `url` holds.
fn redis_keys(url: &str) -> String {
    let keys = Command::new("redis-cli")
        .args(["-u", url, "DBSIZE"])
        .output()
        .unwrap();
    String::from_utf8_lossy(&keys.stdout).trim().to_owned()
}

/// A job directory another trawl holds is refused before anything reaches Redis: no crawl made, no seed
/// published (review 64b R12: a join published its seeds, then failed on the lock).
#[test]
fn a_job_in_use_is_refused_before_redis_is_touched() {
    let redis = Redis::start();
    let url = redis.url();
    let dir = tempfile::tempdir().unwrap();
    let job_dir = dir.path().join("held");
    let job = trawl_engine::job::Job::create(&job_dir).unwrap();
    let _held = job.lock().unwrap();
    refused_both_ways(&url, &job_dir, &["in use by another trawl process"]);
    assert_eq!(redis_keys(&url), "0");
}

/// A worker that cannot join (no crawl of that name; no server answering) leaves no job directory behind
/// (review 65 R9: the directory is made and locked before Redis is asked).
#[test]
fn a_failed_join_leaves_no_job_directory() {
    let redis = Redis::start();
    let dir = tempfile::tempdir().unwrap();
    for (url, said) in [
        (redis.url(), "holds no crawl named"),
        ("redis://127.0.0.1:9/0".to_owned(), "127.0.0.1:9"),
    ] {
        let job = dir.path().join("typo");
        let out = Command::new(env!("CARGO_BIN_EXE_trawl"))
            .args(["worker", &url, "--job", job.to_str().unwrap()])
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success() && err.contains(said), "{err}");
        assert!(!job.exists(), "{url}: {err}");
    }
}

/// One HTTP/1.0 request with the API token: (status line, body).
fn http(port: u16, method: &str, path: &str) -> (String, String) {
    use std::io::{Read, Write};
    let mut s = std::net::TcpStream::connect(("127.0.0.1", port)).unwrap();
    write!(
        s,
        "{method} {path} HTTP/1.0\r\nHost: 127.0.0.1\r\nAuthorization: Bearer tok\r\nContent-Length: 0\r\n\r\n"
    )
    .unwrap();
    let mut raw = String::new();
    s.read_to_string(&mut raw).unwrap();
    let (head, body) = raw.split_once("\r\n\r\n").unwrap_or((&raw, ""));
    (
        head.lines().next().unwrap_or("").to_string(),
        body.to_string(),
    )
}

/// `trawl serve --frontier`: the API lists a shared crawl with its workers and pauses every worker.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_web_api_shows_and_acts_on_a_shared_crawl() {
    // With a password, which the server never shows (xt16b F1).
    let redis = Redis::start_with_password("s3cret");
    let url = redis.url();
    let setup = url.clone();
    tokio::task::spawn_blocking(move || {
        let mut f = trawl_frontier::SharedFrontier::<String>::connect(
            &setup,
            "nl",
            "host-1",
            Duration::from_secs(30),
            0,
        )
        .unwrap();
        f.adopt_config("[seeds]\nurls = [\"http://127.0.0.1:9/\"]\n")
            .unwrap();
        f.schedule_batch(vec![("q".into(), "a".into()), ("q".into(), "b".into())])
            .unwrap();
        assert!(matches!(
            f.claim().unwrap(),
            trawl_frontier::Claim::Ready { .. }
        ));
        f.renew().unwrap();
    })
    .await
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let state = trawl_server::AppState::new(
        trawl_server::JobManager::new(dir.path()).unwrap(),
        trawl_server::Auth::with_password("pw", Some("tok")),
    )
    .with_shared(&url);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    tokio::spawn(async move {
        axum::serve(
            listener,
            trawl_server::app(state).into_make_service_with_connect_info::<SocketAddr>(),
        )
        .await
        .unwrap()
    });
    let (status, body) = tokio::task::spawn_blocking(move || http(port, "GET", "/api/shared"))
        .await
        .unwrap();
    assert!(status.contains("200"), "{status} {body}");
    let v: serde_json::Value = serde_json::from_str(&body).unwrap();
    assert!(!body.contains("s3cret"), "{body}");
    assert_eq!(v["frontier"], url.replace("s3cret", "PASSWORD"));
    // The password may come from the environment instead of the command line `ps` shows (xt16b F15).
    let bare = url.replace(":s3cret@", "");
    let out = tokio::task::spawn_blocking(move || {
        Command::new(env!("CARGO_BIN_EXE_trawl"))
            .env("TRAWL_REDIS_PASSWORD", "s3cret")
            .args(["ctl", "--frontier", &bare, "nl", "report"])
            .output()
            .unwrap()
    })
    .await
    .unwrap();
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && said.contains("crawl \"nl\""),
        "{said}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // A crawl the server does not hold is said without the password (review 64b R1).
    let typo = dir.path().join("typo");
    let bare = url.replace(":s3cret@", "");
    let out = tokio::task::spawn_blocking(move || {
        Command::new(env!("CARGO_BIN_EXE_trawl"))
            .env("TRAWL_REDIS_PASSWORD", "s3cret")
            .arg("worker")
            .arg(&bare)
            .arg("--job")
            .arg(&typo)
            .output()
            .unwrap()
    })
    .await
    .unwrap();
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success() && said.contains("holds no crawl named") && !said.contains("s3cret"),
        "{said}"
    );
    let crawl = &v["crawls"][0];
    assert_eq!(crawl["name"], "nl");
    assert_eq!(crawl["counts"]["queued"], 1);
    assert_eq!(crawl["counts"]["in_flight"], 1);
    assert_eq!(crawl["workers"][0]["worker"], "host-1");
    assert_eq!(crawl["workers"][0]["leases"], 1);
    let (status, body) =
        tokio::task::spawn_blocking(move || http(port, "POST", "/api/shared/nl/pause"))
            .await
            .unwrap();
    assert!(status.contains("200"), "{status} {body}");
    assert!(body.contains("\"state\":\"pause\""), "{body}");
    // The page shows the crawl, its state and its worker, with the buttons.
    let (status, html) = tokio::task::spawn_blocking(move || http(port, "GET", "/shared"))
        .await
        .unwrap();
    assert!(status.contains("200"), "{status}");
    assert!(
        html.contains("<h2>nl</h2>")
            && html.contains("host-1")
            && html.contains("/shared/nl/action/stop")
            && html.contains(":PASSWORD@")
            && !html.contains("s3cret"),
        "{html}"
    );
    // Seeds added crawl-wide go into the shared queues, once.
    let seeded = url.clone();
    let said = tokio::task::spawn_blocking(move || {
        let out = Command::new(env!("CARGO_BIN_EXE_trawl"))
            .args(["ctl", "--frontier", &seeded, "nl", "add-seeds"])
            .args(["http://127.0.0.1:9/new", "http://127.0.0.1:9/new"])
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr)
    })
    .await
    .unwrap();
    assert!(
        said.contains("1 of 2 seeds queued for every worker"),
        "{said}"
    );
    let (_, body) = tokio::task::spawn_blocking(move || http(port, "GET", "/api/shared/nl"))
        .await
        .unwrap();
    assert!(body.contains("\"queued\":2"), "{body}");
    assert!(body.contains("\"finished\":false"), "{body}");
    // Queue actions reach the shared queues.
    let steered = url.clone();
    let (paused, listed, by_host, reported, budget) = tokio::task::spawn_blocking(move || {
        let ctl = |args: &[&str]| {
            let out = Command::new(env!("CARGO_BIN_EXE_trawl"))
                .args(["ctl", "--frontier", &steered, "nl"])
                .args(args)
                .output()
                .unwrap();
            String::from_utf8_lossy(&out.stdout).into_owned()
        };
        (
            ctl(&["pause-queue", "q"]),
            ctl(&["queues"]),
            // A host named without its port stands for its one queue, as in one process (xt21a F5).
            ctl(&["queue-delay", "127.0.0.1", "500"]),
            ctl(&["report"]),
            ctl(&["queue-budget", "q", "1"]),
        )
    })
    .await
    .unwrap();
    // What a paused queue holds keeps the crawl from ending, and the report says so (xt44a F1); a budget
    // under what the queue was given says its URIs are still fetched (xt44a F2).
    assert!(
        reported.contains(
            "1 URIs wait in 1 queue paused or retired by the operator: the crawl ends when none is left"
        ),
        "{reported}"
    );
    assert!(
        budget.contains(
            "queue q budget 1: the queue was given 2 URIs already, so it takes no more; the 1 it holds are \
             still fetched"
        ),
        "{budget}"
    );
    assert!(paused.contains("queue q paused (every worker)"), "{paused}");
    assert!(
        by_host.contains("queue 127.0.0.1:9 delay 500 (every worker)"),
        "{by_host}"
    );
    assert!(
        listed
            .lines()
            .any(|l| l.starts_with("q ") && l.contains("paused")),
        "{listed}"
    );
    let (status, _) =
        tokio::task::spawn_blocking(move || http(port, "GET", "/api/shared/elsewhere"))
            .await
            .unwrap();
    assert!(status.contains("404"), "{status}");
}

/// A worker stopped (Ctrl-C) while a response head is still awaited gives the request up ten seconds on
/// without counting it as a try (`max_retries = 0`) or writing a line: the URI goes back to the shared
/// frontier, and the worker started again on its job fetches it (it used to end -4, logged failed for good).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_head_cut_by_a_worker_stop_is_fetched_when_it_goes_on() {
    use std::sync::atomic::Ordering;
    let (addr, asked) = common::listen_silent_at_first().await;
    let redis = Redis::start();
    let dir = tempfile::tempdir().unwrap();
    let job = dir.path().join("cut");
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
    let summary =
        trawl_engine::Crawl::new_shared(&job, config, std::slice::from_ref(&seed), &redis.url())
            .unwrap()
            .run(handle, |_| {})
            .await
            .unwrap();
    assert_eq!(summary.ending, trawl_engine::report::Ending::Stopped);
    let log = std::fs::read_to_string(job.join("logs/crawl.log")).unwrap_or_default();
    assert!(!log.contains(&seed), "no line before it goes on: {log}");

    let summary = trawl_engine::Crawl::join(&job, &redis.url())
        .unwrap()
        .run(trawl_engine::CrawlHandle::default(), |_| {})
        .await
        .unwrap();
    assert_eq!(summary.ending, trawl_engine::report::Ending::Finished);
    assert_eq!(asked.load(Ordering::SeqCst), 2, "fetched again");
    let log = common::crawl_log(&job);
    assert_eq!(common::log_line(&log, &seed).status, 200, "{log:#?}");
}
