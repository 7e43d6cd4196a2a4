//! `trawl robots`: robots.txt rules for an agent, one verdict line per URL (arguments, or stdin lines when
//! there are none), in order: `allowed URL`, `disallowed URL`, or `-` for an input that is not a URL (its
//! message on stderr; exit 1 at the end).

use std::{path::Path, process::ExitCode};

use anyhow::Context;
use trawl_fetch::robots::{Robots, product_token};

pub(crate) fn robots(agent: &str, file: &Path, urls: Vec<String>) -> anyhow::Result<ExitCode> {
    let body = std::fs::read(file).with_context(|| format!("reading {}", file.display()))?;
    let rules = Robots::from_response(200, &body, product_token(agent));
    let mut bad = false;
    for (n, input) in super::url::inputs(urls).enumerate() {
        let (u, unreadable) = input.context("reading URLs from stdin")?;
        let parsed = match unreadable {
            Some(why) => Err(why.to_string()),
            None => url::Url::parse(u.trim()).map_err(|e| e.to_string()),
        };
        match parsed {
            Ok(url) if matches!(url.scheme(), "http" | "https") => {
                let verdict = if rules.allowed(&url) {
                    "allowed"
                } else {
                    "disallowed"
                };
                out!("{verdict} {u}");
            }
            parsed => {
                let why = match parsed {
                    Ok(url) => format!("{} URLs have no robots.txt", url.scheme()),
                    Err(e) => e,
                };
                out!("{}", super::url::NOT_A_URL);
                say!(
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
