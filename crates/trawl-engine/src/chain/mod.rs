//! The processor chains (the seed's words): one [`CrawlUri`] taken from the frontier goes through the stages
//! of the fetch chain — [`prefetch`], [`fetch`], [`extract`], the after-fetch [`gates`], [`write`], [`render`]
//! (a browser, when the settings ask) and [`post`] — and comes out as an [`Outcome`]; every URI it leads to (outlinks, redirects, its robots.txt,
//! a URL class's API URL or next page, its next visit) goes through the [`candidate`] chain first.
//!
//! A stage takes the URI (and its [`FetchRecord`](crate::fetch_record::FetchRecord) once fetched) and the
//! [`Pipeline`] (what the stages share), and either hands them on or ends the URI with an [`outcome`]. No stage touches the frontier: the worker loop
//! (`crawl::worker`) is the one place an outcome is applied to it. docs/architecture.md draws the picture.

use trawl_config::{Annotation, CrawlUri, UriKind};

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

use crate::{crawl_log::LogEntry, fetch_record};

use self::{
    outcome::{Ended, Outcome},
    pipeline::Pipeline,
};

/// Runs `uri`, taken from `queue` by worker number `worker`, through the stages.
pub(crate) async fn process(p: &Pipeline, uri: CrawlUri, queue: &str, worker: usize) -> Outcome {
    // One worker at a time fetches an origin's robots.txt, claimed until this ends; a second item is ended
    // without a fetch nor a line (the first's line stands for it).
    let _claim = match &uri.kind {
        UriKind::Robots { origin, .. } => match p.robots.claim(origin) {
            Some(claim) => Some(claim),
            None => return Outcome::only(outcome::Disposition::HandedOver),
        },
        UriKind::Page => None,
    };
    match stages(p, uri, queue, worker).await {
        Ok(outcome) => outcome,
        Err(ended) => *ended,
    }
}

/// [`process`], where a panic in a stage (a bug in trawl) ends the URI with status -5 and its crawl.log line,
/// instead of ending the worker with the URI in flight, which would keep the crawl from ever ending.
pub(crate) async fn process_guarded(
    p: &Pipeline,
    uri: CrawlUri,
    queue: &str,
    worker: usize,
) -> Outcome {
    use futures_util::FutureExt;
    // What the line and the robots.txt cache need if it panics (the URI itself goes into the stages).
    let left = Panicked {
        url: uri.url.as_str().into(),
        hop_path: uri.hop_path.clone(),
        via: uri.via.as_ref().map(|v| v.as_str().into()),
        source: uri.source.clone(),
        robots_origin: match &uri.kind {
            UriKind::Robots { origin, .. } => Some(origin.clone()),
            UriKind::Page => None,
        },
    };
    let run = std::panic::AssertUnwindSafe(process(p, uri, queue, worker));
    match run.catch_unwind().await {
        Ok(outcome) => outcome,
        Err(_) => left.outcome(p, worker),
    }
}

/// What is kept of a URI while it is processed, to end it if that panics.
struct Panicked {
    url: Box<str>,
    hop_path: String,
    via: Option<Box<str>>,
    source: std::sync::Arc<str>,
    robots_origin: Option<String>,
}

impl Panicked {
    /// Done with -5 (`err=panic`) after the politeness delay; a robots.txt's origin is settled as if its
    /// fetch had failed (everything disallowed until retried), so the pages waiting for it go on.
    fn outcome(self, p: &Pipeline, worker: usize) -> Outcome {
        let status = trawl_config::status::RUNTIME_EXCEPTION;
        eprintln!(
            "trawl: processing {} panicked (a bug in trawl: please report it with the message above); \
             logged as {status}, not tried again",
            self.url
        );
        let settings = p.settings();
        let frontier = &settings.config.frontier;
        let host = url::Url::parse(&self.url)
            .ok()
            .and_then(|u| u.host_str().map(str::to_string))
            .unwrap_or_default();
        let line = p.log(
            &LogEntry {
                status,
                uri: &self.url,
                hop_path: &self.hop_path,
                via: self.via.as_deref(),
                worker,
                annotations: &[Annotation::FetchFailed("panic")],
                ..LogEntry::default()
            },
            None,
            &self.source,
            &host,
            0,
        );
        let delay = std::time::Duration::from_millis(frontier.min_delay_ms);
        let mut outcome = Outcome::done(status, delay).logged(line);
        if let Some(origin) = &self.robots_origin {
            let retry = std::time::Duration::from_millis(frontier.retry_delay_ms);
            outcome.release = p
                .robots
                .failed(origin, retry, Annotation::FetchFailed("panic"));
        }
        outcome
    }
}

/// A test's way to make a stage panic, in debug builds only (the tests' binary): `TRAWL_PANIC_ON=TEXT` in the
/// environment panics on every URL holding TEXT, as a bug in a stage would.
#[cfg(debug_assertions)]
fn fail_point(url: &str) {
    static ON: std::sync::OnceLock<Option<String>> = std::sync::OnceLock::new();
    if let Some(text) = ON.get_or_init(|| std::env::var("TRAWL_PANIC_ON").ok())
        && url.contains(text.as_str())
    {
        panic!("TRAWL_PANIC_ON: a panic asked for on {url}");
    }
}

/// The fetch chain: each stage hands the URI on, or ends it (`Err`) with its outcome.
async fn stages(p: &Pipeline, uri: CrawlUri, queue: &str, worker: usize) -> Result<Outcome, Ended> {
    let settings = p.settings().sheets.effective(&uri);
    let uri = prefetch::run(p, uri, queue, &settings, worker)?;
    #[cfg(debug_assertions)]
    fail_point(uri.url.as_str());
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
        write::run(p, &uri, &mut record, settings)?;
    }
    Ok((uri, record))
}
