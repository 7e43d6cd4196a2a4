//! Politeness and retries: how long a host rests after a fetch, and how a URI that failed goes back — the host
//! rested, or the URL alone tried later while its queue goes on; or, when trawl itself was short of
//! descriptors or memory to connect, put back untried ([`shortage`]).

use std::{
    sync::{
        Mutex, PoisonError,
        atomic::{AtomicU32, Ordering},
    },
    time::{Duration, Instant},
};

use trawl_config::{CrawlConfig, CrawlUri, origin};
use trawl_frontier::Pace;

use super::{
    outcome::{Disposition, Outcome},
    pipeline::Pipeline,
};
use crate::fetch_record::FetchRecord;

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
    retry_as_asked(p, uri, settings, host_failure, politeness, false)
}

/// [`retry`], where `asked` says the server gave its own wait (a `Retry-After`, already in `politeness` and
/// capped by `fetch.max_retry_after_s`): that wait is kept as it is, not raised to `frontier.retry_delay_ms`
/// (xt12a b F7: a 2 s `Retry-After` was waited 30 s).
pub(crate) fn retry_as_asked(
    p: &Pipeline,
    uri: CrawlUri,
    settings: &CrawlConfig,
    host_failure: bool,
    politeness: Duration,
    asked: bool,
) -> Disposition {
    let retry_delay = if asked {
        Duration::ZERO
    } else {
        Duration::from_millis(settings.frontier.retry_delay_ms)
    };
    let in_a_row = failed(p, &uri.url);
    // A robots.txt goes back to the front: the pages held behind it wait at the front of the same queue.
    let prerequisite = matches!(uri.kind, trawl_config::UriKind::Robots { .. });
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

/// Counts a failure (a connection that failed, a 5xx, a 429) of `url`'s origin; how many in a row now.
fn failed(p: &Pipeline, url: &url::Url) -> u32 {
    let mut map = p
        .failures_in_a_row
        .lock()
        .unwrap_or_else(PoisonError::into_inner);
    let n = map.entry(trawl_config::origin(url)).or_default();
    *n += 1;
    *n
}

/// The rest after a failure that is not tried again (its retries spent, or `frontier.max_retries = 0`): the
/// failure counts in its origin's row as a retried one does, and from [`HOST_FAILURES`] in a row on the host
/// rests `frontier.retry_delay_ms`, so a server failing everything is not fetched at the politeness pace.
pub(crate) fn final_failure(
    p: &Pipeline,
    url: &url::Url,
    settings: &CrawlConfig,
    politeness: Duration,
) -> Duration {
    if failed(p, url) >= HOST_FAILURES {
        politeness.max(Duration::from_millis(settings.frontier.retry_delay_ms))
    } else {
        politeness
    }
}

/// A response came from `url`'s origin: its failures are no longer in a row.
pub(crate) fn answered(p: &Pipeline, url: &url::Url) {
    let mut map = p
        .failures_in_a_row
        .lock()
        .unwrap_or_else(PoisonError::into_inner);
    if !map.is_empty() {
        map.remove(&trawl_config::origin(url));
    }
}

/// Politeness: Heritrix's delay formula, raised to robots.txt's Crawl-delay (up to its cap) and to what the
/// host's bandwidth cap requires; the Crawl-delay is the part the server asked (`Pace::asked`), which an
/// operator's queue delay does not cut (xt21a F1).
pub(super) fn politeness(
    p: &Pipeline,
    settings: &CrawlConfig,
    uri: &CrawlUri,
    record: &FetchRecord,
) -> Pace {
    let f = &settings.frontier;
    let fetch_time = record.fetched.duration;
    let (min, max) = settings.delay_bounds();
    let mut delay = fetch_time.mul_f64(f.delay_factor).clamp(min, max);
    if f.max_host_bytes_per_s > 0 {
        // Keep the host's average rate under the cap: this fetch's bytes "cost" that much time.
        let cost =
            Duration::from_secs_f64(record.wire_bytes() as f64 / f.max_host_bytes_per_s as f64);
        delay = delay.max(cost.saturating_sub(fetch_time));
    }
    // A crawl not obeying robots.txt (a live change may turn it off) keeps no Crawl-delay either (xt12a b F10).
    let asked = if settings.fetch.obey_robots
        && let Some(cd) = p.robots.crawl_delay(&origin(&uri.url))
    {
        cd.min(Duration::from_millis(f.max_crawl_delay_ms))
    } else {
        Duration::ZERO
    };
    Pace::fetch(delay.max(asked), asked)
}

/// Whether `uri` may be tried again (`frontier.max_retries`).
pub(super) fn retries_left(uri: &CrawlUri, settings: &CrawlConfig) -> bool {
    uri.tries <= settings.frontier.max_retries
}

/// How long a queue waits after trawl itself could not connect for it (too many open files, no buffer space,
/// out of memory): the connections in use end meanwhile and give their descriptors back. Doubled for each
/// shortage since the last connection that could be opened, up to [`SHORTAGE_PAUSE_MOST`]: a shortage that
/// lasts (a hard limit too low) costs a pass per queue every half minute, not every second.
pub(crate) const SHORTAGE_PAUSE: Duration = Duration::from_secs(1);
const SHORTAGE_PAUSE_MOST: Duration = Duration::from_secs(30);

/// Shortages since a connection could last be opened, crawl-wide.
static SHORTAGES: AtomicU32 = AtomicU32::new(0);

/// A fetch ended for another reason than trawl's own shortage: the shortage, if there was one, is over.
pub(crate) fn connected() {
    // Read first: the common case writes nothing, so the workers do not contend for the line.
    if SHORTAGES.load(Ordering::Relaxed) != 0 {
        SHORTAGES.store(0, Ordering::Relaxed);
    }
}

/// The least time between two warnings of a shortage: one line, not one per URI.
const SHORTAGE_WARNING_EVERY: Duration = Duration::from_secs(30);

/// `uri` could not be connected for want of trawl's own resources (`why`): not the host's failure, so no
/// try is counted, no failure is counted against its origin and no crawl.log line is written; it goes back
/// to the front of its queue, which waits [`SHORTAGE_PAUSE`]. The operator is told (a WARN at most every
/// [`SHORTAGE_WARNING_EVERY`]), since only a higher limit or fewer connections end it. The pause is the least
/// rest, as a server's ask is: an operator's shorter delay for the queue does not cut it (review 71 R8).
pub(crate) fn shortage(uri: CrawlUri, why: &str) -> Outcome {
    static WARNED: Mutex<Option<Instant>> = Mutex::new(None);
    let mut warned = WARNED.lock().unwrap_or_else(PoisonError::into_inner);
    if warned.is_none_or(|at| at.elapsed() >= SHORTAGE_WARNING_EVERY) {
        *warned = Some(Instant::now());
        tracing::warn!(
            "trawl could not open a connection for {}: {why}. The URI is put back and tried again; \
             raise the open-files limit (`ulimit -n`, `LimitNOFILE=`) or lower fetch.max_connections \
             (docs/operating.md)",
            uri.url
        );
    }
    let streak = SHORTAGES.fetch_add(1, Ordering::Relaxed).min(5);
    let delay = (SHORTAGE_PAUSE * 2u32.pow(streak)).min(SHORTAGE_PAUSE_MOST);
    let mut outcome = Outcome::only(Disposition::Retry { uri, delay });
    outcome.asked = delay;
    outcome
}
