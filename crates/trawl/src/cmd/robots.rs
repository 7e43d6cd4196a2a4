//! `trawl robots`: robots.txt rules for an agent, one verdict per URL.

use std::{path::Path, process::ExitCode};

use anyhow::Context;
use trawl_engine::robots::Robots;

pub(crate) fn robots(agent: &str, file: &Path, urls: &[String]) -> anyhow::Result<ExitCode> {
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
