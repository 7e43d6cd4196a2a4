//! Crawls shared through Redis (`trawl serve --frontier`): what the operator sees of them (crawl-wide
//! counts, every worker) and the actions that reach every worker (pause, unpause, stop). Redis is asked on
//! a blocking thread, once per request.

use std::time::Duration;

use serde::Serialize;
use trawl_frontier::{SharedCounts, SharedError, SharedFrontier, WorkerInfo, shared_crawls};

use crate::{ApiError, AppState};

/// One shared crawl as the operator sees it.
#[derive(Debug, Serialize)]
pub(crate) struct SharedView {
    /// The crawl's name (its workers' job directories' name).
    pub(crate) name: String,
    /// `run`, `pause` or `stop`.
    pub(crate) state: String,
    /// Whether nothing is left anywhere in a crawl let run: its workers ended (xt44a F8: a finished crawl
    /// showed as running, with its buttons).
    pub(crate) finished: bool,
    pub(crate) counts: Counts,
    pub(crate) workers: Vec<WorkerInfo>,
}

/// [`SharedCounts`], for JSON.
#[derive(Debug, Serialize)]
pub(crate) struct Counts {
    pub(crate) queued: u64,
    pub(crate) in_flight: u64,
    pub(crate) later: u64,
    pub(crate) discovered: u64,
    pub(crate) refused: u64,
    pub(crate) done: u64,
    pub(crate) reclaimed: u64,
}

impl From<SharedCounts> for Counts {
    fn from(c: SharedCounts) -> Counts {
        Counts {
            queued: c.queued,
            in_flight: c.in_flight,
            later: c.later,
            discovered: c.discovered,
            refused: c.refused,
            done: c.done,
            reclaimed: c.reclaimed,
        }
    }
}

/// The Redis URL this server was started with, or a 404 saying how to give one.
fn url(s: &AppState) -> Result<String, ApiError> {
    s.shared.as_deref().cloned().ok_or_else(|| {
        ApiError::not_found(
            "this server was started without --frontier redis://HOST:PORT/DB: no shared crawls",
        )
    })
}

fn redis_error(e: SharedError) -> ApiError {
    ApiError {
        status: axum::http::StatusCode::BAD_GATEWAY,
        message: format!("the shared frontier: {e}"),
    }
}

fn connect(url: &str, name: &str) -> Result<SharedFrontier<String>, ApiError> {
    let mut f = SharedFrontier::connect(url, name, "serve", Duration::from_secs(1), 0)
        .map_err(redis_error)?;
    match f.config().map_err(redis_error)? {
        Some(_) => Ok(f),
        None => Err(ApiError::not_found(format!("no shared crawl {name:?}"))),
    }
}

fn view_of(url: &str, name: &str) -> Result<SharedView, ApiError> {
    let mut f = connect(url, name)?;
    let state = f.state().map_err(redis_error)?;
    let counts = f.counts().map_err(redis_error)?;
    Ok(SharedView {
        name: name.to_string(),
        finished: counts.finished(&state),
        state,
        counts: counts.into(),
        workers: f.workers().map_err(redis_error)?,
    })
}

/// Every shared crawl on the server (none when the server has no `--frontier`).
pub(crate) async fn all(s: &AppState) -> Result<Vec<SharedView>, ApiError> {
    let Some(url) = s.shared.as_deref().cloned() else {
        return Ok(Vec::new());
    };
    tokio::task::spawn_blocking(move || {
        shared_crawls(&url)
            .map_err(redis_error)?
            .iter()
            .map(|name| view_of(&url, name))
            .collect()
    })
    .await
    .map_err(ApiError::internal)?
}

/// One shared crawl.
pub(crate) async fn one(s: &AppState, name: &str) -> Result<SharedView, ApiError> {
    let url = url(s)?;
    let name = name.to_string();
    tokio::task::spawn_blocking(move || view_of(&url, &name))
        .await
        .map_err(ApiError::internal)?
}

/// Pauses, unpauses or stops every worker of crawl `name`, as `who`.
pub(crate) async fn act(
    s: &AppState,
    who: &str,
    name: &str,
    action: &str,
) -> Result<SharedView, ApiError> {
    let state = match action {
        "pause" => "pause",
        "unpause" => "run",
        "stop" => "stop",
        other => {
            return Err(ApiError::not_found(format!(
                "no action {other:?} for a shared crawl (pause, unpause, stop)"
            )));
        }
    };
    let url = url(s)?;
    let name = name.to_string();
    eprintln!("trawl: {who}: {action} the shared crawl {name:?}");
    tokio::task::spawn_blocking(move || {
        connect(&url, &name)?
            .set_state(state)
            .map_err(redis_error)?;
        view_of(&url, &name)
    })
    .await
    .map_err(ApiError::internal)?
}
