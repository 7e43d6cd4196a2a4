//! Queues, seeds and URL lookups: operator commands sent to the running crawl, or to the stopped store.

use axum::{
    Extension, Json,
    extract::{Path, Query, State},
};
use serde::Deserialize;
use trawl_engine::control::{Command, Reply};

use crate::{ApiError, AppState, Operator};

/// `POST /api/jobs/{id}/queues/{queue}` body.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct QueueChange {
    /// pause, unpause, retire, delete, delay or budget.
    pub(crate) action: String,
    /// For `delay`: ms, or null for the computed delay.
    #[serde(default)]
    pub(crate) delay_ms: Option<u64>,
    /// For `budget`: URIs, or null for none.
    #[serde(default)]
    pub(crate) budget: Option<u64>,
}

/// `POST /api/jobs/{id}/seeds` body.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Seeds {
    pub(crate) urls: Vec<String>,
}

/// `?url=`.
#[derive(Debug, Deserialize)]
pub(crate) struct UrlQuery {
    pub(crate) url: String,
}

/// Sends `command` and turns a failed reply into 409 (shared with the UI); changes are logged in the words
/// of `trawl ctl`'s with the answer, as ctl logs them (xt23a F8: the log held the command's JSON).
pub(crate) async fn command(
    s: &AppState,
    who: &str,
    id: &str,
    command: Command,
) -> Result<Reply, ApiError> {
    let change = command.change();
    let reply = s.jobs.send(id, command).await?;
    if let Reply::Failed { message } = &reply {
        return Err(ApiError::conflict(message.clone()));
    }
    if let Some(what) = change {
        let line = match &reply {
            Reply::Done { message } => format!("{what}: {message}"),
            _ => what,
        };
        trawl_engine::job::record_change(&s.jobs.job_dir(id)?, who, &line);
    }
    Ok(reply)
}

/// The command for a queue change.
pub(crate) fn queue_command(queue: String, c: &QueueChange) -> Result<Command, ApiError> {
    Ok(match c.action.as_str() {
        "pause" => Command::PauseQueue { queue },
        "unpause" => Command::UnpauseQueue { queue },
        "retire" => Command::RetireQueue { queue },
        "delete" => Command::DeleteQueue { queue },
        // A bad value is the request's fault (400), not a conflict with the job (xt24a F2).
        "delay" => match c.delay_ms {
            Some(ms) if ms > trawl_engine::control::MAX_QUEUE_DELAY_MS => {
                return Err(ApiError::bad_request(
                    trawl_engine::control::too_long_a_delay(ms),
                ));
            }
            delay_ms => Command::SetQueueDelay { queue, delay_ms },
        },
        "budget" => Command::SetQueueBudget {
            queue,
            budget: c.budget,
        },
        other => {
            return Err(ApiError::bad_request(format!(
                "{other:?} is not a queue action: pause, unpause, retire, delete, delay or budget"
            )));
        }
    })
}

pub(crate) async fn list(
    State(s): State<AppState>,
    Extension(op): Extension<Operator>,
    Path(id): Path<String>,
) -> Result<Json<Reply>, ApiError> {
    command(&s, &op.who, &id, Command::Queues).await.map(Json)
}

pub(crate) async fn change(
    State(s): State<AppState>,
    Extension(op): Extension<Operator>,
    Path((id, queue)): Path<(String, String)>,
    Json(c): Json<QueueChange>,
) -> Result<Json<Reply>, ApiError> {
    let cmd = queue_command(queue, &c)?;
    command(&s, &op.who, &id, cmd).await.map(Json)
}

pub(crate) async fn add_seeds(
    State(s): State<AppState>,
    Extension(op): Extension<Operator>,
    Path(id): Path<String>,
    Json(seeds): Json<Seeds>,
) -> Result<Json<Reply>, ApiError> {
    let cmd = seeds_command(seeds.urls, "`urls`")?;
    command(&s, &op.who, &id, cmd).await.map(Json)
}

/// The command adding `urls` as seeds (shared with the UI, whose `field` is its box): none, or one that is
/// no URL, is refused before the crawl hears of it. Nothing to add is a mistake, not a change to log (xt37a
/// F5, xt46b F1: the UI's empty box was logged as a change).
pub(crate) fn seeds_command(urls: Vec<String>, field: &str) -> Result<Command, ApiError> {
    if urls.is_empty() {
        return Err(ApiError::bad_request(format!(
            "{field} is empty: give at least one seed URL; nothing was changed"
        )));
    }
    if let Some(Err(e)) = urls
        .iter()
        .map(|u| trawl_url::parse_typed_seed(u))
        .find(Result::is_err)
    {
        return Err(ApiError::bad_request(format!(
            "seed {e}; no seed was queued"
        )));
    }
    Ok(Command::AddSeeds { urls })
}

pub(crate) async fn lookup(
    State(s): State<AppState>,
    Extension(op): Extension<Operator>,
    Path(id): Path<String>,
    Query(q): Query<UrlQuery>,
) -> Result<Json<Reply>, ApiError> {
    // Bad input, not the job's state (the crawl would refuse it as a failed command, 409).
    if url::Url::parse(&q.url).is_err() {
        return Err(ApiError::bad_request(format!(
            "`url` {:?} is not a URL: give an absolute one, with its scheme (http://host/path)",
            q.url
        )));
    }
    command(&s, &op.who, &id, Command::Lookup { url: q.url })
        .await
        .map(Json)
}
