//! A crawl of a job directory: its setup, the workers that take URIs from the frontier through the processor
//! chains ([`crate::chain`]), the ticker (progress, commits, checkpoints) and the operator's commands.

use std::{
    sync::{
        Arc, Mutex, PoisonError, RwLock,
        atomic::{AtomicBool, Ordering},
    },
    time::{Duration, Instant},
};

use tokio::sync::{Notify, mpsc, oneshot};
use trawl_frontier::{Frontier, Next, Taken};
use trawl_url::Url;

use crate::{
    CrawlConfig, CrawlUri, Error,
    chain::{self, Naming, Pipeline, robots::RobotsCache},
    control::{Command, Reply},
    crawl_log::CrawlLog,
    fetch::{AddressPolicy, Fetcher},
    job::Job,
    journal::Journal,
    live::LiveSettings,
    report::{self, Ending},
    robots::product_token,
    stats::{Snapshot, Stats},
    write::WarcSink,
};

mod control;
mod handle;
mod remote;
mod ticker;
mod wake;
mod worker;

use self::{control::*, handle::Envelope, worker::*};
pub use self::{
    handle::CrawlHandle,
    remote::{RemoteSpec, job_name},
};

/// What a finished crawl reports.
#[derive(Debug, Clone)]
pub struct Summary {
    /// How it ended.
    pub ending: Ending,
    /// The final counters.
    pub stats: Snapshot,
    /// The WARC files written.
    pub warcs: Vec<std::path::PathBuf>,
    /// What became of each seed.
    pub seeds: std::collections::BTreeMap<String, crate::stats::SeedOutcome>,
}

/// One crawl of a job directory.
#[derive(Debug)]
pub struct Crawl {
    job: Job,
    config: CrawlConfig,
    seeds: Vec<Url>,
    repaired: Vec<trawl_warc::Repaired>,
    /// The shared frontier this process works on, if any (`--frontier redis://…`, `trawl worker`).
    remote: Option<RemoteSpec>,
}

/// What the crawl's tasks share: the pipeline the workers run URIs through, the frontier (touched by the
/// worker loop, the ticker and operator commands only), and the job.
struct Shared {
    pipeline: Pipeline,
    /// The embedded frontier (empty when the crawl's frontier is shared: see `remote`).
    frontier: Arc<Mutex<Frontier<CrawlUri>>>,
    /// The shared frontier, when this process is one worker of a crawl in Redis.
    remote: Option<remote::Remote>,
    /// Wakes workers waiting for work.
    wake: wake::Wake,
    seeds: Vec<Url>,
    job: Job,
    /// Held while a checkpoint is written: one at a time.
    checkpointing: Mutex<()>,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
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
        let job = Job::create(job_dir)?;
        if job.frontier_dir().exists() {
            return Err(Error::JobExists(job_dir.to_path_buf()));
        }
        job.write_file(&job.config_path(), &config.to_toml())?;
        Ok(Crawl {
            job,
            config,
            seeds: parsed,
            repaired: Vec::new(),
            remote: None,
        })
    }

    /// Prepares a crawl whose frontier is shared through Redis at `url` (`trawl crawl --frontier`): creates
    /// it there with this config and seeds, named as the job directory, or joins the crawl of that name
    /// (its settings win; seeds given here are added).
    pub fn new_shared(
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
        let spec = RemoteSpec::new(url, job_dir);
        let mut frontier = spec.connect(Duration::from_millis(config.frontier.lease_ms), 0)?;
        let (text, created) = frontier
            .adopt_config(&config.to_toml())
            .map_err(|e| remote::remote_error(url, e))?;
        if !created {
            eprintln!("trawl: joining the crawl {:?} at {url}", spec.job);
        }
        let mut crawl = Crawl::joined(job_dir, spec, &text)?;
        // Seeds given on joining are added to the crawl.
        for seed in seeds {
            if !crawl.seeds.iter().any(|s| s.as_str() == seed) {
                crawl.seeds.push(trawl_url::parse_seed(seed)?);
            }
        }
        Ok(crawl)
    }

    /// Joins the crawl in Redis at `url` named as `job_dir` (`trawl worker`), with its settings.
    pub fn join(job_dir: &std::path::Path, url: &str) -> Result<Crawl, Error> {
        let spec = RemoteSpec::new(url, job_dir);
        let mut frontier = spec.connect(Duration::from_secs(30), 0)?;
        let Some(text) = frontier
            .config()
            .map_err(|e| remote::remote_error(url, e))?
        else {
            return Err(Error::NoSharedCrawl {
                url: url.to_string(),
                job: spec.job.clone(),
                crawls: trawl_frontier::shared_crawls(url).unwrap_or_default(),
            });
        };
        Crawl::joined(job_dir, spec, &text)
    }

    /// A worker's crawl of the shared crawl whose settings are `text`, into its own `job_dir`.
    fn joined(job_dir: &std::path::Path, spec: RemoteSpec, text: &str) -> Result<Crawl, Error> {
        let job = Job::create(job_dir)?;
        let config = CrawlConfig::parse(text, &job.config_path())?;
        if config.fetch.max_connections_per_host > 1 {
            eprintln!(
                "trawl: warning: fetch.max_connections_per_host = {} has no effect in a shared crawl: each host \
                 gets one connection crawl-wide (docs/distributed.md)",
                config.fetch.max_connections_per_host
            );
        }
        job.write_file(&job.config_path(), text)?;
        let seeds = parse_seeds(&config)?;
        Ok(Crawl {
            job,
            config,
            seeds,
            repaired: Vec::new(),
            remote: Some(spec),
        })
    }

    /// Reopens a job to continue it: its config, its frontier as of the moment it stopped (or, with
    /// `checkpoint`, as of that checkpoint: a name under `JOB/checkpoints/`, or `latest`), and its archives,
    /// whose `.open` files left by a crash are cut after their last complete record and closed.
    pub fn resume(job_dir: &std::path::Path, checkpoint: Option<&str>) -> Result<Crawl, Error> {
        let job = Job::create(job_dir)?;
        let config = CrawlConfig::load(&job.config_path())?;
        if let Some(name) = checkpoint {
            let cp = crate::checkpoint::find(&job, name)?;
            crate::checkpoint::restore(&job, &cp)?;
        } else if !job.frontier_dir().exists() {
            return Err(Error::NothingToResume(job_dir.to_path_buf()));
        }
        let repaired = crate::checkpoint::repair_warcs(&job)?;
        let seeds = parse_seeds(&config)?;
        Ok(Crawl {
            job,
            config,
            seeds,
            repaired,
            remote: None,
        })
    }

    /// Whether this process is one worker of a crawl shared through Redis.
    pub fn is_shared(&self) -> bool {
        self.remote.is_some()
    }

    /// WARC files a resume found left open by a crash and repaired.
    pub fn repaired(&self) -> &[trawl_warc::Repaired] {
        &self.repaired
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
        let shared = Arc::new(self.shared(&stop)?);
        let on_progress = Arc::new(on_progress);
        let ticker = tokio::spawn(ticker::run(
            shared.clone(),
            on_progress.clone(),
            self.config.frontier.checkpoint_interval_s,
        ));
        let control = tokio::spawn(control_loop(
            shared.clone(),
            self.job.clone(),
            lock(&stop.inbox).take(),
        ));
        let pid_file = self.job.state_dir().join("crawl.pid");
        self.job
            .write_file(&pid_file, &std::process::id().to_string())?;
        let alarm = tokio::spawn({
            let shared = shared.clone();
            async move { shared.wake.alarm().await }
        });
        let renewal = tokio::spawn(remote::renew_leases(shared.clone()));
        let settings = tokio::spawn(remote::follow_settings(shared.clone()));
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
        control.abort();
        let _ = std::fs::remove_file(&pid_file);
        let p = &shared.pipeline;
        if let Err(e) = p.log.close() {
            p.fail(e.to_string());
        }

        // A clean shutdown ends with a checkpoint (the archives roll over with it).
        let final_checkpoint = {
            let shared = shared.clone();
            tokio::task::spawn_blocking(move || checkpoint(&shared, false)).await
        };
        match final_checkpoint {
            Ok(Ok(_)) => {}
            Ok(Err(e)) => shared.pipeline.fail(e.to_string()),
            Err(e) => shared.pipeline.fail(format!("checkpoint: {e}")),
        }
        let warcs = p.warc.close();
        if let (Some(remote), Ok(files)) = (&shared.remote, &warcs) {
            // The job-wide manifest: every worker's WARC files, in Redis.
            let files: Vec<(String, u64)> = files
                .iter()
                .map(|f| {
                    let bytes = std::fs::metadata(f).map(|m| m.len()).unwrap_or(0);
                    (f.display().to_string(), bytes)
                })
                .collect();
            if let Err(e) = lock(&remote.frontier).add_warcs(&files) {
                p.fail(format!(
                    "adding this worker's WARCs to the manifest in Redis: {e}"
                ));
            }
        }
        if self.config.warc.wacz && warcs.is_ok() && !stop.is_stopped() && lock(&p.fatal).is_none()
        {
            let out = crate::package::default_wacz_path(self.job.root());
            let root = self.job.root().to_path_buf();
            let packed =
                tokio::task::spawn_blocking(move || crate::package::write_wacz(&root, &out)).await;
            match packed {
                Ok(Ok(_)) => {}
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
        report::write(&self.job, &shared.reports(&ending.to_string()))?;
        Ok(Summary {
            ending,
            stats: snap,
            warcs: warcs.unwrap_or_default(),
            seeds: shared.pipeline.stats.seeds(),
        })
    }

    /// Opens what the crawl runs on: its archive and log, its frontier (with the seeds scheduled; on a resumed
    /// job they are known already, and scheduling them again does nothing), and the pipeline.
    fn shared(&self, stop: &CrawlHandle) -> Result<Shared, Error> {
        let config = &self.config;
        let config_error = |message: String| Error::Config {
            path: self.job.config_path(),
            message,
        };
        // As Heritrix: no crawl beyond this machine without a way for webmasters to reach the operator.
        if !crate::config::access::user_agent_has_contact(&config.fetch.user_agent)
            && !self.seeds.iter().all(crate::config::access::is_local)
        {
            return Err(config_error(format!(
                "fetch.user_agent {:?} names no contact; set [fetch] user_agent to one with a URL or e-mail \
                 address webmasters can reach you at, e.g. \"mybot/1.0 (+https://example.org/bot)\" \
                 (crawls of this machine only, such as `trawl selftest`, may keep the placeholder)",
                config.fetch.user_agent
            )));
        }
        let access =
            crate::access::Access::new(config, self.job.root(), Some(&self.job.state_dir()))
                .map_err(|e| config_error(e.to_string()))?;
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
            // This job's closed WARCs first (a resumed crawl), then the earlier crawls named.
            let mut sources = vec![self.job.warc_dir()];
            sources.extend(config.warc.dedup_from.iter().cloned());
            for source in &sources {
                if source == &self.job.warc_dir() && !source.is_dir() {
                    continue;
                }
                for index in crate::write::dedup::index_files(source)? {
                    let n = table.load_cdxj(&index)?;
                    tracing::info!("dedup: {n} captures read from {}", index.display());
                }
                if config.fetch.conditional_recrawl && source != &self.job.warc_dir() {
                    let n = table.load_validators(source)?;
                    tracing::info!(
                        "conditional recrawl: {n} validators read from {}",
                        source.display()
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
        let remote = match &self.remote {
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
            config.frontier.uniq == crate::config::UniqMode::Bloom,
        )?;
        let naming = Naming::from_config(config).map_err(|e| config_error(e.to_string()))?;
        let gates = crate::scope::Gates::from_config(config, &self.seeds)
            .map_err(|e| config_error(e.to_string()))?;
        let live = LiveSettings::build(Arc::new(config.clone()), &self.seeds, self.job.root())
            .map_err(|e| config_error(e.to_string()))?;
        let assign = crate::assign::QueueAssigner::new(
            config.frontier.queue_assignment,
            config.frontier.parallel_queues,
        );
        let mut seeds = Vec::with_capacity(self.seeds.len());
        for seed in &self.seeds {
            let mut uri = CrawlUri::seed(seed.clone(), String::new());
            naming.name(&mut uri);
            uri.rank(&live.sheets.effective(&uri), &live.config);
            seeds.push((assign.key(&uri.url), uri));
        }
        match &remote {
            // Every worker schedules the seeds: the seen set keeps one of each.
            Some(r) => {
                lock(&r.frontier)
                    .schedule_batch(seeds)
                    .map_err(|e| remote::remote_error(&r.spec.url, e))?;
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
        let log = CrawlLog::open(&self.job.logs_dir().join("crawl.log"))?;
        let policy = AddressPolicy::new(
            config.fetch.allow_addresses.clone(),
            self.seeds
                .iter()
                .filter_map(|s| s.host_str().map(str::to_string)),
        );
        let pipeline = Pipeline {
            live: RwLock::new(Arc::new(live)),
            gates,
            naming,
            assign,
            known_links: Mutex::default(),
            sitemap_urls: Mutex::default(),
            failures_in_a_row: Mutex::default(),
            fetcher: Fetcher::new(config.fetch.clone(), policy),
            access,
            robots: RobotsCache::new(
                product_token(&config.fetch.user_agent).to_string(),
                robots_share,
            ),
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
        })
    }
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

/// Writes a checkpoint: the frontier's consistent copy and the crawl's counters, after rolling the archives
/// over so that every WARC named in it is closed. The frontier is held only while its view is taken (by the
/// journal, after the lines of what it records as finished); the copy is made from the view while the
/// workers go on.
///
/// `running`: whether workers may still change the frontier (else the journal is closed already).
fn checkpoint(shared: &Shared, running: bool) -> Result<std::path::PathBuf, Error> {
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
    let jar = shared.job.state_dir().join(crate::access::COOKIES_FILE);
    if jar.exists()
        && let Err(e) = std::fs::copy(&jar, cp.join(crate::access::COOKIES_FILE))
    {
        tracing::warn!("copying the cookie jar into the checkpoint: {e}");
    }
    save_stats(shared, &cp);
    save_stats(shared, &shared.job.state_dir());
    Ok(cp)
}

/// Where a job's counters are saved, in its state folder and in each checkpoint.
pub(crate) const STATS_FILE: &str = "stats.json";

/// The counters a resumed job goes on from (zero for a new one, or when the saved ones are unreadable).
fn load_stats(job: &Job) -> Stats {
    let path = job.state_dir().join(STATS_FILE);
    match std::fs::read_to_string(&path) {
        Ok(text) => match serde_json::from_str(&text) {
            Ok(saved) => Stats::restore(saved),
            Err(e) => {
                tracing::warn!("{}: {e}; counters start from zero", path.display());
                Stats::new()
            }
        },
        Err(_) => Stats::new(),
    }
}

/// Saves the counters into `dir` (best effort: counters are not worth failing a crawl over; crawl.log is the
/// full record).
fn save_stats(shared: &Shared, dir: &std::path::Path) {
    let stats = &shared.pipeline.stats;
    // Counted as large: serialising every counter is not worth holding an async thread for.
    let text = chain::blocking(usize::MAX, || {
        serde_json::to_string(&stats.save()).unwrap_or_default()
    });
    if let Err(e) = shared.job.write_file(&dir.join(STATS_FILE), &text) {
        tracing::warn!("saving counters: {e}");
    }
    if dir != shared.job.state_dir() {
        return;
    }
    let totals =
        serde_json::to_string(&crate::stats::Totals::of(&shared.snapshot())).unwrap_or_default();
    let path = shared.job.root().join(crate::stats::TOTALS_FILE);
    if let Err(e) = shared.job.write_file(&path, &totals) {
        tracing::warn!("saving totals: {e}");
    }
}

impl Shared {
    fn snapshot(&self) -> Snapshot {
        let mut snap = self.pipeline.stats.snapshot();
        if let Some(remote) = &self.remote {
            // Crawl-wide counts; this process's own are in the rest of the snapshot.
            if let Ok(c) = lock(&remote.frontier).counts() {
                snap.queued = c.queued + c.later;
                snap.in_flight = c.in_flight;
                snap.discovered = c.discovered;
            }
            return snap;
        }
        let f = lock(&self.frontier);
        snap.queued = f.queued() + f.due_later() as u64;
        snap.in_flight = f.in_flight() as u64;
        snap.discovered = f.discovered();
        snap.active_queues = f.active_queues() as u64;
        if snap.in_flight == 0 && snap.queued > 0 {
            let now = Instant::now();
            snap.waiting = f.next_ready().map(|(queue, at)| {
                let wait = at.saturating_duration_since(now);
                let wall =
                    chrono::Utc::now() + chrono::Duration::from_std(wait).unwrap_or_default();
                (queue, wall)
            });
        }
        snap
    }

    /// Every report as of now; `status` is the ending, or `RUNNING`.
    fn reports(&self, status: &str) -> Vec<report::Report> {
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
    fn config(&self) -> Arc<CrawlConfig> {
        self.pipeline.settings().config.clone()
    }
}
