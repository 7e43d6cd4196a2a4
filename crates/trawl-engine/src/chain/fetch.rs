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
    worker: usize,
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
    for answer in p.fetcher.take_dns_answers() {
        archive_dns(p, &uri, &answer, worker);
    }
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

/// Archives a DNS lookup made for `uri` as a `dns:` record, with its crawl.log line (status 1, a `P` hop from
/// the URI, as Heritrix logs them). A write failure stops the crawl, as for any record.
fn archive_dns(p: &Pipeline, uri: &CrawlUri, answer: &crate::fetch::DnsAnswer, worker: usize) {
    let digest = match super::blocking(0, || p.warc.write_dns(answer)) {
        Ok(d) => d,
        Err(e) => {
            p.fail(e.to_string());
            return;
        }
    };
    let target = format!("dns:{}", answer.host);
    let hops = format!("{}P", uri.hop_path);
    let size = answer.zone_text().len() as u64;
    let line = p.log(
        &crate::crawl_log::LogEntry {
            status: 1,
            size: Some(size),
            uri: &target,
            hop_path: &hops,
            via: Some(uri.url.as_str()),
            mime: Some("text/dns"),
            worker,
            fetch: Some((answer.at, 0)),
            digest: Some(&digest),
            annotations: &[],
        },
        &uri.source,
        &answer.host,
        size,
    );
    p.write_line(line);
}

/// Whether `uri` may be tried again (`frontier.max_retries`).
pub(super) fn retries_left(uri: &CrawlUri, settings: &CrawlConfig) -> bool {
    uri.tries <= settings.frontier.max_retries
}

/// How long a queue waits before a retry (`frontier.retry_delay_ms`).
pub(super) fn retry_delay(settings: &CrawlConfig) -> Duration {
    Duration::from_millis(settings.frontier.retry_delay_ms)
}
