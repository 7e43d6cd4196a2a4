//! The crawl loop: workers take URIs from the frontier and run each through the pipeline.
//!
//! prefetch (robots.txt prerequisite) -> fetch -> extract -> write -> post (crawl.log, stats, politeness,
//! outlinks through scope back into the frontier) -> `frontier.finished`.

use std::{
    collections::HashMap,
    sync::{
        Arc, Mutex, PoisonError, RwLock,
        atomic::{AtomicBool, AtomicUsize, Ordering},
    },
    time::{Duration, Instant},
};

use tokio::sync::{Notify, mpsc, oneshot};
use trawl_frontier::{Frontier, Next, Scheduled, Taken};
use trawl_url::{
    Url,
    class::{UrlClasses, UrlKind},
};

use crate::{
    CrawlConfig, CrawlUri, Error, Hop, UriKind,
    control::{Command, Reply},
    crawl_log::{CrawlLog, LogEntry, status},
    crawl_uri::origin,
    decide::{DecideInput, Decision, FetchFacts},
    decode::{DecodeLimits, decode_content},
    extract::{self, Limits, Outlink},
    fetch::{AddressPolicy, FetchError, Fetched, Fetcher, Response},
    filters::FilterMode,
    job::Job,
    live::LiveSettings,
    report::{self, Ending},
    robots::{Robots, product_token},
    stats::{Snapshot, Stats},
    write::WarcSink,
};

mod candidates;
mod control;
mod handle;
mod identity;
mod known_links;
mod worker;

pub use self::handle::CrawlHandle;
pub(crate) use self::identity::apply_identity;
use self::{
    candidates::*, control::*, handle::Envelope, identity::*, known_links::KnownLinks, worker::*,
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
}

/// What is known of one origin's robots.txt.
#[derive(Debug)]
enum RobotsState {
    /// The prerequisite is queued or being fetched; `waiting` are the queues held until it is known.
    Pending { waiting: Vec<String> },
    /// Rules in force until `expires`.
    Known {
        robots: Arc<Robots>,
        expires: Instant,
    },
    /// The address policy refuses the origin's address (the annotation says why): nothing there is fetched.
    Refused(String),
}

/// One crawl of a job directory.
#[derive(Debug)]
pub struct Crawl {
    job: Job,
    config: CrawlConfig,
    seeds: Vec<Url>,
    repaired: Vec<trawl_warc::Repaired>,
}

struct Shared {
    /// The settings read per URI (crawl settings, sheets, scope), swapped whole by an operator's change.
    live: RwLock<Arc<LiveSettings>>,
    seeds: Vec<Url>,
    job: Job,
    /// The decide sequences at the other gating points, and the text filters.
    gates: crate::scope::Gates,
    identity: trawl_url::Identity,
    assign: crate::assign::QueueAssigner,
    classes: UrlClasses,
    /// Watchable URLs waiting for their next visit; the crawl is not over while any is pending.
    pending_revisits: AtomicUsize,
    /// Per watchable uniq key: the last payload digest and when it last changed.
    watched: Mutex<HashMap<String, (String, Instant)>>,
    frontier: Mutex<Frontier<CrawlUri>>,
    /// Outlinks whose uniq key the frontier already holds (see [`KnownLinks`]).
    known_links: Mutex<KnownLinks>,
    wake: Notify,
    fetcher: Fetcher,
    robots: Mutex<HashMap<String, RobotsState>>,
    warc: WarcSink,
    log: Mutex<CrawlLog>,
    stats: Stats,
    stop: CrawlHandle,
    fatal: Mutex<Option<String>>,
    agent: String,
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
        config.validate().map_err(|message| Error::Config {
            path: job_dir.join("crawl.toml"),
            message,
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
        let seeds = config
            .seeds
            .urls
            .iter()
            .map(|s| trawl_url::parse_seed(s))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Crawl {
            job,
            config,
            seeds,
            repaired,
        })
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
        let warcinfo = vec![
            ("operator-config".to_string(), "crawl.toml".to_string()),
            (
                "http-header-user-agent".to_string(),
                self.config.fetch.user_agent.clone(),
            ),
            (
                "robots".to_string(),
                if self.config.fetch.obey_robots {
                    "obey"
                } else {
                    "ignore"
                }
                .to_string(),
            ),
            (
                "trawl-config".to_string(),
                self.config.to_toml().replace('\n', "; "),
            ),
        ];
        let warc = WarcSink::new(self.job.warc_dir(), &self.config.warc, warcinfo)?;
        let log = CrawlLog::open(&self.job.logs_dir().join("crawl.log"))?;
        let budget = Some(self.config.frontier.max_uris_per_host).filter(|&b| b > 0);
        let mut frontier = Frontier::open(
            &self.job.frontier_dir(),
            self.config.fetch.max_connections_per_host,
        )
        .map_err(|e| Error::Frontier(e.to_string()))?
        .with_budget(budget)
        .with_active_queues(
            self.config.frontier.max_active_queues,
            self.config.frontier.balance_replenish,
        )
        .with_bloom(
            self.config.frontier.bloom_items,
            self.config.frontier.bloom_fp_rate,
            self.config.frontier.uniq == crate::config::UniqMode::Bloom,
        )
        .map_err(|e| Error::Frontier(e.to_string()))?;
        let identity = self
            .config
            .identity
            .build()
            .map_err(|message| Error::Config {
                path: self.job.config_path(),
                message,
            })?;
        let classes = self
            .config
            .compile_classes()
            .map_err(|message| Error::Config {
                path: self.job.config_path(),
                message,
            })?;
        let config_error = |e: crate::ConfigError| Error::Config {
            path: self.job.config_path(),
            message: e.to_string(),
        };
        let gates =
            crate::scope::Gates::from_config(&self.config, &self.seeds).map_err(config_error)?;
        let live = LiveSettings::build(Arc::new(self.config.clone()), &self.seeds, self.job.root())
            .map_err(|message| Error::Config {
                path: self.job.config_path(),
                message,
            })?;
        let assign = crate::assign::QueueAssigner::new(
            self.config.frontier.queue_assignment,
            self.config.frontier.parallel_queues,
        );
        for seed in &self.seeds {
            let mut uri = CrawlUri::seed(seed.clone(), String::new());
            apply_identity(&classes, &identity, &mut uri);
            uri.rank(&live.sheets.effective(&uri), &live.config);
            // On a resumed job the seeds are already known: scheduling them again does nothing.
            frontier.schedule(&assign.key(&uri.url), uri);
        }
        let shared = Arc::new(Shared {
            live: RwLock::new(Arc::new(live)),
            seeds: self.seeds.clone(),
            job: self.job.clone(),
            gates,
            identity,
            assign,
            classes,
            pending_revisits: AtomicUsize::new(0),
            watched: Mutex::new(HashMap::new()),
            frontier: Mutex::new(frontier),
            known_links: Mutex::default(),
            wake: Notify::new(),
            fetcher: Fetcher::new(
                self.config.fetch.clone(),
                AddressPolicy::new(
                    self.config.fetch.allow_addresses.clone(),
                    self.seeds
                        .iter()
                        .filter_map(|s| s.host_str().map(str::to_string)),
                ),
            ),
            robots: Mutex::new(HashMap::new()),
            warc,
            log: Mutex::new(log),
            stats: load_stats(&self.job),
            stop: stop.clone(),
            fatal: Mutex::new(None),
            agent: product_token(&self.config.fetch.user_agent).to_string(),
        });

        let on_progress = Arc::new(on_progress);
        let ticker = {
            let shared = shared.clone();
            let on_progress = on_progress.clone();
            let progress_log = self.job.logs_dir().join("progress.log");
            let job = self.job.clone();
            let interval = self.config.frontier.checkpoint_interval_s;
            tokio::spawn(async move {
                let mut tick = 0u64;
                loop {
                    tokio::time::sleep(Duration::from_secs(1)).await;
                    // Commit the frontier's recent changes: a crash loses at most about a second of work,
                    // which is fetched again on resume.
                    if let Err(e) = lock(&shared.frontier).flush() {
                        shared.fail(e.to_string());
                    }
                    let snap = shared.snapshot();
                    on_progress(&snap);
                    tick += 1;
                    let due = interval > 0 && tick.is_multiple_of(interval);
                    if (due || shared.stop.checkpoint.swap(false, Ordering::SeqCst))
                        && let Err(e) = checkpoint(&shared, &job)
                    {
                        shared.fail(e.to_string());
                    }
                    if tick.is_multiple_of(20) {
                        save_stats(&shared, &shared.job.state_dir());
                        append_line(
                            &progress_log,
                            &format!("{} {}", chrono::Utc::now().to_rfc3339(), snap.line()),
                        );
                    }
                }
            })
        };
        let control = tokio::spawn(control_loop(
            shared.clone(),
            self.job.clone(),
            lock(&stop.inbox).take(),
        ));
        let pid_file = self.job.state_dir().join("crawl.pid");
        self.job
            .write_file(&pid_file, &std::process::id().to_string())?;
        let workers: Vec<_> = (0..self.config.fetch.max_connections)
            .map(|i| tokio::spawn(worker(shared.clone(), i + 1)))
            .collect();
        for w in workers {
            let _ = w.await;
        }
        ticker.abort();
        control.abort();
        let _ = std::fs::remove_file(&pid_file);

        // A clean shutdown ends with a checkpoint (the archives roll over with it).
        let checkpointed = checkpoint(&shared, &self.job);
        if let Err(e) = checkpointed {
            shared.fail(e.to_string());
        }
        let warcs = shared.warc.close();
        let fatal = lock(&shared.fatal).take();
        let ending = match (&fatal, &warcs) {
            (Some(why), _) => Ending::Failed(why.clone()),
            (None, Err(e)) => Ending::Failed(e.to_string()),
            (None, Ok(_)) if stop.is_stopped() => Ending::Stopped,
            _ => Ending::Finished,
        };
        let snap = shared.snapshot();
        on_progress(&snap);
        append_line(
            &self.job.logs_dir().join("progress.log"),
            &format!(
                "{} {} [{ending}]",
                chrono::Utc::now().to_rfc3339(),
                snap.line()
            ),
        );
        report::write(&self.job, &shared.reports(&ending.to_string()))?;
        Ok(Summary {
            ending,
            stats: snap,
            warcs: warcs.unwrap_or_default(),
        })
    }
}

/// Writes a checkpoint: the frontier's consistent copy and the crawl's counters, after rolling the archives
/// over so that every WARC named in it is closed.
fn checkpoint(shared: &Shared, job: &Job) -> Result<std::path::PathBuf, Error> {
    shared.warc.close()?;
    let snap = shared.snapshot();
    let cp = {
        let mut frontier = lock(&shared.frontier);
        crate::checkpoint::write(job, &mut frontier, &snap)?
    };
    save_stats(shared, &cp);
    save_stats(shared, &job.state_dir());
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
    // Counted as large: serialising every counter is not worth holding an async thread for.
    let text = blocking(usize::MAX, || {
        serde_json::to_string(&shared.stats.save()).unwrap_or_default()
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

fn append_line(path: &std::path::Path, line: &str) {
    use std::io::Write;
    if let Ok(mut f) = std::fs::File::options()
        .create(true)
        .append(true)
        .open(path)
    {
        let _ = writeln!(f, "{line}");
    }
}

/// Inputs up to this many bytes are worked on in place: extracting or encoding them takes well under a
/// millisecond, less than handing the thread over costs (a wake-up in tokio's blocking pool and two
/// context switches each time, 7% of a crawl's CPU in `perf`).
const IN_PLACE_MAX: usize = 256 << 10;

/// Runs `f`, work on `bytes` of input, where blocking is fine: in place when the input is small, else off
/// the async threads on a multi-threaded runtime.
fn blocking<R>(bytes: usize, f: impl FnOnce() -> R) -> R {
    if bytes <= IN_PLACE_MAX {
        return f();
    }
    match tokio::runtime::Handle::try_current().map(|h| h.runtime_flavor()) {
        Ok(tokio::runtime::RuntimeFlavor::MultiThread) => tokio::task::block_in_place(f),
        _ => f(),
    }
}

impl Shared {
    fn snapshot(&self) -> Snapshot {
        let mut snap = self.stats.snapshot();
        let f = lock(&self.frontier);
        snap.queued = f.queued();
        snap.in_flight = f.in_flight() as u64;
        snap.discovered = f.discovered();
        snap.active_queues = f.active_queues() as u64;
        snap
    }

    /// The settings in force now (an operator's change swaps them).
    fn settings(&self) -> Arc<LiveSettings> {
        self.live
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
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
            &self.stats,
            &queues,
        )
    }

    /// The crawl-wide settings in force now (no sheet applied).
    fn config(&self) -> Arc<CrawlConfig> {
        self.settings().config.clone()
    }

    fn decode_limits(settings: &CrawlConfig) -> DecodeLimits {
        DecodeLimits {
            max_bytes: settings.fetch.max_decoded_bytes,
            max_ratio: settings.fetch.max_decode_ratio,
        }
    }

    fn fail(&self, why: String) {
        tracing::error!("{why}");
        lock(&self.fatal).get_or_insert(why);
        self.stop.stop();
    }

    fn log(&self, entry: &LogEntry<'_>, source: &str, host: &str, wire_bytes: u64) {
        self.stats
            .record(entry.status, host, entry.mime, wire_bytes);
        self.stats.record_source(source, host, wire_bytes);
        if let Some((_, ms)) = entry.fetch {
            self.stats
                .record_latency(Duration::from_millis(ms.try_into().unwrap_or(u64::MAX)));
        }
        if entry.hop_path.is_empty() {
            self.stats.record_seed(entry.uri, entry.status);
        }
        if entry.status > 0
            && let Ok(url) = Url::parse(entry.uri)
        {
            let norm = self.identity.norm(&url);
            let template = trawl_url::version::version_template(&url);
            let template = template
                .as_ref()
                .map(|t| (t.template.as_str(), t.version.as_str()));
            self.stats.record_groups(entry.uri, norm.as_str(), template);
        }
        if let Err(e) = lock(&self.log).write(entry) {
            self.fail(e.to_string());
        }
    }

    /// Politeness: Heritrix's delay formula, raised to robots.txt's Crawl-delay (up to its cap) and to what
    /// the host's bandwidth cap requires.
    fn politeness(
        &self,
        settings: &CrawlConfig,
        origin: &str,
        fetch_time: Duration,
        wire_bytes: u64,
    ) -> Duration {
        let f = &settings.frontier;
        let (min, max) = settings.delay_bounds();
        let mut delay = fetch_time.mul_f64(f.delay_factor).clamp(min, max);
        if f.max_host_bytes_per_s > 0 {
            // Keep the host's average rate under the cap: this fetch's bytes "cost" that much time.
            let cost = Duration::from_secs_f64(wire_bytes as f64 / f.max_host_bytes_per_s as f64);
            delay = delay.max(cost.saturating_sub(fetch_time));
        }
        if let Some(RobotsState::Known { robots, .. }) = lock(&self.robots).get(origin)
            && let Some(cd) = robots.crawl_delay()
        {
            delay = delay.max(cd.min(Duration::from_millis(f.max_crawl_delay_ms)));
        }
        delay
    }
}
