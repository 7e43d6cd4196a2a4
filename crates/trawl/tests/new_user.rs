//! What a new user meets (issue 21): how a crawl stops under SIGTERM or SIGHUP, what a `--job` that cannot
//! work says, what the progress line says while every queue waits, and a machine short of resources (few
//! open files, a file-size limit).

mod common;

use std::{
    io::Read,
    path::Path,
    process::{Child, Command, Stdio},
    time::{Duration, Instant},
};

fn trawl(args: &[&str]) -> Child {
    trawl_with_stderr(args, Stdio::piped())
}

fn trawl_with_stderr(args: &[&str], stderr: impl Into<Stdio>) -> Child {
    Command::new(env!("CARGO_BIN_EXE_trawl"))
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(stderr)
        .spawn()
        .unwrap()
}

/// Waits for `child` (at most `limit`); returns its exit code.
fn exit_code(child: &mut Child, limit: Duration) -> Option<i32> {
    let start = Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status.code();
        }
        if start.elapsed() >= limit {
            // Not left running after the test: a crawl that hangs would go on for good.
            let _ = child.kill();
            let _ = child.wait();
            panic!("trawl did not end within {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Waits for `child` (at most `limit`); returns its exit code and stderr.
fn wait(mut child: Child, limit: Duration) -> (Option<i32>, String) {
    let code = exit_code(&mut child, limit);
    let mut err = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    (code, err)
}

fn signal(child: &Child, name: &str) {
    let ok = Command::new("kill")
        .args([&format!("-{name}"), &child.id().to_string()])
        .status()
        .unwrap()
        .success();
    assert!(ok, "kill -{name} failed");
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// A slow crawl of the self-test site: a config file with a politeness delay, and the seed.
fn slow_crawl(dir: &Path, site: &trawl::selftest::site::Site) -> (String, String) {
    let mut config = trawl::selftest::config();
    config.frontier.min_delay_ms = 150;
    config.frontier.max_delay_ms = 150;
    let cfg = dir.join("crawl.toml");
    std::fs::write(&cfg, config.to_toml()).unwrap();
    (s(&cfg).to_string(), site.seed())
}

fn open_warcs(job: &Path) -> Vec<String> {
    std::fs::read_dir(job.join("warcs"))
        .unwrap()
        .map(|e| e.unwrap().path().to_string_lossy().into_owned())
        .filter(|p| p.ends_with(".open"))
        .collect()
}

// See: issue 21 (SIGTERM killed trawl with the WARC still `.open` and no report).
#[test]
fn sigterm_stops_a_crawl_as_ctrl_c_does_and_a_second_one_at_once() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let site = rt.block_on(trawl::selftest::site::start()).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let (cfg, seed) = slow_crawl(dir.path(), &site);

    // One SIGTERM: URIs in flight finish, archives close, the report is written, exit 0.
    let job = dir.path().join("clean");
    let child = trawl(&["crawl", "-c", &cfg, "--job", s(&job), &seed]);
    // Signalled once it crawls (its handler is in place), not after a fixed time a slow start may exceed.
    common::wait_for("the crawl's first lines", 30, || {
        std::fs::read_to_string(job.join("logs/crawl.log")).is_ok_and(|t| t.lines().count() >= 2)
    });
    signal(&child, "TERM");
    let (code, err) = wait(child, Duration::from_secs(30));
    assert_eq!(code, Some(0), "{err}");
    assert!(err.contains("SIGTERM: stopping"), "{err}");
    assert!(open_warcs(&job).is_empty(), "{:?}", open_warcs(&job));
    let report = std::fs::read_to_string(job.join("reports/crawl-report.txt")).unwrap();
    assert!(report.contains("Crawl Status: STOPPED"), "{report}");
    for file in common::warc_files(&job) {
        common::warcio_check(&file);
    }

    // Two: it stops at once (143), with `/slow` (ten seconds) still in flight, and the job resumes to its
    // end. The second signal goes only once the first was taken: two sent close together may arrive as one.
    let mut config = trawl::selftest::config();
    config.frontier.min_delay_ms = 150;
    config.frontier.max_delay_ms = 150;
    config.fetch.timeout_ms = 30_000;
    config.fetch.header_timeout_ms = 30_000;
    let cfg = dir.path().join("patient.toml");
    std::fs::write(&cfg, config.to_toml()).unwrap();
    let job = dir.path().join("abrupt");
    let err_file = dir.path().join("abrupt.err");
    let mut child = trawl_with_stderr(
        &["crawl", "-c", s(&cfg), "--job", s(&job), &seed],
        std::fs::File::create(&err_file).unwrap(),
    );
    common::wait_for("the fetch of /slow", 30, || site.hits("/slow") == 1);
    signal(&child, "TERM");
    common::wait_for("the first SIGTERM's message", 10, || {
        std::fs::read_to_string(&err_file).is_ok_and(|e| e.contains("SIGTERM: stopping"))
    });
    signal(&child, "TERM");
    let code = exit_code(&mut child, Duration::from_secs(5));
    let err = std::fs::read_to_string(&err_file).unwrap();
    assert_eq!(code, Some(143), "{err}");
    assert!(
        !err.contains("STOPPED"),
        "it stopped cleanly instead: {err}"
    );
    let (code, err) = wait(trawl(&["resume", s(&job)]), Duration::from_secs(60));
    assert_eq!(code, Some(0), "{err}");
    assert!(open_warcs(&job).is_empty(), "{:?}", open_warcs(&job));
    for file in common::warc_files(&job) {
        common::warcio_check(&file);
    }
    rt.block_on(site.shutdown());
}

// See: xt8 F10 (a hangup killed the crawl outright, as kill -9 does).
#[test]
fn sighup_stops_a_crawl_cleanly_as_sigterm_does() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let site = rt.block_on(trawl::selftest::site::start()).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let (cfg, seed) = slow_crawl(dir.path(), &site);
    let job = dir.path().join("hup");
    let child = trawl(&["crawl", "-c", &cfg, "--job", s(&job), &seed]);
    common::wait_for("the crawl's first lines", 30, || {
        std::fs::read_to_string(job.join("logs/crawl.log")).is_ok_and(|t| t.lines().count() >= 2)
    });
    signal(&child, "HUP");
    let (code, err) = wait(child, Duration::from_secs(30));
    assert_eq!(code, Some(0), "{err}");
    assert!(err.contains("SIGHUP: stopping"), "{err}");
    assert!(open_warcs(&job).is_empty(), "{:?}", open_warcs(&job));
    let report = std::fs::read_to_string(job.join("reports/crawl-report.txt")).unwrap();
    assert!(report.contains("Crawl Status: STOPPED"), "{report}");
    rt.block_on(site.shutdown());
}

/// `trawl ARGS` run under the shell limit `ulimit -LIMIT` (set in the child alone), to its end: its exit
/// code (`None`: killed by a signal) and standard error.
fn trawl_limited(limit: &str, args: &[&str]) -> (Option<i32>, String) {
    let child = Command::new("sh")
        .arg("-c")
        .arg(format!("ulimit {limit} && exec \"$0\" \"$@\""))
        .arg(env!("CARGO_BIN_EXE_trawl"))
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    wait(child, Duration::from_secs(120))
}

/// A site of `n` small pages, all linked from `/`; its seed.
async fn many_pages(n: usize) -> String {
    use axum::{extract::Path as UrlPath, routing::get};
    let index = (0..n)
        .map(|i| format!("<a href=\"/p/{i}\">{i}</a>"))
        .collect::<String>();
    let page = |UrlPath(i): UrlPath<usize>| async move {
        axum::response::Html(format!("<html><body><p>page {i}</p></body></html>"))
    };
    let app = axum::Router::new()
        .route("/", get(move || async move { axum::response::Html(index) }))
        .route("/p/{i}", get(page));
    format!("http://{}/", common::listen(app).await)
}

/// The config of a crawl run short of open files: 16 connections, long timeouts (a shortage is waited out,
/// not timed out) and no retries, so a URI that failed for want of descriptors would be lost at once.
fn short_of_files() -> trawl_config::CrawlConfig {
    let mut config = trawl::selftest::config();
    config.fetch.max_connections = 16;
    config.fetch.timeout_ms = 30_000;
    config.fetch.connect_timeout_ms = 30_000;
    config.fetch.header_timeout_ms = 30_000;
    config.frontier.max_retries = 0;
    config
}

// See: xt8 F2 (out of descriptors, pages were given up as the server's `-2 err=connect`, silently).
#[test]
fn a_crawl_short_of_open_files_puts_uris_back_and_loses_none() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let seed = rt.block_on(many_pages(80));
    let dir = tempfile::tempdir().unwrap();
    let mut config = short_of_files();
    config.fetch.max_connections_per_host = 16;
    let cfg = dir.path().join("crawl.toml");
    std::fs::write(&cfg, config.to_toml()).unwrap();
    let job = dir.path().join("fds");
    let (code, err) = trawl_limited("-n 28", &["crawl", "-c", s(&cfg), "--job", s(&job), &seed]);
    assert_eq!(code, Some(0), "{err}");
    // Said on the terminal: the limit at start, the shortage when it came.
    assert!(
        err.contains("fetch.max_connections = 16 needs at least"),
        "{err}"
    );
    assert!(
        err.contains("too many open files"),
        "the crawl never ran short: {err}"
    );
    let log = common::crawl_log(&job);
    let failed: Vec<_> = log.iter().filter(|l| l.status < 0).collect();
    assert!(failed.is_empty(), "{failed:#?}");
    let pages = log.iter().filter(|l| l.status == 200).count();
    assert_eq!(pages, 81, "{log:#?}");
    let responses = common::records(&job)
        .iter()
        .filter(|r| r.get("WARC-Type") == Some("response"))
        .count();
    assert_eq!(responses, 82, "81 pages and the robots.txt");
}

// See: stop 58's note (a DNS query that could not get its socket was the host's `-6`, the page lost), and
// what this test found on the way: idle keep-alive sockets that filled the limit stalled the crawl for good.
#[test]
fn a_crawl_short_of_open_files_for_its_dns_queries_loses_no_host() {
    use axum::routing::get;
    let hosts = 30;
    let rt = tokio::runtime::Runtime::new().unwrap();
    let (addr, dns) = rt.block_on(async {
        // Every host answers from here; the first links to the rest, so that the WARC file and the stores
        // are open before the lookups crowd in.
        let port = std::sync::Arc::new(std::sync::OnceLock::new());
        let index = {
            let port = port.clone();
            move || async move {
                let port: u16 = *port.get().unwrap();
                let links: String = (0..hosts)
                    .map(|i| format!("<a href=\"http://h{i}.trawl.test:{port}/\">{i}</a>"))
                    .collect();
                axum::response::Html(format!("<html><body>{links}</body></html>"))
            }
        };
        let app = axum::Router::new().route("/", get(index));
        let addr = common::listen(app).await;
        port.set(addr.port()).unwrap();
        (addr, common::dns_server().await.0)
    });
    let dir = tempfile::tempdir().unwrap();
    let mut config = short_of_files();
    config.fetch.dns_servers = vec![dns];
    // Names looked up are not this machine's to the placeholder's check: a contact is needed.
    config.fetch.user_agent = "trawl-test/1.0 (+http://127.0.0.1/bot)".into();
    config.scope.surt_prefixes = vec!["trawl.test".into()];
    config.fetch.allow_addresses = vec!["127.0.0.0/8".parse().unwrap()];
    let cfg = dir.path().join("crawl.toml");
    std::fs::write(&cfg, config.to_toml()).unwrap();
    let job = dir.path().join("dns");
    let seed = format!("http://first.trawl.test:{}/", addr.port());
    let (code, err) = trawl_limited("-n 28", &["crawl", "-c", s(&cfg), "--job", s(&job), &seed]);
    assert_eq!(code, Some(0), "{err}");
    assert!(
        err.contains("too many open files"),
        "the crawl never ran short: {err}"
    );
    let log = common::crawl_log(&job);
    let failed: Vec<_> = log.iter().filter(|l| l.status < 0).collect();
    assert!(failed.is_empty(), "{failed:#?}");
    let pages = log
        .iter()
        .filter(|l| l.status == 200 && l.uri.ends_with(&format!(":{}/", addr.port())))
        .count();
    assert_eq!(pages, hosts + 1, "{log:#?}");
}

// See: xt8 F8 (under `ulimit -f` SIGXFSZ killed trawl without a word).
#[test]
fn a_file_size_limit_fails_the_crawl_with_a_message_naming_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let job = dir.path().join("fsize");
    // 1 MiB: the stores' 64 MiB journals cannot be made.
    let (code, err) = trawl_limited(
        "-f 1024",
        &["crawl", "--job", s(&job), "http://127.0.0.1:9/"],
    );
    assert_eq!(code, Some(1), "killed by a signal, or not failed: {err}");
    assert!(
        err.contains("file-size limit") && err.contains("ulimit -f"),
        "{err}"
    );
    assert!(err.contains(s(&job)), "the file is named: {err}");
    assert!(!err.contains("FjallError"), "{err}");
}

// See: xt8 F1 (`trawl wacz` onto a full disk blamed the source WARC and advised `trawl resume`).
#[test]
fn a_package_onto_a_full_disk_names_the_package_and_its_fix() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let seed = rt.block_on(many_pages(20));
    let dir = tempfile::tempdir().unwrap();
    let cfg = dir.path().join("crawl.toml");
    std::fs::write(&cfg, trawl::selftest::config().to_toml()).unwrap();
    let job = dir.path().join("job");
    let (code, err) = wait(
        trawl(&["crawl", "-c", s(&cfg), "--job", s(&job), &seed]),
        Duration::from_secs(60),
    );
    assert_eq!(code, Some(0), "{err}");
    let Some(full) = Tmpfs::mount(dir.path(), "64k", "") else {
        println!("skipped: cannot mount tmpfs");
        return;
    };
    std::fs::write(full.0.join("filler"), vec![0u8; 60 << 10]).ok();
    let out = full.0.join("x.wacz");
    let (code, err) = wait(
        trawl(&["wacz", s(&job), "-o", s(&out)]),
        Duration::from_secs(60),
    );
    assert_eq!(code, Some(1), "{err}");
    assert!(err.contains(&format!("packaging {}", s(&out))), "{err}");
    assert!(
        err.contains("free some space there") && err.contains("-o FILE"),
        "{err}"
    );
    for wrong in ["writing WARC", "trawl resume", "ZipWriter", ".warc.gz:"] {
        assert!(!err.contains(wrong), "{wrong:?} in: {err}");
    }
    assert!(!out.exists());
    common::assert_no_temporary_left(out.parent().unwrap());
}

// See: xt8 F3 (after a crawl stopped by a WARC write failure, the resume fetched robots.txt twice at once).
#[test]
fn a_resume_after_a_failed_warc_write_fetches_robots_txt_once() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let seed = rt.block_on(many_pages(20));
    let dir = tempfile::tempdir().unwrap();
    let mut config = trawl::selftest::config();
    config.fetch.max_connections_per_host = 4;
    let cfg = dir.path().join("crawl.toml");
    std::fs::write(&cfg, config.to_toml()).unwrap();
    let Some(ro) = Tmpfs::mount(dir.path(), "1m", ",ro") else {
        println!("skipped: cannot mount tmpfs");
        return;
    };
    // The job's warcs folder is read-only: the first record (robots.txt's) cannot be written.
    let job = dir.path().join("job");
    std::fs::create_dir_all(&job).unwrap();
    std::os::unix::fs::symlink(&ro.0, job.join("warcs")).unwrap();
    let (code, err) = wait(
        trawl(&["crawl", "-c", s(&cfg), "--job", s(&job), &seed]),
        Duration::from_secs(60),
    );
    assert_eq!(code, Some(1), "{err}");
    drop(ro);
    std::fs::remove_file(job.join("warcs")).unwrap();
    std::fs::create_dir(job.join("warcs")).unwrap();
    let (code, err) = wait(trawl(&["resume", s(&job)]), Duration::from_secs(60));
    assert_eq!(code, Some(0), "{err}");
    let log = common::crawl_log(&job);
    let robots: Vec<_> = log
        .iter()
        .filter(|l| l.uri.ends_with("/robots.txt"))
        .collect();
    assert_eq!(robots.len(), 1, "{robots:#?}");
    assert!(
        robots[0].annotations.is_empty(),
        "a try was spent: {robots:#?}"
    );
    assert_eq!(log.iter().filter(|l| l.status == 200).count(), 21);
}

/// A tmpfs of `size`, mounted on a new folder under `dir` with `options`, unmounted when dropped; `None`
/// where mounting is not allowed (not root).
struct Tmpfs(std::path::PathBuf);

impl Tmpfs {
    fn mount(dir: &Path, size: &str, options: &str) -> Option<Tmpfs> {
        let at = dir.join("mnt");
        std::fs::create_dir_all(&at).unwrap();
        let opts = format!("size={size}{options}");
        let ok = Command::new("mount")
            .args(["-t", "tmpfs", "-o", &opts, "tmpfs", s(&at)])
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        ok.then_some(Tmpfs(at))
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(&self.0).status();
    }
}

// See: issue 21 (a --job that cannot work said a bare `os error`).
#[test]
fn a_job_folder_that_cannot_work_is_said_in_one_sentence() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("file.txt");
    std::fs::write(&file, "x").unwrap();
    let crawl = |job: &Path| {
        wait(
            trawl(&["crawl", "--job", s(job), "http://127.0.0.1:9/"]),
            Duration::from_secs(30),
        )
    };

    let (code, err) = crawl(&file);
    assert_eq!(code, Some(1));
    assert!(
        err.contains("is a file, not a folder: give --job a folder"),
        "{err}"
    );

    // A read-only disk and a full one (mounted for the test; skipped where that is not allowed).
    let Some(ro) = Tmpfs::mount(dir.path(), "1m", ",ro") else {
        println!("skipped the read-only and full disks: cannot mount tmpfs");
        return;
    };
    let (code, err) = crawl(&ro.0.join("job"));
    assert_eq!(code, Some(1));
    assert!(
        err.contains("not allowed to write there: give --job a folder you can write to"),
        "{err}"
    );
    drop(ro);
    let Some(full) = Tmpfs::mount(dir.path(), "64k", "") else {
        return;
    };
    std::fs::write(full.0.join("filler"), vec![0u8; 64 << 10]).ok();
    let (code, err) = crawl(&full.0.join("job"));
    assert_eq!(code, Some(1));
    assert!(err.contains("the disk is full: free some space"), "{err}");
    assert_eq!(
        err.matches("os error").count(),
        1,
        "the system's words once, in brackets: {err}"
    );
}
