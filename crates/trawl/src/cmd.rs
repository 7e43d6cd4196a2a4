//! What each subcommand does.

use std::{
    io::{IsTerminal, Write},
    path::{Path, PathBuf},
    process::ExitCode,
    time::{Duration, Instant},
};

use anyhow::{Context, bail};
use indicatif::{ProgressBar, ProgressStyle};
use trawl_engine::{Crawl, CrawlConfig, StopHandle, robots::Robots, stats::Snapshot};

use crate::cli::{Cli, Command, WarcCommand};

pub(crate) fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    match cli.command {
        Command::Crawl { seeds, config, job } => crawl(seeds, config, job),
        Command::Check { config } => {
            CrawlConfig::load(&config)?;
            println!("{}: ok", config.display());
            Ok(ExitCode::SUCCESS)
        }
        Command::Selftest { keep } => selftest(keep),
        Command::Robots { agent, file, urls } => robots(&agent, &file, &urls),
        Command::Warc { command } => match command {
            WarcCommand::Ls { files } => warc_ls(&files),
            WarcCommand::Verify { files } => warc_verify(&files),
        },
    }
}

fn runtime() -> anyhow::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("starting the async runtime")
}

fn crawl(
    seeds: Vec<String>,
    config: Option<PathBuf>,
    job: Option<PathBuf>,
) -> anyhow::Result<ExitCode> {
    let config = match &config {
        Some(path) => CrawlConfig::load(path)?,
        None => CrawlConfig::default(),
    };
    let job = job.unwrap_or_else(|| default_job_dir(seeds.first().or(config.seeds.first())));
    let crawl = Crawl::new(&job, config, &seeds)?;
    eprintln!("trawl: crawling into {}", job.display());
    let rt = runtime()?;
    let summary = rt.block_on(async {
        let stop = StopHandle::default();
        let on_ctrl_c = stop.clone();
        tokio::spawn(async move {
            if tokio::signal::ctrl_c().await.is_ok() {
                eprintln!("\ntrawl: stopping: finishing URIs in flight and closing archives (Ctrl-C again to abort)");
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

fn selftest(keep: Option<PathBuf>) -> anyhow::Result<ExitCode> {
    let temp;
    let dir = match keep {
        Some(dir) => {
            if dir.join("logs/crawl.log").exists() {
                bail!(
                    "{} already holds a crawl; give an empty or new directory to --keep",
                    dir.display()
                );
            }
            dir
        }
        None => {
            temp = tempfile::tempdir().context("creating a temporary job directory")?;
            temp.path().to_path_buf()
        }
    };
    let report = runtime()?.block_on(trawl::selftest::run(&dir, trawl::selftest::config()))?;
    let mut out = std::io::stdout().lock();
    for r in &report.results {
        let verdict = if r.passed { "PASS" } else { "FAIL" };
        writeln!(
            out,
            "{verdict} {}{}",
            r.name,
            if r.passed {
                String::new()
            } else {
                format!(": {}", r.detail)
            }
        )?;
    }
    let failed = report.results.iter().filter(|r| !r.passed).count();
    writeln!(
        out,
        "selftest: {} passed, {failed} failed ({} URIs in {:.1} s; job in {})",
        report.results.len() - failed,
        report.summary.stats.finished,
        report.summary.stats.elapsed.as_secs_f64(),
        dir.display()
    )?;
    Ok(if report.passed() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

fn robots(agent: &str, file: &Path, urls: &[String]) -> anyhow::Result<ExitCode> {
    let body = std::fs::read(file).with_context(|| format!("reading {}", file.display()))?;
    let rules = Robots::from_response(200, &body, agent);
    let mut bad = false;
    for u in urls {
        match url::Url::parse(u) {
            Ok(url) => println!(
                "{} {u}",
                if rules.allowed(&url) {
                    "allowed"
                } else {
                    "disallowed"
                }
            ),
            Err(e) => {
                eprintln!("trawl: {u:?} is not a URL: {e}");
                bad = true;
            }
        }
    }
    Ok(if bad {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}

fn warc_ls(files: &[PathBuf]) -> anyhow::Result<ExitCode> {
    let mut out = std::io::stdout().lock();
    for path in files {
        for rec in trawl_warc::open(path)? {
            let rec = rec?;
            writeln!(out, "{}", trawl_warc::ls_line(&rec))?;
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn warc_verify(files: &[PathBuf]) -> anyhow::Result<ExitCode> {
    let mut failed = false;
    for path in files {
        match trawl_warc::verify(path) {
            Ok(summary) => {
                let types: Vec<String> = summary
                    .by_type
                    .iter()
                    .map(|(t, n)| format!("{n} {t}"))
                    .collect();
                println!(
                    "ok {}: {} records ({})",
                    path.display(),
                    summary.records,
                    types.join(", ")
                );
            }
            Err(e) => {
                println!("FAILED {e}");
                failed = true;
            }
        }
    }
    Ok(if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}
