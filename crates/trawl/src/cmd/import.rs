//! `trawl import heritrix`: a Heritrix crawler-beans.cxml as a commented crawl.toml, checked.

use std::{io::Write, path::Path, process::ExitCode};

use anyhow::{Context, bail};
use trawl_config::CrawlConfig;

/// Imports `cxml`; writes the profile to `output` (never over an existing file) or stdout; lists on stderr
/// what was not carried over, then checks the profile as `trawl check` would. Exit 1 if the check fails. With
/// `strict`, a bean trawl does not carry over is an error.
pub(crate) fn heritrix(
    cxml: &Path,
    output: Option<&Path>,
    strict: bool,
) -> anyhow::Result<ExitCode> {
    let bytes = std::fs::read(cxml).with_context(|| format!("cannot read {}", cxml.display()))?;
    let text = trawl_import::heritrix::decode(&bytes)
        .with_context(|| format!("cannot read {}", cxml.display()))?;
    let import = if strict {
        trawl_import::heritrix::import_strict(&text, cxml)
    } else {
        trawl_import::heritrix::import(&text, cxml)
    };
    let import = import.with_context(|| {
        format!(
            "{} is not a crawler-beans.cxml trawl can read",
            cxml.display()
        )
    })?;
    // Relative paths (seed and SURT files) are the job directory's in Heritrix: the cxml's folder.
    let check_as = match output {
        Some(path) => path.to_path_buf(),
        None => cxml.with_extension("toml"),
    };
    match output {
        Some(path) => {
            if path.exists() {
                bail!(
                    "{} exists already; remove it or choose another -o",
                    path.display()
                );
            }
            std::fs::write(path, &import.toml)
                .with_context(|| format!("cannot write {}", path.display()))?;
        }
        None => std::io::stdout().lock().write_all(import.toml.as_bytes())?,
    }
    if !import.notes.is_empty() {
        say!(
            "trawl import: {} thing{} in {} not carried over, or carried over differently:",
            import.notes.len(),
            if import.notes.len() == 1 { "" } else { "s" },
            cxml.display()
        );
        for n in &import.notes {
            say!("  {n}");
        }
    }
    match CrawlConfig::check_str(&import.toml, &check_as) {
        Ok(config) => {
            // What `trawl check` would warn of, too (xt36b F3: a rule that matches nothing, a user agent
            // `trawl crawl` refuses, were not said).
            let agent = trawl_fetch::robots::user_agent_warning(&config.fetch.user_agent);
            // Placed by the file written; a profile on stdout has no file to place them in.
            let warnings = match output {
                Some(path) => config.located_warnings(path, agent.into_iter().collect()),
                None => {
                    let mut all = config.warnings();
                    all.extend(agent.map(|(key, message)| {
                        trawl_config::settings::Problem::at_key(
                            trawl_config::settings::Stage::Semantics,
                            key,
                            message,
                        )
                    }));
                    all
                }
            };
            if warnings.is_empty() {
                say!("trawl import: the profile passes `trawl check`");
            } else {
                say!(
                    "trawl import: the profile passes `trawl check`, which warns of {} thing{}:",
                    warnings.len(),
                    if warnings.len() == 1 { "" } else { "s" }
                );
                for w in &warnings {
                    say!("  {}", w.without_file());
                }
            }
            Ok(ExitCode::SUCCESS)
        }
        Err(e) => {
            say!("trawl import: the profile does not pass `trawl check` yet:");
            for p in &e.problems {
                say!("  {}", p.without_file());
            }
            Ok(ExitCode::FAILURE)
        }
    }
}
