//! `trawl crawl`: run a crawl into a job directory with progress and Ctrl-C handling.

use std::{
    io::IsTerminal,
    net::SocketAddr,
    path::{Path, PathBuf},
    process::ExitCode,
    sync::{Arc, Mutex, PoisonError},
    time::{Duration, Instant},
};

use anyhow::Context;

use indicatif::{ProgressBar, ProgressStyle};
use trawl_config::CrawlConfig;
use trawl_engine::{Crawl, CrawlHandle, stats::Snapshot};
use trawl_server::{Counters, JobMetrics, JobStatus, METRICS_CONTENT_TYPE, render_metrics};

use super::runtime;

pub(crate) fn crawl(
    mut seeds: Vec<String>,
    seed_files: &[PathBuf],
    config: Option<PathBuf>,
    job: Option<PathBuf>,
    metrics: Option<SocketAddr>,
    user_agent: Option<String>,
    frontier: Option<String>,
) -> anyhow::Result<ExitCode> {
    // Seeds typed on the command line: a bare word is a slip (`trawl crawl pause`), not a host.
    for seed in &seeds {
        trawl_url::parse_typed_seed(seed).with_context(|| format!("seed {seed:?}"))?;
    }
    let source = config.clone();
    let config = match &config {
        Some(path) => {
            let config = CrawlConfig::load(path)?;
            // Odd but usable URL classes are loaded, and said once here as `trawl check` says them.
            for w in config.located_warnings(path, Vec::new()) {
                if w.key.as_deref().is_some_and(|k| k.starts_with("url_class")) {
                    say!("warning: {w}");
                }
            }
            config
        }
        None => CrawlConfig::default(),
    };
    let mut config = config;
    if let Some(agent) = user_agent {
        config.fetch.user_agent = agent;
        if let Err(e) = config.validate() {
            anyhow::bail!("--user-agent: {}", e.message);
        }
    }
    if let Some(problem) = trawl_fetch::robots::token_problem(&config.fetch.user_agent) {
        say!("warning: fetch.user_agent: {problem}");
    }
    for file in seed_files {
        for (line, what) in trawl_config::settings::SeedsConfig::read_file(Path::new("."), file)? {
            match config.seed_line(what) {
                Ok(Some(seed)) => seeds.push(seed),
                Ok(None) => {}
                Err(e) => anyhow::bail!("{}, line {line}: {e}", file.display()),
            }
        }
    }
    let job = job.unwrap_or_else(|| default_job_dir(seeds.first().or(config.seeds.urls.first())));
    let crawl = match &frontier {
        Some(url) => Crawl::new_shared(&job, config, &seeds, url)?,
        None => Crawl::new(&job, config, &seeds)?,
    };
    // A shared crawl joined takes the settings it has, not the file's.
    let crawl = match &source {
        Some(path) if frontier.is_none() => crawl.with_source(path),
        _ => crawl,
    };
    say!("trawl: crawling into {}", job.display());
    run(crawl, &job, metrics)
}

/// `trawl worker`: one more worker of a crawl shared through Redis.
pub(crate) fn worker(
    frontier: &str,
    job: PathBuf,
    metrics: Option<SocketAddr>,
) -> anyhow::Result<ExitCode> {
    let crawl = Crawl::join(&job, frontier)?;
    say!(
        "trawl: worker of the crawl {:?} at {}, writing into {}",
        trawl_engine::job_name(&job),
        trawl_engine::shared_job::without_password(frontier),
        job.display()
    );
    run(crawl, &job, metrics)
}

/// `trawl resume`: continue a stopped or crashed job, from its live state or a named checkpoint.
pub(crate) fn resume(
    job: PathBuf,
    checkpoint: Option<String>,
    metrics: Option<SocketAddr>,
) -> anyhow::Result<ExitCode> {
    let crawl = Crawl::resume(&job, checkpoint.as_deref())?;
    // A restore done again is said among the start lines.
    match crawl.restored() {
        Some(r) => say!(
            "trawl: resuming {} from checkpoint {}",
            job.display(),
            r.name
        ),
        None => say!("trawl: resuming {}", job.display()),
    }
    run(crawl, &job, metrics)
}

/// Names, at the end, each credential that never logged in (with the pages its lost session left as a
/// visitor sees them), whose login stopped working, or that no page used.
fn say_failed_logins(failed: &[trawl_engine::FailedLogin]) {
    use trawl_engine::LoginFailure;
    for (how, title) in [
        (LoginFailure::Never, "a login never worked:"),
        (
            LoginFailure::Stopped,
            "a login stopped working (the session was lost and logging in again failed; later pages were \
             crawled logged out):",
        ),
        (
            LoginFailure::NotUsed,
            "a login was never tried (pages behind it, if any, are missing):",
        ),
    ] {
        let mut lines = failed.iter().filter(|l| l.how == how).peekable();
        if lines.peek().is_none() {
            continue;
        }
        say!("trawl: {title}");
        for l in lines {
            let form = l.what.starts_with("form");
            let mut more = if form && how != LoginFailure::NotUsed {
                " (`trawl login` shows the whole exchange)".to_string()
            } else {
                String::new()
            };
            // What it cost: the pages a form login's lost session left as a visitor sees them, counted
            // (xt44b F13: "pages behind it are missing" where every page was fetched with its cookies).
            if how == LoginFailure::Never {
                more += &match (form, l.lost_pages) {
                    (false, _) => "; pages behind it are missing".to_string(),
                    (true, 0) => "; yet no page sent the crawler to sign in or refused it: the pages \
                                  fetched with the cookies it left may be behind it (a `success` sign, what \
                                  only a logged-in page shows, settles it)"
                        .to_string(),
                    (true, n) => format!(
                        "; {n} page{} sent the crawler to sign in or refused it, and {} archived so",
                        if n == 1 { "" } else { "s" },
                        if n == 1 { "was" } else { "were" },
                    ),
                };
            }
            say!(
                "trawl:   credentials[{}] ({}): {}{more}",
                l.credential,
                l.what,
                l.why
            );
        }
    }
}

/// Says what the crawl's start found: the repair of the WARCs a crash left open, lost counters.
fn say_start(crawl: &Crawl) {
    for line in crawl.start_lines() {
        say!("{line}");
    }
}

/// Runs a prepared crawl with a progress display; Ctrl-C stops it cleanly (with a checkpoint).
fn run(crawl: Crawl, job: &Path, metrics: Option<SocketAddr>) -> anyhow::Result<ExitCode> {
    say_start(&crawl);
    // A worker of a shared crawl may well fetch no seed: the others did.
    let shared = crawl.is_shared();
    let stopping = stopping_line(shared, &crawl.continue_command());
    let rt = runtime()?;
    let latest = Arc::new(Mutex::new((Snapshot::default(), Snapshot::default())));
    if let Some(addr) = metrics {
        let listener = rt
            .block_on(tokio::net::TcpListener::bind(addr))
            .with_context(|| format!("--metrics-bind {addr}: cannot listen there"))?;
        say!("trawl: metrics at http://{addr}/metrics");
        rt.spawn(serve_metrics(listener, job.to_path_buf(), latest.clone()));
    }
    let progress = progress_reporter();
    let on_progress = move |snap: &Snapshot| {
        let mut l = latest.lock().unwrap_or_else(PoisonError::into_inner);
        l.1 = std::mem::replace(&mut l.0, snap.clone());
        drop(l);
        progress(snap);
    };
    let summary = rt.block_on(async {
        let stop = CrawlHandle::default();
        tokio::spawn(stop_on_signals(stop.clone(), stopping));
        crawl.run(stop, on_progress).await
    })?;
    say!("trawl: {}: {}", summary.ending, summary.stats.line());
    for w in &summary.warcs {
        if w.exists() {
            say!("trawl: wrote {}", w.display());
        } else {
            say!("trawl: wrote {}, since moved or removed", w.display());
        }
    }
    if let Some(report) = &summary.report {
        say!("trawl: report in {}", report.display());
    }
    say_failed_logins(&summary.failed_logins);
    if !shared && !summary.seeds.is_empty() && !summary.seeds.values().any(|s| s.fetched()) {
        say!("trawl: no seed could be fetched:");
        for (seed, outcome) in &summary.seeds {
            let notes = if outcome.notes.is_empty() {
                String::new()
            } else {
                format!(", {}", outcome.notes)
            };
            say!(
                "trawl:   {seed}: {} (status {}{notes}; see docs/crawl-log.md)",
                outcome.cause(),
                outcome.status
            );
        }
        for failure in &summary.proxy_failures {
            say!("trawl:   {failure}");
        }
        for failure in &summary.origin_failures {
            say!("trawl:   {failure}");
        }
        return Ok(ExitCode::FAILURE);
    }
    Ok(match summary.ending {
        trawl_engine::report::Ending::Failed(_) => ExitCode::FAILURE,
        _ => ExitCode::SUCCESS,
    })
}

/// Ctrl-C, SIGTERM (how systemd, Kubernetes and `timeout` stop a process) or SIGHUP (the terminal or ssh
/// session closing) stops the crawl cleanly: URIs in flight finish, a checkpoint is written, archives are
/// closed, the report is written. A second signal exits at once; the job stays resumable (the journal has
/// committed what finished, and resume repairs the open WARC).
async fn stop_on_signals(stop: CrawlHandle, stopping: String) {
    let mut signals = StopSignals::new();
    let (what, _) = signals.next().await;
    say!("\ntrawl: {what}: {}", stopping.replace("SIGNAL", what));
    stop.stop();
    let (_, code) = signals.next().await;
    std::process::exit(code.into());
}

/// The signals that stop trawl: Ctrl-C, SIGTERM and SIGHUP (unless the process started with it ignored,
/// as under `nohup`). `trawl crawl` and `trawl serve` take them alike.
pub(crate) struct StopSignals {
    term: Option<tokio::signal::unix::Signal>,
    hup: Option<tokio::signal::unix::Signal>,
}

impl StopSignals {
    pub(crate) fn new() -> StopSignals {
        use tokio::signal::unix::{SignalKind, signal};
        StopSignals {
            term: signal(SignalKind::terminate()).ok(),
            hup: (!ignored_at_start(SIGHUP))
                .then(|| signal(SignalKind::hangup()).ok())
                .flatten(),
        }
    }

    /// The next one to come: its name, and the exit status of a process it ends at once (128 + its number).
    pub(crate) async fn next(&mut self) -> (&'static str, u8) {
        tokio::select! {
            Ok(()) = tokio::signal::ctrl_c() => ("Ctrl-C", 130),
            Some(()) = listened(&mut self.term) => ("SIGTERM", 143),
            Some(()) = listened(&mut self.hup) => ("SIGHUP", 129),
        }
    }
}

/// SIGHUP's number.
const SIGHUP: u32 = 1;

/// The next of a signal, when it is listened for; never otherwise.
async fn listened(signal: &mut Option<tokio::signal::unix::Signal>) -> Option<()> {
    match signal {
        Some(signal) => signal.recv().await,
        None => std::future::pending().await,
    }
}

/// Whether the process started with signal `number` ignored (as `nohup` leaves SIGHUP), from
/// `/proc/self/status`'s `SigIgn` mask; `false` where that cannot be read.
fn ignored_at_start(number: u32) -> bool {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|status| {
            let mask = status.lines().find_map(|l| l.strip_prefix("SigIgn:"))?;
            u64::from_str_radix(mask.trim(), 16).ok()
        })
        .is_some_and(|mask| mask & (1 << (number - 1)) != 0)
}

/// What the first Ctrl-C (SIGNAL) says it does, and what continues the crawl: a worker of a shared crawl
/// writes no checkpoint (its frontier is in Redis) and is continued by `trawl worker`, not `trawl resume`.
fn stopping_line(shared: bool, continue_with: &str) -> String {
    let checkpoint = if shared { "" } else { " writing a checkpoint," };
    format!(
        "stopping: finishing URIs in flight,{checkpoint} closing archives (SIGNAL again to stop at once; \
         `{continue_with}` continues either way)"
    )
}

/// Serves `/metrics` for one CLI crawl from its latest two snapshots.
async fn serve_metrics(
    listener: tokio::net::TcpListener,
    job: PathBuf,
    latest: Arc<Mutex<(Snapshot, Snapshot)>>,
) {
    let id = job
        .file_name()
        .map_or_else(|| "crawl".to_string(), |n| n.to_string_lossy().into_owned());
    let handler = move || {
        let (last, prev) = latest
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone();
        let status = JobStatus {
            id: id.clone(),
            state: "running".to_string(),
            ending: None,
            counters: Counters::from_snapshots(&last, &prev),
            checkpoints: Vec::new(),
        };
        let text = render_metrics(&[JobMetrics::new(&job, status, last.latency)]);
        async move {
            (
                [(axum::http::header::CONTENT_TYPE, METRICS_CONTENT_TYPE)],
                text,
            )
        }
    };
    let app = axum::Router::new().route("/metrics", axum::routing::get(handler));
    if let Err(e) = axum::serve(listener, app).await {
        say!("trawl: metrics server stopped: {e}");
    }
}

/// `jobs/HOST-YYYYMMDDhhmmss` for the first seed.
fn default_job_dir(seed: Option<&String>) -> PathBuf {
    let host = seed
        .and_then(|s| trawl_url::parse_seed(s).ok())
        .and_then(|u| u.host_str().map(|h| h.replace(':', "_")))
        .unwrap_or_else(|| "crawl".into());
    PathBuf::from("jobs").join(format!(
        "{host}-{}",
        chrono::Utc::now().format("%Y%m%d%H%M%S")
    ))
}

/// A progress bar on a terminal; otherwise a plain line every five seconds.
fn progress_reporter() -> impl Fn(&Snapshot) + Send + Sync + 'static {
    let bar = std::io::stderr().is_terminal().then(|| {
        let bar = ProgressBar::new_spinner();
        bar.set_style(
            ProgressStyle::with_template("{spinner} [{elapsed_precise}] {msg}")
                .expect("valid template"),
        );
        bar
    });
    let last = std::sync::Mutex::new(Instant::now());
    move |snap: &Snapshot| match &bar {
        Some(bar) => {
            bar.set_message(snap.line());
            bar.tick();
        }
        None => {
            let mut last = last
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            if last.elapsed() >= Duration::from_secs(5) {
                *last = Instant::now();
                say!("trawl: {}", snap.line());
            }
        }
    }
}
