//! A crawl whose frontier is shared with other trawl processes through Redis (`--frontier redis://…`,
//! `trawl worker`): the worker loop claims URIs under leases from [`SharedFrontier`] and completes them with
//! what came of them in one step; everything else (chains, WARCs, crawl.log, DNS cache, connections) stays
//! local to the process. The process's own embedded frontier stays empty in this mode.

use std::{
    sync::Mutex,
    time::{Duration, Instant},
};

use trawl_frontier::{SharedError, SharedFrontier};

use trawl_config::CrawlUri;

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
    pub(super) fn say(&self, e: &SharedError) {
        let mut said = lock(&self.said);
        if said.is_none_or(|at| at.elapsed() > Duration::from_secs(60)) {
            // Said only of a failure the caller waits out and tries again.
            let again = if matches!(e, SharedError::Unavailable(_)) {
                "; trying again"
            } else {
                ""
            };
            tracing::warn!("shared frontier at {}: {e}{again}", self.spec.url);
            eprintln!("trawl: shared frontier at {}: {e}{again}", self.spec.url);
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
            let result = step(&mut lock(&self.frontier));
            match result {
                Ok(r) => return Some(r),
                Err(e) if e.is_transient() => {
                    self.say(&e);
                    if p.stop.is_stopped() {
                        return None;
                    }
                    tokio::time::sleep(Duration::from_secs(1)).await;
                }
                Err(e) => {
                    p.fail(format!("shared frontier at {}: {e}", self.spec.url));
                    return None;
                }
            }
        }
    }
}
