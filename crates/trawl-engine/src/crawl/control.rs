//! Operator commands applied to a running crawl.

use std::{
    sync::{Arc, PoisonError},
    time::Duration,
};

use tokio::sync::mpsc;

use super::{handle::Envelope, shared::Shared};
use crate::{
    control::{Command, Reply},
    job::Job,
    lock::lock,
};

/// Applies operator commands: from the handle's channel, and from command files dropped into `JOB/control/`
/// by `trawl ctl` (each `NAME.cmd.json` is answered by `NAME.reply.json`).
pub(super) async fn control_loop(
    shared: Arc<Shared>,
    job: Job,
    mut inbox: Option<mpsc::UnboundedReceiver<Envelope>>,
) {
    loop {
        let received = async {
            match inbox.as_mut() {
                Some(rx) => rx.recv().await,
                None => std::future::pending().await,
            }
        };
        tokio::select! {
            got = received => match got {
                Some((command, reply)) => {
                    let _ = reply.send(apply_command(&shared, &command));
                }
                None => inbox = None,
            },
            _ = tokio::time::sleep(Duration::from_millis(250)) => answer_files(&shared, &job),
        }
    }
}

/// Applies and answers the command files waiting in `JOB/control/`. Also called once more after the loop
/// ends and the pid file is gone, for those sent in the instant before: no sender waits for a crawl that has
/// stopped looking.
pub(super) fn answer_files(shared: &Shared, job: &Job) {
    let dir = crate::control::control_dir(job.root());
    for (path, command) in crate::control::pending_files(&dir) {
        let reply = match command {
            Ok(c) => apply_command(shared, &c),
            Err(e) => Reply::Failed {
                message: e.to_string(),
            },
        };
        crate::control::answer_file(&path, &reply);
    }
}

pub(super) fn apply_command(shared: &Shared, command: &Command) -> Reply {
    let reply = match command {
        Command::Pause => {
            shared.pipeline.stop.set_paused(true);
            Reply::Done {
                message: "crawl paused".into(),
            }
        }
        Command::Unpause => {
            shared.pipeline.stop.set_paused(false);
            Reply::Done {
                message: "crawl unpaused".into(),
            }
        }
        Command::Checkpoint => {
            shared.pipeline.stop.request_checkpoint();
            Reply::Done {
                message: "checkpoint requested".into(),
            }
        }
        Command::Stop => {
            shared.pipeline.stop.stop();
            Reply::Done {
                message: "stopping".into(),
            }
        }
        Command::Settings { change } => change_settings(shared, change),
        Command::Reports => Reply::Reports {
            reports: shared.reports("RUNNING"),
        },
        other => {
            crate::control::apply_to_frontier(&mut lock(&shared.frontier), other, &shared.config())
        }
    };
    // A queue unpaused or a delay shortened may have made work ready: one idle worker looks (and wakes the
    // next if it finds some).
    shared.wake.one();
    reply
}

/// Applies an operator's settings change to the running crawl: checked whole, swapped in for the URIs
/// processed from now on, and saved to the job's crawl.toml.
fn change_settings(shared: &Shared, change: &crate::live::SettingsChange) -> Reply {
    let mut live = shared
        .pipeline
        .live
        .write()
        .unwrap_or_else(PoisonError::into_inner);
    let rebuilt = match change.apply_live(&live.config, &shared.seeds, shared.job.root()) {
        Ok(l) => l,
        Err(e) => {
            return Reply::Failed {
                message: e.to_string(),
            };
        }
    };
    if let Err(e) = shared.job.write_config(&rebuilt.config) {
        return Reply::Failed {
            message: format!("the change was not made: {e}"),
        };
    }
    shared.pipeline.robots.settings_changed(&rebuilt.config);
    *live = Arc::new(rebuilt);
    Reply::Done {
        message: change.describe(),
    }
}
