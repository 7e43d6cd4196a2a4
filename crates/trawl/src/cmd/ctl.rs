//! `trawl ctl`: operator actions on a job, sent to its running crawl or applied to its stopped store.

use std::{io::Write, path::Path, process::ExitCode, time::Duration};

use anyhow::bail;
use trawl_engine::control::{self, Command, Reply};

use crate::cli::CtlAction;

fn optional(value: &str, what: &str) -> anyhow::Result<Option<u64>> {
    if value == "none" {
        return Ok(None);
    }
    match value.parse() {
        Ok(n) => Ok(Some(n)),
        Err(_) => bail!("{what} must be a whole number or `none`, not {value:?}"),
    }
}

fn command(action: CtlAction) -> anyhow::Result<Command> {
    Ok(match action {
        CtlAction::Queues => Command::Queues,
        CtlAction::AddSeeds { urls } => Command::AddSeeds { urls },
        CtlAction::Lookup { url } => Command::Lookup { url },
        CtlAction::PauseQueue { queue } => Command::PauseQueue { queue },
        CtlAction::UnpauseQueue { queue } => Command::UnpauseQueue { queue },
        CtlAction::RetireQueue { queue } => Command::RetireQueue { queue },
        CtlAction::DeleteQueue { queue } => Command::DeleteQueue { queue },
        CtlAction::QueueDelay { queue, delay } => Command::SetQueueDelay {
            delay_ms: optional(&delay, "the delay")?,
            queue,
        },
        CtlAction::QueueBudget { queue, budget } => Command::SetQueueBudget {
            budget: optional(&budget, "the budget")?,
            queue,
        },
        CtlAction::Pause => Command::Pause,
        CtlAction::Unpause => Command::Unpause,
        CtlAction::Checkpoint => Command::Checkpoint,
        CtlAction::Stop => Command::Stop,
    })
}

pub(crate) fn ctl(job: &Path, json: bool, action: CtlAction) -> anyhow::Result<ExitCode> {
    let command = command(action)?;
    let reply = match control::running_pid(job) {
        Some(_) => control::send_file(job, &command, Duration::from_secs(10))?,
        None => control::apply_offline(job, &command)?,
    };
    let mut out = std::io::stdout().lock();
    if json {
        writeln!(out, "{}", serde_json::to_string(&reply)?)?;
    }
    match reply {
        Reply::Failed { message } => {
            eprintln!("trawl: {message}");
            return Ok(ExitCode::FAILURE);
        }
        _ if json => {}
        Reply::Done { message } => writeln!(out, "{message}")?,
        Reply::Queues { queues } => {
            writeln!(
                out,
                "{:<40} {:<11} {:>9} {:>6} {:>9} {:>9} {:>9}",
                "queue", "state", "queued", "busy", "spent", "budget", "wait ms"
            )?;
            for q in queues {
                let budget = q.budget.map_or("-".to_string(), |b| b.to_string());
                writeln!(
                    out,
                    "{:<40} {:<11} {:>9} {:>6} {:>9} {:>9} {:>9}",
                    q.name, q.state, q.queued, q.in_flight, q.spent, budget, q.wait_ms
                )?;
            }
        }
        Reply::Lookup {
            url, state, status, ..
        } => match status {
            Some(s) => writeln!(out, "{state} {s} {url}")?,
            None => writeln!(out, "{state} {url}")?,
        },
        _ => {}
    }
    Ok(ExitCode::SUCCESS)
}
