//! A crawl whose frontier is shared with other trawl processes through Redis (`--frontier redis://…`,
//! `trawl worker`): the worker loop claims URIs under leases from [`SharedFrontier`] and completes them with
//! what came of them in one step; everything else (chains, WARCs, crawl.log, DNS cache, connections) stays
//! local to the process. The process's own embedded frontier stays empty in this mode.

use std::time::{Duration, Instant};

use trawl_frontier::{Claim, Completion, Lease, Scheduled, SharedError, SharedFrontier};

use super::*;
use crate::{
    Annotation,
    chain::{Disposition, Outcome, Placement},
    status,
};

/// Where the shared frontier is and who this process is in it.
#[derive(Debug, Clone)]
pub struct RemoteSpec {
    /// `redis://HOST:PORT/DB`.
    pub url: String,
    /// The crawl's name in Redis: the job directory's name.
    pub job: String,
    /// This process's worker id (host name and process id): in its WARC names and the worker list.
    pub worker: String,
}

impl RemoteSpec {
    /// The spec for a job directory `job_dir` at `url`, as this process.
    pub fn new(url: &str, job_dir: &std::path::Path) -> RemoteSpec {
        let host = gethostname::gethostname().to_string_lossy().into_owned();
        RemoteSpec {
            url: url.to_string(),
            job: job_name(job_dir),
            worker: format!("{host}-{}", std::process::id()),
        }
    }

    /// Connects as this worker, claiming under leases of `lease`.
    pub(crate) fn connect(
        &self,
        lease: Duration,
        budget: u64,
    ) -> Result<SharedFrontier<CrawlUri>, Error> {
        SharedFrontier::connect(&self.url, &self.job, &self.worker, lease, budget)
            .map_err(|e| remote_error(&self.url, e))
    }
}

/// A job directory's name: the crawl's name in Redis.
pub fn job_name(job_dir: &std::path::Path) -> String {
    job_dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "crawl".to_string())
}

pub(crate) fn remote_error(url: &str, e: SharedError) -> Error {
    Error::Remote(format!("{url}: {e}"))
}

/// The shared frontier of a running crawl.
pub(super) struct Remote {
    pub(super) spec: RemoteSpec,
    pub(super) frontier: Mutex<SharedFrontier<CrawlUri>>,
    pub(super) lease: Duration,
    /// When a transient Redis failure was last said (said once a minute at most).
    said: Mutex<Option<Instant>>,
}

impl Remote {
    pub(super) fn new(
        spec: RemoteSpec,
        frontier: SharedFrontier<CrawlUri>,
        lease: Duration,
    ) -> Remote {
        Remote {
            spec,
            frontier: Mutex::new(frontier),
            lease,
            said: Mutex::new(None),
        }
    }

    /// Says a transient failure (Redis down, full) at most once a minute.
    fn say(&self, e: &SharedError) {
        let mut said = lock(&self.said);
        if said.is_none_or(|at| at.elapsed() > Duration::from_secs(60)) {
            tracing::warn!("shared frontier at {}: {e}", self.spec.url);
            eprintln!("trawl: shared frontier at {}: {e}", self.spec.url);
            *said = Some(Instant::now());
        }
    }

    /// Runs `step` on the shared frontier until it works or fails for good: a transient failure (Redis down
    /// or full) waits and tries again, so a restart or a failover pauses the crawl instead of ending it.
    async fn steady<R>(
        &self,
        shared: &Shared,
        mut step: impl FnMut(&mut SharedFrontier<CrawlUri>) -> Result<R, SharedError>,
    ) -> Option<R> {
        loop {
            let result = step(&mut lock(&self.frontier));
            match result {
                Ok(r) => return Some(r),
                Err(e) if e.is_transient() => {
                    self.say(&e);
                    if shared.pipeline.stop.is_stopped() {
                        return None;
                    }
                    tokio::time::sleep(Duration::from_secs(1)).await;
                }
                Err(e) => {
                    shared
                        .pipeline
                        .fail(format!("shared frontier at {}: {e}", self.spec.url));
                    return None;
                }
            }
        }
    }
}

/// The worker loop against the shared frontier: claim, run the chains, complete with the outcome. Idle
/// workers wait on [`super::wake`] as the embedded loop's do: one claim at a time asks Redis, not one per
/// idle worker (what other processes change is seen at the alarm's next wake, within 250 ms).
pub(super) async fn worker(shared: Arc<Shared>, remote: &Remote, id: usize) {
    let stop = &shared.pipeline.stop;
    loop {
        if !super::wake::running(stop).await {
            return;
        }
        let Some(claim) = remote.steady(&shared, |f| f.claim()).await else {
            return;
        };
        match claim {
            Claim::Ready { item, queue, lease } => {
                shared.wake.one();
                let outcome = chain::process(&shared.pipeline, item, &queue, id).await;
                complete(&shared, remote, &queue, &lease, outcome, id).await;
                shared.wake.one();
                continue;
            }
            Claim::WaitUntil(at) => shared.wake.at(at),
            // More queues are due than one claim looks at: at once again.
            Claim::Busy => continue,
            Claim::Paused => {}
            Claim::Empty => {
                shared.wake.all();
                return;
            }
            Claim::Stopped => {
                stop.stop();
                return;
            }
        }
        shared.wake.wait(stop).await;
    }
}

/// Hands a URI's outcome to the shared frontier: the URI done or put back, and its children, in one step
/// (its WARC records and crawl.log line are written already: at-least-once).
async fn complete(
    shared: &Shared,
    remote: &Remote,
    queue: &str,
    lease: &Lease,
    outcome: Outcome,
    worker: usize,
) {
    let p = &shared.pipeline;
    let now = Instant::now();
    let Outcome {
        disposition,
        children,
        predicted,
        mut cuts,
        release: _,
        line,
    } = outcome;
    if let Some(line) = line {
        p.write_line(line);
    }
    let mut done = Completion::default();
    match disposition {
        Disposition::Done { delay, .. } => done.delay = delay,
        Disposition::Retry { mut uri, delay } => {
            uri.annotations.clear();
            done.first.push((queue.to_string(), uri));
            done.delay = delay;
        }
        Disposition::RetryLater { mut uri, at, delay } => {
            uri.annotations.clear();
            done.later
                .push((queue.to_string(), uri, at.saturating_duration_since(now)));
            done.delay = delay;
        }
        Disposition::Held { mut uri, hold } => {
            uri.annotations.clear();
            match hold {
                // Its robots.txt is a child of this outcome, ahead of it in its queue.
                None => done.first.push((queue.to_string(), uri)),
                // Its robots.txt is on its way elsewhere: back of the queue, to look again after a while
                // (never in front of that robots.txt, should it be in this queue).
                Some(h) => done.later.push((
                    queue.to_string(),
                    uri,
                    h.until.saturating_duration_since(now),
                )),
            }
        }
        Disposition::HandedOver => {}
    }
    let mut known = Vec::new();
    for child in children {
        match child.placement {
            Placement::New => {
                known.push(child.known);
                done.new.push((child.queue, child.uri));
            }
            Placement::Prerequisite => done.first.insert(0, (child.queue, child.uri)),
            Placement::Revisit(at) => {
                done.later
                    .push((child.queue, child.uri, at.saturating_duration_since(now)))
            }
        }
    }
    let Some(result) = remote
        .steady(shared, |f| f.finished(queue, lease, &done))
        .await
    else {
        return;
    };
    let Some(results) = result else {
        // The lease expired and another worker holds the URI now: it fetches it again.
        tracing::warn!(
            "{queue}: a lease expired before its URI was done; another worker redoes it"
        );
        return;
    };
    if results.contains(&Scheduled::Queued)
        && let Some(next) = predicted
    {
        let _ = remote
            .steady(shared, |f| {
                f.schedule_batch(vec![(next.queue.clone(), next.uri.clone())])
            })
            .await;
    }
    let new: Vec<CrawlUri> = done.new.into_iter().map(|(_, uri)| uri).collect();
    for (uri, result) in new.into_iter().zip(&results) {
        if *result == Scheduled::OverBudget {
            let mut uri = uri;
            uri.annotate(Annotation::Budget);
            cuts.push(crate::chain::Cut {
                uri,
                status: status::OVER_QUOTA,
            });
        }
    }
    // A cut is logged once per uniq key crawl-wide, and not at all for a URI the crawl has (or will) fetch.
    for cut in cuts {
        let key = cut.uri.uniq_key.clone();
        let first = remote
            .steady(shared, |f| {
                Ok(!f.is_seen(&key)? && f.mark_seen(&format!("cut {key}"))?)
            })
            .await;
        if first == Some(true) {
            p.write_line(p.log_failure(&cut.uri, cut.status, worker));
        }
    }
    super::worker::remember_known(p, known, &results);
}

/// Takes up settings an operator published for the whole crawl (`trawl ctl --frontier … set`, sheets):
/// each second the settings version is looked at, and a new one is built and swapped in, as a local change
/// would be, and written to this worker's crawl.toml.
pub(super) async fn follow_settings(shared: Arc<Shared>) {
    let Some(remote) = &shared.remote else {
        return;
    };
    let mut known = lock(&remote.frontier).settings_version().unwrap_or(0);
    loop {
        tokio::time::sleep(Duration::from_secs(1)).await;
        let fetched = {
            let mut f = lock(&remote.frontier);
            match f.settings_version() {
                Ok(v) if v > known => f.config().map(|text| (v, text)),
                Ok(_) => continue,
                Err(e) => Err(e),
            }
        };
        let (version, text) = match fetched {
            Ok((v, Some(text))) => (v, text),
            Ok((_, None)) => continue,
            Err(e) => {
                remote.say(&e);
                continue;
            }
        };
        known = version;
        let config = match CrawlConfig::parse(&text, &shared.job.config_path()) {
            Ok(c) => c,
            Err(e) => {
                tracing::warn!("the crawl's published settings cannot be read: {e}");
                continue;
            }
        };
        match crate::live::LiveSettings::build(Arc::new(config), &shared.seeds, shared.job.root()) {
            Ok(live) => {
                *shared
                    .pipeline
                    .live
                    .write()
                    .unwrap_or_else(PoisonError::into_inner) = Arc::new(live);
                if let Err(e) = shared.job.write_file(&shared.job.config_path(), &text) {
                    tracing::warn!("saving the crawl's new settings: {e}");
                }
                tracing::info!("settings version {version} taken up");
            }
            Err(e) => tracing::warn!("the crawl's published settings do not apply here: {e}"),
        }
    }
}

/// Renews this process's leases (its heartbeat) every third of a lease, so a long fetch keeps its URI while
/// a dead process's leases expire within one lease.
pub(super) async fn renew_leases(shared: Arc<Shared>) {
    let Some(remote) = &shared.remote else {
        return;
    };
    loop {
        tokio::time::sleep(remote.lease / 3).await;
        let renewed = lock(&remote.frontier).renew();
        if let Err(e) = renewed {
            remote.say(&e);
        }
    }
}
