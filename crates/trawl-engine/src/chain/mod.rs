//! The processor chains (the seed's words): one [`CrawlUri`] taken from the frontier goes through the stages
//! of the fetch chain — [`prefetch`], [`fetch`], [`extract`], the after-fetch [`gates`], [`write`], [`render`]
//! (a browser, when the settings ask) and [`post`] — and comes out as an [`Outcome`]; every URI it leads to (outlinks, redirects, its robots.txt,
//! a URL class's API URL or next page, its next visit) goes through the [`candidate`] chain first.
//!
//! A stage takes the URI (and its [`FetchRecord`](crate::fetch_record::FetchRecord) once fetched) and the
//! [`Pipeline`] (what the stages share), and either hands them on or ends the URI with an [`outcome`]. No stage touches the frontier: the worker loop
//! (`crawl::worker`) is the one place an outcome is applied to it. docs/architecture.md draws the picture.

use trawl_config::CrawlUri;

pub(crate) mod candidate;
mod extract;
mod fetch;
mod gates;
mod known_links;
mod login;
pub(crate) mod naming;
pub(crate) mod outcome;
mod page_request;
pub(crate) mod pipeline;
mod post;
mod prefetch;
mod render;
pub(crate) mod rendering;
mod retry;
pub(crate) mod robots;
mod write;

use crate::fetch_record;

use self::{
    outcome::{Ended, Outcome},
    pipeline::Pipeline,
};

/// Runs `uri`, taken from `queue` by worker number `worker`, through the stages.
pub(crate) async fn process(p: &Pipeline, uri: CrawlUri, queue: &str, worker: usize) -> Outcome {
    match stages(p, uri, queue, worker).await {
        Ok(outcome) => outcome,
        Err(ended) => *ended,
    }
}

/// The fetch chain: each stage hands the URI on, or ends it (`Err`) with its outcome.
async fn stages(p: &Pipeline, uri: CrawlUri, queue: &str, worker: usize) -> Result<Outcome, Ended> {
    let settings = p.settings().sheets.effective(&uri);
    let uri = prefetch::run(p, uri, queue, &settings, worker)?;
    let (mut uri, mut record) = fetch_and_write(p, uri, &settings, worker, None).await?;
    let found = if record.response().is_some() {
        render::run(p, &mut uri, &mut record, &settings, worker).await
    } else {
        None
    };
    let mut outcome = post::run(p, uri, record, &settings, worker);
    if let Some(found) = found {
        found.add_to(&mut outcome);
    }
    Ok(outcome)
}

/// Fetch, extract, the after-fetch gates and write: what every fetched URI goes through, a page from the
/// frontier and a browser page's own request alike, with that request's fields and cookies (render and post
/// follow).
async fn fetch_and_write(
    p: &Pipeline,
    uri: CrawlUri,
    settings: &trawl_config::CrawlConfig,
    worker: usize,
    page_request: Option<&page_request::PageRequest>,
) -> Result<(CrawlUri, fetch_record::FetchRecord), Ended> {
    let (mut uri, mut record) = fetch::run(p, uri, settings, worker, page_request).await?;
    if record.response().is_some() {
        extract::run(p, &mut uri, &mut record, settings);
        gates::run(p, &mut uri, &mut record);
        write::run(p, &uri, &mut record)?;
    }
    Ok((uri, record))
}
