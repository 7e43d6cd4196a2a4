//! `trawl check`: all three checks, every problem printed.

use std::{path::Path, process::ExitCode};

use trawl_engine::CrawlConfig;

/// Runs the checks on `path`; prints each problem on stderr as `FILE:LINE:COLUMN: message` (with a hint line
/// where one helps), or an `ok` line on stdout. Exit 1 if there is any problem.
pub(crate) fn check(path: &Path) -> anyhow::Result<ExitCode> {
    match CrawlConfig::check(path) {
        Ok(config) => {
            let classes = config.compile_classes().map_err(anyhow::Error::msg)?;
            println!("{}: ok ({} URL classes)", path.display(), classes.len());
            Ok(ExitCode::SUCCESS)
        }
        Err(e) => {
            for p in &e.problems {
                eprintln!("{p}");
            }
            let n = e.problems.len();
            eprintln!(
                "{}: {n} problem{}",
                path.display(),
                if n == 1 { "" } else { "s" }
            );
            Ok(ExitCode::FAILURE)
        }
    }
}
