//! Failures at the HTTP edge: a status and a sentence, sent as `{"error": "..."}`.

use axum::{
    Json,
    http::StatusCode,
    response::{IntoResponse, Response},
};

/// An API failure.
#[derive(Debug)]
pub struct ApiError {
    /// The HTTP status.
    pub status: StatusCode,
    /// What went wrong, naming the input.
    pub message: String,
}

impl ApiError {
    /// 400.
    pub fn bad_request(message: impl Into<String>) -> ApiError {
        ApiError {
            status: StatusCode::BAD_REQUEST,
            message: message.into(),
        }
    }

    /// 404.
    pub fn not_found(message: impl Into<String>) -> ApiError {
        ApiError {
            status: StatusCode::NOT_FOUND,
            message: message.into(),
        }
    }

    /// 409: the job is not in a state that allows the action.
    pub fn conflict(message: impl Into<String>) -> ApiError {
        ApiError {
            status: StatusCode::CONFLICT,
            message: message.into(),
        }
    }

    /// 500.
    pub fn internal(e: impl std::fmt::Display) -> ApiError {
        ApiError {
            status: StatusCode::INTERNAL_SERVER_ERROR,
            message: e.to_string(),
        }
    }
}

/// A job's ending, as the crawl wrote it for the command line (`… \`trawl resume\` the job …`), in the API's
/// terms: the request that goes on (xt46b F3: a failed job's status named the command).
pub(crate) fn ending_in_api_terms(id: &str, ending: &str) -> String {
    ending.replace(
        "`trawl resume` the job",
        &format!("launch job {id:?} again (POST /api/jobs/{id}/launch)"),
    )
}

/// An engine failure about job `id`, worded for the server's operator. The engine's own sentences are
/// written for the command line (`trawl resume`, `--job`, seeds "on the command line"); these say instead
/// which request or field to use. A failure with no such advice keeps the engine's sentence.
pub(crate) fn engine_sentence(id: &str, e: &trawl_engine::Error) -> String {
    use trawl_engine::Error as E;
    if let Some((path, io)) = e.disk_full() {
        let place = path.map_or(String::new(), |p| format!("{}: ", p.display()));
        let no_room = path.map_or("the disk is full: free some space", trawl_frontier::no_room);
        return format!(
            "{place}{no_room}, then launch job {id:?} again (POST /api/jobs/{id}/launch; its WARCs are \
             repaired) [{io}]"
        );
    }
    match e {
        E::NoSeeds => format!(
            "job {id:?} has no seeds: list them in its crawl.toml's [seeds] urls (PUT /api/jobs/{id}/config), \
             or give `seeds` when creating a job (POST /api/jobs)"
        ),
        E::NothingToResume(_) => format!(
            "job {id:?} has never been launched, so it has no frontier and no checkpoint yet: launch it first \
             (POST /api/jobs/{id}/launch, without `checkpoint`); seeds for its first run go in its crawl.toml's \
             [seeds] urls (PUT /api/jobs/{id}/config)"
        ),
        E::JobExists(_) => format!(
            "job {id:?} already holds a crawl: launching it again continues it (POST /api/jobs/{id}/launch)"
        ),
        E::NotAJob(_) => format!("no job {id:?}: its folder has no crawl.toml"),
        // A password read from the environment is the server's to have: no request gives it (xt14c F9). A
        // proxy's from TRAWL_PROXY_PASSWORD only; a credential's `password_env` may give way to a file.
        E::Config { message, .. }
            if message.contains(trawl_config::settings::access::PROXY_PASSWORD_ENV) =>
        {
            format!(
                "{e}: the variable is read from this server's own environment: start the server again with \
                 it set"
            )
        }
        E::Config { message, .. }
            if message.contains("environment variable") && message.contains("is not set") =>
        {
            format!(
                "{e}: the variable is read from this server's own environment: start the server again \
                 with it set, or name a `password_file` in job {id:?}'s config (PUT /api/jobs/{id}/config)"
            )
        }
        E::Config { .. } => format!(
            "{e}: mend job {id:?}'s config (PUT /api/jobs/{id}/config; POST /api/jobs/{id}/build checks it)"
        ),
        E::JobInUse { pid, .. } => in_use(id, *pid),
        E::RestoreCutShort { checkpoint, .. } => format!(
            "job {id:?}: a restore of checkpoint {checkpoint} was cut short (a crash or kill), so its state is that \
             checkpoint's, not the store there now: launch the job to finish the restore first (POST \
             /api/jobs/{id}/launch); nothing was changed"
        ),
        E::RestoredCheckpointGone {
            name, available, ..
        } => format!(
            "job {id:?}: a restore of checkpoint {name} was cut short (a crash or kill), and that checkpoint is \
             gone: launch it with the `checkpoint` to restore (POST /api/jobs/{id}/launch); it has: {available}"
        ),
        E::NoSuchCheckpoint {
            name, available, ..
        } if available == "none" => format!(
            "`checkpoint` {name:?}: job {id:?} has no checkpoint yet: launch it without `checkpoint`"
        ),
        E::NoSuchCheckpoint {
            name, available, ..
        } => {
            format!("`checkpoint` {name:?}: job {id:?} has no such checkpoint; it has: {available}")
        }
        E::Io { path, source }
            if matches!(
                source.kind(),
                std::io::ErrorKind::PermissionDenied | std::io::ErrorKind::ReadOnlyFilesystem
            ) =>
        {
            format!(
                "{}: the server may not write there: give the user it runs as write access to its jobs \
                 folder [{source}]",
                path.display()
            )
        }
        E::Io { path, source }
            if matches!(
                source.kind(),
                std::io::ErrorKind::AlreadyExists | std::io::ErrorKind::NotADirectory
            ) =>
        {
            format!(
                "{}: a file stands where job {id:?} needs a folder: move it out of the job's folder [{source}]",
                path.display()
            )
        }
        e => e.to_string(),
    }
}

/// The refusal of an action on job `id` while another process (pid `pid`), not this server, crawls into it
/// or holds it: what to wait for, in the API's words (that process is not the server's to command).
pub(crate) fn in_use(id: &str, pid: Option<u32>) -> String {
    let pid = pid.map_or(String::new(), |p| format!(" (pid {p})"));
    format!(
        "job {id:?} is held by another process{pid}, not by this server: wait until that process has let it \
         go (GET /api/jobs/{id} shows its state), then try again"
    )
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        (
            self.status,
            Json(serde_json::json!({ "error": self.message })),
        )
            .into_response()
    }
}

#[cfg(test)]
mod tests {
    use std::{
        io::{Error as IoError, ErrorKind},
        path::PathBuf,
    };

    use trawl_engine::Error as E;

    use super::ending_in_api_terms;

    /// The engine's errors whose own sentences advise the command line get the server's words: no `trawl`
    /// command, flag or "command line", and the request to make instead.
    #[test]
    fn engine_errors_are_worded_for_the_api() {
        let dir = PathBuf::from("/jobs/j");
        let io = |kind| E::Io {
            path: dir.join("warcs/x.warc.gz"),
            source: IoError::from(kind),
        };
        for (e, says) in [
            (E::NoSeeds, "PUT /api/jobs/j/config"),
            (E::NothingToResume(dir.clone()), "POST /api/jobs/j/launch"),
            (E::JobExists(dir.clone()), "POST /api/jobs/j/launch"),
            (
                E::RestoreCutShort {
                    dir: dir.clone(),
                    checkpoint: "cp00001-x".into(),
                },
                "POST /api/jobs/j/launch",
            ),
            (
                E::RestoredCheckpointGone {
                    job: dir.clone(),
                    name: "cp00001-x".into(),
                    available: "cp00002-y".into(),
                },
                "POST /api/jobs/j/launch",
            ),
            (E::NotAJob(dir.clone()), "no job \"j\""),
            (
                E::Config {
                    path: dir.join("crawl.toml"),
                    message: "line 1, column 6: key with no value".into(),
                },
                "PUT /api/jobs/j/config",
            ),
            (
                E::Config {
                    path: dir.join("crawl.toml"),
                    message: "credentials[0]: environment variable FORMPW is not set".into(),
                },
                "start the server again with it set",
            ),
            (
                E::JobInUse {
                    dir: dir.clone(),
                    pid: Some(7),
                },
                "(pid 7)",
            ),
            (io(ErrorKind::StorageFull), "x.warc.gz: the disk is full"),
            (io(ErrorKind::QuotaExceeded), "POST /api/jobs/j/launch"),
            (io(ErrorKind::PermissionDenied), "write access"),
            (io(ErrorKind::NotADirectory), "needs a folder"),
        ] {
            let cli = e.to_string();
            let api = super::engine_sentence("j", &e);
            assert!(api.contains(says), "{api}");
            for word in [
                "`trawl ",
                "trawl resume",
                "trawl crawl",
                "--job",
                "command line",
            ] {
                assert!(!api.contains(word), "{cli} -> {api}");
            }
        }
    }

    /// xt46b F3: a failed job's ending names the request that goes on, not `trawl resume`.
    #[test]
    fn an_ending_names_the_launch_request() {
        let ending = "FAILED: jobs/f/logs/crawl.log: removed while the crawl wrote it: the lines written into it are \
                      lost. `trawl resume` the job to go on";
        let api = ending_in_api_terms("f", ending);
        assert!(
            api.ends_with("launch job \"f\" again (POST /api/jobs/f/launch) to go on")
                && !api.contains("trawl resume"),
            "{api}"
        );
    }
}
