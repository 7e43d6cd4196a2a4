//! A crawl whose frontier is shared with other trawl processes through Redis (`--frontier redis://…`,
//! `trawl worker`): the worker loop claims URIs under leases from [`SharedFrontier`] and completes them with
//! what came of them in one step; everything else (chains, WARCs, crawl.log, DNS cache, connections) stays
//! local to the process. The process's own embedded frontier stays empty in this mode.

use std::{
    sync::{
        Mutex,
        atomic::{AtomicBool, Ordering},
    },
    time::{Duration, Instant},
};

use trawl_frontier::{SharedCounts, SharedError, SharedFrontier, SharedQueue};

use trawl_config::CrawlUri;

use super::handle::CrawlHandle;
use crate::{Error, chain::pipeline::Pipeline, lock::lock};

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

    /// The Redis URL as messages show it: without its password.
    pub fn shown_url(&self) -> String {
        crate::shared_job::without_password(&self.url)
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
    // `.`, `..` or `dir/..` have no file name of their own: the folder they are (xt16b F14: `--job .`
    // was the crawl "crawl").
    let resolved;
    let dir = if job_dir.file_name().is_some() {
        job_dir
    } else {
        resolved = std::path::absolute(job_dir)
            .ok()
            .and_then(|p| p.canonicalize().ok().or(Some(p)))
            .unwrap_or_else(|| job_dir.to_path_buf());
        &resolved
    };
    dir.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "crawl".to_string())
}

pub(crate) fn remote_error(url: &str, e: SharedError) -> Error {
    Error::Remote(format!("{}: {e}", crate::shared_job::without_password(url)))
}

/// The shared frontier of a running crawl. Each step on it is a round trip to Redis, which a server that
/// stopped answering holds up to the reply timeout: steps are taken through [`Remote::call`], which waits
/// for the frontier without holding an async thread and takes the step where blocking is allowed, so the
/// runtime (Ctrl-C, `trawl ctl`, the progress line) goes on meanwhile.
pub(super) struct Remote {
    pub(super) spec: RemoteSpec,
    frontier: tokio::sync::Mutex<SharedFrontier<CrawlUri>>,
    pub(super) lease: Duration,
    /// When a transient Redis failure was last said (said once a minute at most).
    said: Mutex<Option<Instant>>,
    /// Whether the last step found Redis unreachable: a crawl stopping meanwhile waits no longer for it.
    down: AtomicBool,
    /// The crawl-wide counts last read: shown while the frontier is busy or Redis away.
    counts: Mutex<SharedCounts>,
    /// Whether the last claim found the crawl paused by an operator (`ctl --frontier … pause`).
    paused: AtomicBool,
}

impl Remote {
    pub(super) fn new(
        spec: RemoteSpec,
        frontier: SharedFrontier<CrawlUri>,
        lease: Duration,
    ) -> Remote {
        Remote {
            spec,
            frontier: tokio::sync::Mutex::new(frontier),
            lease,
            said: Mutex::new(None),
            down: AtomicBool::new(false),
            counts: Mutex::default(),
            paused: AtomicBool::new(false),
        }
    }

    /// Notes whether the last claim found the crawl paused crawl-wide.
    pub(super) fn set_paused(&self, paused: bool) {
        self.paused.store(paused, Ordering::Relaxed);
    }

    /// Whether the crawl is paused crawl-wide, as the last claim found it: this worker's report says so
    /// (xt44a F10: it said RUNNING).
    pub(super) fn is_paused(&self) -> bool {
        self.paused.load(Ordering::Relaxed)
    }

    /// The frontier, before the crawl runs (nothing else holds it yet).
    pub(super) fn frontier_mut(&mut self) -> &mut SharedFrontier<CrawlUri> {
        self.frontier.get_mut()
    }

    /// Runs `step` on the shared frontier: its turn is awaited, the step itself (a round trip to Redis, up to
    /// the reply timeout when it does not answer) runs off the async threads. `None`: the crawl is stopping
    /// and Redis is unreachable, so the step is not taken (what it would have completed is taken over by
    /// another worker when its lease runs out).
    pub(super) async fn call<R>(
        &self,
        stop: &CrawlHandle,
        step: impl FnOnce(&mut SharedFrontier<CrawlUri>) -> Result<R, SharedError>,
    ) -> Option<Result<R, SharedError>> {
        let mut frontier = tokio::select! {
            f = self.frontier.lock() => f,
            () = self.given_up(stop) => return None,
        };
        if self.is_given_up(stop) {
            return None;
        }
        let result = off_the_runtime(|| step(&mut frontier));
        drop(frontier);
        let down = matches!(result, Err(SharedError::Unavailable(_)));
        self.down.store(down, Ordering::Relaxed);
        Some(result)
    }

    /// Whether steps are no longer worth waiting for: the crawl is stopping and Redis is unreachable.
    fn is_given_up(&self, stop: &CrawlHandle) -> bool {
        stop.is_stopped() && self.down.load(Ordering::Relaxed)
    }

    /// Returns once steps are no longer worth waiting for.
    async fn given_up(&self, stop: &CrawlHandle) {
        while !self.is_given_up(stop) {
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// The crawl-wide counts: read now when the frontier is free and Redis answering, else the last read
    /// (a progress line or a report does not wait for Redis).
    pub(super) fn counts(&self) -> SharedCounts {
        if !self.down.load(Ordering::Relaxed)
            && let Ok(mut f) = self.frontier.try_lock()
            && let Ok(c) = off_the_runtime(|| f.counts())
        {
            *lock(&self.counts) = c;
        }
        *lock(&self.counts)
    }

    /// The queue next in turn and every paused or retired one ([`SharedFrontier::queues`]), read now when the
    /// frontier is free and Redis answering; `None` otherwise (a progress line does not wait for Redis).
    pub(super) fn turns(&self) -> Option<Vec<SharedQueue>> {
        if self.down.load(Ordering::Relaxed) {
            return None;
        }
        let mut f = self.frontier.try_lock().ok()?;
        off_the_runtime(|| f.queues(1)).ok()
    }

    /// Says a transient failure (Redis down, full) at most once a minute.
    pub(super) fn say(&self, e: &SharedError) {
        let mut said = lock(&self.said);
        if said.is_none_or(|at| at.elapsed() > Duration::from_secs(60)) {
            // Said only of a failure the caller waits out and tries again.
            let again = if matches!(e, SharedError::Unavailable(_)) {
                "; trying again"
            } else {
                ""
            };
            // One line (the default subscriber writes warnings to stderr: xt16b F16).
            tracing::warn!("shared frontier at {}: {e}{again}", self.spec.shown_url());
            *said = Some(Instant::now());
        }
    }

    /// Runs `step` on the shared frontier until it works or fails for good: a transient failure (Redis down
    /// or full) waits and tries again, so a restart or a failover pauses the crawl instead of ending it.
    pub(super) async fn steady<R>(
        &self,
        p: &Pipeline,
        mut step: impl FnMut(&mut SharedFrontier<CrawlUri>) -> Result<R, SharedError>,
    ) -> Option<R> {
        loop {
            let result = self.call(&p.stop, &mut step).await?;
            match result {
                Ok(r) => return Some(r),
                // An unreadable item was set aside: said, and the step taken again.
                Err(e @ SharedError::Corrupt { .. }) => {
                    tracing::error!("shared frontier at {}: {e}", self.spec.shown_url());
                }
                Err(e) if e.is_transient() => {
                    self.say(&e);
                    if p.stop.is_stopped() {
                        return None;
                    }
                    tokio::time::sleep(Duration::from_secs(1)).await;
                }
                Err(e) => {
                    p.fail(format!("shared frontier at {}: {e}", self.spec.shown_url()));
                    return None;
                }
            }
        }
    }
}

/// Runs `f`, a round trip to Redis, where blocking is fine: off the async threads on a multi-threaded runtime.
fn off_the_runtime<R>(f: impl FnOnce() -> R) -> R {
    match tokio::runtime::Handle::try_current().map(|h| h.runtime_flavor()) {
        Ok(tokio::runtime::RuntimeFlavor::MultiThread) => tokio::task::block_in_place(f),
        _ => f(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A job directory given as `.`, `..` or with a trailing `/` is named by the folder it is (xt16b F14).
    #[test]
    fn a_job_directory_is_named_by_its_folder() {
        let dir = tempfile::tempdir().unwrap();
        let job = dir.path().join("nl-2026");
        std::fs::create_dir_all(job.join("sub")).unwrap();
        assert_eq!(job_name(&job), "nl-2026");
        assert_eq!(job_name(&job.join("sub/..")), "nl-2026");
        assert_eq!(job_name(&job.join("sub/../sub/..")), "nl-2026");
        let cwd = std::env::current_dir().unwrap();
        let here = cwd.file_name().unwrap().to_string_lossy();
        assert_eq!(job_name(std::path::Path::new(".")), here);
    }
}
