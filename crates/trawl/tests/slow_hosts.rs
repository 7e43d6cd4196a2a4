//! Hosts that fail or crawl along: a URL that fails (a 5xx) is tried again later on its own while its host goes
//! on at its politeness pace; a body trickling in slower than the minimum rate is cut after about one window.

mod common;

use std::{
    net::SocketAddr,
    sync::{Arc, Mutex},
    time::Duration,
};

use axum::{
    Router,
    body::Body,
    extract::{Request, State},
    http::{StatusCode, header},
    response::{IntoResponse, Response},
};

/// The order the server saw requests in.
type Seen = Arc<Mutex<Vec<String>>>;

async fn site(State(seen): State<Seen>, req: Request) -> Response {
    let path = req.uri().path().to_string();
    seen.lock().unwrap().push(path.clone());
    let html = |body: String| ([(header::CONTENT_TYPE, "text/html")], body).into_response();
    match path.as_str() {
        "/" => html(
            (0..10)
                .map(|i| format!("<a href=\"/bad/{i}\">b</a> <a href=\"/good/{i}\">g</a> "))
                .collect(),
        ),
        p if p.starts_with("/bad/") => {
            (StatusCode::INTERNAL_SERVER_ERROR, "broken").into_response()
        }
        p if p.starts_with("/good/") => html(format!("good {p}")),
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
    let app = Router::new().fallback(site).with_state(seen.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
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
        c.frontier.retry_delay_ms = 1500;
    })
    .await;
    let seen = seen.lock().unwrap().clone();
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
