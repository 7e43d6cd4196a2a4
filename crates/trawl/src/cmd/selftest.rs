//! `trawl selftest`: crawl the built-in test site and print one PASS/FAIL line per scenario.

use std::{io::Write, path::PathBuf, process::ExitCode};

use anyhow::{Context, bail};

use super::runtime;

pub(crate) fn selftest(keep: Option<PathBuf>) -> anyhow::Result<ExitCode> {
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
