//! `trawl crawl`: run a crawl into a job directory with progress and Ctrl-C handling.

use std::{
    io::IsTerminal,
    path::PathBuf,
    process::ExitCode,
    time::{Duration, Instant},
};

use indicatif::{ProgressBar, ProgressStyle};
use trawl_engine::{Crawl, CrawlConfig, CrawlHandle, stats::Snapshot};

use super::runtime;

pub(crate) fn crawl(
    seeds: Vec<String>,
    config: Option<PathBuf>,
    job: Option<PathBuf>,
) -> anyhow::Result<ExitCode> {
    let config = match &config {
        Some(path) => CrawlConfig::load(path)?,
        None => CrawlConfig::default(),
    };
    let job = job.unwrap_or_else(|| default_job_dir(seeds.first().or(config.seeds.urls.first())));
    let crawl = Crawl::new(&job, config, &seeds)?;
    eprintln!("trawl: crawling into {}", job.display());
    run(crawl, &job)
}

/// `trawl resume`: continue a stopped or crashed job, from its live state or a named checkpoint.
pub(crate) fn resume(job: PathBuf, checkpoint: Option<String>) -> anyhow::Result<ExitCode> {
    let crawl = Crawl::resume(&job, checkpoint.as_deref())?;
    for r in crawl.repaired() {
        match &r.path {
            Some(p) => eprintln!(
                "trawl: repaired {} ({} complete records kept, {} bytes of a torn record cut)",
                p.display(),
                r.records,
                r.cut
            ),
            None => eprintln!(
                "trawl: removed a WARC with no complete record ({} bytes)",
                r.cut
            ),
        }
    }
    eprintln!("trawl: resuming {}", job.display());
    run(crawl, &job)
}

/// Runs a prepared crawl with a progress display; Ctrl-C stops it cleanly (with a checkpoint).
fn run(crawl: Crawl, job: &std::path::Path) -> anyhow::Result<ExitCode> {
    let rt = runtime()?;
    let summary = rt.block_on(async {
        let stop = CrawlHandle::default();
        let on_ctrl_c = stop.clone();
        tokio::spawn(async move {
            if tokio::signal::ctrl_c().await.is_ok() {
                eprintln!(
                    "\ntrawl: stopping: finishing URIs in flight, writing a checkpoint, closing archives \
                     (Ctrl-C again to abort; `trawl resume` continues either way)"
                );
                on_ctrl_c.stop();
                if tokio::signal::ctrl_c().await.is_ok() {
                    std::process::exit(130);
                }
            }
        });
        crawl.run(stop, progress_reporter()).await
    })?;
    eprintln!("trawl: {}: {}", summary.ending, summary.stats.line());
    for w in &summary.warcs {
        eprintln!("trawl: wrote {}", w.display());
    }
    eprintln!(
        "trawl: report in {}",
        job.join("reports/crawl-report.txt").display()
    );
    Ok(match summary.ending {
        trawl_engine::report::Ending::Failed(_) => ExitCode::FAILURE,
        _ => ExitCode::SUCCESS,
    })
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
                eprintln!("trawl: {}", snap.line());
            }
        }
    }
}
