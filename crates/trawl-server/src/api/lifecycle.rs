//! The lifecycle actions of a job: launch, pause, unpause, checkpoint, terminate, teardown.

use axum::{
    Extension, Json,
    extract::{Path, State},
};
use serde::Deserialize;

use crate::{ApiError, AppState, JobStatus, Operator};

/// `POST /api/jobs/{id}/launch` body (optional).
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Launch {
    /// A checkpoint name, or `latest`, to resume from.
    #[serde(default)]
    pub(crate) checkpoint: Option<String>,
}

/// Carries out `action` on job `id` for `who` (shared with the UI). What a launch's start found (repairs, lost
/// counters) is printed as `trawl resume` prints it and recorded in the job's config-changes.log after the
/// launch.
pub(crate) async fn act(
    s: &AppState,
    who: &str,
    id: &str,
    action: &str,
    checkpoint: Option<&str>,
) -> Result<JobStatus, ApiError> {
    let dir = s.jobs.job_dir(id)?;
    let running = || {
        s.jobs.handle(id).ok_or_else(|| {
            if s.jobs.is_launching(id) {
                return crate::manager::JobManager::launching_refusal(id);
            }
            match crate::manager::JobManager::crawled_elsewhere(&dir) {
                Some(pid) => crate::manager::JobManager::elsewhere_refusal(id, pid),
                // Stopping a stopped job is done already (xt37a F8: it was told to launch first).
                None if action == "terminate" => ApiError::conflict(format!(
                    "job {id:?} is not running: it is stopped already, nothing to terminate"
                )),
                None => ApiError::conflict(format!(
                    "job {id:?} is not running: launch it first (POST /api/jobs/{id}/launch)"
                )),
            }
        })
    };
    let mut notes = Vec::new();
    // The crawl's answer, logged after the action as `trawl ctl` logs it.
    let mut answer = None;
    match action {
        "launch" => notes = s.jobs.launch(id, checkpoint).await?,
        // What is so already changes nothing: refused, not logged as a change (xt46b F4).
        "pause" | "unpause" => {
            let handle = running()?;
            let pause = action == "pause";
            if handle.is_paused() == pause {
                let now = if pause {
                    "paused"
                } else {
                    "running, not paused"
                };
                return Err(ApiError::conflict(format!(
                    "job {id:?} is {now} already: nothing to {action}"
                )));
            }
            handle.set_paused(pause);
        }
        // Answered once written, so the status lists it (xt23a F5).
        "checkpoint" => match running()?.checkpoint().await {
            trawl_engine::control::Reply::Failed { message } => {
                return Err(ApiError::conflict(message));
            }
            trawl_engine::control::Reply::Done { message } => answer = Some(message),
            _ => {}
        },
        "terminate" => running()?.stop(),
        // Nothing held of the job (torn down already, or never run by this server): no change to log (xt37a F8).
        "teardown" => {
            if !s.jobs.teardown(id)? {
                return s.jobs.status(id);
            }
        }
        other => return Err(ApiError::not_found(format!("no action {other:?}"))),
    }
    let what = match (checkpoint, answer) {
        (Some(cp), _) => format!("{action} from checkpoint {cp}"),
        (None, Some(answer)) => format!("{action}: {answer}"),
        (None, None) => action.to_string(),
    };
    trawl_engine::job::record_change(&dir, who, &what);
    for line in &notes {
        eprintln!("{line}");
        trawl_engine::job::record_change(&dir, who, line.strip_prefix("trawl: ").unwrap_or(line));
    }
    s.jobs.status(id)
}

pub(crate) async fn launch(
    State(s): State<AppState>,
    Extension(op): Extension<Operator>,
    Path(id): Path<String>,
    body: String,
) -> Result<Json<JobStatus>, ApiError> {
    let launch: Launch = if body.trim().is_empty() {
        Launch::default()
    } else {
        serde_json::from_str(&body)
            .map_err(|e| ApiError::bad_request(format!("launch body: {e}")))?
    };
    act(&s, &op.who, &id, "launch", launch.checkpoint.as_deref())
        .await
        .map(Json)
}

macro_rules! action {
    ($name:ident) => {
        pub(crate) async fn $name(
            State(s): State<AppState>,
            Extension(op): Extension<Operator>,
            Path(id): Path<String>,
        ) -> Result<Json<JobStatus>, ApiError> {
            act(&s, &op.who, &id, stringify!($name), None)
                .await
                .map(Json)
        }
    };
}

action!(pause);
action!(unpause);
action!(checkpoint);
action!(terminate);
action!(teardown);
