//! The processor chains (the seed's words): one [`CrawlUri`] taken from the frontier goes through the stages
//! of the fetch chain — [`prefetch`], [`fetch`], [`extract`], the after-fetch [`gates`], [`write`] and
//! [`post`] — and comes out as an [`Outcome`]; every URI it leads to (outlinks, redirects, its robots.txt,
//! a URL class's API URL or next page, its next visit) goes through the [`candidate`] chain first.
//!
//! A stage takes the URI (and its [`FetchRecord`](crate::fetch_record::FetchRecord) once fetched) and only the shared parts it needs, and either
//! hands them on or ends the URI with an outcome. No stage touches the frontier: the worker loop
//! (`crawl::worker`) is the one place an outcome is applied to it. docs/architecture.md draws the picture.

use std::{
    sync::{Arc, Mutex, PoisonError, RwLock},
    time::{Duration, Instant},
};

use crate::{
    CrawlConfig, CrawlUri, Gates, assign::QueueAssigner, crawl_log::LogEntry, decode::DecodeLimits,
    fetch::Fetcher, journal::Journal, live::LiveSettings, stats::Stats, write::WarcSink,
};

pub(crate) mod candidate;
mod extract;
mod fetch;
mod gates;
mod known_links;
mod login;
mod post;
mod prefetch;
pub(crate) mod robots;
mod write;

pub(crate) use self::candidate::{Child, Cut, Naming, Placement};
use self::{candidate::KnownLinks, robots::RobotsCache};

/// What the stages share: the settings in force, how URIs are named and queued, the fetcher, what is known of
/// each origin's robots.txt, the archive, crawl.log and the counters.
pub(crate) struct Pipeline {
    /// The settings read per URI (crawl settings, sheets, scope), swapped whole by an operator's change.
    pub(crate) live: RwLock<Arc<LiveSettings>>,
    /// The decide sequences at the points after the scope, and the text filters.
    pub(crate) gates: Gates,
    pub(crate) naming: Naming,
    pub(crate) assign: QueueAssigner,
    /// Outlinks known to be in the uniq filter already (the candidate chain skips them).
    pub(crate) known_links: Mutex<KnownLinks>,
    /// Failed fetches in a row per origin (reset by any response): past [`HOST_FAILURES`] a URL's failure is
    /// taken as its host's.
    pub(crate) failures_in_a_row: Mutex<std::collections::HashMap<String, u32>>,
    /// URLs taken from sitemaps so far, per host (`[extract] sitemap_max_urls_per_host`).
    pub(crate) sitemap_urls: Mutex<std::collections::HashMap<String, u64>>,
    pub(crate) fetcher: Fetcher,
    /// Cookies and credentials: what is presented to each host.
    pub(crate) access: crate::access::Access,
    pub(crate) robots: RobotsCache,
    pub(crate) warc: WarcSink,
    /// crawl.log, through the journal thread.
    pub(crate) log: Journal,
    pub(crate) stats: Stats,
    /// The first fatal failure (a WARC or crawl.log write), which stops the crawl.
    pub(crate) fatal: Mutex<Option<String>>,
    /// Stops the crawl on a fatal failure.
    pub(crate) stop: crate::CrawlHandle,
}

/// Failures of different URLs of one origin in a row after which the host itself is rested (Heritrix-style),
/// rather than each URL retried later alone.
pub(crate) const HOST_FAILURES: u32 = 3;

/// How a URI that failed and may be tried again goes back: the host rested (`host_failure`, or too many
/// failures in a row on its origin) or the URL alone tried later while its queue goes on after `politeness`.
pub(crate) fn retry(
    p: &Pipeline,
    uri: CrawlUri,
    settings: &CrawlConfig,
    host_failure: bool,
    politeness: Duration,
) -> Disposition {
    let retry_delay = Duration::from_millis(settings.frontier.retry_delay_ms);
    let in_a_row = {
        let mut map = p
            .failures_in_a_row
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        let n = map.entry(crate::crawl_uri::origin(&uri.url)).or_default();
        *n += 1;
        *n
    };
    // A robots.txt goes back to the front: the pages held behind it wait at the front of the same queue.
    let prerequisite = matches!(uri.kind, crate::UriKind::Robots { .. });
    if host_failure || prerequisite || in_a_row >= HOST_FAILURES {
        Disposition::Retry {
            uri,
            delay: politeness.max(retry_delay),
        }
    } else {
        Disposition::RetryLater {
            uri,
            at: Instant::now() + retry_delay,
            delay: politeness,
        }
    }
}

/// A response came from `url`'s origin: its failures are no longer in a row.
pub(crate) fn answered(p: &Pipeline, url: &url::Url) {
    let mut map = p
        .failures_in_a_row
        .lock()
        .unwrap_or_else(PoisonError::into_inner);
    if !map.is_empty() {
        map.remove(&crate::crawl_uri::origin(url));
    }
}

/// A stage's early end: the URI's outcome, decided before the last stage.
pub(crate) type Ended = Box<Outcome>;

/// What becomes of a URI taken from the frontier, and of what it led to. Applied by the worker loop alone.
#[derive(Debug)]
pub(crate) struct Outcome {
    pub(crate) disposition: Disposition,
    /// URIs accepted by the candidate chain, for the uniq filter and the frontier.
    pub(crate) children: Vec<Child>,
    /// The URL class's predicted next gallery page: queued only if this page's links brought something new.
    pub(crate) predicted: Option<Child>,
    /// URIs the candidate chain refused, to be logged once per uniq key (with their status and rule).
    pub(crate) cuts: Vec<Cut>,
    /// Queues held for a robots.txt this fetch settled, to be released.
    pub(crate) release: Vec<String>,
    /// Its crawl.log line, if it ended: handed to the journal as the outcome is applied, so the journal
    /// commits the outcome after writing the line.
    pub(crate) line: Option<String>,
}

/// What becomes of the URI itself.
#[derive(Debug)]
pub(crate) enum Disposition {
    /// Finished with `status` (logged); its queue rests `delay`.
    Done { status: i32, delay: Duration },
    /// Back at the front of its queue, which rests `delay` first: a failure of the host (DNS, connection,
    /// TLS, a `Retry-After`, failures of several URLs in a row).
    Retry { uri: CrawlUri, delay: Duration },
    /// Tried again at `at`, at the back of its queue, which goes on after its politeness `delay`: a failure
    /// of this URL alone (a timeout, a cut connection, a 5xx) does not stall its host.
    RetryLater {
        uri: CrawlUri,
        at: Instant,
        delay: Duration,
    },
    /// Back at the front of its queue behind a prerequisite: scheduled with it (`hold: None`), or being
    /// fetched already, in which case the queue is held until that origin's robots.txt is settled.
    Held { uri: CrawlUri, hold: Option<Hold> },
    /// Replaced by another URI (a URL class's API URL, among the children): finished without a status.
    HandedOver,
}

/// A queue held for an origin's robots.txt, until it is settled or `until` passes (then it looks again).
#[derive(Debug)]
pub(crate) struct Hold {
    pub(crate) origin: String,
    pub(crate) until: Instant,
}

impl Outcome {
    /// An outcome with no children.
    pub(crate) fn only(disposition: Disposition) -> Outcome {
        Outcome {
            disposition,
            children: Vec::new(),
            predicted: None,
            cuts: Vec::new(),
            release: Vec::new(),
            line: None,
        }
    }

    /// This outcome, with `line` for crawl.log.
    pub(crate) fn logged(mut self, line: String) -> Outcome {
        self.line = Some(line);
        self
    }

    /// The URI is done with `status`; its queue rests `delay`.
    pub(crate) fn done(status: i32, delay: Duration) -> Outcome {
        Outcome::only(Disposition::Done { status, delay })
    }
}

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
    let (mut uri, mut record) = fetch::run(p, uri, &settings, worker).await?;
    if record.response().is_some() {
        extract::run(p, &mut uri, &mut record, &settings);
        gates::run(p, &mut uri, &mut record);
        write::run(p, &uri, &mut record)?;
    }
    Ok(post::run(p, uri, record, &settings, worker))
}

impl Pipeline {
    /// The settings in force now (an operator's change swaps them).
    pub(crate) fn settings(&self) -> Arc<LiveSettings> {
        self.live
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// Records a fatal failure and stops the crawl.
    pub(crate) fn fail(&self, why: String) {
        tracing::error!("{why}");
        self.fatal
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get_or_insert(why);
        self.stop.stop();
    }

    /// Counts a crawl.log entry in the statistics; returns its line, for the outcome that ends its URI.
    /// The cookie jar `uri` uses: the job's, or with `[fetch] cookies = "sheet"` the one of the sheets that
    /// apply to it.
    pub(crate) fn jar_key(&self, uri: &CrawlUri) -> String {
        let live = self.settings();
        match live.config.fetch.cookies {
            crate::config::CookieMode::Sheet => live.sheets.names_for(uri),
            _ => String::new(),
        }
    }

    pub(crate) fn log(
        &self,
        entry: &LogEntry<'_>,
        source: &str,
        host: &str,
        wire_bytes: u64,
    ) -> String {
        self.stats
            .record(entry.status, host, entry.mime, wire_bytes);
        self.stats.record_hop(entry.hop_path);
        self.stats.record_source(source, host, wire_bytes);
        if let Some((_, ms)) = entry.fetch {
            self.stats
                .record_latency(Duration::from_millis(ms.try_into().unwrap_or(u64::MAX)));
        }
        if entry.hop_path.is_empty() {
            let notes = crate::annotation::Joined(entry.annotations).to_string();
            let notes = if notes == "-" { String::new() } else { notes };
            self.stats.record_seed(entry.uri, entry.status, notes);
        }
        if entry.status > 0
            && let Ok(url) = url::Url::parse(entry.uri)
        {
            let norm = self.naming.identity.norm(&url);
            let template = trawl_url::version::version_template(&url);
            let template = template
                .as_ref()
                .map(|t| (t.template.as_str(), t.version.as_str()));
            self.stats.record_groups(entry.uri, norm.as_str(), template);
        }
        entry.format(chrono::Utc::now())
    }

    /// Hands a crawl.log line to the journal (the worker loop does, as it applies the line's outcome).
    pub(crate) fn write_line(&self, line: String) {
        if let Err(e) = self.log.line(line) {
            self.fail(e.to_string());
        }
    }

    /// The line of a URI that ended without a response (refused, out of scope, failed), with its
    /// annotations.
    pub(crate) fn log_failure(&self, uri: &CrawlUri, status: i32, worker: usize) -> String {
        let host = uri.url.host_str().unwrap_or_default();
        self.log(
            &LogEntry {
                status,
                uri: uri.url.as_str(),
                hop_path: &uri.hop_path,
                via: uri.via.as_ref().map(url::Url::as_str),
                worker,
                annotations: &uri.annotations,
                ..LogEntry::default()
            },
            &uri.source,
            host,
            0,
        )
    }
}

/// How far content codings are undone, from a URI's settings.
fn decode_limits(settings: &CrawlConfig) -> DecodeLimits {
    DecodeLimits {
        max_bytes: settings.fetch.max_decoded_bytes,
        max_ratio: settings.fetch.max_decode_ratio,
    }
}

/// Inputs up to this many bytes are worked on in place: extracting or encoding them takes well under a
/// millisecond, less than handing the thread over costs (a wake-up in tokio's blocking pool and two
/// context switches each time, 7% of a crawl's CPU in `perf`).
const IN_PLACE_MAX: usize = 256 << 10;

/// Runs `f`, work on `bytes` of input, where blocking is fine: in place when the input is small, else off
/// the async threads on a multi-threaded runtime.
pub(crate) fn blocking<R>(bytes: usize, f: impl FnOnce() -> R) -> R {
    if bytes <= IN_PLACE_MAX {
        return f();
    }
    match tokio::runtime::Handle::try_current().map(|h| h.runtime_flavor()) {
        Ok(tokio::runtime::RuntimeFlavor::MultiThread) => tokio::task::block_in_place(f),
        _ => f(),
    }
}
