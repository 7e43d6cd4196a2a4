//! The crawl loop: workers take URIs from the frontier and run each through the pipeline.
//!
//! prefetch (robots.txt prerequisite) -> fetch -> extract -> write -> post (crawl.log, stats, politeness,
//! outlinks through scope back into the frontier) -> `frontier.finished`.

use std::{
    collections::HashMap,
    sync::{
        Arc, Mutex, PoisonError,
        atomic::{AtomicBool, AtomicUsize, Ordering},
    },
    time::{Duration, Instant},
};

use tokio::sync::{Notify, mpsc, oneshot};
use trawl_frontier::{Frontier, Next, Scheduled, Taken};
use trawl_url::{
    Url,
    class::{UrlClasses, UrlKind},
    surt,
};

use crate::{
    CrawlConfig, CrawlUri, Error, Hop, Scope, UriKind,
    control::{Command, Reply},
    crawl_log::{CrawlLog, LogEntry, status},
    crawl_uri::origin,
    decide::Decision,
    decode::{DecodeLimits, decode_content},
    extract::{self, Limits, Outlink},
    fetch::{AddressPolicy, FetchError, Fetched, Fetcher, Response},
    job::Job,
    report::{self, Ending},
    robots::{Robots, product_token},
    stats::{Snapshot, Stats},
    write::WarcSink,
};

/// A handle to steer a running crawl from outside (Ctrl-C, the CLI, the web UI): stop it, pause it, ask for
/// a checkpoint, or send it any operator [`Command`].
#[derive(Debug, Clone)]
pub struct CrawlHandle {
    flag: Arc<AtomicBool>,
    notify: Arc<Notify>,
    checkpoint: Arc<AtomicBool>,
    paused: Arc<AtomicBool>,
    commands: mpsc::UnboundedSender<Envelope>,
    inbox: Arc<Mutex<Option<mpsc::UnboundedReceiver<Envelope>>>>,
}

/// A command on its way to the crawl, with where its reply goes.
type Envelope = (Command, oneshot::Sender<Reply>);

impl Default for CrawlHandle {
    fn default() -> Self {
        let (tx, rx) = mpsc::unbounded_channel();
        CrawlHandle {
            flag: Arc::default(),
            notify: Arc::default(),
            checkpoint: Arc::default(),
            paused: Arc::default(),
            commands: tx,
            inbox: Arc::new(Mutex::new(Some(rx))),
        }
    }
}

impl CrawlHandle {
    /// Asks for a checkpoint at the next tick (within a second).
    pub fn request_checkpoint(&self) {
        self.checkpoint.store(true, Ordering::SeqCst);
    }

    /// Asks the crawl to stop: URIs in flight finish, a checkpoint is written, archives are closed, reports
    /// written.
    pub fn stop(&self) {
        self.flag.store(true, Ordering::SeqCst);
        self.notify.notify_waiters();
    }

    /// Whether a stop was asked for.
    pub fn is_stopped(&self) -> bool {
        self.flag.load(Ordering::SeqCst)
    }

    /// Pauses (true) or unpauses (false) the crawl: while paused, URIs in flight finish and no new ones start.
    pub fn set_paused(&self, paused: bool) {
        self.paused.store(paused, Ordering::SeqCst);
        self.notify.notify_waiters();
    }

    /// Whether the crawl is paused.
    pub fn is_paused(&self) -> bool {
        self.paused.load(Ordering::SeqCst)
    }

    /// Sends an operator command to the running crawl and waits for its reply.
    pub async fn send(&self, command: Command) -> Reply {
        let (tx, rx) = oneshot::channel();
        if self.commands.send((command, tx)).is_err() {
            return Reply::Failed {
                message: "the crawl has ended".into(),
            };
        }
        rx.await.unwrap_or(Reply::Failed {
            message: "the crawl ended before answering".into(),
        })
    }
}

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
    /// The prerequisite is queued or being fetched.
    Pending,
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
    config: CrawlConfig,
    scope: Scope,
    identity: trawl_url::Identity,
    classes: UrlClasses,
    /// Watchable URLs waiting for their next visit; the crawl is not over while any is pending.
    pending_revisits: AtomicUsize,
    /// Per watchable uniq key: the last payload digest and when it last changed.
    watched: Mutex<HashMap<String, (String, Instant)>>,
    frontier: Mutex<Frontier<CrawlUri>>,
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
        .with_budget(budget);
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
        for seed in &self.seeds {
            let mut uri = CrawlUri::seed(seed.clone(), String::new());
            apply_identity(&classes, &identity, &mut uri);
            // On a resumed job the seeds are already known: scheduling them again does nothing.
            frontier.schedule(&surt::authority(&uri.url), uri);
        }
        let shared = Arc::new(Shared {
            scope: Scope::default_for(&self.seeds, &self.config.scope),
            identity,
            classes,
            pending_revisits: AtomicUsize::new(0),
            watched: Mutex::new(HashMap::new()),
            frontier: Mutex::new(frontier),
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
            stats: Stats::new(),
            stop: stop.clone(),
            fatal: Mutex::new(None),
            agent: product_token(&self.config.fetch.user_agent).to_string(),
            config: self.config.clone(),
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
                    if tick.is_multiple_of(5) {
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
        report::write(
            &self.job,
            &self.config.seeds.urls,
            &ending,
            &snap,
            &shared.stats,
        )?;
        Ok(Summary {
            ending,
            stats: snap,
            warcs: warcs.unwrap_or_default(),
        })
    }
}

/// Applies operator commands: from the handle's channel, and from command files dropped into `JOB/control/`
/// by `trawl ctl` (each `NAME.cmd.json` is answered by `NAME.reply.json`).
async fn control_loop(
    shared: Arc<Shared>,
    job: Job,
    mut inbox: Option<mpsc::UnboundedReceiver<Envelope>>,
) {
    let dir = crate::control::control_dir(job.root());
    loop {
        let received = async {
            match inbox.as_mut() {
                Some(rx) => rx.recv().await,
                None => std::future::pending().await,
            }
        };
        tokio::select! {
            got = received => match got {
                Some((command, reply)) => {
                    let _ = reply.send(apply_command(&shared, &command));
                }
                None => inbox = None,
            },
            _ = tokio::time::sleep(Duration::from_millis(250)) => {
                for (path, command) in crate::control::pending_files(&dir) {
                    let reply = match command {
                        Ok(c) => apply_command(&shared, &c),
                        Err(message) => Reply::Failed { message },
                    };
                    crate::control::answer_file(&path, &reply);
                }
            }
        }
    }
}

fn apply_command(shared: &Shared, command: &Command) -> Reply {
    let reply = match command {
        Command::Pause => {
            shared.stop.set_paused(true);
            Reply::Done {
                message: "crawl paused".into(),
            }
        }
        Command::Unpause => {
            shared.stop.set_paused(false);
            Reply::Done {
                message: "crawl unpaused".into(),
            }
        }
        Command::Checkpoint => {
            shared.stop.request_checkpoint();
            Reply::Done {
                message: "checkpoint requested".into(),
            }
        }
        Command::Stop => {
            shared.stop.stop();
            Reply::Done {
                message: "stopping".into(),
            }
        }
        other => {
            crate::control::apply_to_frontier(&mut lock(&shared.frontier), other, &shared.config)
        }
    };
    shared.wake.notify_waiters();
    reply
}

/// Writes a checkpoint: the frontier's consistent copy and the crawl's counters, after rolling the archives
/// over so that every WARC named in it is closed.
fn checkpoint(shared: &Shared, job: &Job) -> Result<std::path::PathBuf, Error> {
    shared.warc.close()?;
    let snap = shared.snapshot();
    let mut frontier = lock(&shared.frontier);
    crate::checkpoint::write(job, &mut frontier, &snap)
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

/// Runs `f` where blocking is fine: off the async threads on a multi-threaded runtime.
fn blocking<R>(f: impl FnOnce() -> R) -> R {
    match tokio::runtime::Handle::try_current().map(|h| h.runtime_flavor()) {
        Ok(tokio::runtime::RuntimeFlavor::MultiThread) => tokio::task::block_in_place(f),
        _ => f(),
    }
}

async fn worker(shared: Arc<Shared>, id: usize) {
    loop {
        if shared.stop.is_stopped() {
            return;
        }
        if shared.stop.is_paused() {
            tokio::select! {
                _ = tokio::time::sleep(Duration::from_millis(200)) => {}
                _ = shared.stop.notify.notified() => {}
            }
            continue;
        }
        let next = lock(&shared.frontier).next(Instant::now());
        let next = match next {
            Ok(next) => next,
            Err(e) => {
                shared.fail(e.to_string());
                return;
            }
        };
        match next {
            Next::Ready(taken) => {
                let (queue, ticket) = (taken.queue.clone(), taken.ticket);
                let outcome = process(&shared, taken, id).await;
                let mut frontier = lock(&shared.frontier);
                frontier.finished(
                    &queue,
                    ticket,
                    outcome.status,
                    Instant::now(),
                    outcome.delay,
                );
                // Committed at once (a write to the OS, no fsync): after a kill, only URIs in flight are
                // fetched again.
                let flushed = frontier.flush();
                drop(frontier);
                if let Err(e) = flushed {
                    shared.fail(e.to_string());
                }
                shared.wake.notify_waiters();
            }
            Next::WaitUntil(at) => {
                let at = at.min(Instant::now() + Duration::from_millis(200));
                tokio::select! {
                    _ = tokio::time::sleep_until(at.into()) => {}
                    _ = shared.wake.notified() => {}
                    _ = shared.stop.notify.notified() => {}
                }
            }
            Next::Busy => {
                tokio::select! {
                    _ = tokio::time::sleep(Duration::from_millis(100)) => {}
                    _ = shared.wake.notified() => {}
                    _ = shared.stop.notify.notified() => {}
                }
            }
            Next::Empty if shared.pending_revisits.load(Ordering::SeqCst) > 0 => {
                tokio::select! {
                    _ = tokio::time::sleep(Duration::from_millis(200)) => {}
                    _ = shared.wake.notified() => {}
                    _ = shared.stop.notify.notified() => {}
                }
            }
            Next::Empty => {
                shared.wake.notify_waiters();
                return;
            }
        }
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

    fn decode_limits(&self) -> DecodeLimits {
        DecodeLimits {
            max_bytes: self.config.fetch.max_decoded_bytes,
            max_ratio: self.config.fetch.max_decode_ratio,
        }
    }

    fn fail(&self, why: String) {
        tracing::error!("{why}");
        lock(&self.fatal).get_or_insert(why);
        self.stop.stop();
    }

    fn log(&self, entry: &LogEntry<'_>, host: &str, wire_bytes: u64) {
        self.stats
            .record(entry.status, host, entry.mime, wire_bytes);
        if let Err(e) = lock(&self.log).write(entry) {
            self.fail(e.to_string());
        }
    }

    /// Politeness: Heritrix's delay formula, raised to robots.txt's Crawl-delay (up to its cap).
    fn politeness(&self, origin: &str, fetch_time: Duration) -> Duration {
        let f = &self.config.frontier;
        let (min, max) = self.config.delay_bounds();
        let mut delay = fetch_time.mul_f64(f.delay_factor).clamp(min, max);
        if let Some(RobotsState::Known { robots, .. }) = lock(&self.robots).get(origin)
            && let Some(cd) = robots.crawl_delay()
        {
            delay = delay.max(cd.min(Duration::from_millis(f.max_crawl_delay_ms)));
        }
        delay
    }
}

/// Runs one URI through the pipeline; returns how long its queue must now wait and, when the URI is done, its
/// final status.
async fn process(shared: &Arc<Shared>, taken: Taken<CrawlUri>, worker: usize) -> Outcome {
    let Taken {
        item: mut uri,
        queue,
        ..
    } = taken;
    let host = uri.url.host_str().unwrap_or_default().to_string();

    // A URL class with an API URL: fetch that instead (hop I); the page URL stays the canonical one.
    if uri.kind == UriKind::Page
        && uri.api_for.is_none()
        && let Some(api) = shared.classes.match_url(&uri.url).and_then(|m| m.api_url)
    {
        let mut child = uri.child(api, String::new(), Hop::Inferred);
        child.api_for = Some(uri.canonical.clone().unwrap_or_else(|| uri.url.clone()));
        apply_identity(&shared.classes, &shared.identity, &mut child);
        lock(&shared.frontier).schedule(&surt::authority(&child.url), child);
        return Outcome::wait(Duration::ZERO);
    }

    // prefetch: robots.txt is a prerequisite of every page of an origin.
    if uri.kind == UriKind::Page
        && shared.config.fetch.obey_robots
        && let Some(wait) = robots_gate(shared, &mut uri, &queue, worker, &host)
    {
        return wait;
    }
    let origin = origin(&uri.url);

    // fetch
    let max_bytes = match uri.kind {
        UriKind::Robots { .. } => shared.config.fetch.max_robots_bytes,
        UriKind::Page => shared.config.fetch.max_bytes,
    };
    let fetched = shared.fetcher.get(&uri.url, max_bytes).await;
    uri.tries += 1;
    let retry_delay = Duration::from_millis(shared.config.frontier.retry_delay_ms);
    let retries_left = uri.tries <= shared.config.frontier.max_retries;

    let resp = match &fetched.result {
        Err(e) => {
            if retries_left && e.is_retryable() {
                lock(&shared.frontier).schedule_first(&queue, uri);
                return Outcome::wait(retry_delay);
            }
            if let UriKind::Robots { origin, .. } = &uri.kind {
                if let FetchError::Refused(..) = e {
                    lock(&shared.robots)
                        .insert(origin.clone(), RobotsState::Refused(e.annotation()));
                } else {
                    set_robots(shared, origin, Robots::DisallowAll, retry_delay);
                }
            }
            let mut notes = vec![e.annotation()];
            if uri.tries > 1 {
                notes.push(format!("{}t", uri.tries));
            }
            log_failure(shared, &uri, e.status(), worker, &host, &notes);
            return Outcome::done(shared.politeness(&origin, fetched.duration), e.status());
        }
        Ok(resp) => resp,
    };

    // extract
    let header = |name: &str| {
        resp.headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::to_string)
    };
    // 5xx and 429 are the server saying "not now": retried like connection failures.
    let try_later = resp.status >= 500 || resp.status == 429;
    let content_type = header("content-type");
    let mime = content_type
        .as_deref()
        .and_then(|ct| ct.split(';').next())
        .map(|m| m.trim().to_ascii_lowercase())
        .filter(|m| !m.is_empty());
    let mut annotations = Vec::new();
    let mut outlinks: Vec<Outlink> = Vec::new();
    let redirect = header("location")
        .filter(|_| (300..400).contains(&resp.status))
        .and_then(|location| trawl_url::resolve(&uri.url, &location).ok());
    match &uri.kind {
        UriKind::Robots { origin, redirects } => {
            if let Some(target) = redirect.filter(|_| *redirects < MAX_ROBOTS_REDIRECTS) {
                // RFC 9309: follow at least five redirects; the origin's pages keep waiting meanwhile.
                let mut next = uri.child(target.clone(), target.to_string(), Hop::Redirect);
                next.kind = UriKind::Robots {
                    origin: origin.clone(),
                    redirects: redirects + 1,
                };
                lock(&shared.frontier).schedule_first(&surt::authority(&target), next);
            } else if !(try_later && retries_left) {
                let body = decode_content(
                    header("content-encoding").as_deref(),
                    &resp.body,
                    shared.decode_limits(),
                )
                .unwrap_or_default();
                let robots = Robots::from_response(resp.status, &body, &shared.agent);
                let expiry = match robots {
                    Robots::DisallowAll => retry_delay,
                    _ => Duration::from_secs(shared.config.fetch.robots_expiry_s),
                };
                set_robots(shared, origin, robots, expiry);
            }
        }
        UriKind::Page => {
            if let Some(target) = redirect {
                outlinks.push(Outlink {
                    url: target,
                    hop: Hop::Redirect,
                    context: "header/location",
                });
            }
            if !try_later {
                extract_outlinks(
                    shared,
                    &uri,
                    resp,
                    mime.as_deref(),
                    content_type.as_deref(),
                    &mut outlinks,
                    &mut annotations,
                );
            }
        }
    }

    // write
    if let Err(e) = blocking(|| shared.warc.write_fetch(&uri, &fetched, resp, &outlinks)) {
        shared.fail(e.to_string());
        return Outcome::wait(Duration::ZERO);
    }

    let mut delay = shared.politeness(&origin, fetched.duration);
    if resp.status == 429 || resp.status == 503 {
        let cap = Duration::from_secs(shared.config.fetch.max_retry_after_s);
        if let Some(after) = header("retry-after").as_deref().and_then(retry_after) {
            delay = delay.max(after.min(cap));
            annotations.push(format!("retryAfter={}s", after.min(cap).as_secs()));
        }
    }
    if try_later && retries_left {
        lock(&shared.frontier).schedule_first(&queue, uri);
        return Outcome::wait(delay.max(retry_delay));
    }

    // post: crawl.log, stats, outlinks back through scope.
    if let Some(t) = resp.truncated {
        annotations.push(t.annotation().to_string());
    }
    if resp.invalid_cert.is_some() {
        annotations.push("certInvalid".to_string());
    }
    if uri.tries > 1 {
        annotations.push(format!("{}t", uri.tries));
    }
    let digest = trawl_warc::sha1_digest(&resp.body);
    if uri.revisit > 0 {
        annotations.push(format!("revisit:{}", uri.revisit));
    }
    if uri.api_for.is_some() {
        annotations.push("api".to_string());
    }
    log_response(
        shared,
        &uri,
        &fetched,
        resp,
        mime.as_deref(),
        &digest,
        worker,
        &host,
        &annotations,
    );
    let class = shared.classes.match_url(&uri.url);
    let predicted = class.as_ref().and_then(|m| m.next_page.clone());
    let next_page_linked = predicted.as_ref().is_some_and(|next| {
        let want = class_normalised(&shared.classes, next);
        outlinks
            .iter()
            .any(|o| class_normalised(&shared.classes, &o.url) == want)
    });
    let new_links = schedule_outlinks(shared, &uri, outlinks, worker);
    if let Some(m) = class {
        match m.kind {
            // A gallery page that found new links but no link to its next page gets the predicted one.
            UrlKind::Gallery if resp.status < 300 && new_links > 0 && !next_page_linked => {
                if let Some(next) = predicted {
                    let mut child = uri.child(next, String::new(), Hop::Inferred);
                    apply_identity(&shared.classes, &shared.identity, &mut child);
                    lock(&shared.frontier).schedule(&surt::authority(&child.url), child);
                }
            }
            UrlKind::Watchable => watch_again(shared, &uri, resp.status, &digest),
            _ => {}
        }
    }
    Outcome::done(delay, i32::from(resp.status))
}

/// Sets a URI's identity (docs/url-identity.md): a matching URL class's server form is fetched; the canonical
/// URL is the class's normalised form, else a site rewrite, else the cleaned raw URL; the uniq key is the
/// canonical URL under the crawl's canonicalizer.
pub(crate) fn apply_identity(
    classes: &UrlClasses,
    identity: &trawl_url::Identity,
    uri: &mut CrawlUri,
) {
    if let Some(m) = classes.match_url(&uri.url) {
        uri.url = m.for_server;
    }
    let normalise = |u: &Url| classes.match_url(u).map(|m| m.normalised);
    let hints = trawl_url::CanonicalHints::none().with_url_class(&normalise);
    let (canonical, _) = identity.canonical(&uri.url, hints);
    uri.uniq_key = identity.uniq_key(&canonical);
    uri.canonical = (canonical != uri.url).then_some(canonical);
}

/// A URL's class-normalised form (or the URL itself when no class matches).
fn class_normalised(classes: &UrlClasses, url: &Url) -> Url {
    classes
        .match_url(url)
        .map_or_else(|| url.clone(), |m| m.normalised)
}

/// Schedules the next visit of a watchable URL, until it is gone (404/410) or has not changed for
/// `classes.watch_unchanged_s`.
fn watch_again(shared: &Arc<Shared>, uri: &CrawlUri, status: u16, digest: &str) {
    if matches!(status, 404 | 410) || shared.stop.is_stopped() {
        return;
    }
    let now = Instant::now();
    let still_changing = {
        let mut watched = lock(&shared.watched);
        let entry = watched
            .entry(uri.uniq_key.clone())
            .or_insert_with(|| (String::new(), now));
        if entry.0 != digest {
            *entry = (digest.to_string(), now);
        }
        now.duration_since(entry.1) < Duration::from_secs(shared.config.classes.watch_unchanged_s)
    };
    if !still_changing {
        return;
    }
    let mut next = uri.clone();
    next.tries = 0;
    next.revisit += 1;
    let queue = surt::authority(&next.url);
    let interval = Duration::from_secs(shared.config.classes.watch_interval_s);
    shared.pending_revisits.fetch_add(1, Ordering::SeqCst);
    let shared = Arc::clone(shared);
    tokio::spawn(async move {
        tokio::select! {
            _ = tokio::time::sleep(interval) => {
                if !shared.stop.is_stopped() {
                    lock(&shared.frontier).requeue(&queue, next);
                }
            }
            _ = shared.stop.notify.notified() => {}
        }
        shared.pending_revisits.fetch_sub(1, Ordering::SeqCst);
        shared.wake.notify_waiters();
    });
}

/// What became of a URI taken from the frontier.
#[derive(Debug, Clone, Copy)]
struct Outcome {
    /// How long its queue now waits.
    delay: Duration,
    /// Its final status when it is done (logged), `None` when it went back into the frontier.
    status: Option<i32>,
}

impl Outcome {
    fn wait(delay: Duration) -> Outcome {
        Outcome {
            delay,
            status: None,
        }
    }

    fn done(delay: Duration, status: i32) -> Outcome {
        Outcome {
            delay,
            status: Some(status),
        }
    }
}

/// RFC 9309 asks crawlers to follow at least five redirects for robots.txt.
const MAX_ROBOTS_REDIRECTS: u8 = 5;

/// The robots.txt gate before fetching a page. `None` lets the page through; `Some(outcome)` means the page
/// was dealt with: blocked and logged, or put back behind its robots.txt.
fn robots_gate(
    shared: &Shared,
    uri: &mut CrawlUri,
    queue: &str,
    worker: usize,
    host: &str,
) -> Option<Outcome> {
    let origin = origin(&uri.url);
    let mut robots = lock(&shared.robots);
    match robots.get(&origin) {
        Some(RobotsState::Known { robots: r, expires }) if *expires > Instant::now() => {
            if r.allowed(&uri.url) {
                return None;
            }
            let status = if matches!(**r, Robots::DisallowAll) {
                status::ROBOTS_PREREQUISITE_FAILED
            } else {
                status::ROBOTS_DISALLOWED
            };
            drop(robots);
            log_failure(shared, uri, status, worker, host, &[]);
            Some(Outcome::done(Duration::ZERO, status))
        }
        Some(RobotsState::Refused(why)) => {
            let notes = [why.clone()];
            drop(robots);
            log_failure(shared, uri, status::ADDRESS_REFUSED, worker, host, &notes);
            Some(Outcome::done(Duration::ZERO, status::ADDRESS_REFUSED))
        }
        Some(RobotsState::Pending) => {
            drop(robots);
            lock(&shared.frontier).requeue(queue, uri.clone());
            Some(Outcome::wait(Duration::from_millis(50)))
        }
        _ => {
            robots.insert(origin, RobotsState::Pending);
            drop(robots);
            let prereq = uri.robots_prerequisite();
            let mut f = lock(&shared.frontier);
            f.mark_seen(&shared.identity.uniq_key(&prereq.url));
            f.schedule_first(queue, uri.clone());
            f.schedule_first(queue, prereq);
            Some(Outcome::wait(Duration::ZERO))
        }
    }
}

/// Extraction proper: decode the body for reading, find its links, honour `meta robots nofollow`.
fn extract_outlinks(
    shared: &Shared,
    uri: &CrawlUri,
    resp: &Response,
    mime: Option<&str>,
    content_type: Option<&str>,
    outlinks: &mut Vec<Outlink>,
    annotations: &mut Vec<String>,
) {
    let limits = Limits {
        max_outlinks: shared.config.scope.max_outlinks,
        ..Limits::default()
    };
    let encoding = resp
        .headers
        .get("content-encoding")
        .and_then(|v| v.to_str().ok());
    let decoded = decode_content(encoding, &resp.body, shared.decode_limits());
    let (Some(body), Some(mime)) = (decoded, mime) else {
        return;
    };
    let found = blocking(|| extract::extract(mime, &body, content_type, &uri.url, &limits));
    if found.truncated_outlinks {
        annotations.push("outlinksTrunc".to_string());
    }
    let nofollow = found.meta_robots_nofollow && shared.config.fetch.obey_robots;
    outlinks.extend(
        found
            .outlinks
            .into_iter()
            .filter(|o| !(nofollow && o.hop == Hop::Link)),
    );
}

/// A `Retry-After` value: delay-seconds or an HTTP date.
fn retry_after(value: &str) -> Option<Duration> {
    let value = value.trim();
    if let Ok(secs) = value.parse::<u64>() {
        return Some(Duration::from_secs(secs));
    }
    let when = chrono::DateTime::parse_from_rfc2822(value).ok()?;
    let secs = (when.timestamp() - chrono::Utc::now().timestamp()).max(0);
    Some(Duration::from_secs(secs as u64))
}

fn set_robots(shared: &Shared, origin: &str, robots: Robots, ttl: Duration) {
    lock(&shared.robots).insert(
        origin.to_string(),
        RobotsState::Known {
            robots: Arc::new(robots),
            expires: Instant::now() + ttl,
        },
    );
}

fn log_failure(
    shared: &Shared,
    uri: &CrawlUri,
    status: i32,
    worker: usize,
    host: &str,
    notes: &[String],
) {
    let via = uri.via.as_ref().map(Url::as_str);
    shared.log(
        &LogEntry {
            status,
            uri: uri.url.as_str(),
            hop_path: &uri.hop_path,
            via,
            worker,
            annotations: notes,
            ..LogEntry::default()
        },
        host,
        0,
    );
}

#[allow(clippy::too_many_arguments)]
fn log_response(
    shared: &Shared,
    uri: &CrawlUri,
    fetched: &Fetched,
    resp: &Response,
    mime: Option<&str>,
    digest: &str,
    worker: usize,
    host: &str,
    notes: &[String],
) {
    let via = uri.via.as_ref().map(Url::as_str);
    shared.log(
        &LogEntry {
            status: i32::from(resp.status),
            size: Some(resp.body.len() as u64),
            uri: uri.url.as_str(),
            hop_path: &uri.hop_path,
            via,
            mime,
            worker,
            fetch: Some((fetched.started, fetched.duration.as_millis())),
            digest: Some(digest),
            annotations: notes,
        },
        host,
        (resp.request_bytes.len() + resp.response_bytes.len()) as u64,
    );
}

/// The candidate chain: each outlink becomes a child URI, passes scope and the uniq filter, and is queued.
/// Returns how many outlinks were newly queued.
fn schedule_outlinks(
    shared: &Shared,
    parent: &CrawlUri,
    outlinks: Vec<Outlink>,
    worker: usize,
) -> usize {
    let max_redirects = shared.config.scope.max_redirects;
    let mut accepted = Vec::new();
    for link in outlinks {
        let mut child = parent.child(link.url, String::new(), link.hop);
        apply_identity(&shared.classes, &shared.identity, &mut child);
        let redirects = child
            .hop_path
            .chars()
            .rev()
            .take_while(|&c| c == 'R')
            .count();
        if redirects > max_redirects {
            log_cut(
                shared,
                &child,
                status::OUT_OF_SCOPE,
                "reject:MaxRedirects",
                worker,
            );
            continue;
        }
        let verdict = shared.scope.decide(&child);
        tracing::trace!(uri = %child.url, rule = verdict.rule, decision = ?verdict.decision, "scope");
        match verdict.decision {
            Decision::Accept => accepted.push(child),
            // URIs merely outside the seeds' prefixes are not logged (they would swamp the log); an active
            // rejection by a trap rule is logged once, so the cut-off is visible.
            Decision::Reject if verdict.rule_index.is_some_and(|i| i > 0) => {
                let status = if verdict.rule == "TooManyHops" {
                    status::TOO_MANY_HOPS
                } else {
                    status::OUT_OF_SCOPE
                };
                log_cut(
                    shared,
                    &child,
                    status,
                    &format!("reject:{}", verdict.rule),
                    worker,
                );
            }
            _ => {}
        }
    }
    let mut over_budget = Vec::new();
    let mut queued = 0;
    {
        let mut f = lock(&shared.frontier);
        for child in accepted {
            let queue = surt::authority(&child.url);
            match f.schedule(&queue, child.clone()) {
                Scheduled::Queued => queued += 1,
                Scheduled::OverBudget => over_budget.push(child),
                Scheduled::Duplicate => {}
            }
        }
    }
    for child in over_budget {
        log_cut(shared, &child, status::OVER_QUOTA, "budget", worker);
    }
    queued
}

/// Logs a URI cut off before fetching (scope rule, redirect limit, budget), once per uniq key.
fn log_cut(shared: &Shared, uri: &CrawlUri, status: i32, why: &str, worker: usize) {
    {
        let mut f = lock(&shared.frontier);
        if f.is_seen(&uri.uniq_key) || !f.mark_seen(&format!("cut {}", uri.uniq_key)) {
            return;
        }
    }
    let host = uri.url.host_str().unwrap_or_default().to_string();
    log_failure(shared, uri, status, worker, &host, &[why.to_string()]);
}
