//! `trawl check`: all three checks, every problem printed, then the warnings.

use std::{path::Path, process::ExitCode};

use trawl_config::CrawlConfig;

/// Runs the checks on `path`; prints each problem on stderr as `FILE:LINE:COLUMN: message` (with a hint line
/// where one helps) and each warning as `warning: FILE:LINE:COLUMN: message`, then an `ok` line on stdout
/// when there is no problem. Exit 1 if there is any problem, or (with `strict`) any warning.
pub(crate) fn check(path: &Path, strict: bool) -> anyhow::Result<ExitCode> {
    match CrawlConfig::check(path) {
        Ok(config) => {
            let agent = trawl_fetch::robots::user_agent_warning(&config.fetch.user_agent);
            let warnings: Vec<String> = config
                .located_warnings(path, agent.into_iter().collect())
                .iter()
                .map(ToString::to_string)
                .collect();
            for w in &warnings {
                say!("{}{w}", if strict { "" } else { "warning: " });
            }
            if strict && !warnings.is_empty() {
                say!("{}: {}", path.display(), count(warnings.len(), "problem"));
                return Ok(ExitCode::FAILURE);
            }
            let classes = config
                .compile_classes()
                .map_err(|e| anyhow::anyhow!("{e}"))?;
            let mut line = format!("{}: ok ({} URL classes", path.display(), classes.len());
            if !warnings.is_empty() {
                line.push_str(&format!(", {}", count(warnings.len(), "warning")));
            }
            out!("{line})");
            Ok(ExitCode::SUCCESS)
        }
        Err(e) => {
            for p in &e.problems {
                say!("{p}");
            }
            say!("{}: {}", path.display(), count(e.problems.len(), "problem"));
            Ok(ExitCode::FAILURE)
        }
    }
}

/// `1 problem`, `2 problems`.
fn count(n: usize, what: &str) -> String {
    format!("{n} {what}{}", if n == 1 { "" } else { "s" })
}
