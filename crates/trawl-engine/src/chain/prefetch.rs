//! Prefetch: what must hold before a page is fetched. A URL class's API URL replaces the page (hop `I`);
//! robots.txt must allow it (and is fetched first, as a `P`-hop prerequisite, when unknown); the before-fetch
//! gate must accept it.

use std::time::{Duration, Instant};

use super::{
    candidate,
    outcome::{Disposition, Ended, Hold, Outcome, Placement},
    pipeline::Pipeline,
    robots,
};
use trawl_config::Annotation;
use trawl_config::CrawlConfig;
use trawl_config::CrawlUri;
use trawl_config::UriKind;
use trawl_config::decide::DecideInput;
use trawl_config::decide::Decision;
use trawl_config::origin;
use trawl_config::status;
use trawl_extract::Hop;

/// Hands `uri` on to its fetch, or ends it here.
pub(super) fn run(
    p: &Pipeline,
    mut uri: CrawlUri,
    queue: &str,
    settings: &CrawlConfig,
    worker: usize,
) -> Result<CrawlUri, Ended> {
    if uri.kind != UriKind::Page {
        return Ok(uri);
    }
    if uri.api_for.is_none()
        && let Some(api) = uri.class.as_ref().and_then(|c| c.api_url.clone())
    {
        return Err(hand_over(p, &uri, api).into());
    }
    if settings.fetch.obey_robots {
        uri = robots_gate(p, uri, queue, worker)?;
    }
    let verdict = p.gates.before_fetch.decide_input(&DecideInput::new(&uri));
    if verdict.decision == Decision::Reject {
        uri.annotate(Annotation::Rejected(verdict.rule.to_string()));
        let line = p.log_failure(&uri, verdict.status, worker);
        return Err(Outcome::unfetched(verdict.status).logged(line).into());
    }
    // Counted as a start only for a URI that is to be fetched (review R4).
    if settings.fetch.obey_robots {
        uri = crawl_delay_pace(p, uri, queue, settings)?;
    }
    // A class that failed to derive something: the URL is fetched as it is, and its line says why.
    let failed: Vec<String> = uri
        .class
        .as_ref()
        .map(|c| c.failed.clone())
        .unwrap_or_default();
    for what in failed {
        uri.annotate(Annotation::ClassFailed(what));
    }
    Ok(uri)
}

/// A URL class with an API URL: that is fetched instead (hop `I`), through the candidate chain like any URI
/// found; the page's URL stays the canonical one, noted on the API URL's records.
fn hand_over(p: &Pipeline, uri: &CrawlUri, api: url::Url) -> Outcome {
    let mut child = uri.child(api, String::new(), Hop::Inferred);
    child.api_for = Some(uri.canonical.clone().unwrap_or_else(|| uri.url.clone()));
    let mut outcome = Outcome::only(Disposition::HandedOver);
    if uri.is_seed {
        p.stats
            .record_seed_api(uri.url.as_str(), child.url.as_str());
    }
    match candidate::judge(p, child, Placement::New, None) {
        Ok(child) => outcome.children.push(child),
        Err(Some(cut)) => outcome.cuts.push(*cut),
        Err(None) => {}
    }
    outcome
}

/// robots.txt is a prerequisite of every page of an origin: known and allowing it, or fetched first.
/// With several connections to a host, a robots.txt `Crawl-delay` spaces the starts of its queue's fetches
/// (each connection keeps the politeness delay after its own fetch only): a URI taken too soon goes back,
/// its queue held until the delay since the last start is over.
fn crawl_delay_pace(
    p: &Pipeline,
    uri: CrawlUri,
    queue: &str,
    settings: &CrawlConfig,
) -> Result<CrawlUri, Ended> {
    // The launch's connection count, which the frontier keeps (review R1: a live change to 1 turned the
    // pacing off while three connections ran).
    if !p.robots.paces() {
        return Ok(uri);
    }
    let origin = origin(&uri.url);
    let Some(delay) = p.robots.crawl_delay(&origin) else {
        return Ok(uri);
    };
    let delay = delay.min(Duration::from_millis(settings.frontier.max_crawl_delay_ms));
    match p.robots.pace(queue, delay) {
        None => Ok(uri),
        Some(until) => Err(Outcome::only(Disposition::Held {
            uri,
            hold: Some(Hold {
                origin,
                until,
                robots: false,
            }),
        })
        .into()),
    }
}

fn robots_gate(
    p: &Pipeline,
    mut uri: CrawlUri,
    queue: &str,
    worker: usize,
) -> Result<CrawlUri, Ended> {
    match p.robots.gate(&uri, queue) {
        // Its wait is over: a retry or a next visit that finds the robots.txt unknown again waits anew.
        robots::Gate::Allowed => {
            uri.awaited_robots = false;
            Ok(uri)
        }
        robots::Gate::Blocked { status, note } => {
            uri.annotations.extend(note);
            let line = p.log_failure(&uri, status, worker);
            Err(Outcome::unfetched(status).logged(line).into())
        }
        robots::Gate::Pending => {
            uri.awaited_robots = true;
            let hold = Hold {
                origin: origin(&uri.url),
                until: Instant::now() + robots::RECHECK,
                robots: true,
            };
            Err(Outcome::only(Disposition::Held {
                uri,
                hold: Some(hold),
            })
            .into())
        }
        robots::Gate::Needed => {
            uri.awaited_robots = true;
            let prerequisite = uri.robots_prerequisite();
            match candidate::judge(p, prerequisite, Placement::Prerequisite, Some(queue.into())) {
                Ok(child) => {
                    let mut outcome = Outcome::only(Disposition::Held { uri, hold: None });
                    outcome.children.push(child);
                    Err(outcome.into())
                }
                // The scope refused robots.txt (a custom scope without `prerequisite_accept`): nothing of
                // the origin can be fetched, as Heritrix does.
                Err(cut) => {
                    let why = cut
                        .and_then(|mut c| c.uri.annotations.pop())
                        .unwrap_or_else(|| Annotation::Rejected("default".into()));
                    let release = p.robots.unschedulable(&origin(&uri.url), why.clone());
                    uri.annotate(why);
                    let line = p.log_failure(&uri, status::PREREQUISITE_UNSCHEDULABLE, worker);
                    let mut outcome =
                        Outcome::unfetched(status::PREREQUISITE_UNSCHEDULABLE).logged(line);
                    outcome.release = release;
                    Err(outcome.into())
                }
            }
        }
    }
}
