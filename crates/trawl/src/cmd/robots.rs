//! `trawl robots`: robots.txt rules for an agent, one verdict line per URL (arguments, or stdin lines when
//! there are none), in order: `allowed URL`, `disallowed URL`, or `-` for an input that is not a URL (its
//! message on stderr; exit 1 at the end).

use std::{io::BufRead, path::Path, process::ExitCode};

use anyhow::Context;
use trawl_fetch::robots::{Robots, product_token};

pub(crate) fn robots(agent: &str, file: &Path, urls: Vec<String>) -> anyhow::Result<ExitCode> {
    let body = std::fs::read(file).with_context(|| format!("reading {}", file.display()))?;
    let rules = Robots::from_response(200, &body, product_token(agent));
    let inputs: Box<dyn Iterator<Item = std::io::Result<String>>> = if urls.is_empty() {
        Box::new(std::io::stdin().lock().lines())
    } else {
        Box::new(urls.into_iter().map(Ok))
    };
    let mut bad = false;
    for (n, input) in inputs.enumerate() {
        let u = input.context("reading URLs from stdin")?;
        match url::Url::parse(u.trim()) {
            Ok(url) if matches!(url.scheme(), "http" | "https") => {
                let verdict = if rules.allowed(&url) {
                    "allowed"
                } else {
                    "disallowed"
                };
                println!("{verdict} {u}");
            }
            parsed => {
                let why = match parsed {
                    Ok(url) => format!("{} URLs have no robots.txt", url.scheme()),
                    Err(e) => e.to_string(),
                };
                println!("{}", super::url::NOT_A_URL);
                eprintln!(
                    "trawl: input line {}: {u:?} is not an http(s) URL: {why}",
                    n + 1
                );
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
