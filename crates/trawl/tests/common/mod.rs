//! Helpers shared by the integration tests: reading a job's outputs and validating WARCs with warcio, serving a
//! test site, writing files, reading request cookies and running the `trawl` binary.

#![allow(dead_code, unreachable_pub)]

use std::{
    ffi::OsStr,
    net::SocketAddr,
    path::{Path, PathBuf},
    process::Command,
};

use axum::{
    Router,
    http::{HeaderMap, header},
};
use tokio::net::TcpListener;

use trawl_engine::crawl_log::{self, LogLine};

/// A WARC record as read back.
pub struct Rec {
    pub file: PathBuf,
    pub offset: u64,
    pub header: Vec<(String, String)>,
    pub block: Vec<u8>,
}

impl Rec {
    pub fn get(&self, name: &str) -> Option<&str> {
        self.header
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

/// Every WARC file in `JOB/warcs`, sorted.
pub fn warc_files(job: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(job.join("warcs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().contains(".warc"))
        .collect();
    files.sort();
    files
}

/// Every record of every WARC of the job, in order.
pub fn records(job: &Path) -> Vec<Rec> {
    let mut out = Vec::new();
    for file in warc_files(job) {
        for rec in trawl_warc::open(&file).unwrap() {
            let rec = rec.unwrap();
            out.push(Rec {
                file: file.clone(),
                offset: rec.offset,
                header: rec.header.clone(),
                block: rec.block,
            });
        }
    }
    out
}

/// The job's crawl.log, parsed.
pub fn crawl_log(job: &Path) -> Vec<LogLine> {
    crawl_log::parse(&std::fs::read_to_string(job.join("logs/crawl.log")).unwrap()).unwrap()
}

/// The crawl.log line of `url`; the test fails, showing the whole log, when there is none.
pub fn log_line<'a>(log: &'a [LogLine], url: &str) -> &'a LogLine {
    log.iter()
        .find(|l| l.uri == url)
        .unwrap_or_else(|| panic!("no crawl.log line for {url}:\n{log:#?}"))
}

/// Runs `warcio check -v` over `file` and fails on any problem it reports, except a payload-digest flag on a
/// record whose HTTP body is chunked (warcio 1.8 digests the chunked bytes, its issues #74/#75, while WARC 1.1
/// and trawl digest the de-chunked entity) or that begins with interim 1xx responses (warcio reads the first
/// head as the response). Such a flag is tolerated only after trawl's own verifier has
/// confirmed the de-chunked digest (it runs first).
///
/// warcio is installed by `scripts/test.sh`; when it is missing the check fails under CI and is skipped
/// (with a message) elsewhere.
pub fn warcio_check(file: &Path) {
    trawl_warc::verify(file).unwrap_or_else(|e| panic!("trawl's verifier: {e}"));
    let out = match Command::new("warcio")
        .arg("check")
        .arg("-v")
        .arg(file)
        .output()
    {
        Ok(out) => out,
        Err(e) => {
            assert!(
                std::env::var_os("CI").is_none(),
                "warcio is not installed ({e}); run `bash scripts/test.sh` or `pip install warcio`"
            );
            eprintln!(
                "skipped warcio check of {}: warcio not installed",
                file.display()
            );
            return;
        }
    };
    let text = String::from_utf8_lossy(&out.stdout);
    let records = trawl_warc::open(file)
        .unwrap()
        .map(Result::unwrap)
        .collect::<Vec<_>>();
    let mut offset: Option<u64> = None;
    let mut problems = Vec::new();
    for line in text.lines() {
        let t = line.trim();
        if let Some(rest) = t.strip_prefix("offset ") {
            offset = rest.split_whitespace().next().and_then(|n| n.parse().ok());
        } else if t.contains("failed") || t.contains("error") || t.contains("invalid") {
            let record = offset.and_then(|o| records.iter().find(|r| r.offset == o));
            let warcio_deviation = record.is_some_and(|r| is_chunked(&r.block));
            if !(t.starts_with("payload digest failed") && warcio_deviation) {
                problems.push(format!("offset {offset:?}: {t}"));
            }
        }
    }
    assert!(
        problems.is_empty() && (out.status.success() || !text.is_empty()),
        "warcio check {} reported:\n{}\n{}",
        file.display(),
        problems.join("\n"),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Whether an HTTP message block declares `Transfer-Encoding: chunked`.
fn is_chunked(block: &[u8]) -> bool {
    let head_end = block
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .unwrap_or(block.len());
    String::from_utf8_lossy(&block[..head_end])
        .lines()
        .any(|l| {
            let l = l.to_ascii_lowercase();
            l.starts_with("transfer-encoding:") && l.contains("chunked")
        })
}

/// Crawls with the config at `config_path` into `job`, quickly: the self-test's fetch settings with patient
/// timeouts (these tests' servers answer at once, and a CI machine busy with other tests, Chromium among
/// them, must not turn a slow moment into a failed fetch; a test of timeouts sets its own in `tweak`), no
/// politeness delay, no retries.
pub async fn crawl_quickly(config_path: &Path, job: &Path) {
    crawl_quickly_with(config_path, job, |_| {}).await;
}

/// [`crawl_quickly`], with `tweak` applied to the settings last (e.g. a `fetch.*` key the self-test's fetch
/// settings would replace).
pub async fn crawl_quickly_with(
    config_path: &Path,
    job: &Path,
    tweak: impl FnOnce(&mut trawl_config::CrawlConfig),
) {
    let mut config = trawl_config::CrawlConfig::load(config_path).unwrap();
    config.fetch = trawl::selftest::config().fetch;
    config.fetch.timeout_ms = 20_000;
    config.fetch.connect_timeout_ms = 20_000;
    config.fetch.header_timeout_ms = 20_000;
    config.frontier.delay_factor = 0.0;
    config.frontier.min_delay_ms = 0;
    config.frontier.max_delay_ms = 0;
    config.frontier.max_retries = 0;
    tweak(&mut config);
    trawl_engine::Crawl::new(job, config, &[])
        .unwrap()
        .run(trawl_engine::CrawlHandle::default(), |_| {})
        .await
        .unwrap();
}

/// Waits until `done`, failing after `secs` seconds with "timed out waiting for `what`".
pub fn wait_for(what: &str, secs: u64, mut done: impl FnMut() -> bool) {
    let start = std::time::Instant::now();
    while !done() {
        assert!(
            start.elapsed() < std::time::Duration::from_secs(secs),
            "timed out waiting for {what}"
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}

/// A tool of the test virtualenv (`scripts/test.sh` makes it: pywb, cdxj-indexer, wacz), or `None` when it
/// is missing outside CI (the check is then skipped, with a message); under CI a missing tool fails.
pub fn py_tool(name: &str) -> Option<PathBuf> {
    let dir = std::env::var_os("TRAWL_PYENV")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/pyenv"));
    let tool = dir.join("bin").join(name);
    if tool.exists() {
        return Some(tool);
    }
    assert!(
        std::env::var_os("CI").is_none(),
        "{} is missing: scripts/test.sh installs it",
        tool.display()
    );
    eprintln!(
        "skipping the {name} check: {} is not installed (scripts/test.sh installs it)",
        tool.display()
    );
    None
}

/// A minimal HTTP/1.1 GET client for the replay (the crate has no HTTP client dependency for tests).
pub mod redis;

pub mod reqwest_like {
    use std::io::{Read, Write};

    pub struct Client {
        port: u16,
    }

    impl Client {
        pub fn new(port: u16) -> Client {
            Client { port }
        }

        /// The port it asks.
        pub fn port(&self) -> u16 {
            self.port
        }

        /// The body of `path` when the answer is 200, else `None`.
        pub fn get(&self, path: &str) -> Option<Vec<u8>> {
            let mut s = std::net::TcpStream::connect(("127.0.0.1", self.port)).ok()?;
            write!(
                s,
                "GET {path} HTTP/1.0\r\nHost: 127.0.0.1:{}\r\n\r\n",
                self.port
            )
            .ok()?;
            let mut raw = Vec::new();
            s.read_to_end(&mut raw).ok()?;
            let split = raw.windows(4).position(|w| w == b"\r\n\r\n")?;
            let head = String::from_utf8_lossy(&raw[..split]);
            if !head.starts_with("HTTP/1.0 200") && !head.starts_with("HTTP/1.1 200") {
                return None;
            }
            Some(raw[split + 4..].to_vec())
        }
    }
}

/// pywb's `wayback` serving `root` (a folder with `collections/NAME/{archive,indexes}`) on a free loopback port;
/// stopped when dropped. `None` when pywb is not installed outside CI (see [`py_tool`]).
pub struct Wayback {
    server: std::process::Child,
    pub client: reqwest_like::Client,
    log: PathBuf,
}

impl Wayback {
    /// Starts pywb over the collection `coll` holding `warcs`, indexed by `trawl warc index`.
    pub fn start(root: &Path, coll: &str, warcs: &[PathBuf]) -> Option<Wayback> {
        let wayback = py_tool("wayback")?;
        let dir = root.join("collections").join(coll);
        std::fs::create_dir_all(dir.join("archive")).unwrap();
        std::fs::create_dir_all(dir.join("indexes")).unwrap();
        for f in warcs {
            std::fs::copy(f, dir.join("archive").join(f.file_name().unwrap())).unwrap();
        }
        let index = Command::new(env!("CARGO_BIN_EXE_trawl"))
            .args(["warc", "index"])
            .args(warcs)
            .arg("-o")
            .arg(dir.join("indexes/index.cdxj"))
            .status()
            .unwrap();
        assert!(index.success());
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let log = root.join("pywb.log");
        let server = Command::new(&wayback)
            .args(["-p", &port.to_string(), "-b", "127.0.0.1"])
            .current_dir(root)
            .stdout(std::process::Stdio::null())
            .stderr(std::fs::File::create(&log).unwrap())
            .spawn()
            .unwrap();
        let w = Wayback {
            server,
            client: reqwest_like::Client::new(port),
            log,
        };
        wait_for("pywb to start", 60, || w.client.get("/").is_some());
        Some(w)
    }

    /// What pywb logged so far.
    pub fn log(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }
}

impl Drop for Wayback {
    fn drop(&mut self) {
        let _ = self.server.kill();
        let _ = self.server.wait();
    }
}

/// A listener on a free port of 127.0.0.1 (bound before the site is built when its pages need the port).
pub async fn bind() -> TcpListener {
    TcpListener::bind("127.0.0.1:0").await.unwrap()
}

/// Serves `app` on `listener` in the background.
pub fn serve_on(listener: TcpListener, app: Router) {
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
}

/// Serves `app` on a free port of 127.0.0.1 in the background; its address.
pub async fn listen(app: Router) -> SocketAddr {
    let listener = bind().await;
    let addr = listener.local_addr().unwrap();
    serve_on(listener, app);
    addr
}

/// A server on 127.0.0.1 whose first request gets no answer for a minute (its head still awaited when a
/// stop's cut comes) and every later one `came at last`; and how many requests it has had.
pub async fn listen_silent_at_first() -> (SocketAddr, std::sync::Arc<std::sync::atomic::AtomicUsize>)
{
    use std::sync::atomic::{AtomicUsize, Ordering};
    let asked = std::sync::Arc::new(AtomicUsize::new(0));
    let counter = asked.clone();
    let app = Router::new().fallback(move || {
        let asked = counter.clone();
        async move {
            if asked.fetch_add(1, Ordering::SeqCst) == 0 {
                tokio::time::sleep(std::time::Duration::from_secs(60)).await;
            }
            ([(header::CONTENT_TYPE, "text/plain")], "came at last")
        }
    });
    (listen(app).await, asked)
}

/// A name server on 127.0.0.1 answering every A question with 127.0.0.1 (TTL 300), counting the questions.
pub async fn dns_server() -> (SocketAddr, std::sync::Arc<std::sync::Mutex<usize>>) {
    use hickory_proto::{
        op::{Message, MessageType, ResponseCode},
        rr::{RData, Record, rdata::A},
    };
    let socket = tokio::net::UdpSocket::bind("127.0.0.1:0").await.unwrap();
    let addr = socket.local_addr().unwrap();
    let asked = std::sync::Arc::new(std::sync::Mutex::new(0));
    let count = asked.clone();
    tokio::spawn(async move {
        let mut buf = [0u8; 1500];
        loop {
            let Ok((n, from)) = socket.recv_from(&mut buf).await else {
                return;
            };
            let Ok(query) = Message::from_vec(&buf[..n]) else {
                continue;
            };
            *count.lock().unwrap() += 1;
            let mut reply = Message::new();
            reply
                .set_id(query.id())
                .set_message_type(MessageType::Response)
                .set_recursion_desired(true)
                .set_recursion_available(true)
                .set_response_code(ResponseCode::NoError);
            for q in query.queries() {
                reply.add_query(q.clone());
                if q.query_type() == hickory_proto::rr::RecordType::A {
                    reply.add_answer(Record::from_rdata(
                        q.name().clone(),
                        300,
                        RData::A(A::new(127, 0, 0, 1)),
                    ));
                }
            }
            if let Ok(bytes) = reply.to_vec() {
                let _ = socket.send_to(&bytes, from).await;
            }
        }
    });
    (addr, asked)
}

/// Writes `text` to `path`; the path.
pub fn write(path: &Path, text: &str) -> PathBuf {
    std::fs::write(path, text).unwrap();
    path.to_path_buf()
}

/// The value of cookie `name` in a request's `Cookie` headers.
pub fn cookie<'h>(headers: &'h HeaderMap, name: &str) -> Option<&'h str> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split("; "))
        .find_map(|kv| kv.strip_prefix(name)?.strip_prefix('='))
}

/// A command running the `trawl` binary built for the tests.
pub fn trawl_command() -> Command {
    Command::new(env!("CARGO_BIN_EXE_trawl"))
}

/// Runs `cmd` to its end: its exit success and its standard output, standard error after it.
pub fn run(cmd: &mut Command) -> (bool, String) {
    let out = cmd.output().unwrap();
    let said =
        String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr);
    (out.status.success(), said)
}

/// Runs `trawl ARGS` to its end: its exit success and its standard output, standard error after it.
pub fn run_trawl<S: AsRef<OsStr>>(args: impl IntoIterator<Item = S>) -> (bool, String) {
    run(trawl_command().args(args))
}

/// Fails when `dir` holds a temporary file (`….tmp`) a tool left behind.
#[allow(dead_code)]
pub fn assert_no_temporary_left(dir: &Path) {
    let left: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".tmp"))
        .collect();
    assert!(
        left.is_empty(),
        "temporary files left in {}: {left:?}",
        dir.display()
    );
}
