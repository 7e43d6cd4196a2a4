//! A slow launch (the repair of a WARC left open) blocks neither the job list nor another job's status, is
//! shown as `launching`, is not started twice, refuses the other actions until it is done (saying so), and
//! its repair is recorded in config-changes.log.

use std::{
    path::{Path, PathBuf},
    sync::mpsc,
    time::{Duration, Instant},
};

use axum::{
    Router,
    body::Body,
    http::{Request, StatusCode, header},
};
use http_body_util::BodyExt;
use serde_json::Value;
use tower::ServiceExt;
use trawl_server::{AppState, Auth, JobManager, app};

const TOKEN: &str = "trawl_testtoken";

async fn send(app: &Router, method: &str, path: &str, body: &str) -> (StatusCode, String) {
    let req = Request::builder()
        .method(method)
        .uri(path)
        .header(header::AUTHORIZATION, format!("Bearer {TOKEN}"))
        .header(header::CONTENT_TYPE, "application/json")
        .body(Body::from(body.to_string()))
        .unwrap();
    let res = app.clone().oneshot(req).await.unwrap();
    let status = res.status();
    let body = res.into_body().collect().await.unwrap().to_bytes();
    (status, String::from_utf8_lossy(&body).into_owned())
}

async fn state(app: &Router, id: &str) -> String {
    let (status, body) = send(app, "GET", &format!("/api/jobs/{id}"), "").await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let v: Value = serde_json::from_str(&body).unwrap();
    v["state"].as_str().unwrap().to_string()
}

/// Makes `fifo` a named pipe in place of a WARC left open: its repair waits, reading it, until
/// `release` is sent (or 20 s pass, so that a launch that blocks the server fails the test instead of
/// hanging it), then finds it empty and removes it.
fn blocking_open_warc(fifo: &Path) -> mpsc::Sender<()> {
    let made = std::process::Command::new("mkfifo")
        .arg(fifo)
        .status()
        .unwrap();
    assert!(made.success());
    let (release, wait) = mpsc::channel::<()>();
    let fifo: PathBuf = fifo.to_path_buf();
    std::thread::spawn(move || {
        let _ = wait.recv_timeout(Duration::from_secs(20));
        // Opening for writing waits for the repair to open it for reading; closing it ends its input.
        drop(std::fs::OpenOptions::new().write(true).open(&fifo));
    });
    release
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_slow_launch_blocks_no_status_and_runs_once() {
    let dir = tempfile::tempdir().unwrap();
    let app = app(AppState::new(
        JobManager::new(dir.path()).unwrap(),
        Auth::with_password("pw", Some(TOKEN)),
    ));
    let config = r#"{"name":"NAME","config":"[seeds]\nurls = [\"http://127.0.0.1:9/\"]\n"}"#;
    for id in ["slow", "other"] {
        let (status, body) = send(&app, "POST", "/api/jobs", &config.replace("NAME", id)).await;
        assert_eq!(status, StatusCode::OK, "{body}");
    }
    // A job that crawled before (it has a frontier) and was killed with a WARC open.
    let job = dir.path().join("slow");
    std::fs::create_dir_all(job.join("state/frontier")).unwrap();
    std::fs::create_dir_all(job.join("warcs")).unwrap();
    let release = blocking_open_warc(&job.join("warcs/trawl-20260101000000-00000-h.warc.gz.open"));

    // Two launches at once: one is refused at once, the other waits for the repair.
    let launches: Vec<_> = (0..2)
        .map(|_| {
            let app = app.clone();
            tokio::spawn(async move { send(&app, "POST", "/api/jobs/slow/launch", "").await })
        })
        .collect();
    let deadline = Instant::now() + Duration::from_secs(5);
    while !launches.iter().any(|l| l.is_finished()) {
        assert!(Instant::now() < deadline, "no launch answered");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let (mut refused, mut waiting): (Vec<_>, Vec<_>) =
        launches.into_iter().partition(|l| l.is_finished());
    assert_eq!((refused.len(), waiting.len()), (1, 1));
    let (refused, first) = (refused.pop().unwrap(), waiting.pop().unwrap());
    let (status, body) = refused.await.unwrap();
    assert_eq!(status, StatusCode::CONFLICT, "{body}");
    assert!(body.contains("being launched"), "{body}");

    // While the repair waits: the list, the other job and this one answer at once.
    let started = Instant::now();
    let (status, body) = send(&app, "GET", "/api/jobs", "").await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let list: Vec<Value> = serde_json::from_str(&body).unwrap();
    let states: Vec<(&str, &str)> = list
        .iter()
        .map(|j| (j["id"].as_str().unwrap(), j["state"].as_str().unwrap()))
        .collect();
    assert_eq!(states, [("other", "created"), ("slow", "launching")]);
    assert_eq!(state(&app, "other").await, "created");
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "status reads took {:?} during a launch",
        started.elapsed()
    );
    assert!(
        !first.is_finished(),
        "the launch did not wait for its repair"
    );
    let (status, body) = send(&app, "POST", "/api/jobs/slow/launch", "").await;
    assert_eq!(status, StatusCode::CONFLICT, "{body}");
    let (status, _) = send(&app, "POST", "/api/jobs/slow/teardown", "").await;
    assert_eq!(status, StatusCode::CONFLICT, "teardown while launching");
    // Every other action waits for the launch too, and says so (not "is not running").
    for (method, path, body) in [
        ("POST", "/api/jobs/slow/pause", ""),
        ("POST", "/api/jobs/slow/unpause", ""),
        ("POST", "/api/jobs/slow/checkpoint", ""),
        ("POST", "/api/jobs/slow/terminate", ""),
        ("GET", "/api/jobs/slow/queues", ""),
        (
            "POST",
            "/api/jobs/slow/seeds",
            r#"{"urls":["http://127.0.0.1:9/b"]}"#,
        ),
        (
            "POST",
            "/api/jobs/slow/settings",
            r#"{"set":{"frontier.min_delay_ms":1}}"#,
        ),
        ("PUT", "/api/jobs/slow/config", "[seeds]\nurls = []\n"),
    ] {
        let (status, body) = send(&app, method, path, body).await;
        assert_eq!(status, StatusCode::CONFLICT, "{method} {path}: {body}");
        assert!(
            body.contains("is being launched") && body.contains("try again"),
            "{method} {path}: {body}"
        );
    }

    release.send(()).unwrap();
    let (status, body) = first.await.unwrap();
    assert_eq!(status, StatusCode::OK, "{body}");
    assert!(
        !job.join("warcs/trawl-20260101000000-00000-h.warc.gz.open")
            .exists()
    );
    let changes = std::fs::read_to_string(job.join("logs/config-changes.log")).unwrap();
    let lines: Vec<&str> = changes.lines().collect();
    assert_eq!(lines.len(), 3, "{changes}");
    assert!(lines[1].ends_with(" launch"), "{changes}");
    assert!(
        lines[2].ends_with(" removed a WARC with no complete record (0 bytes)"),
        "{changes}"
    );

    // A pause of a paused crawl, or an unpause of a running one, changes nothing: refused, not logged as a
    // change (xt46b F4).
    for (action, twice) in [
        ("pause", "paused already"),
        ("unpause", "not paused already"),
    ] {
        let path = format!("/api/jobs/slow/{action}");
        let (status, body) = send(&app, "POST", &path, "").await;
        assert_eq!(status, StatusCode::OK, "{action}: {body}");
        let (status, body) = send(&app, "POST", &path, "").await;
        assert_eq!(status, StatusCode::CONFLICT, "{action} twice: {body}");
        assert!(body.contains(twice), "{action} twice: {body}");
    }
    let changes = std::fs::read_to_string(job.join("logs/config-changes.log")).unwrap();
    assert_eq!(changes.lines().count(), 5, "{changes}");

    // Let the crawl end before its folder goes.
    let _ = send(&app, "POST", "/api/jobs/slow/terminate", "").await;
    let deadline = Instant::now() + Duration::from_secs(30);
    while matches!(
        state(&app, "slow").await.as_str(),
        "running" | "stopping" | "paused"
    ) {
        assert!(Instant::now() < deadline, "the crawl did not end");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// A job that crawled before (it has a frontier), never run in this server: `id` made with a seed nobody
/// answers.
async fn stopped_job(app: &Router, jobs: &Path, id: &str) -> PathBuf {
    let config = r#"{"name":"NAME","config":"[seeds]\nurls = [\"http://127.0.0.1:9/\"]\n"}"#;
    let (status, body) = send(app, "POST", "/api/jobs", &config.replace("NAME", id)).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let job = jobs.join(id);
    std::fs::create_dir_all(job.join("state/frontier")).unwrap();
    job
}

/// Terminates job `id` and waits for its crawl to end.
async fn end(app: &Router, id: &str) {
    let _ = send(app, "POST", &format!("/api/jobs/{id}/terminate"), "").await;
    let deadline = Instant::now() + Duration::from_secs(30);
    while matches!(
        state(app, id).await.as_str(),
        "running" | "stopping" | "paused" | "launching"
    ) {
        assert!(Instant::now() < deadline, "the crawl did not end");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Requests that open a stopped job's store (queue lists, lookups, settings) and a launch, at the same
/// moment, wait for each other: none is refused as if another process crawled the job, and every setting
/// is saved.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn commands_on_a_stopped_job_at_once_wait_for_each_other() {
    let dir = tempfile::tempdir().unwrap();
    let app = app(AppState::new(
        JobManager::new(dir.path()).unwrap(),
        Auth::with_password("pw", Some(TOKEN)),
    ));
    let job = stopped_job(&app, dir.path(), "sig").await;
    let keys = [
        ("frontier.min_delay_ms", "2001"),
        ("frontier.max_delay_ms", "30001"),
        ("frontier.max_retries", "4"),
        ("frontier.retry_delay_ms", "1234"),
        ("frontier.delay_factor", "2.5"),
    ];
    for round in 0..4 {
        let mut requests: Vec<(&str, String, String)> = Vec::new();
        for _ in 0..4 {
            requests.push(("GET", "/api/jobs/sig/queues".into(), String::new()));
        }
        for _ in 0..2 {
            requests.push((
                "GET",
                "/api/jobs/sig/lookup?url=http://127.0.0.1:9/".into(),
                String::new(),
            ));
        }
        for (key, value) in keys {
            let value = if round % 2 == 0 {
                value.to_string()
            } else {
                value.replace('1', "2")
            };
            requests.push((
                "POST",
                "/api/jobs/sig/settings".into(),
                format!(r#"{{"set":{{"{key}":{value}}}}}"#),
            ));
        }
        let tasks: Vec<_> = requests
            .into_iter()
            .map(|(method, path, body)| {
                let app = app.clone();
                tokio::spawn(async move {
                    let answer = send(&app, method, &path, &body).await;
                    (path, body, answer)
                })
            })
            .collect();
        for t in tasks {
            let (path, body, (status, answer)) = t.await.unwrap();
            assert_eq!(
                status,
                StatusCode::OK,
                "round {round}: {path} {body}: {answer}"
            );
        }
        let text = std::fs::read_to_string(job.join("crawl.toml")).unwrap();
        let config = trawl_config::CrawlConfig::parse(&text, &job.join("crawl.toml")).unwrap();
        let f = &config.frontier;
        let want = if round % 2 == 0 {
            (2001, 30001, 4, 1234)
        } else {
            (2002, 30002, 4, 2234)
        };
        assert_eq!(
            (
                f.min_delay_ms,
                f.max_delay_ms,
                f.max_retries,
                f.retry_delay_ms
            ),
            want,
            "round {round}: every setting saved:\n{text}"
        );
    }

    // A launch among them: it runs; the others answer, or are refused while it launches (saying so).
    let mut tasks = vec![tokio::spawn({
        let app = app.clone();
        async move {
            (
                "launch",
                send(&app, "POST", "/api/jobs/sig/launch", "").await,
            )
        }
    })];
    for i in 0..6 {
        let app = app.clone();
        tasks.push(tokio::spawn(async move {
            if i % 2 == 0 {
                (
                    "queues",
                    send(&app, "GET", "/api/jobs/sig/queues", "").await,
                )
            } else {
                let body = r#"{"set":{"frontier.min_delay_ms":2100}}"#;
                (
                    "settings",
                    send(&app, "POST", "/api/jobs/sig/settings", body).await,
                )
            }
        }));
    }
    for t in tasks {
        let (what, (status, body)) = t.await.unwrap();
        if what == "launch" {
            assert_eq!(status, StatusCode::OK, "{what}: {body}");
        } else {
            assert!(
                status == StatusCode::OK
                    || (status == StatusCode::CONFLICT && body.contains("is being launched")),
                "{what}: {status} {body}"
            );
        }
        assert!(!body.contains("another"), "{what}: {body}");
    }
    end(&app, "sig").await;
}

/// A launch shows, until its crawl's first progress, the totals the job saved: its counters do not drop to
/// zero (a Prometheus counter going 120 -> 0 -> 121 reads as a reset).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_launch_shows_the_saved_totals_until_its_first_progress() {
    let dir = tempfile::tempdir().unwrap();
    let app = app(AppState::new(
        JobManager::new(dir.path()).unwrap(),
        Auth::with_password("pw", Some(TOKEN)),
    ));
    let job = stopped_job(&app, dir.path(), "old").await;
    let totals = trawl_engine::stats::Totals {
        elapsed_s: 10.0,
        finished: 120,
        succeeded: 118,
        failed: 2,
        disregarded: 0,
        queued: 5,
        discovered: 125,
        refused: 0,
        active_queues: 1,
        wire_bytes: 4096,
    };
    std::fs::write(
        job.join(trawl_engine::stats::TOTALS_FILE),
        serde_json::to_string(&totals).unwrap(),
    )
    .unwrap();
    let (status, body) = send(&app, "GET", "/api/jobs/old", "").await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert!(body.contains(r#""finished":120"#), "before: {body}");
    // Work for the crawl (a host that answers nothing, tried again after a delay), so it does not end at once.
    let seeds = r#"{"urls":["http://127.0.0.1:9/a"]}"#;
    let (status, body) = send(&app, "POST", "/api/jobs/old/seeds", seeds).await;
    assert_eq!(status, StatusCode::OK, "{body}");

    let (status, body) = send(&app, "POST", "/api/jobs/old/launch", "").await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let (_, metrics) = send(&app, "GET", "/metrics", "").await;
    let v: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(v["state"], "running", "{body}");
    let c = &v["counters"];
    assert_eq!(
        (
            &c["finished"],
            &c["failed"],
            &c["discovered"],
            &c["wire_bytes"]
        ),
        (
            &Value::from(120),
            &Value::from(2),
            &Value::from(125),
            &Value::from(4096)
        ),
        "the launch answer: {body}"
    );
    assert!(
        metrics.contains("trawl_uris_finished_total{job=\"old\"} 120"),
        "{metrics}"
    );
    end(&app, "old").await;
}

/// A launch of a job whose earlier run saved no counters (killed in its first 20 s) says, where the
/// operator of the server reads what a launch found, that its counters are counted again from crawl.log.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_launch_without_saved_counters_says_so_in_the_changes_log() {
    let dir = tempfile::tempdir().unwrap();
    let app = app(AppState::new(
        JobManager::new(dir.path()).unwrap(),
        Auth::with_password("pw", Some(TOKEN)),
    ));
    let job = stopped_job(&app, dir.path(), "killed").await;
    std::fs::create_dir_all(job.join("logs")).unwrap();
    std::fs::write(
        job.join("logs/crawl.log"),
        "2026-11-30T22:00:00.000Z 200 10 http://127.0.0.1:9/ - - text/html #001 - - - -\n",
    )
    .unwrap();
    let (status, body) = send(&app, "POST", "/api/jobs/killed/launch", "").await;
    assert_eq!(status, StatusCode::OK, "{body}");
    end(&app, "killed").await;
    let changes = std::fs::read_to_string(job.join("logs/config-changes.log")).unwrap();
    assert!(
        changes.contains("warning: ")
            && changes
                .contains("stats.json: missing, so the counters and the report are counted again"),
        "{changes}"
    );
}
