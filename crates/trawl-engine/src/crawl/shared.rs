//! What the crawl's tasks share ([`Shared`]), and what they do with all of it at once: a checkpoint, the
//! counters saved, the reports rendered.

use std::{
    sync::{Arc, Mutex},
    time::Instant,
};

use trawl_config::{CrawlConfig, CrawlUri};
use trawl_frontier::Frontier;
use trawl_url::Url;

use super::{remote::Remote, wake::Wake};
use crate::{
    Error,
    blocking::blocking,
    chain::pipeline::Pipeline,
    control::Reply,
    job::Job,
    lock::lock,
    report,
    stats::{STATS_FILE, Snapshot},
};

/// What the crawl's tasks share: the pipeline the workers run URIs through, the frontier (touched by the
/// worker loop, the ticker and operator commands only), and the job.
pub(super) struct Shared {
    pub(super) pipeline: Pipeline,
    /// The embedded frontier (empty when the crawl's frontier is shared: see `remote`).
    pub(super) frontier: Arc<Mutex<Frontier<CrawlUri>>>,
    /// The shared frontier, when this process is one worker of a crawl in Redis.
    pub(super) remote: Option<Remote>,
    /// Wakes workers waiting for work.
    pub(super) wake: Wake,
    pub(super) seeds: Vec<Url>,
    pub(super) job: Job,
    /// Held while a checkpoint is written: one at a time.
    pub(super) checkpointing: Mutex<()>,
    /// Held while the scope's widening writes crawl.toml outside the settings' write lock: one at a time.
    pub(super) config_writes: Mutex<()>,
    /// The tasks writing the answer files of checkpoints asked through `JOB/control/`: awaited before the
    /// crawl lets go of the job, so `trawl ctl` finds its answer (review 73 R2).
    pub(super) answering: Mutex<Vec<tokio::task::JoinHandle<()>>>,
}

/// Writes a checkpoint: the frontier's consistent copy and the crawl's counters, after rolling the archives
/// over so that every WARC named in it is closed. The frontier is held only while its view is taken (by the
/// journal, after the lines of what it records as finished); the copy is made from the view while the
/// workers go on.
///
/// `running`: whether workers may still change the frontier (else the journal is closed already).
pub(super) fn checkpoint(shared: &Shared, running: bool) -> Result<std::path::PathBuf, Error> {
    let _one_at_a_time = lock(&shared.checkpointing);
    let started = chrono::Utc::now();
    shared.pipeline.warc.close()?;
    let snap = shared.snapshot();
    if shared.remote.is_some() {
        // The frontier is in Redis (its own persistence); a worker keeps its counters and cookies.
        shared.pipeline.access.cookies.flush();
        save_stats(shared, &shared.job.state_dir());
        return Ok(shared.job.state_dir());
    }
    let view = if running {
        shared.pipeline.log.checkpoint()?
    } else {
        lock(&shared.frontier).checkpoint()?
    };
    shared.pipeline.access.cookies.flush();
    let cp = crate::checkpoint::write(&shared.job, &view, &snap, started)?;
    let jar = shared
        .job
        .state_dir()
        .join(trawl_fetch::access::COOKIES_FILE);
    if jar.exists()
        && let Err(e) = std::fs::copy(&jar, cp.join(trawl_fetch::access::COOKIES_FILE))
    {
        tracing::warn!("copying the cookie jar into the checkpoint: {e}");
    }
    save_stats(shared, &cp);
    save_stats(shared, &shared.job.state_dir());
    Ok(cp)
}

/// What an operator who asked for a checkpoint is told of the one `written`.
pub(super) fn checkpoint_reply(
    shared: &Shared,
    written: &Result<std::path::PathBuf, Error>,
) -> Reply {
    match written {
        Ok(_) if shared.remote.is_some() => Reply::Done {
            message: "this worker's counters and cookies are saved; the shared crawl's frontier is kept by \
                      Redis"
                .into(),
        },
        Ok(cp) => Reply::Done {
            message: format!(
                "checkpoint {} written",
                cp.file_name().unwrap_or_default().to_string_lossy()
            ),
        },
        // As any checkpoint's failure, it ends the crawl (xt26a N6: the answer did not say so).
        Err(e) => Reply::Failed {
            message: format!(
                "the checkpoint could not be written: {e}; the crawl ends failed with it (its state is as the \
                 last checkpoint and crawl.log left it: resume it once the cause is fixed)"
            ),
        },
    }
}

/// Gives `reply` to each of `waiters` (those gone stopped waiting).
pub(super) fn answer_checkpoint(waiters: Vec<tokio::sync::oneshot::Sender<Reply>>, reply: Reply) {
    for waiter in waiters {
        let _ = waiter.send(reply.clone());
    }
}

/// Saves the counters into `dir` (best effort: counters are not worth failing a crawl over; crawl.log is the
/// full record).
pub(super) fn save_stats(shared: &Shared, dir: &std::path::Path) {
    let stats = &shared.pipeline.stats;
    // Counted as large: serialising every counter is not worth holding an async thread for.
    let text = blocking(usize::MAX, || {
        serde_json::to_string(&stats.save()).unwrap_or_default()
    });
    if let Err(e) = shared.job.write_file(&dir.join(STATS_FILE), &text) {
        tracing::warn!("saving counters: {e}");
    }
    // Beside them, in the state and in each checkpoint (which a launch from it shows until its first
    // progress): the totals `trawl serve` reads of a job it does not run.
    let totals =
        serde_json::to_string(&crate::stats::Totals::of(&shared.snapshot())).unwrap_or_default();
    let path = dir.join(crate::stats::TOTALS_NAME);
    if let Err(e) = shared.job.write_file(&path, &totals) {
        tracing::warn!("saving totals: {e}");
    }
}

/// The queue next in turn, and when its turn comes.
type Waiting = (String, chrono::DateTime<chrono::Utc>);

/// What a shared crawl with nothing in flight waits on, as the progress line says it in one process: the queue
/// next in turn and when, else the queues the operator paused or retired that still hold URIs.
fn idle_view(turns: &[trawl_frontier::SharedQueue]) -> (Option<Waiting>, Option<(usize, u64)>) {
    if let Some(next) = turns.iter().find(|q| !q.is_held()) {
        let wall = chrono::Utc::now() + chrono::Duration::milliseconds(next.wait_ms as i64);
        return (Some((next.name.clone(), wall)), None);
    }
    (None, trawl_frontier::SharedQueue::held(turns))
}

impl Shared {
    pub(super) fn snapshot(&self) -> Snapshot {
        let mut snap = self.pipeline.stats.snapshot();
        if let Some(remote) = &self.remote {
            // Crawl-wide counts; this process's own are in the rest of the snapshot.
            let c = remote.counts();
            snap.queued = c.queued + c.later;
            snap.in_flight = c.in_flight;
            snap.discovered = c.discovered + c.refused;
            snap.refused = c.refused;
            snap.active_queues = c.active_queues;
            if snap.in_flight == 0
                && snap.queued > 0
                && let Some(turns) = remote.turns()
            {
                (snap.waiting, snap.held) = idle_view(&turns);
            }
            return snap;
        }
        let f = lock(&self.frontier);
        snap.queued = f.queued() + f.due_later() as u64;
        snap.in_flight = f.in_flight() as u64;
        snap.discovered = f.discovered() + f.refused();
        snap.refused = f.refused();
        snap.active_queues = f.active_queues() as u64;
        if snap.in_flight == 0 && snap.queued > 0 {
            let now = Instant::now();
            snap.waiting = f.next_ready().map(|(queue, at)| {
                let wait = at.saturating_duration_since(now);
                let wall =
                    chrono::Utc::now() + chrono::Duration::from_std(wait).unwrap_or_default();
                (queue, wall)
            });
            if snap.waiting.is_none() {
                snap.held = Some(f.held_by_operator()).filter(|&(queues, _)| queues > 0);
            }
        }
        snap
    }

    /// Every report as of now; `status` is the ending, or `RUNNING`.
    pub(super) fn reports(&self, status: &str) -> Vec<report::Report> {
        let snap = self.snapshot();
        let queues: Vec<crate::control::QueueRow> = lock(&self.frontier)
            .queue_infos(Instant::now())
            .into_iter()
            .map(Into::into)
            .collect();
        report::render(
            &self.job,
            &self.config().seeds.urls,
            status,
            &snap,
            &self.pipeline.stats,
            &queues,
        )
    }

    /// The crawl-wide settings in force now (no sheet applied).
    pub(super) fn config(&self) -> Arc<CrawlConfig> {
        self.pipeline.settings().config.clone()
    }
}

#[cfg(test)]
mod tests {
    use trawl_frontier::SharedQueue;

    fn queue(name: &str, state: &str, queued: u64, wait_ms: u64) -> SharedQueue {
        SharedQueue {
            name: name.into(),
            state: state.into(),
            queued,
            in_flight: 0,
            spent: queued,
            budget: None,
            delay_ms: None,
            wait_ms,
        }
    }

    /// A shared crawl with nothing in flight says what it waits on as one process does (xt44a F1): the queue
    /// next in turn, else the URIs the operator's paused or retired queues hold.
    #[test]
    fn an_idle_shared_crawl_says_what_it_waits_on() {
        let turns = [
            queue("a:1", "snoozed", 3, 60_000),
            queue("b:1", "paused", 4, 0),
        ];
        let (waiting, held) = super::idle_view(&turns);
        let (name, at) = waiting.unwrap();
        assert_eq!(name, "a:1");
        assert!(at > chrono::Utc::now() + chrono::Duration::seconds(50));
        assert_eq!(held, None);
        let turns = [
            queue("b:1", "paused", 4, 0),
            queue("c:1", "retired", 2, 0),
            queue("d:1", "paused", 0, 0),
        ];
        assert_eq!(super::idle_view(&turns), (None, Some((2, 6))));
        assert_eq!(super::idle_view(&[]), (None, None));
    }
}
