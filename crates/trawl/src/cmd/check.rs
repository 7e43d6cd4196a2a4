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
            // A URL class library names no seeds by nature: it passes as written (url-classes.md; xt23b F5:
            // no library passed --strict).
            let library = is_class_library(path);
            let warnings: Vec<String> = config
                .located_warnings(path, agent.into_iter().collect())
                .iter()
                .filter(|w| !(library && w.key.as_deref() == Some("seeds")))
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
            let n = classes.len();
            let noun = if n == 1 { "URL class" } else { "URL classes" };
            let mut line = format!("{}: ok ({n} {noun}", path.display());
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
            // What could be read of it is warned of too, so a fix does not bring new news (xt42a).
            let warnings = CrawlConfig::warnings_despite_problems(path);
            for w in &warnings {
                say!("warning: {w}");
            }
            let mut line = format!("{}: {}", path.display(), count(e.problems.len(), "problem"));
            if !warnings.is_empty() {
                line.push_str(&format!(", {}", count(warnings.len(), "warning")));
            }
            say!("{line}");
            Ok(ExitCode::FAILURE)
        }
    }
}

/// Whether the file at `path` is a URL class library: `[[url_class]]` tables and nothing else.
fn is_class_library(path: &Path) -> bool {
    std::fs::read_to_string(path)
        .ok()
        .and_then(|text| text.parse::<toml::Table>().ok())
        .is_some_and(|table| !table.is_empty() && table.keys().all(|k| k == "url_class"))
}

/// `1 problem`, `2 problems`.
fn count(n: usize, what: &str) -> String {
    format!("{n} {what}{}", if n == 1 { "" } else { "s" })
}
