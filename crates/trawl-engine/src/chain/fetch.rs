//! Fetch: one request, recorded as exact wire bytes; a failure worth another try sends the URI back to the
//! front of its queue.

use std::time::Duration;

use super::{Disposition, Ended, Outcome, Pipeline};
use crate::{CrawlConfig, CrawlUri, UriKind, fetch_record::FetchRecord};

/// Fetches `uri`, or sends it back for another try.
pub(super) async fn run(
    p: &Pipeline,
    mut uri: CrawlUri,
    settings: &CrawlConfig,
) -> Result<(CrawlUri, FetchRecord), Ended> {
    let max_bytes = match uri.kind {
        UriKind::Robots { .. } => settings.fetch.max_robots_bytes,
        UriKind::Page => settings.fetch.max_bytes,
    };
    // A recrawl asks whether the page changed since its capture in a dedup_from job.
    let previous = (settings.fetch.conditional_recrawl && matches!(uri.kind, UriKind::Page))
        .then(|| p.warc.previous(uri.url.as_str()))
        .flatten();
    let fetched = p
        .fetcher
        .get_with(
            &uri.url,
            max_bytes,
            &settings.fetch,
            previous.as_ref().map(|c| &c.validators),
        )
        .await;
    uri.tries += 1;
    if let Err(e) = &fetched.result
        && e.is_retryable()
        && retries_left(&uri, settings)
    {
        let delay = retry_delay(settings);
        return Err(Outcome::only(Disposition::Retry { uri, delay }).into());
    }
    let mut record = FetchRecord::new(fetched);
    record.previous = previous;
    Ok((uri, record))
}

/// Whether `uri` may be tried again (`frontier.max_retries`).
pub(super) fn retries_left(uri: &CrawlUri, settings: &CrawlConfig) -> bool {
    uri.tries <= settings.frontier.max_retries
}

/// How long a queue waits before a retry (`frontier.retry_delay_ms`).
pub(super) fn retry_delay(settings: &CrawlConfig) -> Duration {
    Duration::from_millis(settings.frontier.retry_delay_ms)
}
