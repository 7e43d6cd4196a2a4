//! Operator actions on a running crawl (through `trawl ctl`'s command files) and on a stopped one (straight on
//! its store), then resuming it.

mod common;

use std::{
    path::Path,
    process::{Command, Stdio},
    time::Duration,
};

fn ctl(job: &Path, args: &[&str]) -> (i32, serde_json::Value) {
    let out = Command::new(env!("CARGO_BIN_EXE_trawl"))
        .arg("ctl")
        .arg(job)
        .arg("--json")
        .args(args)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    let value = serde_json::from_str(text.trim()).unwrap_or(serde_json::Value::Null);
    (out.status.code().unwrap_or(-1), value)
}

#[test]
fn operate_a_running_crawl_then_a_stopped_one() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let site = rt.block_on(trawl::selftest::site::start()).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let mut config = trawl::selftest::config();
    config.frontier.min_delay_ms = 300; // slow enough to act on it mid-crawl
    config.frontier.max_delay_ms = 300;
    let cfg = dir.path().join("crawl.toml");
    std::fs::write(&cfg, config.to_toml()).unwrap();
    let job = dir.path().join("job");
    let metrics = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap()
    };
    let mut crawl = Command::new(env!("CARGO_BIN_EXE_trawl"))
        .args([
            "crawl",
            "--metrics-bind",
            &metrics.to_string(),
            "--job",
            job.to_str().unwrap(),
            "-c",
            cfg.to_str().unwrap(),
            &site.seed(),
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    common::wait_for("the crawl to start", 30, || {
        trawl_engine::control::running_pid(&job).is_some()
    });

    let queue = format!("127.0.0.1:{}", site.addr.port());
    let (code, reply) = ctl(&job, &["queues"]);
    assert_eq!(code, 0, "{reply}");
    assert_eq!(reply["reply"], "queues");
    assert!(
        reply["queues"]
            .as_array()
            .unwrap()
            .iter()
            .any(|q| q["name"] == queue.as_str()),
        "{reply}"
    );

    let extra = site.url("/dup?from=operator");
    // A list with one bad URL queues none of them, and says so.
    let (code, reply) = ctl(&job, &["add-seeds", &extra, "not a url"]);
    assert_eq!(code, 1, "{reply}");
    assert!(
        reply["message"]
            .as_str()
            .unwrap()
            .ends_with("; no seed was queued"),
        "{reply}"
    );
    let (code, reply) = ctl(&job, &["add-seeds", &extra]);
    assert_eq!(code, 0, "{reply}");
    assert!(
        reply["message"].as_str().unwrap().starts_with(
            "1 of 1 seeds queued (the rest were already known); the scope takes them in"
        ),
        "{reply}"
    );
    let (code, _) = ctl(&job, &["queue-budget", &queue, "500"]);
    assert_eq!(code, 0);
    let (code, reply) = ctl(&job, &["queue-delay", "no-such-queue", "5"]);
    assert_eq!(code, 1, "{reply}");

    assert_eq!(ctl(&job, &["pause"]).0, 0);
    // URIs in flight finish first (`/slow` may take its whole timeout): counted only after that.
    std::thread::sleep(Duration::from_millis(2500));
    let before = common::crawl_log(&job).len();
    std::thread::sleep(Duration::from_millis(800));
    assert_eq!(
        common::crawl_log(&job).len(),
        before,
        "a paused crawl took new URIs"
    );
    assert_eq!(ctl(&job, &["unpause"]).0, 0);
    // Answered once written, with its name (xt23a F5: answered before, the folder not there yet).
    let (code, reply) = ctl(&job, &["checkpoint"]);
    assert_eq!(code, 0, "{reply}");
    let said = reply["message"].as_str().unwrap_or_default().to_string();
    let name = said
        .strip_prefix("checkpoint ")
        .and_then(|s| s.strip_suffix(" written"))
        .unwrap_or_else(|| panic!("no checkpoint named in {reply}"));
    assert!(
        job.join("checkpoints")
            .join(name)
            .join("checkpoint.json")
            .is_file(),
        "{said}, but checkpoints/{name}/checkpoint.json is not there"
    );

    // Settings and reports of the running crawl; its metrics endpoint.
    let (code, reply) = ctl(
        &job,
        &["set", "frontier.max_retries=1", "fetch.timeout_ms=20000"],
    );
    assert_eq!(code, 0, "{reply}");
    assert!(
        reply["message"]
            .as_str()
            .unwrap()
            .contains("frontier.max_retries = 1"),
        "{reply}"
    );
    let (code, reply) = ctl(&job, &["set", "warc.prefix=\"x\""]);
    assert_eq!(code, 1, "{reply}");
    // Each change is in the job's config-changes.log, a refused one and a reading not (xt17b F10).
    let changes = std::fs::read_to_string(job.join("logs/config-changes.log")).unwrap();
    for want in [
        "queue-budget",
        " pause: ",
        " unpause: ",
        " checkpoint: ",
        "settings: ",
    ] {
        assert!(
            changes.contains(want) && changes.contains(" ctl@"),
            "missing {want:?} in:\n{changes}"
        );
    }
    assert!(
        !changes.contains("no-such-queue") && !changes.contains("warc.prefix"),
        "{changes}"
    );
    // The crawl writes the line of a change a command file made, under its sender's name, before it answers:
    // a sender killed while it waits (nobody reads this file's reply) loses none (xt26a N5).
    std::fs::write(
        job.join("control/20000101000000000000-1.cmd.json"),
        format!(
            r#"{{"action":"set-queue-delay","queue":"{queue}","delay_ms":250,"by":"ctl@killed"}}"#
        ),
    )
    .unwrap();
    common::wait_for("the crawl to log the change", 30, || {
        std::fs::read_to_string(job.join("logs/config-changes.log")).is_ok_and(|c| {
            c.contains(&format!(
                " ctl@killed queue-delay {queue} 250: queue {queue} delay set to 250 ms"
            ))
        })
    });
    let unread = job.join("control/20000101000000000000-1.reply.json");
    common::wait_for("the crawl to answer", 30, || unread.exists());
    let file = std::fs::File::options().write(true).open(&unread).unwrap();
    file.set_modified(std::time::SystemTime::now() - Duration::from_secs(3600))
        .unwrap();
    drop(file);
    let (code, hosts) = ctl(&job, &["report", "hosts"]);
    assert_eq!(code, 0);
    assert_eq!(hosts[0]["host"], "127.0.0.1", "{hosts}");
    let text = metrics_text(metrics);
    assert!(
        text.contains("trawl_uris_finished_total{job=\"job\"}")
            && text.contains("trawl_fetch_duration_seconds_bucket{job=\"job\",le=\"+Inf\"}"),
        "{text}"
    );

    let (code, reply) = ctl(&job, &["lookup", &site.seed()]);
    assert_eq!(
        (code, &reply["state"], &reply["status"]),
        (0, &"done".into(), &200.into()),
        "{reply}"
    );

    assert_eq!(ctl(&job, &["stop"]).0, 0);
    let status = crawl.wait().unwrap();
    assert!(status.success());
    // A stop sent again, as the crawl stops or after (a second operator, a retry), is what was asked: rc 0,
    // naming the last checkpoint (xt26a N7).
    let (code, reply) = ctl(&job, &["stop"]);
    assert_eq!(code, 0, "{reply}");
    assert!(
        reply["message"]
            .as_str()
            .unwrap()
            .starts_with("the crawl is not running: it has stopped; its last checkpoint is cp"),
        "{reply}"
    );
    let report = std::fs::read_to_string(job.join("reports/crawl-report.txt")).unwrap();
    assert!(report.contains("Crawl Status: STOPPED"), "{report}");
    // A URI the store never held is said as never queued, with where a refusal is written (xt12a F17).
    let (ok, said) = common::run_trawl([
        "ctl".as_ref(),
        job.as_os_str(),
        "lookup".as_ref(),
        "http://127.0.0.1:9/never".as_ref(),
    ]);
    assert!(ok, "{said}");
    assert!(
        said.starts_with("unknown http://127.0.0.1:9/never (never queued:"),
        "{said}"
    );

    // A process that holds the job for a moment (one starting, or one writing its last checkpoint after its
    // pid file went) is waited for; one that keeps holding it is named, not its store's lock.
    {
        let held = trawl_engine::job::Job::open(&job).unwrap().lock().unwrap();
        let let_go = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(1500));
            drop(held);
        });
        let (code, reply) = ctl(&job, &["queues"]);
        let_go.join().unwrap();
        assert_eq!(code, 0, "{reply}");
        assert!(reply["queues"].is_array(), "{reply}");
    }
    // A crawl that stops in the instant a command is sent (its pid file there, its control loop gone): the
    // command is taken back when the pid file goes and applied to the stopped job, not left unanswered.
    {
        let mut alive = Command::new("sleep").arg("60").spawn().unwrap();
        let pid_file = job.join("state/crawl.pid");
        std::fs::write(&pid_file, alive.id().to_string()).unwrap();
        // Held as the crawl holds it (a pid file alone is a stale one: xt26a N9), let go as it ends.
        let held = trawl_engine::job::Job::open(&job).unwrap().lock().unwrap();
        let gone = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(1500));
            std::fs::remove_file(pid_file).unwrap();
            drop(held);
        });
        let start = std::time::Instant::now();
        let (code, reply) = ctl(&job, &["queues"]);
        gone.join().unwrap();
        let _ = alive.kill();
        let _ = alive.wait();
        assert_eq!(code, 0, "{reply}");
        assert!(reply["queues"].is_array(), "{reply}");
        assert!(
            start.elapsed() < Duration::from_secs(8),
            "{:?}",
            start.elapsed()
        );
        // Only the reply nobody read (above), which the next crawl's start sweeps.
        let left: Vec<_> = std::fs::read_dir(job.join("control"))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| *p != unread)
            .collect();
        assert!(left.is_empty(), "{left:?}");
    }
    {
        let _held = trawl_engine::job::Job::open(&job).unwrap().lock().unwrap();
        let out = Command::new(env!("CARGO_BIN_EXE_trawl"))
            .arg("ctl")
            .arg(&job)
            .arg("queues")
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            !out.status.success() && err.contains("in use by another trawl process"),
            "{err}"
        );
    }

    // Stopped: the same commands work on the store, and resume finishes the crawl, operator seed included.
    let (code, reply) = ctl(&job, &["queues"]);
    assert_eq!(code, 0);
    let row = reply["queues"]
        .as_array()
        .unwrap()
        .iter()
        .find(|q| q["name"] == queue.as_str())
        .unwrap()
        .clone();
    assert_eq!(row["budget"], 500);
    assert_eq!(ctl(&job, &["queue-delay", &queue, "0"]).0, 0);
    let sheet = dir.path().join("sheet.toml");
    std::fs::write(
        &sheet,
        "[[sheet]]\nname = \"quick\"\nsurt_prefixes = [\"http://(\"]\nset = { \"frontier.min_delay_ms\" = 0, \"frontier.max_delay_ms\" = 0 }\n",
    )
    .unwrap();
    assert_eq!(ctl(&job, &["put-sheet", sheet.to_str().unwrap()]).0, 0);
    let saved = std::fs::read_to_string(job.join("crawl.toml")).unwrap();
    assert!(
        saved.contains("name = \"quick\"") && saved.contains("max_retries = 1"),
        "{saved}"
    );
    assert_eq!(ctl(&job, &["remove-sheet", "nope"]).0, 1);
    let (code, _) = ctl(&job, &["pause"]);
    assert_eq!(code, 1, "pause needs a running crawl");
    // crawl.toml edited by hand to name queues otherwise is refused at resume, naming the value to put back
    // (xt14b F1: a host's URIs were split over two queues).
    let mut edited: toml::Table = toml::from_str(&saved).unwrap();
    edited["frontier"]
        .as_table_mut()
        .unwrap()
        .insert("queue_assignment".into(), "ip".into());
    std::fs::write(job.join("crawl.toml"), toml::to_string(&edited).unwrap()).unwrap();
    let refused = Command::new(env!("CARGO_BIN_EXE_trawl"))
        .args(["resume", job.to_str().unwrap()])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&refused.stderr);
    assert!(
        !refused.status.success()
            && err.contains("frontier.queue_assignment = \"ip\", but this job's queued URIs are stored under queues named with frontier.queue_assignment = \"host\""),
        "{err}"
    );
    // So are the commands on the stopped job's queues, which would name queues otherwise (review 63 R2).
    let (code, reply) = ctl(&job, &["queues"]);
    assert_eq!(code, 1, "{reply}");
    // `ctl set` puts the recorded naming back (xt15c F9), and refuses another.
    let (code, reply) = ctl(&job, &["set", "frontier.queue_assignment=\"domain\""]);
    assert_eq!(code, 1, "{reply}");
    let (code, reply) = ctl(&job, &["set", "frontier.queue_assignment=\"host\""]);
    assert_eq!(code, 0, "{reply}");
    let back: toml::Table =
        toml::from_str(&std::fs::read_to_string(job.join("crawl.toml")).unwrap()).unwrap();
    assert_eq!(back["frontier"]["queue_assignment"].as_str(), Some("host"));
    std::fs::write(job.join("crawl.toml"), &saved).unwrap();
    let resumed = Command::new(env!("CARGO_BIN_EXE_trawl"))
        .args(["resume", job.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(
        resumed.status.success(),
        "{}",
        String::from_utf8_lossy(&resumed.stderr)
    );
    let log = common::crawl_log(&job);
    assert!(
        log.iter()
            .any(|l| l.uri == extra && l.status == 200 && l.hop_path.is_empty()),
        "operator seed not crawled"
    );
    // The counters went on from the stopped run's: the report counts both runs' URIs.
    let report = std::fs::read_to_string(job.join("reports/crawl-report.txt")).unwrap();
    assert!(
        report.contains(&format!("URIs Processed: {}\n", log.len())),
        "{} crawl.log lines; {report}",
        log.len()
    );
    let totals = trawl_engine::stats::Totals::read(&job).expect("state/totals.json");
    assert_eq!(totals.finished as usize, log.len());
    // A restore a kill cut short is done again by the next resume, and said among its start lines, which
    // the web UI's launch prints too (xt23a F9).
    let checkpoint = std::fs::read_dir(job.join("checkpoints"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .min()
        .unwrap();
    std::fs::write(job.join("state/restoring"), format!("{checkpoint}\n")).unwrap();
    // Refused until resumed, as a failed reply to a script reading --json (xt26a N10).
    let (code, reply) = ctl(&job, &["queue-delay", &queue, "5"]);
    assert_eq!(code, 1, "{reply}");
    assert_eq!(reply["reply"], "failed", "{reply}");
    assert!(
        reply["message"].as_str().unwrap().contains("cut short"),
        "{reply}"
    );
    let resumed = Command::new(env!("CARGO_BIN_EXE_trawl"))
        .args(["resume", job.to_str().unwrap()])
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&resumed.stderr);
    assert!(
        resumed.status.success()
            && said.contains(&format!(
                "trawl: a restore of checkpoint {checkpoint} was cut short (a crash or kill): restored it again"
            )),
        "{said}"
    );
    // The rollback is named in config-changes.log, whoever asked (xt26a N4); the earlier run's reply nobody
    // read was swept at a start (xt26a N5).
    let changes = std::fs::read_to_string(job.join("logs/config-changes.log")).unwrap();
    assert!(
        changes.contains(&format!(
            " crawl restored checkpoint {checkpoint}: the frontier is as it was when the checkpoint started"
        )),
        "{changes}"
    );
    assert!(!unread.exists());
    rt.block_on(site.shutdown());
}

/// The body of `GET /metrics` at `addr`.
fn metrics_text(addr: std::net::SocketAddr) -> String {
    use std::io::{Read, Write};
    let mut s = std::net::TcpStream::connect(addr).unwrap();
    write!(
        s,
        "GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut out = String::new();
    s.read_to_string(&mut out).unwrap();
    out
}

/// Seeds added to a running crawl widen its scope as crawl.toml's seeds do: the new seed's own links are
/// followed (they were judged by the first seeds' scope, and refused), a later settings change keeps them,
/// its host is reached as a seed's (another loopback address), and crawl.toml lists the seed for a resume.
#[test]
fn seeds_added_to_a_running_crawl_widen_its_scope() {
    use axum::{extract::Path as UrlPath, response::Html, routing::get};
    let rt = tokio::runtime::Runtime::new().unwrap();
    let addr = rt.block_on(async {
        let page = |UrlPath((dir, n)): UrlPath<(String, u32)>| async move {
            Html(format!("<a href=\"/{dir}/{}\">next</a>", n + 1))
        };
        let app = axum::Router::new()
            .route("/{dir}/{n}", get(page))
            .route("/robots.txt", get(|| async { "" }));
        // The added seed's host is another loopback address: reached as a seed's host is.
        let other = tokio::net::TcpListener::bind("127.0.0.2:0").await.unwrap();
        let other_addr = other.local_addr().unwrap();
        common::serve_on(other, app.clone());
        (common::listen(app).await, other_addr)
    });
    let (addr, other) = addr;
    let dir = tempfile::tempdir().unwrap();
    let mut config = trawl::selftest::config();
    config.frontier.min_delay_ms = 250;
    config.frontier.max_delay_ms = 250;
    config.scope.max_hops = 8;
    let cfg = dir.path().join("crawl.toml");
    std::fs::write(&cfg, config.to_toml()).unwrap();
    let job = dir.path().join("job");
    let seed = format!("http://{addr}/a/0");
    let mut crawl = Command::new(env!("CARGO_BIN_EXE_trawl"))
        .args(["crawl", "--job", job.to_str().unwrap(), "-c"])
        .arg(&cfg)
        .arg(&seed)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    common::wait_for("the crawl to start", 30, || {
        trawl_engine::control::running_pid(&job).is_some()
    });
    let added = format!("http://{other}/b/0");
    let (code, reply) = ctl(&job, &["add-seeds", &added]);
    assert_eq!(code, 0, "{reply}");
    assert!(
        reply["message"]
            .as_str()
            .unwrap()
            .contains("the scope takes them in as seeds"),
        "{reply}"
    );
    let (code, reply) = ctl(&job, &["set", "frontier.max_retries=1"]);
    assert_eq!(code, 0, "{reply}");
    assert!(crawl.wait().unwrap().success());
    let log = common::crawl_log(&job);
    for n in 0..=8 {
        let url = format!("http://{other}/b/{n}");
        assert_eq!(common::log_line(&log, &url).status, 200, "{url}");
    }
    let toml = std::fs::read_to_string(job.join("crawl.toml")).unwrap();
    assert!(toml.contains(&added), "{toml}");
}

/// A queue change the running crawl answered is in its store: a kill -9 right after the answer keeps it
/// (xt27a F1: a delay answered "done" and logged was lost to a kill 50 ms later), and the stopped job's queue
/// list shows it.
#[test]
fn a_queue_change_answered_survives_a_kill() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let site = rt.block_on(trawl::selftest::site::start()).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let mut config = trawl::selftest::config();
    config.frontier.min_delay_ms = 500;
    config.frontier.max_delay_ms = 500;
    let cfg = dir.path().join("crawl.toml");
    std::fs::write(&cfg, config.to_toml()).unwrap();
    let job = dir.path().join("job");
    let mut crawl = Command::new(env!("CARGO_BIN_EXE_trawl"))
        .args([
            "crawl",
            "--job",
            job.to_str().unwrap(),
            "-c",
            cfg.to_str().unwrap(),
        ])
        .arg(site.seed())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    common::wait_for("the crawl to start", 30, || {
        trawl_engine::control::running_pid(&job).is_some()
    });
    let queue = format!("127.0.0.1:{}", site.addr.port());
    common::wait_for("the site's queue", 30, || {
        ctl(&job, &["queues"]).1["queues"]
            .as_array()
            .is_some_and(|q| q.iter().any(|q| q["name"] == queue.as_str()))
    });
    let (code, reply) = ctl(&job, &["queue-delay", &queue, "900"]);
    assert_eq!(code, 0, "{reply}");
    let (code, reply) = ctl(&job, &["queue-budget", &queue, "77777"]);
    assert_eq!(code, 0, "{reply}");
    crawl.kill().unwrap(); // SIGKILL, at once after the answer
    crawl.wait().unwrap();
    let (code, reply) = ctl(&job, &["queues"]);
    assert_eq!(code, 0, "{reply}");
    let row = reply["queues"]
        .as_array()
        .unwrap()
        .iter()
        .find(|q| q["name"] == queue.as_str())
        .unwrap()
        .clone();
    assert_eq!(
        (&row["delay_ms"], &row["budget"]),
        (&900.into(), &77777.into()),
        "{row}"
    );
    rt.block_on(site.shutdown());
}
