//! Operator commands applied to a running crawl.

use std::{
    sync::{Arc, PoisonError},
    time::Duration,
};

use tokio::sync::mpsc;

use super::{handle::Envelope, shared::Shared};
use trawl_config::CrawlUri;

use crate::{
    chain::candidate::site_refused_by,
    control::{Command, Reply},
    job::Job,
    live::LiveSettings,
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
                // Answered once written, by the ticker.
                Some((Command::Checkpoint, reply)) if shared.remote.is_none() => {
                    shared.pipeline.stop.checkpoint_then(reply);
                }
                Some((command, reply)) => {
                    let answer = apply_command(&shared, &command);
                    answer_once_kept(&shared, &command, answer, move |answer| {
                        let _ = reply.send(answer);
                    });
                }
                None => inbox = None,
            },
            _ = tokio::time::sleep(Duration::from_millis(250)) => answer_files(&shared, &job),
        }
    }
}

/// Applies and answers the command files waiting in `JOB/control/`. Also called once more after the loop
/// ends and the pid file is gone, for those sent in the instant before: no sender waits for a crawl that
/// has stopped looking.
pub(super) fn answer_files(shared: &Arc<Shared>, job: &Job) {
    let dir = crate::control::control_dir(job.root());
    for (path, sent) in crate::control::pending_files(&dir) {
        let (command, by) = match sent {
            Ok(file) => (
                file.command,
                file.by
                    .unwrap_or_else(|| crate::control::SENT_BY_CTL.to_owned()),
            ),
            Err(e) => {
                let reply = Reply::Failed {
                    message: e.to_string(),
                };
                crate::control::answer_file(&path, &reply);
                continue;
            }
        };
        // Answered once written (`trawl ctl` waits for the answer file): by the ticker, or by the crawl's
        // end, which writes the last one and awaits the answer's writing (review 73 R2, R6).
        if let Command::Checkpoint = command
            && shared.remote.is_none()
        {
            let (tx, rx) = tokio::sync::oneshot::channel();
            shared.pipeline.stop.checkpoint_then(tx);
            let root = job.root().to_path_buf();
            let answer = tokio::spawn(async move {
                let reply = rx.await.unwrap_or(Reply::Failed {
                    message: "the crawl ended before writing the checkpoint".into(),
                });
                record(&root, &by, command.change(), &reply);
                crate::control::answer_file(&path, &reply);
            });
            lock(&shared.answering).push(answer);
            continue;
        }
        let reply = apply_command(shared, &command);
        let root = job.root().to_path_buf();
        let change = command.change();
        answer_once_kept(shared, &command, reply, move |reply| {
            record(&root, &by, change, &reply);
            crate::control::answer_file(&path, &reply);
        });
    }
}

/// Whether `command` changes the frontier's store (its queues, or seeds queued).
fn changes_the_frontier(command: &Command) -> bool {
    matches!(
        command,
        Command::AddSeeds { .. }
            | Command::PauseQueue { .. }
            | Command::UnpauseQueue { .. }
            | Command::RetireQueue { .. }
            | Command::DeleteQueue { .. }
            | Command::SetQueueDelay { .. }
            | Command::SetQueueBudget { .. }
    )
}

/// Gives `reply` to `command` to `answer`: at once, or for a change of the frontier, once the change is
/// committed to its store, where a kill cannot undo it (xt27a F1: a queue delay answered "done" and logged was
/// lost to a kill 50 ms later). Such answers wait in tasks of their own, which the crawl's end awaits.
fn answer_once_kept(
    shared: &Arc<Shared>,
    command: &Command,
    reply: Reply,
    answer: impl FnOnce(Reply) + Send + 'static,
) {
    if !matches!(reply, Reply::Done { .. })
        || !changes_the_frontier(command)
        || shared.remote.is_some()
    {
        answer(reply);
        return;
    }
    let kept = shared.clone();
    let task = tokio::spawn(async move {
        let reply = if kept.pipeline.log.committed().await {
            reply
        } else {
            Reply::Failed {
                message: "the change was made, but the crawl's frontier could not be committed (the crawl \
                          is failing: see its log), so a resume may not have it"
                    .into(),
            }
        };
        answer(reply);
    });
    lock(&shared.answering).push(task);
}

/// Writes a change a command file made into the job's config-changes.log, under the sender's name, before
/// the sender is answered: a sender killed while waiting loses no line (xt26a N5).
fn record(job_dir: &std::path::Path, by: &str, change: Option<String>, reply: &Reply) {
    if let (Reply::Done { message }, Some(what)) = (reply, change) {
        crate::job::record_change(job_dir, by, &format!("{what}: {message}"));
    }
}

pub(super) fn apply_command(shared: &Shared, command: &Command) -> Reply {
    let reply = match command {
        // A worker pausing or changing settings alone would sit idle unseen, or fetch at another pace than
        // the crawl's (xt16b F2): those are the crawl's, steered for every worker at once.
        Command::Pause | Command::Unpause | Command::Settings { .. } if shared.remote.is_some() => {
            refuse_on_a_worker(shared, command)
        }
        Command::Stop if let Some(remote) = &shared.remote => {
            shared.pipeline.stop.stop();
            Reply::Done {
                message: format!(
                    "stopping this worker; the shared crawl {:?} goes on with the others (`trawl ctl --frontier \
                     {} {} stop` stops every worker)",
                    remote.spec.job,
                    remote.spec.shown_url(),
                    remote.spec.job,
                ),
            }
        }
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
        // A worker of a shared crawl has no frontier of its own to copy: Redis keeps the crawl's state.
        Command::Checkpoint if shared.remote.is_some() => refuse_on_a_worker(shared, command),
        // Asked otherwise than through the handle's channel or a command file (which wait for it): asked.
        Command::Checkpoint => {
            shared.pipeline.stop.request_checkpoint();
            Reply::Done {
                message: "checkpoint asked for".into(),
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
            // As the status says it (xt25a F7: a paused crawl's report said RUNNING).
            // A worker's crawl paused crawl-wide is paused too.
            reports: shared.reports(
                match shared.pipeline.stop.is_paused()
                    || shared.remote.as_ref().is_some_and(|r| r.is_paused())
                {
                    true => "PAUSED",
                    false => "RUNNING",
                },
            ),
        },
        // A worker of a shared crawl holds no queue of its own: they are all in Redis.
        other if shared.remote.is_some() => refuse_on_a_worker(shared, other),
        Command::AddSeeds { urls } => add_seeds(shared, urls),
        other => {
            crate::control::apply_to_frontier(&mut lock(&shared.frontier), other, &shared.config())
        }
    };
    // A queue unpaused or a delay shortened may have made work ready: one idle worker looks (and wakes the
    // next if it finds some).
    shared.wake.one();
    reply
}

/// The answer of a worker of a shared crawl to a queue command sent to its job directory: the queues are
/// the crawl's, in Redis, and the command's `--frontier` form reaches them for every worker.
fn refuse_on_a_worker(shared: &Shared, command: &Command) -> Reply {
    let Some(remote) = &shared.remote else {
        return Reply::Failed {
            message: "not a worker of a shared crawl".into(),
        };
    };
    let action = match command {
        Command::AddSeeds { .. } => "add-seeds",
        Command::Lookup { .. } | Command::Checkpoint => {
            return Reply::Failed {
                message: format!(
                    "{} is a worker of the shared crawl {:?}, whose state is in Redis, kept by Redis's own \
                     persistence (appendonly, or a snapshot with BGSAVE): a shared crawl has no checkpoints \
                     and no lookup of one URL (look for it in each worker's logs/crawl.log); nothing was done",
                    shared.job.root().display(),
                    remote.spec.job,
                ),
            };
        }
        Command::Queues => "queues",
        Command::Pause => "pause",
        Command::Unpause => "unpause",
        Command::Settings {
            change: crate::live::SettingsChange::Set(_),
        } => "set",
        Command::Settings {
            change: crate::live::SettingsChange::Sheet(_),
        } => "put-sheet",
        Command::Settings {
            change: crate::live::SettingsChange::RemoveSheet(_),
        } => "remove-sheet",
        // A queue's command, by its own name (xt46c N5: "the queue action" was said literally).
        other => &other
            .change()
            .and_then(|c| c.split_whitespace().next().map(str::to_owned))
            .unwrap_or_else(|| "the queue action".to_owned()),
    };
    Reply::Failed {
        message: format!(
            "{} is a worker of the shared crawl {:?}, whose queues, seeds, settings and pause are the crawl's, \
             in Redis, not this job directory's: nothing was changed; run `trawl ctl --frontier {} {} {action} …` \
             to reach every worker",
            shared.job.root().display(),
            remote.spec.job,
            remote.spec.shown_url(),
            remote.spec.job,
        ),
    }
}

/// Seeds added to the running crawl: taken into the scope as seeds (their SURT prefixes widen it, as
/// crawl.toml's seeds do), written into crawl.toml's `[seeds] urls` (comments kept) so that a resume keeps
/// them, then queued. All or none: a URL that is not a seed changes nothing.
fn add_seeds(shared: &Shared, urls: &[String]) -> Reply {
    let urls = &match crate::control::typed_seeds(urls) {
        Ok(urls) => urls,
        Err(refused) => return refused,
    };
    let mut live = shared
        .pipeline
        .live
        .write()
        .unwrap_or_else(PoisonError::into_inner);
    let mut config = (*live.config).clone();
    let mut seeds = live.seeds().to_vec();
    for url in urls {
        if config.seeds.urls.contains(url) {
            continue;
        }
        match trawl_url::parse_seed(url) {
            Ok(seed) => seeds.push(seed),
            Err(e) => {
                return Reply::Failed {
                    message: format!("seed {url:?}: {e}; no seed was queued"),
                };
            }
        }
        config.seeds.urls.push(url.clone());
    }
    // An added seed's host may be reached whatever its address, as the first seeds' hosts are, even where
    // the policy refused it before.
    for seed in &seeds[live.seeds().len()..] {
        if let Some(host) = seed.host_str() {
            shared.pipeline.fetcher.add_seed_host(host);
            shared.pipeline.robots.forget_refusal(seed);
        }
    }
    if config.seeds.urls.len() > live.config.seeds.urls.len() {
        let widened = match LiveSettings::build(Arc::new(config), &seeds, shared.job.root()) {
            Ok(l) => l,
            Err(e) => {
                return Reply::Failed {
                    message: format!("no seed was queued: {e}"),
                };
            }
        };
        if let Err(e) = shared.job.write_config(&widened.config) {
            return Reply::Failed {
                message: format!("no seed was queued: {e}"),
            };
        }
        *live = Arc::new(widened);
    }
    let config = live.config.clone();
    drop(live);
    crate::control::apply_to_frontier(
        &mut lock(&shared.frontier),
        &Command::AddSeeds {
            urls: urls.to_vec(),
        },
        &config,
    )
}

/// Widens the running crawl's scope to `target`, a seed's redirect target, as a seed would
/// (`scope.seed_redirects_new_seeds`): its SURT prefix joins `scope.surt_prefixes`, in the live settings and in
/// crawl.toml, so a resume keeps it. It is not made a seed: nothing is queued, and its host gets none of a
/// seed host's leave from the address policy (a public site's redirect to a private address stays refused).
/// The prefix added, `None` when the scope follows the target's links already; refused when the prefix
/// would not make it follow them (another rule refuses them: `max_hops`, a custom scope).
///
/// The settings are built beside the live ones and swapped in only if nothing changed them meanwhile (else
/// built again), so readers wait for no build; crawl.toml is written after, from what is live then, under
/// the read lock (a change that holds the write lock writes its own after it).
pub(super) fn widen_to(shared: &Shared, target: &CrawlUri) -> Result<Option<String>, NotWidened> {
    let naming = &shared.pipeline.naming;
    // The page's links, or its folder's where an operator's prefix takes in the page alone (xt14c F10).
    let refused = |live: &LiveSettings| site_refused_by(live, naming, target);
    // A `Location` may carry a user and password: neither belongs in a prefix (xt14a F12), and the page's
    // links keep them, so that no prefix without them matches its links (xt14c F6). A target the address
    // policy refuses is never fetched: no prefix for it (xt14a F13).
    let cannot = if !target.url.username().is_empty() || target.url.password().is_some() {
        Some(NotWidened::UserInfo)
    } else {
        shared
            .pipeline
            .fetcher
            .refused_without_lookup(&target.url)
            .map(NotWidened::AddressRefused)
    };
    if let Some(why) = cannot {
        return match refused(&shared.pipeline.settings()) {
            Some(_) => Err(why),
            None => Ok(None),
        };
    }
    let prefix = trawl_url::SurtPrefix::from_seed(&target.url)
        .as_str()
        .to_string();
    loop {
        let before = shared.pipeline.settings();
        let Some(rule) = refused(&before) else {
            return Ok(None);
        };
        if before.config.scope.surt_prefixes.contains(&prefix) {
            return Err(NotWidened::StillRefused(rule));
        }
        let mut config = (*before.config).clone();
        config.scope.surt_prefixes.push(prefix.clone());
        let widened = LiveSettings::build(Arc::new(config), before.seeds(), shared.job.root())?;
        if let Some(rule) = refused(&widened) {
            return Err(NotWidened::StillRefused(rule));
        }
        let mut live = shared
            .pipeline
            .live
            .write()
            .unwrap_or_else(PoisonError::into_inner);
        if !Arc::ptr_eq(&live, &before) {
            continue;
        }
        *live = Arc::new(widened);
        drop(live);
        let _one_writer = lock(&shared.config_writes);
        let live = shared
            .pipeline
            .live
            .read()
            .unwrap_or_else(PoisonError::into_inner);
        shared.job.write_config(&live.config)?;
        return Ok(Some(prefix));
    }
}

/// Why a running crawl's scope could not be widened.
#[derive(Debug, thiserror::Error)]
pub(super) enum NotWidened {
    /// Another scope rule refuses the target's links whatever its prefix (named).
    #[error("the scope's rule {0} refuses its links even with its SURT prefix")]
    StillRefused(String),
    /// The address policy refuses the target's address (a loopback or private one not in
    /// `fetch.allow_addresses`): it is never fetched.
    #[error(
        "its address is {0}, which the address policy refuses (a redirect's target is no seed): it is not \
         fetched; list the address in fetch.allow_addresses (read at launch) to crawl it"
    )]
    AddressRefused(trawl_config::annotation::Refusal),
    /// The target's URL names a user, which its links keep and a scope prefix leaves out.
    #[error(
        "its URL names a user (`user@`), which its links keep and no scope prefix is made with; give it as a \
         seed of the next crawl without the user"
    )]
    UserInfo,
    /// The scope with its prefix would not hold.
    #[error(transparent)]
    Settings(#[from] crate::live::SettingsError),
    /// crawl.toml could not be written.
    #[error(transparent)]
    Write(#[from] crate::Error),
}

/// Applies an operator's settings change to the running crawl: checked whole, swapped in for the URIs
/// processed from now on, and saved to the job's crawl.toml.
fn change_settings(shared: &Shared, change: &crate::live::SettingsChange) -> Reply {
    let mut live = shared
        .pipeline
        .live
        .write()
        .unwrap_or_else(PoisonError::into_inner);
    let rebuilt = match change.apply_live(&live.config, live.seeds(), shared.job.root()) {
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
