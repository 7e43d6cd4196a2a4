//! A crawl of a job directory: its setup, the workers that take URIs from the frontier through the processor
//! chains ([`crate::chain`]), the ticker (progress, commits, checkpoints) and the operator's commands.

use std::{
    sync::{Arc, Mutex, RwLock},
    time::Duration,
};

use trawl_config::{CrawlConfig, CrawlUri};
use trawl_fetch::{AddressPolicy, Fetcher, robots::product_token};
use trawl_frontier::Frontier;
use trawl_url::Url;

use crate::{
    Error,
    chain::{naming::Naming, pipeline::Pipeline, rendering::Rendering, robots::RobotsCache},
    control::Reply,
    crawl_log::CrawlLog,
    job::{Job, JobLock},
    journal::Journal,
    live::LiveSettings,
    lock::lock,
    report::{self, Ending},
    shared_job::SharedJob,
    stats::{STATS_FILE, Snapshot, Stats},
    write::WarcSink,
};

mod control;
mod handle;
mod joined;
mod manifest;
mod remote;
mod remote_worker;
mod shared;
mod ticker;
mod wake;
mod worker;

use self::{
    control::*,
    shared::{Shared, answer_checkpoint, checkpoint, checkpoint_reply, save_stats},
    worker::*,
};
pub use self::{
    handle::CrawlHandle,
    remote::{RemoteSpec, job_name},
};

/// What a finished crawl reports.
#[derive(Debug, Clone)]
pub struct Summary {
    /// How it ended.
    pub ending: Ending,
    /// The crawl report, where it was written (none where the reports could not be).
    pub report: Option<std::path::PathBuf>,
    /// The final counters.
    pub stats: Snapshot,
    /// The WARC files written.
    pub warcs: Vec<std::path::PathBuf>,
    /// What became of each seed.
    pub seeds: std::collections::BTreeMap<String, crate::stats::SeedOutcome>,
    /// Each way a proxy failed (once per proxy and kind): what a seed that got `err=proxy` met.
    pub proxy_failures: Vec<trawl_fetch::ProxyFailure>,
    /// Each origin whose TLS handshake failed, or that does not speak h2c, with why: what a seed that got
    /// `err=connect` or `err=broken` may have met.
    pub origin_failures: Vec<String>,
    /// The credentials tried that never logged in.
    pub failed_logins: Vec<FailedLogin>,
}

/// A credential tried that never logged in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FailedLogin {
    /// Its index in `[[credentials]]`.
    pub credential: usize,
    /// What it is: `form login for blog.example.org`.
    pub what: String,
    /// The last failure's sign.
    pub why: String,
    /// How it failed.
    pub how: LoginFailure,
    /// How many pages sent the crawler away (to sign in, or refused) as a lost session of a form login
    /// and were archived so, no login made for them: none, for a login that never worked, says its pages
    /// may well be behind it (a `success` sign settles it).
    pub lost_pages: u64,
}

/// How a credential failed the crawl.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LoginFailure {
    /// No login worked.
    Never,
    /// A form login worked, then one after a lost session failed: later pages were crawled logged out.
    Stopped,
    /// No page of the crawl was on the form credential's host.
    NotUsed,
}

/// One crawl of a job directory.
#[derive(Debug)]
pub struct Crawl {
    job: Job,
    config: CrawlConfig,
    seeds: Vec<Url>,
    repaired: Vec<trawl_warc::Repaired>,
    /// Said as a resumed job starts: counters it saved none of before it stopped, the crawl.log or WARCs of
    /// its earlier runs gone (see [`Crawl::start_lines`]).
    warnings: Vec<String>,
    /// The shared frontier this process works on, if any (`--frontier redis://…`, `trawl worker`).
    remote: Option<RemoteSpec>,
    /// The job, taken for this process until the crawl is dropped.
    _lock: JobLock,
    /// The operator's config file this crawl was made from, named in the errors found when it starts
    /// (`None`: the job's copy is named).
    source: Option<std::path::PathBuf>,
    /// The checkpoint `trawl resume` put in place.
    restored: Option<Restored>,
}

/// A checkpoint a resume restored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Restored {
    /// Its folder's name under `JOB/checkpoints/`.
    pub name: String,
    /// Whether it was restored again because a crash had cut its restore short (none was asked for).
    pub again: bool,
    /// The checkpoint whose restore a crash cut short, put aside for the one asked for.
    pub replaced: Option<String>,
}

impl Crawl {
    /// Prepares a crawl: parses the seeds (naming any bad one), creates the job directory and writes the
    /// effective config into it.
    pub fn new(
        job_dir: &std::path::Path,
        mut config: CrawlConfig,
        seeds: &[String],
    ) -> Result<Crawl, Error> {
        config.seeds.urls.extend(seeds.iter().cloned());
        config.seeds.urls.dedup();
        if config.seeds.urls.is_empty() {
            return Err(Error::NoSeeds);
        }
        let parsed = config
            .seeds
            .urls
            .iter()
            .map(|s| trawl_url::parse_seed(s))
            .collect::<Result<Vec<_>, _>>()?;
        config.validate().map_err(|e| Error::Config {
            path: job_dir.join("crawl.toml"),
            message: e.to_string(),
        })?;
        let (job, lock) = locked(job_dir)?;
        if job.holds_a_crawl() {
            return Err(Error::JobExists(job_dir.to_path_buf()));
        }
        job.write_config(&config)?;
        Ok(Crawl {
            job,
            config,
            seeds: parsed,
            repaired: Vec::new(),
            warnings: Vec::new(),
            remote: None,
            _lock: lock,
            source: None,
            restored: None,
        })
    }

    /// Names `path`, the operator's config the crawl was made from, in the errors of its settings found when
    /// the crawl starts (a missing password variable, the placeholder user agent), instead of the job's copy.
    pub fn with_source(mut self, path: &std::path::Path) -> Crawl {
        self.source = Some(path.to_path_buf());
        self
    }

    /// Prepares a crawl whose frontier is shared through Redis at `url` (`trawl crawl --frontier`): creates
    /// it there with this config and seeds, named as the job directory, or joins the crawl of that name
    /// (its settings win; seeds given here are added).
    pub fn new_shared(
        job_dir: &std::path::Path,
        config: CrawlConfig,
        seeds: &[String],
        url: &str,
    ) -> Result<Crawl, Error> {
        or_unmade(job_dir, || Crawl::made_shared(job_dir, config, seeds, url))
    }

    /// [`Crawl::new_shared`] into `job_dir`, which may be new.
    fn made_shared(
        job_dir: &std::path::Path,
        mut config: CrawlConfig,
        seeds: &[String],
        url: &str,
    ) -> Result<Crawl, Error> {
        config.seeds.urls.extend(seeds.iter().cloned());
        config.seeds.urls.dedup();
        if config.seeds.urls.is_empty() {
            return Err(Error::NoSeeds);
        }
        config.validate().map_err(|e| Error::Config {
            path: job_dir.join("crawl.toml"),
            message: e.to_string(),
        })?;
        // Refused before the crawl is made in Redis, whose settings never hold a password.
        if let Some(key) = config.inline_secret() {
            return Err(Error::SharedSecret { key });
        }
        // Held before anything is published in Redis: a join onto a directory another trawl holds fails
        // before its seeds reach the crawl (review 64b R12).
        let (job, lock) = locked(job_dir)?;
        refuse_a_local_crawl(job_dir)?;
        let spec = RemoteSpec::new(url, job_dir);
        let mut frontier = spec.connect(Duration::from_millis(config.frontier.lease_ms), 0)?;
        // Before anything is made in Redis.
        let held = frontier
            .config()
            .map_err(|e| remote::remote_error(url, e))?
            .is_some();
        refuse_another_crawls_job(&job, url, Some(held))?;
        if held {
            let born = frontier.born().map_err(|e| remote::remote_error(url, e))?;
            refuse_an_earlier_crawls_job(&job, url, &born)?;
        }
        let (mut text, created) = frontier
            .adopt_config(&config.to_toml())
            .map_err(|e| remote::remote_error(url, e))?;
        let born = frontier.born().map_err(|e| remote::remote_error(url, e))?;
        if !created {
            eprintln!(
                "trawl: joining the crawl {:?} at {}",
                spec.job,
                spec.shown_url()
            );
            if let Some(warning) = joined::settings_not_applied(&config, &text, &spec) {
                eprintln!("trawl: warning: {warning}");
            }
            joined::say_if_stopped(&mut frontier, &spec);
            // Seeds given on joining are the crawl's, as `ctl --frontier … add-seeds` adds them: published
            // first, so the worker that claims one (or a link of its site) has it in its scope (xt16b F2:
            // another worker dropped the new site's links, or refused the seed's address).
            let known = CrawlConfig::parse(&text, &job_dir.join("crawl.toml"))?
                .seeds
                .urls;
            let new: Vec<String> = config
                .seeds
                .urls
                .iter()
                .filter(|s| !known.contains(s))
                .cloned()
                .collect();
            if !new.is_empty() {
                let said = crate::control::add_shared_seeds(url, &spec.job, &new)?;
                eprintln!("trawl: {said}");
                if let Some(now) = frontier
                    .config()
                    .map_err(|e| remote::remote_error(url, e))?
                {
                    text = now;
                }
            }
            joined::say_if_finished(&mut frontier, &spec);
        }
        let mut crawl = Crawl::joined(job, lock, spec, (&text, &born))?;
        // Seeds given on joining (the command line's and the config's) are added to the crawl.
        for seed in &config.seeds.urls {
            if !crawl.seeds.iter().any(|s| s.as_str() == seed) {
                crawl.seeds.push(trawl_url::parse_seed(seed)?);
            }
        }
        Ok(crawl)
    }

    /// Joins the crawl in Redis at `url` named as `job_dir` (`trawl worker`), with its settings.
    pub fn join(job_dir: &std::path::Path, url: &str) -> Result<Crawl, Error> {
        or_unmade(job_dir, || Crawl::joined_as_worker(job_dir, url))
    }

    /// [`Crawl::join`] into `job_dir`, which may be new.
    fn joined_as_worker(job_dir: &std::path::Path, url: &str) -> Result<Crawl, Error> {
        let (job, lock) = locked(job_dir)?;
        refuse_a_local_crawl(job_dir)?;
        refuse_another_crawls_job(&job, url, None)?;
        let spec = RemoteSpec::new(url, job_dir);
        let mut frontier = spec.connect(Duration::from_secs(30), 0)?;
        let Some(text) = frontier
            .config()
            .map_err(|e| remote::remote_error(url, e))?
        else {
            return Err(Error::NoSharedCrawl {
                // Said without its password (review 64b R1).
                url: crate::shared_job::without_password(url),
                job: spec.job.clone(),
                crawls: trawl_frontier::shared_crawls(url).unwrap_or_default(),
            });
        };
        let born = frontier.born().map_err(|e| remote::remote_error(url, e))?;
        refuse_an_earlier_crawls_job(&job, url, &born)?;
        joined::say_if_stopped(&mut frontier, &spec);
        joined::say_if_finished(&mut frontier, &spec);
        Crawl::joined(job, lock, spec, (&text, &born))
    }

    /// A worker's crawl of the shared crawl whose settings are `text` and birth id `born`, into its own
    /// `job` (locked); the
    /// `.open` WARCs a crash of this worker left there are repaired first (and go into the crawl's manifest
    /// when it starts, with every other closed WARC of the job it lacks).
    fn joined(
        job: Job,
        lock: JobLock,
        spec: RemoteSpec,
        (text, born): (&str, &str),
    ) -> Result<Crawl, Error> {
        job.sweep_aside();
        let repaired = crate::checkpoint::repair_warcs(&job)?;
        let config = CrawlConfig::parse(text, &job.config_path())?;
        if config.fetch.max_connections_per_host > 1 {
            eprintln!(
                "trawl: warning: fetch.max_connections_per_host = {} has no effect in a shared crawl: each host \
                 gets one connection crawl-wide (docs/distributed.md)",
                config.fetch.max_connections_per_host
            );
        }
        job.write_file(&job.config_path(), text)?;
        job.mark_shared(&spec.url, &spec.job, born)?;
        let seeds = parse_seeds(&config)?;
        Ok(Crawl {
            warnings: counters_lost(&job).into_iter().collect(),
            job,
            config,
            seeds,
            repaired,
            remote: Some(spec),
            _lock: lock,
            source: None,
            restored: None,
        })
    }

    /// Reopens a job to continue it: its config, its frontier as of the moment it stopped (or, with
    /// `checkpoint`, as of that checkpoint: a name under `JOB/checkpoints/`, or `latest`), and its archives,
    /// whose `.open` files left by a crash are cut after their last complete record and closed.
    pub fn resume(job_dir: &std::path::Path, checkpoint: Option<&str>) -> Result<Crawl, Error> {
        // Looked at before the job is taken, which makes its folders again.
        let gone = records_gone(&Job::open(job_dir)?);
        let (job, lock) = locked(job_dir)?;
        job.sweep_aside();
        if let Some(shared) = SharedJob::of(job.root()) {
            return Err(Error::worker_job(&shared, job_dir));
        }
        let config = CrawlConfig::load(&job.config_path())?;
        // A restore a crash cut short is done again: the live store may be a part copy.
        let interrupted = crate::checkpoint::interrupted_restore(&job);
        let restored = match (checkpoint, interrupted.as_deref()) {
            (Some(name), _) | (None, Some(name)) => {
                let cp = match crate::checkpoint::find(&job, name) {
                    Err(Error::NoSuchCheckpoint {
                        name, available, ..
                    }) if checkpoint.is_none() => {
                        return Err(Error::RestoredCheckpointGone {
                            job: job_dir.to_path_buf(),
                            name,
                            available,
                        });
                    }
                    found => found?,
                };
                crate::checkpoint::restore(&job, &cp)?;
                let name = cp.file_name().map(|n| n.to_string_lossy().into_owned());
                // A rollback undoes the queue commands logged since: the log says which checkpoint,
                // whoever asked (`latest` resolved), so those lines are not read as in force (xt26a N4).
                if let Some(name) = &name {
                    crate::job::record_change(
                        job.root(),
                        "crawl",
                        &format!(
                            "restored checkpoint {name}: the frontier is as it was when the checkpoint \
                             started (its checkpoint.json says when), so the queue commands logged since are \
                             undone (settings, and the seeds crawl.toml lists, stay)"
                        ),
                    );
                }
                name.map(|name| Restored {
                    again: checkpoint.is_none(),
                    replaced: interrupted.filter(|cut| checkpoint.is_some() && *cut != name),
                    name,
                })
            }
            (None, None) if !job.frontier_dir().exists() => {
                return Err(Error::NothingToResume(job_dir.to_path_buf()));
            }
            (None, None) => None,
        };
        let repaired = crate::checkpoint::repair_warcs(&job)?;
        let seeds = parse_seeds(&config)?;
        Ok(Crawl {
            warnings: counters_lost(&job).into_iter().chain(gone).collect(),
            job,
            config,
            seeds,
            repaired,
            remote: None,
            _lock: lock,
            source: None,
            restored,
        })
    }

    /// The checkpoint a resume restored, if it restored one.
    pub fn restored(&self) -> Option<&Restored> {
        self.restored.as_ref()
    }

    /// The command that continues this crawl after it stopped or was killed: `trawl resume DIR`, or for a
    /// worker of a shared crawl `trawl worker URL --job DIR`.
    pub fn continue_command(&self) -> String {
        match SharedJob::of(self.job.root()) {
            Some(marker) if self.remote.is_some() => marker.continue_command(self.job.root()),
            _ => format!("trawl resume {}", self.job.root().display()),
        }
    }

    /// Whether this process is one worker of a crawl shared through Redis.
    pub fn is_shared(&self) -> bool {
        self.remote.is_some()
    }

    /// WARC files left open by a crash and repaired when the crawl was resumed (or a worker joined again).
    pub fn repaired(&self) -> &[trawl_warc::Repaired] {
        &self.repaired
    }

    /// What the crawl's start found, one `trawl: …` line each, as `trawl resume` and `trawl serve`'s launch
    /// print them: a checkpoint's restore a kill cut short and done again, the WARCs a crash left open and
    /// how each was repaired, and counters counted again from crawl.log because the job's earlier runs saved none.
    pub fn start_lines(&self) -> Vec<String> {
        let mut lines = Vec::new();
        // Said by every launcher, the web UI's too (xt23a F9: a relaunch did the restore again unsaid).
        if let Some(r) = self.restored.as_ref().filter(|r| r.again) {
            lines.push(format!(
                "trawl: a restore of checkpoint {} was cut short (a crash or kill): restored it again",
                r.name
            ));
        }
        if let Some((r, cut)) = self
            .restored
            .as_ref()
            .and_then(|r| r.replaced.as_ref().map(|cut| (r, cut)))
        {
            lines.push(format!(
                "trawl: a restore of checkpoint {cut} was cut short (a crash or kill): restored {} instead, as asked",
                r.name
            ));
        }
        for r in &self.repaired {
            // A crash mid-append tears the spill's last record: it was never counted as archived.
            let torn = format!("{} bytes of a torn record", r.held_cut);
            match (r.restored, r.held_cut) {
                (0, 0) => {}
                (0, _) => lines.push(format!(
                    "trawl: left out {torn} held in memory to train the zstd dictionary"
                )),
                (n, 0) => lines.push(format!(
                    "trawl: put back {n} records held in memory to train the zstd dictionary"
                )),
                (n, _) => lines.push(format!(
                    "trawl: put back {n} records held in memory to train the zstd dictionary ({torn} left out)"
                )),
            }
            // The record cut, when its header was whole: its URI is fetched again unless crawl.log lists it
            // (a line written before the record's end reached the disk: a power loss).
            let which = r
                .torn
                .as_ref()
                .map_or(String::new(), |t| format!(": the {t}"));
            lines.push(match &r.path {
                Some(p) => format!(
                    "trawl: repaired {} ({} complete records kept, {} bytes of a torn record cut{which})",
                    p.display(),
                    r.records,
                    r.cut
                ),
                None => format!(
                    "trawl: removed a WARC with no complete record ({} bytes)",
                    r.cut
                ),
            });
        }
        lines.extend(self.warnings.iter().map(|l| format!("trawl: warning: {l}")));
        lines
    }

    /// The job directory.
    pub fn job(&self) -> &Job {
        &self.job
    }

    /// Runs the crawl to its end, calling `on_progress` about once a second; `stop` ends it early.
    pub async fn run(
        self,
        stop: CrawlHandle,
        on_progress: impl Fn(&Snapshot) + Send + Sync + 'static,
    ) -> Result<Summary, Error> {
        // However the run ends, nobody waits for a checkpoint for good (review 73 R5).
        let _asks = handle::AsksClosed(stop.clone());
        let shared = Arc::new(self.shared(&stop)?);
        let on_progress = Arc::new(on_progress);
        let ticker = tokio::spawn(ticker::run(
            shared.clone(),
            on_progress.clone(),
            self.config.frontier.checkpoint_interval_s,
        ));
        // Answers no sender read, left by one killed as it waited (xt26a N5).
        crate::control::sweep_stale_replies(self.job.root());
        let commands = tokio::spawn(control_loop(
            shared.clone(),
            self.job.clone(),
            lock(&stop.inbox).take(),
        ));
        let pid_file = self.job.state_dir().join("crawl.pid");
        let ending_marker = self.job.state_dir().join(ENDING);
        let _ = std::fs::remove_file(&ending_marker);
        self.job
            .write_file(&pid_file, &std::process::id().to_string())?;
        let alarm = tokio::spawn({
            let shared = shared.clone();
            async move { shared.wake.alarm().await }
        });
        let renewal = tokio::spawn(remote_worker::renew_leases(shared.clone()));
        let settings = tokio::spawn(remote_worker::follow_settings(shared.clone()));
        let workers: Vec<_> = (0..self.config.fetch.max_connections)
            .map(|i| tokio::spawn(worker(shared.clone(), i + 1)))
            .collect();
        for w in workers {
            let _ = w.await;
        }
        alarm.abort();
        renewal.abort();
        settings.abort();
        ticker.abort();
        // The pid file goes so that a command sent from now on is taken back and applied to the stopped job;
        // the end's own marker says, until the reports are written, that a kill cut the end short (xt26a N3:
        // a kill during the final checkpoint left no sign, and the job read as cleanly stopped).
        let _ = self
            .job
            .write_file(&ending_marker, &std::process::id().to_string());
        let _ = std::fs::remove_file(&pid_file);
        commands.abort();
        // Not applying a command any more when the last answers are given and the journal closes (review 75
        // R4: a change made after the close was answered as committed).
        let _ = commands.await;
        // What was sent before the pid file went is answered; a command sent later is taken back by its
        // sender, and applied once this process lets go of the job.
        control::answer_files(&shared, &self.job);
        let p = &shared.pipeline;
        if let Some(rendering) = &p.rendering {
            rendering.browser.close().await;
        }
        if let Err(e) = p.log.close() {
            p.fail(e.to_string());
        }
        // No fetch is left to take a kept connection, and the final checkpoint needs its descriptors (their
        // connections' tasks close the sockets once they run: a turn of the runtime).
        p.fetcher.close_idle();
        tokio::task::yield_now().await;

        // Those who asked for a checkpoint the ticker did not write are answered by the last one.
        let waiting = stop.close_checkpoint_asks();
        if p.log.broken() {
            // crawl.log could not be written (a full disk): the URIs ended since the last commit may have
            // no line, so nothing more of the frontier is committed and a resume fetches them again, as
            // after a kill. The counters are still saved where they can be.
            save_stats(&shared, &self.job.state_dir());
            let why = "crawl.log could not be written: the crawl ended without a checkpoint";
            let reply = Reply::Failed {
                message: why.into(),
            };
            answer_checkpoint(stop.answer_last_checkpoint(&reply), reply.clone());
            answer_checkpoint(waiting, reply);
        } else {
            // A clean shutdown ends with a checkpoint (the archives roll over with it).
            let final_checkpoint = {
                let shared = shared.clone();
                tokio::task::spawn_blocking(move || checkpoint(&shared, false)).await
            };
            let failed = match final_checkpoint {
                Ok(written) => {
                    let reply = checkpoint_reply(&shared, &written);
                    answer_checkpoint(stop.answer_last_checkpoint(&reply), reply.clone());
                    answer_checkpoint(waiting, reply);
                    written.err().map(|e| e.to_string())
                }
                // `waiting` dropped: told the crawl ended before writing it; the later asks by the guard.
                Err(e) => Some(format!("checkpoint: {e}")),
            };
            if let Some(why) = failed {
                // The counters go on over a resume even when the checkpoint's copy could not be made.
                save_stats(&shared, &self.job.state_dir());
                shared.pipeline.fail(why);
            }
        }
        // Every ask is answered by now: the answer files of those sent through JOB/control/ are written before
        // the job is let go, so `trawl ctl` finds them (review 73 R2).
        let answering = std::mem::take(&mut *lock(&shared.answering));
        for task in answering {
            let _ = task.await;
        }
        let warcs = p.warc.close();
        if let Some(remote) = &shared.remote {
            // The job-wide manifest: every worker's WARC files, in Redis; those closed by this run, and any
            // closed one the manifest still lacks.
            let dir = self.job.warc_dir();
            match remote.call(&stop, |f| manifest::add_missing(f, &dir)).await {
                Some(Ok(_)) => {}
                Some(Err(e)) if !e.is_transient() => p.fail(format!(
                    "adding this worker's WARCs to the manifest in Redis: {e}"
                )),
                // Redis away: the files are safe on disk, and the worker's next start lists them.
                _ => {
                    let warning = format!(
                        "this worker's WARCs are not in the crawl's manifest yet: Redis at {} is unreachable; \
                         `{}` adds them when it starts",
                        remote.spec.shown_url(),
                        self.continue_command()
                    );
                    tracing::warn!("{warning}");
                }
            }
        }
        if self.config.warc.wacz && warcs.is_ok() && !stop.is_stopped() && lock(&p.fatal).is_none()
        {
            let out = crate::package::default_wacz_path(self.job.root());
            let root = self.job.root().to_path_buf();
            let at = out.clone();
            let packed =
                tokio::task::spawn_blocking(move || crate::package::write_wacz(&root, &out)).await;
            match packed {
                Ok(Ok(summary)) => {
                    if let Some(warning) = crate::package::revisits_outside_warning(&at, &summary) {
                        tracing::warn!("{warning}");
                    }
                }
                // A crawl that archived nothing has nothing to package: it finished, and its crawl.log says
                // why (xt47c F4: it ended FAILED on the package).
                Ok(Err(Error::NothingToPackage { .. })) => tracing::warn!(
                    "no WACZ written: the crawl archived nothing (its crawl.log says why)"
                ),
                // A package error names the package already.
                Ok(Err(e @ Error::Package { .. })) => p.fail(e.to_string()),
                Ok(Err(e)) => p.fail(format!("packaging the WACZ: {e}")),
                Err(e) => p.fail(format!("packaging the WACZ: {e}")),
            }
        }
        let fatal = lock(&p.fatal).take();
        let ending = match (&fatal, &warcs) {
            (Some(why), _) => Ending::Failed(why.clone()),
            (None, Err(e)) => Ending::Failed(e.to_string()),
            (None, Ok(_)) if stop.is_stopped() => Ending::Stopped,
            _ => Ending::Finished,
        };
        // What continues a worker is `trawl worker`, not `trawl resume`: said so in a failure worded for a
        // job of one process (a browser that does not start, review 83 R6).
        let for_this_process = |why: String| match self.remote {
            Some(_) => why.replace(
                "`trawl resume` the job",
                &format!("continue this worker with `{}`", self.continue_command()),
            ),
            None => why,
        };
        let ending = match ending {
            Ending::Failed(why) => Ending::Failed(for_this_process(why)),
            ending => ending,
        };
        // Reports that cannot be written (a full disk) fail the crawl, said with how it ended: its summary
        // line is still printed (xt44a: a worker ended on the report's error, with no `FAILED:` line).
        let (ending, report) = match report::write(&self.job, &shared.reports(&ending.to_string()))
        {
            Ok(()) => (
                ending,
                Some(self.job.reports_dir().join("crawl-report.txt")),
            ),
            Err(e) => {
                let why = for_this_process(format!("writing the reports: {e}"));
                tracing::error!("{why}");
                // How it ended before, said with it (review 85 R10).
                let ending = match ending {
                    Ending::Failed(first) => Ending::Failed(format!("{first}; and {why}")),
                    Ending::Finished => Ending::Failed(format!("the crawl finished, but {why}")),
                    Ending::Stopped => {
                        Ending::Failed(format!("the crawl stopped as asked, but {why}"))
                    }
                };
                (ending, None)
            }
        };
        // How this worker ended, for `ctl --frontier … workers` (a killed one says nothing).
        if let Some(remote) = &shared.remote {
            let how = match &ending {
                Ending::Finished => "finished",
                Ending::Stopped => "stopped",
                Ending::Failed(_) => "failed",
            };
            if let Some(Err(e)) = remote.call(&stop, |f| f.ended(how)).await {
                tracing::debug!("recording this worker's end: {e}");
            }
        }
        let snap = shared.snapshot();
        on_progress(&snap);
        ticker::append_line(
            &self.job.logs_dir().join("progress.log"),
            &format!(
                "{} {} [{ending}]",
                crate::crawl_log::timestamp(chrono::Utc::now()),
                snap.line()
            ),
        );
        // Kept where the reports could not be written: the resume counts from crawl.log and says why.
        if report.is_some() {
            let _ = std::fs::remove_file(&ending_marker);
        }
        // Only a whole crawl can say that none of its pages was on a credential's host: not one stopped
        // before its end, nor one worker's share of a shared crawl.
        let whole = matches!(ending, Ending::Finished) && self.remote.is_none();
        Ok(Summary {
            ending,
            report,
            stats: snap,
            warcs: warcs.unwrap_or_default(),
            seeds: shared.pipeline.stats.seeds(),
            failed_logins: failed_logins(
                &shared.pipeline.access,
                whole.then(|| shared.pipeline.stats.by_host()),
            ),
            proxy_failures: shared.pipeline.fetcher.proxy_failures(),
            origin_failures: shared.pipeline.fetcher.origin_failures(),
        })
    }

    /// Opens what the crawl runs on: its archive and log, its frontier (with the seeds scheduled; on a resumed
    /// job they are known already, and scheduling them again does nothing), and the pipeline.
    fn shared(&self, stop: &CrawlHandle) -> Result<Shared, Error> {
        let config = &self.config;
        let config_error = |message: String| Error::Config {
            path: self
                .source
                .clone()
                .unwrap_or_else(|| self.job.config_path()),
            message,
        };
        // As Heritrix: no crawl beyond this machine without a way for webmasters to reach the operator.
        if !trawl_config::settings::access::user_agent_has_contact(&config.fetch.user_agent)
            && !self
                .seeds
                .iter()
                .all(trawl_config::settings::access::is_local)
        {
            return Err(config_error(format!(
                "fetch.user_agent {:?} names no contact; set [fetch] user_agent to one with a URL or e-mail \
                 address webmasters can reach you at, e.g. \"mybot/1.0 (+https://example.org/bot)\" \
                 (crawls of this machine only, such as `trawl selftest`, may keep the placeholder)",
                config.fetch.user_agent
            )));
        }
        let access =
            trawl_fetch::access::Access::new(config, self.job.root(), Some(&self.job.state_dir()))
                .map_err(|e| config_error(e.to_string()))?;
        // A proxy's password, as a credential's, is read where the crawl starts: the job's copy never holds it.
        if let Some(problem) = config.proxy_password_problem() {
            return Err(config_error(problem));
        }
        // What a config or a machine can refuse comes first: a crawl that cannot start leaves no frontier,
        // so the same `trawl crawl --job` can be run again once it is fixed.
        let naming = Naming::from_config(config).map_err(|e| config_error(e.to_string()))?;
        let gates = trawl_config::Gates::from_config(config, &self.seeds)
            .map_err(|e| config_error(e.to_string()))?;
        let live = LiveSettings::build(Arc::new(config.clone()), &self.seeds, self.job.root())
            .map_err(|e| config_error(e.to_string()))?;
        let assign = trawl_config::assign::QueueAssigner::new(
            config.frontier.queue_assignment,
            config.frontier.parallel_queues,
        );
        // A crawl.toml edited to name queues otherwise is refused before anything is written.
        if self.remote.is_none() {
            self.job.keep_queue_naming(config)?;
        }
        let (rendering, behaviors) = browser_capture(config, &self.job)?;
        let robots = if config.fetch.obey_robots {
            "obey"
        } else {
            "ignore"
        };
        let warcinfo = vec![
            ("operator-config".to_string(), "crawl.toml".to_string()),
            (
                "http-header-user-agent".to_string(),
                config.fetch.user_agent.clone(),
            ),
            ("robots".to_string(), robots.to_string()),
            (
                "trawl-config".to_string(),
                config.to_toml().replace('\n', "; "),
            ),
        ];
        let dedup = if config.warc.dedup {
            let table = crate::write::dedup::DigestTable::create(
                &self.job.state_dir().join("dedup"),
                config.warc.dedup_memory_mb,
            )?;
            // This job's closed WARCs first (a resumed crawl), then the earlier crawls named, then the crawls
            // those were deduplicated against: the first capture of a payload is the one revisits point at.
            let earlier = crate::write::with_earlier_sources(&config.warc.dedup_from);
            let own = self.job.warc_dir();
            let (mut files, mut lines, mut damaged) = (0usize, 0usize, 0usize);
            let mut all = Vec::new();
            for source in std::iter::once(&own).chain(&earlier) {
                if source == &own && !source.is_dir() {
                    continue;
                }
                // A source that is not there at all is a configuration error, not damage.
                if !source.exists() {
                    return Err(Error::DedupMissing {
                        path: source.clone(),
                    });
                }
                let indexes = crate::write::dedup::index_files(source)?;
                if indexes.is_empty() && source != &own {
                    tracing::warn!("{}", crate::write::dedup::holds_nothing(source));
                }
                all.extend(indexes);
            }
            // Said when it will take a while (seconds per 100 MB of index), before the first request
            // (xt17b F11: a resume sat silent for minutes).
            let bytes: u64 = all
                .iter()
                .filter_map(|i| std::fs::metadata(i.path()).ok())
                .map(|m| m.len())
                .sum();
            let started = std::time::Instant::now();
            let long = bytes > DEDUP_SAID_FROM;
            if long {
                eprintln!(
                    "trawl: rebuilding the dedup table from {} indexes ({} MB) before the first request",
                    all.len(),
                    bytes >> 20
                );
            }
            for index in all {
                let loaded = table.load(&index);
                files += 1;
                lines += loaded.lines;
                match loaded.warning(index.path()) {
                    Some(warning) => {
                        damaged += 1;
                        tracing::warn!("{warning}");
                    }
                    None => tracing::info!(
                        "dedup: {} captures read from {}",
                        loaded.lines,
                        index.path().display()
                    ),
                }
            }
            if long {
                eprintln!(
                    "trawl: dedup table rebuilt: {lines} captures in {:.1} s",
                    started.elapsed().as_secs_f64()
                );
            }
            let (captures, from) = (
                plural(lines as u64, "capture"),
                plural(files as u64, "file"),
            );
            if damaged > 0 {
                tracing::warn!(
                    "dedup: {captures} read from {from}, {damaged} of them damaged and read in part or not at \
                     all (each named above): the crawl goes on, storing again a payload only they hold"
                );
            } else {
                tracing::info!("dedup: {captures} read from {from}");
            }
            if config.conditional_recrawl_anywhere() {
                // Each URL keeps the validators of its latest capture by date, whatever the order.
                let mut read = 0;
                for source in &earlier {
                    let n = table.load_validators(source)?;
                    read += n;
                    tracing::info!(
                        "conditional recrawl: {n} validators read from {}",
                        source.display()
                    );
                }
                if read == 0 {
                    tracing::warn!(
                        "conditional recrawl: no validators read from [warc] dedup_from: they are read from the \
                         closed WARCs of jobs, of WARC folders, of WACZ packages and WARC files (not from index \
                         files); every page is fetched whole"
                    );
                }
            }
            Some(table)
        } else {
            None
        };
        // A worker of a shared crawl names its WARCs with its worker id.
        let mut warc_config = config.warc.clone();
        if let Some(spec) = &self.remote {
            warc_config.prefix = format!("{}-{}", warc_config.prefix, spec.worker);
        }
        let warc = WarcSink::new(self.job.warc_dir(), &warc_config, warcinfo, dedup)?;
        let budget = Some(config.frontier.max_uris_per_host).filter(|&b| b > 0);
        let mut remote = match &self.remote {
            Some(spec) => {
                let lease = Duration::from_millis(config.frontier.lease_ms);
                let frontier = spec.connect(lease, config.frontier.max_uris_per_host)?;
                Some(remote::Remote::new(spec.clone(), frontier, lease))
            }
            None => None,
        };
        let mut frontier = match remote {
            Some(_) => Frontier::in_memory(1),
            None => Frontier::open(
                &self.job.frontier_dir(),
                config.fetch.max_connections_per_host,
            )?,
        }
        .with_budget(budget)
        .with_active_queues(
            config.frontier.max_active_queues,
            config.frontier.balance_replenish,
        )
        .with_bloom(
            config.frontier.bloom_items,
            config.frontier.bloom_fp_rate,
            config.frontier.uniq == trawl_config::settings::UniqMode::Bloom,
        )?;
        let mut seeds = Vec::with_capacity(self.seeds.len());
        for seed in &self.seeds {
            let mut uri = CrawlUri::seed(seed.clone(), String::new());
            naming.name(&mut uri);
            uri.rank(&live.sheets.effective(&uri), &live.config);
            seeds.push((assign.key(&uri.url), uri));
        }
        match &mut remote {
            // Every worker schedules the seeds: the seen set keeps one of each.
            Some(r) => {
                let url = r.spec.url.clone();
                r.frontier_mut()
                    .schedule_batch(seeds)
                    .map_err(|e| remote::remote_error(&url, e))?;
                // What an earlier run of this worker closed and could not list (it failed, or was killed
                // after repairing a WARC) joins the manifest now.
                manifest::add_missing(r.frontier_mut(), &self.job.warc_dir())
                    .map_err(|e| remote::remote_error(&url, e))?;
            }
            None => {
                for (queue, uri) in seeds {
                    frontier.schedule(&queue, uri);
                }
            }
        }
        let frontier = Arc::new(Mutex::new(frontier));
        let robots_share = match &self.remote {
            Some(spec) => Some(
                trawl_frontier::SharedCache::connect(&spec.url, &spec.job, "robots")
                    .map_err(|e| remote::remote_error(&spec.url, e))?,
            ),
            None => None,
        };
        let robots = RobotsCache::new(product_token(&config.fetch.user_agent).to_string())
            .pacing(config.fetch.max_connections_per_host);
        let robots = match robots_share {
            Some(share) => robots.shared(share, config),
            None => robots,
        };
        let log = CrawlLog::open(&self.job.logs_dir().join("crawl.log"))?;
        let policy = AddressPolicy::new(
            config.fetch.allow_addresses.clone(),
            self.seeds
                .iter()
                .filter_map(|s| s.host_str().map(str::to_string)),
        );
        let pipeline = Pipeline {
            rendering,
            behaviors,
            live: RwLock::new(Arc::new(live)),
            gates,
            naming,
            assign,
            known_links: Mutex::default(),
            failures_in_a_row: Mutex::default(),
            fetcher: Fetcher::new(config.fetch.clone(), policy),
            access,
            robots,
            warc,
            log: Journal::start(log, frontier.clone())?,
            stats: load_stats(&self.job),
            fatal: Mutex::new(None),
            stop: stop.clone(),
        };
        Ok(Shared {
            pipeline,
            frontier,
            remote,
            wake: wake::Wake::default(),
            seeds: self.seeds.clone(),
            job: self.job.clone(),
            checkpointing: Mutex::new(()),
            config_writes: Mutex::new(()),
            answering: Mutex::new(Vec::new()),
        })
    }
}

/// Browser capture's state and the user's behaviours script, when the settings may render pages: `[browser]
/// mode`, a sheet's `browser.mode`, or a URL class's `render`. Chromium starts with the first page rendered.
fn browser_capture(
    config: &CrawlConfig,
    job: &Job,
) -> Result<(Option<Rendering>, Option<String>), Error> {
    let b = &config.browser;
    if !config.may_render() {
        return Ok((None, None));
    }
    let executable = b
        .chromium()
        .ok_or(Error::Browser(if b.executable.is_empty() {
            trawl_browser::BrowserError::NoChromium
        } else {
            trawl_browser::BrowserError::NotExecutable(b.executable.clone().into())
        }))?;
    // Up to 15 s of a program's start: not on an async thread of `trawl serve`'s runtime (review R7).
    let version =
        crate::blocking::blocking(usize::MAX, || trawl_browser::chromium_version(&executable))?;
    tracing::debug!("browser capture with {} ({version})", executable.display());
    let browser = trawl_browser::Browser::new(
        executable,
        job.state_dir().join("browser"),
        b.pages,
        trawl_browser::Restart {
            every: b.restart_every,
            // Saturating: a number past what bytes can count is no limit's wrap to a tiny one (xt43a N5).
            memory_bytes: b.restart_memory_mb.saturating_mul(1 << 20),
        },
    )?;
    let behaviors = if b.behaviors_file.is_empty() {
        None
    } else {
        let path = std::path::PathBuf::from(&b.behaviors_file);
        let text = trawl_config::settings::named_file::read_named_to_string(&path);
        Some(text.map_err(|source| Error::Io { path, source })?)
    };
    Ok((Some(Rendering::new(browser)), behaviors))
}

/// Runs `join` into `job_dir`; a directory this call made is removed again when joining fails, so a
/// mistyped crawl name or an unreachable server leaves nothing behind (review 65 R9) — but never when the
/// failure is another trawl holding it, which may have made it at the same moment (review 66 R2: two
/// workers started together into one new directory, and the one refused removed the other's job).
fn or_unmade<T>(
    job_dir: &std::path::Path,
    join: impl FnOnce() -> Result<T, Error>,
) -> Result<T, Error> {
    let made = !job_dir.exists();
    let joined = join();
    if let Err(e) = &joined
        && made
        && !matches!(e, Error::JobInUse { .. })
    {
        let _ = std::fs::remove_dir_all(job_dir);
    }
    joined
}

/// Index bytes past which rebuilding the dedup table is said as it starts and ends.
const DEDUP_SAID_FROM: u64 = 32 << 20;

/// The job directory `job_dir`, made if new, and its lock (refused while another trawl holds it), with the
/// stores a kill left unmade cleared.
fn locked(job_dir: &std::path::Path) -> Result<(Job, JobLock), Error> {
    let job = Job::create(job_dir)?;
    let lock = job.lock()?;
    job.clear_unmade_stores()?;
    Ok((job, lock))
}

/// Refuses to make `job_dir` a worker's job of a shared crawl when it holds a crawl of its own (its queues in
/// `state/frontier`): joining would leave them uncrawled and the job no longer resumable (xt16b F3).
fn refuse_a_local_crawl(job_dir: &std::path::Path) -> Result<(), Error> {
    match Job::open(job_dir) {
        Ok(job) if job.holds_a_crawl() => Err(Error::JobExists(job_dir.to_path_buf())),
        _ => Ok(()),
    }
}

/// Refuses a worker's job of another shared crawl than the one at `url` (another server or database), or of
/// a crawl Redis no longer holds when `held` says so: its WARCs and crawl.log would mix two crawls (xt44a
/// F9: the job's marker and crawl.toml were overwritten, and its WARCs went into the other crawl's manifest).
fn refuse_another_crawls_job(job: &Job, url: &str, held: Option<bool>) -> Result<(), Error> {
    let Some(marker) = SharedJob::of(job.root()) else {
        return Ok(());
    };
    let now = crate::shared_job::without_password(url);
    if same_server(&marker.url, &now) == Some(false) {
        return Err(Error::OtherCrawlsJob {
            job: job.root().to_path_buf(),
            crawl: marker.crawl,
            was: marker.url,
            now,
            marker: job.state_dir().join(crate::shared_job::SHARED_FILE),
        });
    }
    if held == Some(false) {
        return Err(Error::LostCrawlsJob {
            job: job.root().to_path_buf(),
            crawl: marker.crawl,
            url: marker.url,
        });
    }
    Ok(())
}

/// Refuses a worker's job of a crawl born `born`'s namesake: one Redis lost, the crawl there now made after
/// it (xt44a F9: the job's crawl.toml took the new crawl's settings and its WARCs went into that crawl's
/// manifest). A marker with no birth id (an older trawl's) is taken for this crawl's.
fn refuse_an_earlier_crawls_job(job: &Job, url: &str, born: &str) -> Result<(), Error> {
    match SharedJob::of(job.root()) {
        Some(marker) if marker.born.as_deref().is_some_and(|b| b != born) => {
            Err(Error::EarlierCrawlsJob {
                job: job.root().to_path_buf(),
                crawl: marker.crawl,
                url: crate::shared_job::without_password(url),
            })
        }
        _ => Ok(()),
    }
}

/// Whether two Redis URLs name the same server and database, written alike or not (review 83 R10: `/0` left
/// off, the default port written out, the host's case); `None` when either cannot be read (then the worker's
/// own connection says what is wrong).
fn same_server(a: &str, b: &str) -> Option<bool> {
    let read = |u: &str| {
        let u = url::Url::parse(u).ok()?;
        let db = u.path().trim_matches('/');
        Some((
            u.host_str()?.to_ascii_lowercase(),
            u.port().unwrap_or(6379),
            if db.is_empty() {
                "0".to_string()
            } else {
                db.to_string()
            },
        ))
    };
    Some(read(a)? == read(b)?)
}

/// The config's seeds as URLs (naming any bad one).
fn parse_seeds(config: &CrawlConfig) -> Result<Vec<Url>, Error> {
    Ok(config
        .seeds
        .urls
        .iter()
        .map(|s| trawl_url::parse_seed(s))
        .collect::<Result<Vec<_>, _>>()?)
}

pub use crate::job::ENDING;

/// The counters a resumed job goes on from (zero for a new one, or when the saved ones are unreadable).
fn load_stats(job: &Job) -> Stats {
    let path = job.state_dir().join(STATS_FILE);
    match std::fs::read_to_string(&path) {
        Ok(text) => match serde_json::from_str(&text) {
            Ok(saved) => Stats::restore(saved),
            Err(e) => {
                tracing::warn!(
                    "{}: {e}; counters counted again from crawl.log",
                    path.display()
                );
                recount(&job.logs_dir().join("crawl.log"))
            }
        },
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
            tracing::warn!(
                "{}: {e}; counters counted again from crawl.log",
                path.display()
            );
            recount(&job.logs_dir().join("crawl.log"))
        }
        // A job that ran before without saving any: counted again from its crawl.log, said by
        // [`counters_lost`] as the crawl starts.
        Err(_) => recount(&job.logs_dir().join("crawl.log")),
    }
}

/// The counters of the crawl.log at `path` (none when there is none); a line that is no crawl.log line is
/// passed over, and said.
fn recount(path: &std::path::Path) -> Stats {
    use std::io::BufRead;
    let Ok(file) = std::fs::File::open(path) else {
        return Stats::new();
    };
    let mut unread = 0u64;
    // Split on bytes: a line that is not UTF-8 (a file written over by something else) is passed over, not
    // the end of the count.
    let lines = std::io::BufReader::new(file)
        .split(b'\n')
        .map_while(Result::ok)
        .filter(|l| !l.trim_ascii().is_empty())
        .filter_map(|l| {
            let parsed = std::str::from_utf8(&l)
                .ok()
                .and_then(|l| crate::crawl_log::parse_line(l).ok());
            unread += u64::from(parsed.is_none());
            parsed
        });
    let stats = Stats::recount(lines);
    if unread > 0 {
        tracing::warn!(
            "{}: {unread} lines are not crawl.log lines: passed over in counting the earlier runs",
            path.display()
        );
    }
    stats
}

/// The crawl.log or the WARC folder of a job's earlier runs, gone though its saved counters say it finished
/// URIs (removed while or after it ran: xt39b F1, F4). The crawl goes on: the URIs finished are not fetched
/// again, so the operator is told what their removal lost.
fn records_gone(job: &Job) -> Vec<String> {
    /// The two counters of the saved ones wanted here.
    #[derive(serde::Deserialize, Default)]
    #[serde(default)]
    struct Saved {
        finished: u64,
        succeeded: u64,
    }
    let Some(saved) = std::fs::read_to_string(job.state_dir().join(STATS_FILE))
        .ok()
        .and_then(|text| serde_json::from_str::<Saved>(&text).ok())
    else {
        return Vec::new();
    };
    let mut lines = Vec::new();
    let log = job.logs_dir().join("crawl.log");
    if saved.finished > 0 && !std::fs::metadata(&log).is_ok_and(|m| m.len() > 0) {
        lines.push(format!(
            "{}: missing or empty, though the job's earlier runs finished {} URIs: their lines were removed \
             with it and are not written again (those URIs are not fetched again); this run's lines start it \
             anew",
            log.display(),
            saved.finished
        ));
    }
    let warcs = job.warc_dir();
    if saved.succeeded > 0 && !warcs.exists() {
        lines.push(format!(
            "{}: missing, though the job's earlier runs fetched {} URIs: if their WARCs were moved elsewhere, \
             nothing is lost; if they were removed, those URIs are archived nowhere and are not fetched again \
             (crawl them in a new job)",
            warcs.display(),
            saved.succeeded
        ));
    }
    lines
}

/// The sentence for a job that ran before without saving its counters (it ended on a full disk, or was
/// killed within its first 20 s): its report counts from this run.
fn counters_lost(job: &Job) -> Option<String> {
    if job.state_dir().join(ENDING).exists() {
        return Some(
            "the last run did not finish ending (killed, or its disk full, before its final checkpoint, \
             counters and reports were all written): its counters go on from their last save, behind crawl.log \
             by what it did since"
                .to_owned(),
        );
    }
    let path = job.state_dir().join(STATS_FILE);
    let log = job.logs_dir().join("crawl.log");
    let ran = std::fs::metadata(&log).is_ok_and(|m| m.len() > 0);
    (ran && !path.exists()).then(|| {
        format!(
            "{}: missing, so the counters and the report are counted again from the lines of {}: their bytes \
             are the bodies' (crawl.log holds no bytes on the wire), and the report's URL groups and source \
             tags count this run only",
            path.display(),
            log.display()
        )
    })
}

/// The credentials of `access` that never logged in, whose form login stopped working, or (given the hosts of
/// a whole crawl, all its runs) whose host none of its pages was on.
fn failed_logins(
    access: &trawl_fetch::access::Access,
    hosts: Option<std::collections::BTreeMap<String, (u64, u64)>>,
) -> Vec<FailedLogin> {
    let what = |credential: usize| {
        access.spec(credential).map_or_else(String::new, |s| {
            let kind = match s.kind {
                trawl_config::settings::CredentialKind::Basic => "basic",
                trawl_config::settings::CredentialKind::Digest => "digest",
                trawl_config::settings::CredentialKind::Form => "form",
            };
            let host = s
                .domain
                .as_deref()
                .or(s.surt_prefix.as_deref())
                .unwrap_or("");
            format!("{kind} login for {host}")
        })
    };
    let tried = access
        .failed_logins()
        .into_iter()
        .map(|(credential, why, stopped)| FailedLogin {
            credential,
            what: what(credential),
            why,
            how: if stopped {
                LoginFailure::Stopped
            } else {
                LoginFailure::Never
            },
            lost_pages: access.lost_pages(credential),
        });
    let unused = hosts
        .map(|hosts| access.forms_for_none_of(hosts.keys()))
        .unwrap_or_default()
        .into_iter()
        .map(|credential| FailedLogin {
        credential,
        what: what(credential),
        why: "no page of the crawl was on its host: check its `domain` (or `surt_prefix`) against the seeds' \
              hosts (localhost and 127.0.0.1, www. and the bare name, are different hosts)"
            .into(),
        how: LoginFailure::NotUsed,
        lost_pages: 0,
    });
    let mut all: Vec<FailedLogin> = tried.chain(unused).collect();
    all.sort_by_key(|l| l.credential);
    all
}

/// `n` and `what`, in the plural unless `n` is 1.
fn plural(n: u64, what: &str) -> String {
    match n {
        1 => format!("1 {what}"),
        n => format!("{n} {what}s"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A Redis URL written another way names the same server (review 83 R10).
    #[test]
    fn a_redis_url_written_another_way_is_the_same_server() {
        let same = |a, b| same_server(a, b);
        assert_eq!(
            same("redis://127.0.0.1:6379/0", "redis://127.0.0.1"),
            Some(true)
        );
        assert_eq!(
            same("redis://HOST:6379/0", "redis://host:6379/"),
            Some(true)
        );
        assert_eq!(
            same("redis://127.0.0.1:6379/0", "redis://127.0.0.1:6379/1"),
            Some(false)
        );
        assert_eq!(
            same("redis://127.0.0.1:6379/0", "redis://127.0.0.1:6380/0"),
            Some(false)
        );
    }

    /// xt26a N3: a run killed while it ended (its pid file gone, its final checkpoint and reports not yet
    /// written) is said at the next start; a run that ended is not.
    #[test]
    fn an_end_cut_short_is_said_at_the_next_start() {
        let dir = tempfile::tempdir().unwrap();
        let job = Job::create(dir.path()).unwrap();
        job.write_file(&job.state_dir().join(STATS_FILE), "{}")
            .unwrap();
        job.write_file(&job.logs_dir().join("crawl.log"), "x\n")
            .unwrap();
        assert_eq!(counters_lost(&job), None);
        job.write_file(&job.state_dir().join(ENDING), "7").unwrap();
        assert!(counters_lost(&job).is_some_and(|l| l.contains("did not finish ending")));
    }

    /// Counters never saved (a kill in the first 20 s, a full disk at the end) are counted again from
    /// crawl.log, so a resumed job's report does not start from zero.
    #[test]
    fn counters_never_saved_are_counted_from_crawl_log() {
        let dir = tempfile::tempdir().unwrap();
        let job = Job::create(dir.path()).unwrap();
        let log = "2026-11-30T22:00:00.000Z   200       10 http://a.org/ - - text/html #001 20261130220000000+40 sha1:A - -\n\
                   2026-11-30T22:00:05.000Z   200        7 http://a.org/b L http://a.org/ image/png #002 20261130220004000+3 sha1:B - duplicate:digest\n\
                   not a line\n\
                   2026-11-30T22:00:09.500Z -9998        - http://a.org/c L http://a.org/ no-type #001 - - - -\n";
        job.write_file(&job.logs_dir().join("crawl.log"), "")
            .unwrap();
        // A line that is not UTF-8 is passed over like any other that is no crawl.log line.
        let bytes: Vec<u8> = log
            .replacen("not a line", "not a line\n~~", 1)
            .bytes()
            .map(|b| if b == b'~' { 0xff } else { b })
            .collect();
        std::fs::write(job.logs_dir().join("crawl.log"), bytes).unwrap();
        assert!(counters_lost(&job).is_some_and(|l| l.contains("counted again")));
        let stats = load_stats(&job);
        let snap = stats.snapshot();
        assert_eq!((snap.finished, snap.succeeded), (3, 2));
        assert_eq!(stats.by_host()["a.org"], (3, 17));
        assert_eq!(stats.dedup().revisits, 1);
        assert_eq!(stats.by_hop(), [('-', 1), ('L', 2)].into());
        assert_eq!(stats.seeds().len(), 1);
        assert!(snap.elapsed >= Duration::from_millis(9_500));
    }

    /// xt39b F1, F4: a resume says the crawl.log or the WARC folder of the earlier runs is gone.
    #[test]
    fn records_removed_since_the_last_run_are_said_at_the_next_start() {
        let dir = tempfile::tempdir().unwrap();
        let job = Job::create(dir.path()).unwrap();
        std::fs::create_dir_all(job.warc_dir()).unwrap();
        let stats = job.state_dir().join(STATS_FILE);
        job.write_file(&stats, r#"{"finished":0,"succeeded":0}"#)
            .unwrap();
        assert!(records_gone(&job).is_empty(), "a job that finished nothing");
        job.write_file(&stats, r#"{"finished":5,"succeeded":4}"#)
            .unwrap();
        job.write_file(&job.logs_dir().join("crawl.log"), "x\n")
            .unwrap();
        assert!(records_gone(&job).is_empty(), "all there");
        std::fs::remove_file(job.logs_dir().join("crawl.log")).unwrap();
        std::fs::remove_dir(job.warc_dir()).unwrap();
        let gone = records_gone(&job);
        assert_eq!(gone.len(), 2, "{gone:?}");
        assert!(
            gone[0].contains("crawl.log: missing or empty") && gone[0].contains("finished 5 URIs")
        );
        assert!(gone[1].contains("warcs: missing") && gone[1].contains("fetched 4 URIs"));
    }

    /// A join that fails removes the directory it made, unless another trawl holds it: that one may have made
    /// it at the same moment (review 66 R2).
    #[test]
    fn a_failed_join_removes_only_a_directory_nobody_holds() {
        let dir = tempfile::tempdir().unwrap();
        let job = dir.path().join("w1");
        let made = |then: Error| {
            let job = job.clone();
            move || -> Result<(), Error> {
                std::fs::create_dir_all(job.join("state")).unwrap();
                Err(then)
            }
        };
        assert!(or_unmade(&job, made(Error::NoSeeds)).is_err());
        assert!(!job.exists());
        let in_use = Error::JobInUse {
            dir: job.clone(),
            pid: None,
        };
        assert!(or_unmade(&job, made(in_use)).is_err());
        assert!(job.join("state").exists());
        // A directory that was there before is never removed.
        assert!(or_unmade(&job, made(Error::NoSeeds)).is_err());
        assert!(job.join("state").exists());
    }
}
