//! The operator API over real HTTP on 127.0.0.1 against the built-in test site: auth refusals (401 without
//! credentials, 403 for a session without its CSRF token), create, build, launch, a mid-crawl queue delay and
//! then a mid-crawl settings change that each slow the crawl, reports on demand, pause, checkpoint, terminate,
//! resume from the checkpoint, finish, report, SSE, metrics and a job from a shipped profile.

mod common;

use std::{
    io::{Read, Write},
    net::{SocketAddr, TcpStream},
    time::Duration,
};

use serde_json::{Value, json};

const TOKEN: &str = "trawl_servetest";

struct Client {
    addr: SocketAddr,
    token: String,
}

impl Client {
    fn raw(&self, method: &str, path: &str, auth: bool, body: &str) -> (u16, String) {
        let mut s = TcpStream::connect(self.addr).unwrap();
        let auth = if auth {
            format!("Authorization: Bearer {}\r\n", self.token)
        } else {
            String::new()
        };
        write!(
            s,
            "{method} {path} HTTP/1.1\r\nHost: {}\r\n{auth}Content-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
            self.addr,
            body.len()
        )
        .unwrap();
        let mut out = Vec::new();
        s.read_to_end(&mut out).unwrap();
        let text = String::from_utf8_lossy(&out).into_owned();
        let (head, body) = text.split_once("\r\n\r\n").unwrap();
        let status = head[9..12].parse().unwrap();
        let body = if head
            .to_ascii_lowercase()
            .contains("transfer-encoding: chunked")
        {
            dechunk(body)
        } else {
            body.to_string()
        };
        (status, body)
    }

    fn call(&self, method: &str, path: &str, body: Value) -> Value {
        let body = if body.is_null() {
            String::new()
        } else {
            body.to_string()
        };
        let (status, text) = self.raw(method, path, true, &body);
        assert_eq!(status, 200, "{method} {path}: {text}");
        serde_json::from_str(&text).unwrap_or(Value::String(text))
    }

    fn status(&self) -> Value {
        self.call("GET", "/api/jobs/j", Value::Null)
    }

    fn log_len(&self) -> usize {
        self.call("GET", "/api/jobs/j/log?last=10000", Value::Null)["lines"]
            .as_array()
            .unwrap()
            .len()
    }
}

fn dechunk(mut body: &str) -> String {
    let mut out = String::new();
    while let Some((size, rest)) = body.split_once("\r\n") {
        let n = usize::from_str_radix(size.trim(), 16).unwrap_or(0);
        if n == 0 || rest.len() < n {
            break;
        }
        out.push_str(&rest[..n]);
        body = rest[n..].trim_start_matches("\r\n");
    }
    out
}

#[test]
fn operate_a_crawl_over_http() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let site = rt.block_on(trawl::selftest::site::start()).unwrap();
    let jobs = tempfile::tempdir().unwrap();
    let state = trawl_server::AppState::new(
        trawl_server::JobManager::new(jobs.path()).unwrap(),
        trawl_server::Auth::with_password("pw", Some(TOKEN)),
    );
    let listener = rt
        .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
        .unwrap();
    let addr = listener.local_addr().unwrap();
    rt.spawn(async move {
        axum::serve(
            listener,
            trawl_server::app(state).into_make_service_with_connect_info::<SocketAddr>(),
        )
        .await
    });
    let c = Client {
        addr,
        token: TOKEN.into(),
    };

    assert_eq!(c.raw("GET", "/api/jobs", false, "").0, 401);
    assert_eq!(c.raw("POST", "/api/jobs", false, r#"{"name":"j"}"#).0, 401);
    // A browser session may read, but a change needs the session's CSRF token.
    let cookie = login(addr);
    let with_cookie = |csrf: &str| {
        send_raw(
            addr,
            &format!(
                "POST /api/jobs HTTP/1.1\r\nHost: 127.0.0.1\r\nCookie: {cookie}\r\n{csrf}Content-Type: application/json\r\nContent-Length: 12\r\nConnection: close\r\n\r\n{{\"name\":\"x\"}}"
            ),
        )
    };
    assert!(with_cookie("").starts_with("HTTP/1.1 403"), "no CSRF token");
    assert!(
        with_cookie("X-CSRF-Token: forged\r\n").starts_with("HTTP/1.1 403"),
        "wrong CSRF token"
    );
    let read = send_raw(
        addr,
        &format!(
            "GET /api/jobs HTTP/1.1\r\nHost: 127.0.0.1\r\nCookie: {cookie}\r\nConnection: close\r\n\r\n"
        ),
    );
    assert!(read.starts_with("HTTP/1.1 200"), "{read}");

    let mut config = trawl::selftest::config();
    config.frontier.min_delay_ms = 200;
    config.frontier.max_delay_ms = 200;
    config.seeds.urls = vec![site.seed()];
    let created = c.call(
        "POST",
        "/api/jobs",
        json!({"name": "j", "config": config.to_toml()}),
    );
    assert_eq!(created["state"], "created");
    assert_eq!(c.call("POST", "/api/jobs/j/build", Value::Null)["ok"], true);
    assert_eq!(
        c.call("POST", "/api/jobs/j/launch", Value::Null)["state"],
        "running"
    );

    // A mid-crawl settings change: the site's queue slows from 200 ms to 2 s between fetches.
    let queue = format!("127.0.0.1:{}", site.addr.port());
    common::wait_for("the site's queue", 30, || {
        c.call("GET", "/api/jobs/j/queues", Value::Null)["queues"]
            .as_array()
            .unwrap()
            .iter()
            .any(|q| q["name"] == queue.as_str())
    });
    let before = c.log_len();
    // 3 s: room for a `/slow` attempt (its 1 s timeout) in the window and still many pages.
    std::thread::sleep(Duration::from_secs(3));
    let fast = c.log_len() - before;
    let path = format!("/api/jobs/j/queues/{queue}");
    // A field misspelt is refused, not read as "the computed delay" (xt23a F2).
    let (code, refused) = c.raw("POST", &path, true, r#"{"action": "delay", "delay": 2000}"#);
    assert!(
        code == 400 && refused.contains("unknown field `delay`"),
        "{code} {refused}"
    );
    // A value no operator means is the request's fault too (xt24a F2: 409).
    let (code, refused) = c.raw(
        "POST",
        &path,
        true,
        r#"{"action": "delay", "delay_ms": 86400001}"#,
    );
    assert!(
        code == 400 && refused.contains("over a day"),
        "{code} {refused}"
    );
    c.call("POST", &path, json!({"action": "delay", "delay_ms": 2000}));
    std::thread::sleep(Duration::from_millis(2500));
    let before = c.log_len();
    std::thread::sleep(Duration::from_secs(4));
    let slow = c.log_len() - before;
    assert!(
        fast >= 5 && slow <= 3,
        "{fast} URIs in 3 s before the change, {slow} in 4 s after"
    );
    let row = c.call("GET", "/api/jobs/j/queues", Value::Null)["queues"]
        .as_array()
        .unwrap()
        .iter()
        .find(|q| q["name"] == queue.as_str())
        .unwrap()
        .clone();
    assert_eq!(row["delay_ms"], 2000);

    // A settings change for every URI: the queue's own delay is cleared, and the crawl's politeness delay
    // goes from 200 ms to 2 s; the same slowdown shows, and crawl.toml keeps the change.
    c.call("POST", &path, json!({"action": "delay", "delay_ms": null}));
    let (code, refused) = c.raw(
        "POST",
        "/api/jobs/j/settings",
        true,
        r#"{"set": {"warc.prefix": "x"}}"#,
    );
    assert!(
        code == 400 && refused.contains("not read per URI"),
        "{code} {refused}"
    );
    let changed = c.call(
        "POST",
        "/api/jobs/j/settings",
        json!({"set": {"frontier.min_delay_ms": 2000, "frontier.max_delay_ms": 2000}}),
    );
    assert!(
        changed["message"]
            .as_str()
            .unwrap()
            .contains("frontier.min_delay_ms = 2000"),
        "{changed}"
    );
    std::thread::sleep(Duration::from_millis(2500));
    let before = c.log_len();
    std::thread::sleep(Duration::from_secs(4));
    let slow = c.log_len() - before;
    assert!(slow <= 3, "{slow} URIs in 4 s after the settings change");
    let saved = c.call("GET", "/api/jobs/j/config", Value::Null);
    assert!(
        saved.as_str().unwrap().contains("min_delay_ms = 2000"),
        "{saved}"
    );

    // Reports on demand from the running crawl.
    let sources = c.call("GET", "/api/jobs/j/report?name=sources", Value::Null);
    let first = &sources.as_array().unwrap()[0];
    assert_eq!(first["source"], site.seed().as_str(), "{sources}");
    assert!(first["hosts"][0]["urls"].as_u64().unwrap() > 3, "{sources}");
    let (code, hosts) = c.raw("GET", "/api/jobs/j/report?name=hosts&format=txt", true, "");
    assert!(
        code == 200 && hosts.contains("127.0.0.1") && hosts.contains(" 200:"),
        "{code} {hosts}"
    );
    let live = c.call("GET", "/api/jobs/j/report", Value::Null);
    assert_eq!(live["status"], "RUNNING", "{live}");
    assert_eq!(
        c.raw("GET", "/api/jobs/j/report?name=nope", true, "").0,
        400
    );

    let extra = site.url("/dup?from=operator");
    c.call("POST", "/api/jobs/j/seeds", json!({"urls": [extra]}));
    let found = c.call(
        "GET",
        &format!("/api/jobs/j/lookup?url={}", site.seed()),
        Value::Null,
    );
    assert_eq!(
        (&found["state"], &found["status"]),
        (&json!("done"), &json!(200)),
        "{found}"
    );

    assert_eq!(
        c.call("POST", "/api/jobs/j/pause", Value::Null)["state"],
        "paused"
    );
    std::thread::sleep(Duration::from_millis(2500));
    let paused = c.log_len();
    std::thread::sleep(Duration::from_millis(1500));
    assert_eq!(c.log_len(), paused, "a paused crawl took new URIs");
    c.call("POST", "/api/jobs/j/unpause", Value::Null);
    // Answered once written: the status it answers lists it (xt23a F5).
    let answered = c.call("POST", "/api/jobs/j/checkpoint", Value::Null);
    assert!(
        answered["checkpoints"]
            .as_array()
            .is_some_and(|cps| !cps.is_empty()),
        "{answered}"
    );
    c.call("POST", "/api/jobs/j/terminate", Value::Null);
    common::wait_for("the crawl to stop", 60, || c.status()["state"] == "stopped");
    let report = c.call("GET", "/api/jobs/j/report", Value::Null);
    assert!(
        report["status"].as_str().unwrap().starts_with("STOPPED"),
        "{report}"
    );

    // Resume from the latest checkpoint, speed the queue up again, and let it finish.
    let resumed = c.call(
        "POST",
        "/api/jobs/j/launch",
        json!({"checkpoint": "latest"}),
    );
    assert_eq!(resumed["state"], "running");
    c.call(
        "POST",
        "/api/jobs/j/settings",
        json!({"set": {"frontier.min_delay_ms": 0, "frontier.max_delay_ms": 0}}),
    );
    common::wait_for("the crawl to finish", 120, || {
        c.status()["state"] == "finished"
    });
    let report = c.call("GET", "/api/jobs/j/report", Value::Null);
    assert_eq!(report["status"], "FINISHED", "{report}");
    let lines = c.call(
        "GET",
        &format!("/api/jobs/j/log?contains={}", "from=operator"),
        Value::Null,
    );
    assert!(
        !lines["lines"].as_array().unwrap().is_empty(),
        "operator seed not crawled"
    );
    let ok = c.call("GET", "/api/jobs/j/log?status=2xx&last=3", Value::Null);
    assert_eq!(ok["lines"].as_array().unwrap().len(), 3);

    let changes = std::fs::read_to_string(jobs.path().join("j/logs/config-changes.log")).unwrap();
    for want in [
        "token@127.0.0.1 launch",
        "queue-delay ",
        "add-seeds",
        "pause",
        "checkpoint",
        "terminate",
        "launch from checkpoint latest",
        "settings: set frontier.max_delay_ms = 2000",
    ] {
        assert!(changes.contains(want), "{want} missing from:\n{changes}");
    }
    // A queue change in ctl's words with its answer, not the command's JSON (xt23a F8).
    let delayed = format!(" queue-delay {queue} 2000: ");
    assert!(
        changes
            .lines()
            .any(|l| l.contains(&delayed) && !l.contains('{')),
        "{delayed} missing from:\n{changes}"
    );

    let (_, metrics) = c.raw("GET", "/metrics", true, "");
    assert!(
        metrics.contains("trawl_uris_finished_total{job=\"j\"}"),
        "{metrics}"
    );
    let fetches: u64 = metrics
        .lines()
        .find_map(|l| l.strip_prefix("trawl_fetch_duration_seconds_count{job=\"j\"} "))
        .unwrap()
        .parse()
        .unwrap();
    assert!(fetches > 10, "{metrics}");

    // A job from a shipped profile.
    let profiles = c.call("GET", "/api/profiles", Value::Null);
    assert_eq!(
        profiles["profiles"].as_array().unwrap().len(),
        4,
        "{profiles}"
    );
    c.call(
        "POST",
        "/api/jobs",
        json!({"name": "p", "profile": "polite", "seeds": [site.seed()]}),
    );
    let text = c.call("GET", "/api/jobs/p/config", Value::Null);
    let polite: trawl_config::CrawlConfig = toml::from_str(text.as_str().unwrap()).unwrap();
    assert!(polite.frontier.min_delay_ms >= 5000, "{text}");
    assert_eq!(polite.seeds.urls, [site.seed()]);
    let (code, e) = c.raw(
        "POST",
        "/api/jobs",
        true,
        r#"{"name":"q","profile":"fast"}"#,
    );
    assert!(code == 400 && e.contains("single-page"), "{code} {e}");

    // SSE: the first status event arrives within a couple of seconds.
    let mut s = TcpStream::connect(addr).unwrap();
    write!(
        s,
        "GET /api/jobs/j/events HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {TOKEN}\r\n\r\n"
    )
    .unwrap();
    s.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    let mut got = String::new();
    let mut buf = [0u8; 4096];
    while !got.contains("\"state\":\"finished\"") {
        let n = s.read(&mut buf).unwrap();
        assert!(n > 0, "SSE stream ended: {got}");
        got.push_str(&String::from_utf8_lossy(&buf[..n]));
    }
    assert!(
        got.contains("text/event-stream") && got.contains("event: status"),
        "{got}"
    );
    rt.block_on(site.shutdown());
}

/// Ctrl-C on `trawl serve` stops its running crawls as `trawl ctl stop` does (URIs in flight finish, a
/// checkpoint, the reports) and exits, an event stream open or not.
#[test]
fn ctrl_c_stops_the_running_crawls_and_exits() {
    stops_on("-INT");
}

/// So does SIGTERM, what `systemctl stop` and `docker stop` send (xt17c F4: it killed the server at once, its
/// crawls left interrupted).
#[test]
fn sigterm_stops_the_running_crawls_and_exits() {
    stops_on("-TERM");
}

/// `trawl serve` sent `signal` while a crawl runs: it stops the crawl cleanly and exits 0.
fn stops_on(signal: &str) {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let site = rt.block_on(trawl::selftest::site::start()).unwrap();
    let jobs = tempfile::tempdir().unwrap();
    let (_, token) = trawl_server::Auth::set_password(jobs.path(), "password1").unwrap();
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let addr: SocketAddr = format!("127.0.0.1:{port}").parse().unwrap();
    let mut serve = std::process::Command::new(env!("CARGO_BIN_EXE_trawl"))
        .args(["serve", "--jobs"])
        .arg(jobs.path())
        .args(["--bind", &addr.to_string()])
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    common::wait_for("trawl serve to listen", 30, || {
        TcpStream::connect(addr).is_ok()
    });
    let c = Client { addr, token };
    let mut config = trawl::selftest::config();
    config.frontier.min_delay_ms = 300;
    config.frontier.max_delay_ms = 300;
    config.seeds.urls = vec![site.seed()];
    c.call(
        "POST",
        "/api/jobs",
        json!({"name": "j", "config": config.to_toml()}),
    );
    c.call("POST", "/api/jobs/j/launch", Value::Null);
    common::wait_for("a few URIs", 30, || c.log_len() >= 3);
    let mut events = TcpStream::connect(addr).unwrap();
    write!(
        events,
        "GET /api/jobs/j/events HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {}\r\n\r\n",
        c.token
    )
    .unwrap();
    std::thread::sleep(Duration::from_millis(500));
    let killed = std::process::Command::new("kill")
        .args([signal, &serve.id().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    let started = std::time::Instant::now();
    let status = loop {
        if let Some(status) = serve.try_wait().unwrap() {
            break status;
        }
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "trawl serve did not exit after {signal}"
        );
        std::thread::sleep(Duration::from_millis(50));
    };
    let mut err = String::new();
    serve
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    assert!(status.success(), "{err}");
    assert!(err.contains("stopping 1 running crawl"), "{err}");
    let job = jobs.path().join("j");
    assert!(job.join("reports/crawl-report.json").is_file(), "{err}");
    assert!(job.join("checkpoints").read_dir().unwrap().count() >= 1);
    // The crawl stopped before its end, and resumes from where it stopped.
    let report = std::fs::read_to_string(job.join("reports/crawl-report.json")).unwrap();
    assert!(report.contains("STOPPED by operator"), "{report}");
    drop(events);
    rt.block_on(site.shutdown());
}

/// Sends `request` as is and returns the whole answer.
fn send_raw(addr: SocketAddr, request: &str) -> String {
    let mut s = TcpStream::connect(addr).unwrap();
    s.write_all(request.as_bytes()).unwrap();
    let mut out = Vec::new();
    s.read_to_end(&mut out).unwrap();
    String::from_utf8_lossy(&out).into_owned()
}

/// Logs in through the form and returns the session cookie (`name=value`).
fn login(addr: SocketAddr) -> String {
    let body = "password=pw";
    let answer = send_raw(
        addr,
        &format!(
            "POST /login HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        ),
    );
    answer
        .lines()
        .find_map(|l| {
            l.to_ascii_lowercase().starts_with("set-cookie:").then(|| {
                l["set-cookie:".len()..]
                    .trim()
                    .split(';')
                    .next()
                    .unwrap()
                    .to_string()
            })
        })
        .unwrap_or_else(|| panic!("no session cookie: {answer}"))
}
