//! The jobs under one folder, and the crawls running from them in this process.

use std::{
    collections::BTreeMap,
    path::{Path, PathBuf},
    sync::{Arc, Mutex, PoisonError},
};

use serde::Serialize;
use trawl_config::CrawlConfig;
use trawl_engine::{
    Crawl, CrawlHandle,
    control::{self, Command, Reply},
    stats::Snapshot,
};

use crate::error::ApiError;

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// What the manager knows of a job it launched.
#[derive(Debug, Default)]
struct Live {
    handle: Option<CrawlHandle>,
    /// While the crawl is being prepared ([`JobManager::launch`]): the handle it will run with, so that a
    /// stop asked meanwhile (the server quitting) stops it as soon as it runs.
    launching: Option<CrawlHandle>,
    /// The latest and the one before, to compute current rates.
    last: Snapshot,
    prev: Snapshot,
    /// How the crawl ended, once it has.
    ending: Option<String>,
}

/// The jobs folder and the crawls running from it.
#[derive(Debug)]
pub struct JobManager {
    dir: PathBuf,
    live: Mutex<BTreeMap<String, Arc<Mutex<Live>>>>,
    /// Per job, held while this server has its stopped store open (a queue, seed, lookup or settings command
    /// applied to it) or prepares its launch: these take the job's lock, so at the same moment they would
    /// refuse each other as if another process crawled the job; they wait for each other instead.
    store: Mutex<BTreeMap<String, Arc<tokio::sync::Mutex<()>>>>,
}

/// A job's counters and rates, as the API reports them.
#[derive(Debug, Clone, Serialize, Default)]
pub struct Counters {
    /// Seconds since the crawl (re)started.
    pub elapsed_s: f64,
    /// URIs finished.
    pub finished: u64,
    /// URIs finished with an HTTP response.
    pub succeeded: u64,
    /// URIs finished without one, the disregarded ones apart.
    pub failed: u64,
    /// URIs the crawl chose not to fetch (scope, robots.txt, budget, address policy refusals).
    pub disregarded: u64,
    /// URIs waiting in the frontier.
    pub queued: u64,
    /// URIs being processed.
    pub in_flight: u64,
    /// Distinct URIs discovered.
    pub discovered: u64,
    /// Queues with work.
    pub active_queues: u64,
    /// Bytes received.
    pub wire_bytes: u64,
    /// URIs per second over the last second.
    pub uris_per_s: f64,
    /// KB per second over the last second.
    pub kb_per_s: f64,
    /// URIs per second since the start.
    pub avg_uris_per_s: f64,
}

/// One job as listed.
#[derive(Debug, Clone, Serialize)]
pub struct JobStatus {
    /// The job's name (its folder under the jobs folder).
    pub id: String,
    /// created, launching, running, paused, stopping, finished, stopped or failed.
    pub state: String,
    /// How the last run ended, when known (`interrupted (not stopped cleanly) …` for a run killed or crashed).
    pub ending: Option<String>,
    /// The counters (zero before the first run in this process).
    pub counters: Counters,
    /// Checkpoint names, oldest first.
    pub checkpoints: Vec<String>,
}

impl Counters {
    /// The counters of `last`, with current rates from the change since `prev`.
    pub fn from_snapshots(last: &Snapshot, prev: &Snapshot) -> Counters {
        counters(last, prev)
    }
}

fn counters(last: &Snapshot, prev: &Snapshot) -> Counters {
    let dt = last.elapsed.saturating_sub(prev.elapsed).as_secs_f64();
    let per = |a: u64, b: u64| {
        if dt > 0.0 {
            a.saturating_sub(b) as f64 / dt
        } else {
            0.0
        }
    };
    Counters {
        elapsed_s: last.elapsed.as_secs_f64(),
        finished: last.finished,
        succeeded: last.succeeded,
        failed: last.failed,
        disregarded: last.disregarded,
        queued: last.queued,
        in_flight: last.in_flight,
        discovered: last.discovered,
        active_queues: last.active_queues,
        wire_bytes: last.wire_bytes,
        uris_per_s: per(last.finished, prev.finished),
        kb_per_s: per(last.wire_bytes, prev.wire_bytes) / 1024.0,
        avg_uris_per_s: if last.elapsed.is_zero() {
            0.0
        } else {
            last.rate()
        },
    }
}

/// The `ending` of a job whose last run did not end cleanly (the process crawling it was killed or crashed).
pub(crate) const INTERRUPTED: &str =
    "interrupted (not stopped cleanly): launch it to repair its WARCs and continue";

/// Whether the job at `dir`, crawled by no live process, shows a run that did not end cleanly: a WARC still
/// `.open` in `warcs/` (a clean end closes them all), or the pid file `state/crawl.pid` left behind (a clean
/// end removes it before writing the reports; `crawl.pid` is written when a run starts, before it writes any
/// WARC, so it also catches a run killed before its first record). Either sign is left only by an end that
/// skipped the shutdown, whatever the report of an earlier run says; the next launch repairs and clears them.
/// So does the marker of a checkpoint's restore a kill cut short (the launch restores it again), and that of
/// a run's end a kill cut short (its final checkpoint, counters and reports: `state/ending`).
fn interrupted(dir: &Path) -> bool {
    let open = std::fs::read_dir(dir.join("warcs"))
        .into_iter()
        .flatten()
        .flatten()
        .any(|e| e.file_name().to_string_lossy().ends_with(".open"));
    open || ["crawl.pid", "restoring", trawl_engine::ENDING]
        .iter()
        .any(|name| dir.join("state").join(name).is_file())
}

/// The refusal of an action on job `id` while its crawl stops (xt26a N2: it was told to terminate the job
/// it had just terminated): `then` once it has stopped.
fn stopping(id: &str, then: &str) -> ApiError {
    ApiError::conflict(format!(
        "job {id:?} is stopping (URIs in flight end, then its final checkpoint and reports are written): {then} \
         once `GET /api/jobs/{id}` shows it stopped"
    ))
}

/// Whether `id` may name a job folder: 1–64 of `A-Z a-z 0-9 . _ -`, not starting with a dot.
pub(crate) fn valid_id(id: &str) -> bool {
    !id.is_empty()
        && id.len() <= 64
        && !id.starts_with('.')
        && id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'))
}

/// Refuses `id` unless it may name a new job folder ([`valid_id`]): not starting with a dash either, which `trawl ctl -name` would read as an option
/// (xt23a F8); one an earlier build made is still a job (review 71 R6).
pub(crate) fn check_id(id: &str) -> Result<(), ApiError> {
    if valid_id(id) && !id.starts_with('-') {
        Ok(())
    } else {
        Err(ApiError::bad_request(format!(
            "{id:?} is not a job name: use 1-64 of A-Z a-z 0-9 . _ - (not starting with a dot or a dash)"
        )))
    }
}

impl JobManager {
    /// Jobs under `dir` (created if needed).
    pub fn new(dir: &Path) -> std::io::Result<JobManager> {
        std::fs::create_dir_all(dir)?;
        Ok(JobManager {
            dir: dir.to_path_buf(),
            live: Mutex::default(),
            store: Mutex::default(),
        })
    }

    /// The jobs folder.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The folder of job `id`, if it exists.
    pub fn job_dir(&self, id: &str) -> Result<PathBuf, ApiError> {
        let dir = self.dir.join(id);
        if valid_id(id) && dir.join("crawl.toml").is_file() {
            Ok(dir)
        } else {
            Err(ApiError::not_found(format!("no job {id:?}")))
        }
    }

    /// Creates job `id` with `config` as its crawl.toml text.
    pub fn create(&self, id: &str, config: &str) -> Result<PathBuf, ApiError> {
        let dir = self.make_folder(id)?;
        std::fs::write(dir.join("crawl.toml"), config).map_err(ApiError::internal)?;
        Ok(dir)
    }

    /// Makes job `id`'s folder, still without its crawl.toml (so not yet a job): refused when `id` is not a
    /// job name or the folder exists.
    pub(crate) fn make_folder(&self, id: &str) -> Result<PathBuf, ApiError> {
        check_id(id)?;
        let dir = self.dir.join(id);
        std::fs::create_dir_all(&self.dir).map_err(ApiError::internal)?;
        // One request makes the folder; any other at the same moment finds it made (not a check, then a make).
        match std::fs::create_dir(&dir) {
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                return Err(ApiError::conflict(format!("job {id:?} exists")));
            }
            other => other.map_err(ApiError::internal)?,
        }
        Ok(dir)
    }

    /// Every job folder's name, sorted.
    pub fn ids(&self) -> Vec<String> {
        let mut ids: Vec<String> = std::fs::read_dir(&self.dir)
            .map(|rd| {
                rd.flatten()
                    .filter(|e| e.path().join("crawl.toml").is_file())
                    .filter_map(|e| e.file_name().to_str().map(str::to_string))
                    .filter(|id| valid_id(id))
                    .collect()
            })
            .unwrap_or_default();
        ids.sort();
        ids
    }

    /// The lock this server takes on job `id`'s stopped store (see the `store` field).
    fn store_lock(&self, id: &str) -> Arc<tokio::sync::Mutex<()>> {
        lock(&self.store).entry(id.to_string()).or_default().clone()
    }

    fn live(&self, id: &str) -> Option<Arc<Mutex<Live>>> {
        lock(&self.live).get(id).cloned()
    }

    /// The handle of job `id`'s running crawl.
    pub fn handle(&self, id: &str) -> Option<CrawlHandle> {
        self.live(id).and_then(|l| lock(&l).handle.clone())
    }

    /// Asks every crawl running in this process to stop (as `trawl ctl stop` does: URIs in flight finish, a
    /// checkpoint, reports) and returns how many were asked.
    pub fn stop_all(&self) -> usize {
        let handles: Vec<CrawlHandle> = lock(&self.live)
            .values()
            .filter_map(|l| lock(l).handle.clone())
            .collect();
        let launching: Vec<CrawlHandle> = lock(&self.live)
            .values()
            .filter_map(|l| lock(l).launching.clone())
            .collect();
        for h in handles.iter().chain(&launching) {
            h.stop();
        }
        handles.len()
    }

    /// Waits until no crawl runs in this process.
    pub async fn until_all_ended(&self) {
        loop {
            let running = lock(&self.live).values().any(|l| {
                let l = lock(l);
                l.handle.is_some() || l.launching.is_some()
            });
            if !running {
                return;
            }
            tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        }
    }

    /// The process crawling into job folder `dir` outside this server (`trawl crawl` or `resume` run by
    /// hand), if one is: then only `trawl ctl` there may change it.
    pub fn crawled_elsewhere(dir: &Path) -> Option<u32> {
        control::running_pid(dir).filter(|&pid| pid != std::process::id())
    }

    /// The refusal for an action on job `id` that another process crawls into.
    pub fn elsewhere_refusal(id: &str, pid: u32) -> ApiError {
        ApiError::conflict(crate::error::in_use(id, Some(pid)))
    }

    /// Whether job `id` is being launched here ([`JobManager::launch`]): its crawl is being prepared.
    pub fn is_launching(&self, id: &str) -> bool {
        self.live(id).is_some_and(|l| lock(&l).launching.is_some())
    }

    /// The refusal of an action on job `id` while it is being launched: what it waits for, and what to do.
    pub fn launching_refusal(id: &str) -> ApiError {
        ApiError::conflict(format!(
            "job {id:?} is being launched (its WARCs repaired, its frontier reopened): wait until its state is \
             `running` (GET /api/jobs/{id}), then try again"
        ))
    }

    /// Job `id`'s fetch latencies: its run's in this process, else those it saved last.
    pub fn latency(&self, id: &str) -> trawl_engine::stats::Latency {
        let here = self
            .live(id)
            .map(|l| lock(&l).last.latency.clone())
            .filter(|l| l.count() > 0);
        match (here, self.job_dir(id)) {
            (Some(latency), _) => latency,
            (None, Ok(dir)) => trawl_engine::stats::Latency::saved(&dir),
            (None, Err(_)) => trawl_engine::stats::Latency::default(),
        }
    }

    /// Job `id`'s status.
    pub fn status(&self, id: &str) -> Result<JobStatus, ApiError> {
        let dir = self.job_dir(id)?;
        // Read only: a status is asked often and at once by many clients.
        let job = trawl_engine::job::Job::open(&dir).map_err(ApiError::internal)?;
        let checkpoints = trawl_engine::checkpoint::list(&job)
            .iter()
            .filter_map(|p| p.file_name().map(|f| f.to_string_lossy().into_owned()))
            .collect();
        let report_status = || {
            std::fs::read_to_string(dir.join("reports/crawl-report.json"))
                .ok()
                .and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok())
                .and_then(|v| v["status"].as_str().map(str::to_string))
        };
        // Run (or ended) in this process: what it knows. Being launched, or not run here: what the folder says.
        let live = self.live(id);
        let launching = live.as_ref().is_some_and(|l| lock(l).launching.is_some());
        // A run of this process that ended gives way to one another process crawls now (xt26a N1).
        let elsewhere_now = || Self::crawled_elsewhere(&dir).is_some();
        let here = live.filter(|l| {
            let l = lock(l);
            l.launching.is_none()
                && (l.handle.is_some() || (l.ending.is_some() && !elsewhere_now()))
        });
        let (state, ending, c) = match here {
            Some(live) => {
                let l = lock(&live);
                let state = match (&l.handle, &l.ending) {
                    (Some(h), _) if h.is_stopped() => "stopping",
                    (Some(h), _) if h.is_paused() => "paused",
                    (Some(_), _) => "running",
                    (None, Some(e)) => ending_state(e),
                    (None, None) => "created",
                };
                (state, l.ending.clone(), counters(&l.last, &l.prev))
            }
            None => {
                let elsewhere = Self::crawled_elsewhere(&dir).is_some();
                // The report is the last clean end's; a later run that did not end cleanly left signs.
                // A run under way elsewhere has no ending yet: the report's is an earlier run's (xt9a F14).
                let ending = if elsewhere {
                    None
                } else if interrupted(&dir) {
                    Some(INTERRUPTED.to_string())
                } else {
                    report_status()
                };
                let state = match &ending {
                    _ if launching => "launching",
                    _ if elsewhere => "running",
                    Some(e) if e == INTERRUPTED => "stopped",
                    Some(e) => ending_state(e),
                    None if trawl_engine::job::holds_a_crawl(&dir) => "stopped",
                    None => "created",
                };
                // Not run in this process: the totals it saved last (every 20 s while it ran, at each
                // checkpoint and at its end; never older than the report).
                let saved = saved_snapshot(&dir);
                (state, ending, counters(&saved, &saved))
            }
        };
        Ok(JobStatus {
            id: id.to_string(),
            state: state.to_string(),
            ending: ending.map(|e| crate::error::ending_in_api_terms(id, &e)),
            counters: c,
            checkpoints,
        })
    }

    /// Starts job `id`: a fresh crawl, or a resumed one when it has crawled before or `checkpoint` is given;
    /// returns the lines saying what its start found: the repair of its WARCs, lost counters
    /// ([`Crawl::start_lines`]).
    ///
    /// The job is marked as launching (status `launching`; a second launch is refused) while the crawl is
    /// prepared on a blocking thread: repairing `.open` WARCs and reopening a large frontier can take
    /// minutes, during which the other jobs' statuses answer. The preparation goes on to its end even if
    /// the caller stops waiting.
    pub async fn launch(
        &self,
        id: &str,
        checkpoint: Option<&str>,
    ) -> Result<Vec<String>, ApiError> {
        let dir = self.job_dir(id)?;
        let handle = CrawlHandle::default();
        let live = {
            let mut map = lock(&self.live);
            let live = map.entry(id.to_string()).or_default().clone();
            let mut l = lock(&live);
            if l.handle.as_ref().is_some_and(CrawlHandle::is_stopped) {
                return Err(stopping(id, "launch it again"));
            }
            if l.handle.is_some() {
                return Err(ApiError::conflict(format!(
                    "job {id:?} is running: it goes on by itself (`GET /api/jobs/{id}` shows it); to launch \
                     it again, terminate it first (`POST /api/jobs/{id}/terminate`)"
                )));
            }
            if l.launching.is_some() {
                return Err(Self::launching_refusal(id));
            }
            l.launching = Some(handle.clone());
            drop(l);
            live
        };
        let checkpoint = checkpoint.map(str::to_string);
        let store = self.store_lock(id);
        let saved_in = dir.clone();
        let id = id.to_string();
        let task = tokio::spawn(async move {
            // After a command applied to the stopped store at this moment; until the crawl runs (and holds the
            // job itself), no other such command starts: the job is `launching`.
            let _store = store.lock_owned().await;
            let job = id.clone();
            let prepared =
                tokio::task::spawn_blocking(move || prepare(&job, &dir, checkpoint.as_deref()))
                    .await
                    .map_err(ApiError::internal)
                    .and_then(|r| r);
            let crawl = match prepared {
                Ok(crawl) => crawl,
                Err(e) => {
                    lock(&live).launching = None;
                    return Err(e);
                }
            };
            let notes = crawl.start_lines();
            // Until the crawl's first progress: the totals its folder saved, which a resume carries on from
            // (not zeros, which a counter's reader would take for a reset).
            let saved = saved_snapshot(&saved_in);
            {
                let mut l = lock(&live);
                l.launching = None;
                l.handle = Some(handle.clone());
                l.ending = None;
                l.last = saved.clone();
                l.prev = saved;
            }
            let progress = live.clone();
            tokio::spawn(async move {
                let result = crawl
                    .run(handle, move |s| {
                        let mut l = lock(&progress);
                        l.prev = std::mem::replace(&mut l.last, s.clone());
                    })
                    .await;
                let mut l = lock(&live);
                l.handle = None;
                l.ending = Some(match result {
                    Ok(summary) => {
                        l.prev = l.last.clone();
                        l.last = summary.stats;
                        summary.ending.to_string()
                    }
                    Err(e) => format!("FAILED: {}", crate::error::engine_sentence(&id, &e)),
                });
            });
            Ok(notes)
        });
        task.await.map_err(ApiError::internal)?
    }

    /// Sends `command` to job `id`: to its running crawl, or straight to its stopped store.
    pub async fn send(&self, id: &str, command: Command) -> Result<Reply, ApiError> {
        let dir = self.job_dir(id)?;
        match self.handle(id) {
            Some(h) => match h.try_send(command.clone()).await {
                Some(reply) => Ok(reply),
                // The crawl ended while the command was on its way: once its run has let the job go, the
                // command is applied to the stopped job, as `trawl ctl` does (docs/frontier.md).
                None => {
                    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
                    while self.handle(id).is_some() {
                        if std::time::Instant::now() > deadline {
                            return Err(ApiError::conflict(format!(
                                "job {id:?} is ending: send the command again once its state is not `running`"
                            )));
                        }
                        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
                    }
                    Box::pin(self.send(id, command)).await
                }
            },
            None if self.is_launching(id) => Err(Self::launching_refusal(id)),
            None if let Some(pid) = Self::crawled_elsewhere(&dir) => {
                Err(Self::elsewhere_refusal(id, pid))
            }
            None => {
                // One command at a time on the stopped store, and none while a launch prepares the crawl.
                let store = self.store_lock(id).lock_owned().await;
                if self.handle(id).is_some() || self.is_launching(id) {
                    // Launched while this waited: to the running crawl, or refused while it is launching.
                    drop(store);
                    return Box::pin(self.send(id, command)).await;
                }
                let job = id.to_string();
                tokio::task::spawn_blocking(move || {
                    let _store = store;
                    offline(&job, &dir, &command)
                })
                .await
                .map_err(ApiError::internal)?
            }
        }
    }

    /// Forgets a job that is not running (its folder stays); whether this server held anything of it.
    pub fn teardown(&self, id: &str) -> Result<bool, ApiError> {
        let dir = self.job_dir(id)?;
        // Another process's crawl is its own to end (xt37a F8: it was "torn down" here, and logged).
        if let Some(pid) = Self::crawled_elsewhere(&dir) {
            return Err(Self::elsewhere_refusal(id, pid));
        }
        let mut map = lock(&self.live);
        if map
            .get(id)
            .is_some_and(|l| lock(l).handle.as_ref().is_some_and(CrawlHandle::is_stopped))
        {
            return Err(stopping(id, "tear it down"));
        }
        // A launch under way cannot be terminated yet: said as the launch's refusal says it (xt38a N4: each of
        // teardown and terminate pointed at the other).
        if map.get(id).is_some_and(|l| lock(l).launching.is_some()) {
            return Err(Self::launching_refusal(id));
        }
        if map.get(id).is_some_and(|l| lock(l).handle.is_some()) {
            return Err(ApiError::conflict(format!(
                "job {id:?} is running: terminate it first (`POST /api/jobs/{id}/terminate`), then tear it down"
            )));
        }
        Ok(map.remove(id).is_some())
    }
}

/// The totals job folder `dir` saved last ([`trawl_engine::stats::Totals`]), as a snapshot (zeros when it
/// saved none: a first run).
fn saved_snapshot(dir: &Path) -> Snapshot {
    trawl_engine::stats::Totals::read(dir).map_or_else(Snapshot::default, |t| Snapshot {
        elapsed: std::time::Duration::try_from_secs_f64(t.elapsed_s).unwrap_or_default(),
        finished: t.finished,
        succeeded: t.succeeded,
        failed: t.failed,
        disregarded: t.disregarded,
        wire_bytes: t.wire_bytes,
        queued: t.queued,
        discovered: t.discovered,
        refused: t.refused,
        active_queues: t.active_queues,
        ..Snapshot::default()
    })
}

/// `command` applied to job `id`'s stopped store in `dir`. Another process holding the job (one that started
/// since it was checked) is the job's state (409), told in the API's words; a refused settings change is a
/// [`Reply::Failed`] naming the setting.
fn offline(id: &str, dir: &Path, command: &Command) -> Result<Reply, ApiError> {
    let refused =
        |e: &trawl_engine::Error| ApiError::conflict(crate::error::engine_sentence(id, e));
    match command {
        Command::Settings { change } => match trawl_engine::live::change_offline(dir, change) {
            Ok(message) => Ok(Reply::Done { message }),
            Err(e @ trawl_engine::Error::JobInUse { .. }) => Err(refused(&e)),
            Err(e) => Ok(Reply::Failed {
                message: e.to_string(),
            }),
        },
        _ => control::apply_offline(dir, command).map_err(|e| refused(&e)),
    }
}

/// Job `id`'s crawl (in `dir`): resumed when it has crawled before or `checkpoint` is given, else a fresh one
/// (slow: it repairs WARCs and reopens the frontier).
fn prepare(id: &str, dir: &Path, checkpoint: Option<&str>) -> Result<Crawl, ApiError> {
    if checkpoint.is_some() || trawl_engine::job::holds_a_crawl(dir) {
        Crawl::resume(dir, checkpoint)
    } else {
        CrawlConfig::load(&dir.join("crawl.toml"))
            .map_err(trawl_engine::Error::from)
            .and_then(|c| Crawl::new(dir, c, &[]))
    }
    .map_err(|e| {
        // Without the text of a file the config names (review 85 R1: a class file's lines came back here).
        let own = std::fs::read_to_string(dir.join("crawl.toml")).unwrap_or_default();
        let sentence = crate::api::written::unquoted(&crate::error::engine_sentence(id, &e), &own);
        match e {
            // Another process (a `trawl crawl` or `resume` outside the server) crawls into it, or it has no
            // crawl to launch from a checkpoint: the job's state, not the request, is at fault.
            trawl_engine::Error::JobInUse { .. } | trawl_engine::Error::NothingToResume(_) => {
                ApiError::conflict(sentence)
            }
            _ => ApiError::bad_request(sentence),
        }
    })
}

fn ending_state(ending: &str) -> &'static str {
    if ending.starts_with("FINISHED") {
        "finished"
    } else if ending.starts_with("STOPPED") {
        "stopped"
    } else {
        "failed"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_job_not_run_here_shows_its_saved_totals() {
        let dir = tempfile::tempdir().unwrap();
        let jobs = JobManager::new(dir.path()).unwrap();
        jobs.create("old", "").unwrap();
        assert_eq!(jobs.status("old").unwrap().counters.finished, 0);
        std::fs::create_dir_all(dir.path().join("old/state/frontier")).unwrap();
        let totals = trawl_engine::stats::Totals {
            elapsed_s: 10.0,
            finished: 120,
            succeeded: 118,
            failed: 2,
            disregarded: 0,
            queued: 5,
            discovered: 125,
            refused: 0,
            active_queues: 1,
            wire_bytes: 4096,
        };
        std::fs::write(
            dir.path()
                .join("old")
                .join(trawl_engine::stats::TOTALS_FILE),
            serde_json::to_string(&totals).unwrap(),
        )
        .unwrap();
        let status = jobs.status("old").unwrap();
        assert_eq!(status.state, "stopped");
        let c = status.counters;
        assert_eq!(
            (c.finished, c.failed, c.queued, c.wire_bytes),
            (120, 2, 5, 4096)
        );
        assert!((c.avg_uris_per_s - 12.0).abs() < 1e-9);
    }

    /// xt26a N2: a launch or teardown of a job whose crawl is stopping says it is stopping, not running.
    #[tokio::test]
    async fn a_job_stopping_is_said_to_be_stopping() {
        let dir = tempfile::tempdir().unwrap();
        let jobs = JobManager::new(dir.path()).unwrap();
        jobs.create("s1", "").unwrap();
        let handle = CrawlHandle::default();
        handle.stop();
        lock(&jobs.live).insert(
            "s1".into(),
            Arc::new(Mutex::new(Live {
                handle: Some(handle),
                ..Live::default()
            })),
        );
        for refused in [
            jobs.launch("s1", None).await.unwrap_err(),
            jobs.teardown("s1").unwrap_err(),
        ] {
            assert!(
                refused.status == axum::http::StatusCode::CONFLICT
                    && refused.message.contains("is stopping"),
                "{}",
                refused.message
            );
        }
    }

    /// A run killed after a clean one: the report's ending gives way to "interrupted", the counters are the
    /// totals saved after the report.
    #[test]
    fn a_run_killed_after_a_clean_one_shows_as_interrupted() {
        let dir = tempfile::tempdir().unwrap();
        let jobs = JobManager::new(dir.path()).unwrap();
        let job = jobs.create("c1", "").unwrap();
        for sub in ["state/frontier", "reports", "warcs"] {
            std::fs::create_dir_all(job.join(sub)).unwrap();
        }
        std::fs::write(
            job.join("reports/crawl-report.json"),
            r#"{"status": "STOPPED by operator"}"#,
        )
        .unwrap();
        let totals = |finished| trawl_engine::stats::Totals {
            elapsed_s: 10.0,
            finished,
            succeeded: finished,
            failed: 0,
            disregarded: 0,
            queued: 5,
            discovered: finished + 5,
            refused: 0,
            active_queues: 1,
            wire_bytes: 4096,
        };
        let save = |t| {
            let text = serde_json::to_string(&t).unwrap();
            std::fs::write(job.join(trawl_engine::stats::TOTALS_FILE), text).unwrap();
        };
        save(totals(145));
        std::fs::write(job.join("warcs/trawl-1-00000-h.warc.gz"), "").unwrap();
        let clean = jobs.status("c1").unwrap();
        assert_eq!(
            (clean.state.as_str(), clean.ending.as_deref()),
            ("stopped", Some("STOPPED by operator"))
        );

        // Killed mid-run: a WARC left open, totals saved since.
        let open = job.join("warcs/trawl-2-00000-h.warc.gz.open");
        std::fs::write(&open, "").unwrap();
        save(totals(190));
        let status = jobs.status("c1").unwrap();
        assert_eq!(
            (status.state.as_str(), status.ending.as_deref()),
            ("stopped", Some(INTERRUPTED))
        );
        assert_eq!(status.counters.finished, 190);

        // Killed before its first WARC: its pid file left behind (a dead process, or this one's number).
        std::fs::remove_file(&open).unwrap();
        for pid in [u32::MAX, std::process::id()] {
            std::fs::write(job.join("state/crawl.pid"), pid.to_string()).unwrap();
            assert_eq!(
                jobs.status("c1").unwrap().ending.as_deref(),
                Some(INTERRUPTED)
            );
        }
        std::fs::remove_file(job.join("state/crawl.pid")).unwrap();
        assert_eq!(
            jobs.status("c1").unwrap().ending.as_deref(),
            Some("STOPPED by operator")
        );

        // Killed while its end wrote the final checkpoint and reports (xt26a N3): not the earlier stop.
        std::fs::write(job.join("state").join(trawl_engine::ENDING), "7").unwrap();
        let status = jobs.status("c1").unwrap();
        assert_eq!(
            (status.state.as_str(), status.ending.as_deref()),
            ("stopped", Some(INTERRUPTED))
        );
        std::fs::remove_file(job.join("state").join(trawl_engine::ENDING)).unwrap();

        // Killed while a launch from a checkpoint restored it (xt23a F9), its store removed before the
        // checkpoint's took its place: still a crawl to continue, not the operator's stop.
        std::fs::remove_dir_all(job.join("state/frontier")).unwrap();
        std::fs::write(job.join("state/restoring"), "cp00001-20261130093831\n").unwrap();
        let status = jobs.status("c1").unwrap();
        assert_eq!(
            (status.state.as_str(), status.ending.as_deref()),
            ("stopped", Some(INTERRUPTED))
        );
    }
}
