//! Post: how a fetched URI ends. Its queue's politeness delay; another try for a "not now" answer; its
//! crawl.log line and counters; and the URIs it leads to, through the candidate chain: its links, a URL
//! class's predicted next gallery page, a watchable page's next visit, a robots.txt redirect's target. A
//! robots.txt fetch settles its origin's rules here.

use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use trawl_url::class::UrlKind;

use super::{
    candidate,
    outcome::{Child, Cut, Disposition, Outcome, Placement},
    pipeline::Pipeline,
    retry::{final_failure, politeness, retries_left, retry_as_asked},
    robots::AfterFetch,
};
use crate::{crawl_log::LogEntry, fetch_record::FetchRecord};
use trawl_config::Annotation;
use trawl_config::CrawlConfig;
use trawl_config::CrawlUri;
use trawl_config::UriKind;
use trawl_config::Watch;
use trawl_frontier::Pace;

/// Ends `uri`: done (logged, with its children), or back for another try.
pub(super) fn run(
    p: &Pipeline,
    mut uri: CrawlUri,
    mut record: FetchRecord,
    settings: &CrawlConfig,
    worker: usize,
) -> Outcome {
    // What the server asked (its Crawl-delay, a Retry-After below) goes with the outcome: an operator's
    // queue delay does not cut it (xt21a F1).
    let Pace {
        mut delay,
        mut asked,
        ..
    } = politeness(p, settings, &uri, &record);
    let status = match &record.fetched.result {
        Ok(resp) => resp.status,
        Err(e) => {
            let status = e.status();
            uri.annotate(e.annotation());
            if let Some(note) = e.proxy_note() {
                uri.annotate(note);
            }
            if uri.tries > 1 {
                uri.annotate(Annotation::Tries(uri.tries));
            }
            if e.is_retryable() {
                delay = final_failure(p, &uri.url, settings, delay);
            }
            let line = p.log_failure(&uri, status, worker);
            let mut outcome = Outcome::done(status, delay).logged(line);
            outcome.asked = asked;
            if let AfterFetch::Settled(release) =
                p.robots.after_fetch(&uri, &mut record, settings, delay)
            {
                outcome.release = release;
            }
            return outcome;
        }
    };
    let mut asked_to_wait = false;
    if matches!(status, 429 | 503)
        && let Some(after) = record
            .header("retry-after")
            .as_deref()
            .and_then(|v| retry_after(v, SystemTime::now()))
    {
        let after = after.min(Duration::from_secs(settings.fetch.max_retry_after_s));
        delay = delay.max(after);
        asked = asked.max(after);
        asked_to_wait = true;
        // Named by its host, and its port where not the scheme's (xt34b F2: two sites on one address were one
        // host in the progress line).
        let host = uri.url.host_str().unwrap_or_default();
        let origin = match uri.url.port() {
            Some(port) => format!("{host}:{port}"),
            None => host.to_owned(),
        };
        p.stats.record_retry_after(&origin, after);
        uri.annotate(Annotation::RetryAfter(after.as_secs()));
    }
    if record.try_later() && retries_left(&uri, settings) {
        uri.annotations.clear();
        // A `Retry-After` (or a 429) speaks for the host; another 5xx for this URL alone.
        let host = asked_to_wait || status == 429;
        let mut outcome =
            Outcome::only(retry_as_asked(p, uri, settings, host, delay, asked_to_wait));
        outcome.asked = asked;
        return outcome;
    }
    if record.try_later() {
        delay = final_failure(p, &uri.url, settings, delay);
    }
    let mut outcome = Outcome::done(i32::from(status), delay);
    outcome.asked = asked;
    match p.robots.after_fetch(&uri, &mut record, settings, delay) {
        AfterFetch::Settled(release) => outcome.release = release,
        AfterFetch::Redirected(next) => {
            let origin = match &next.kind {
                UriKind::Robots { origin, .. } => origin.clone(),
                UriKind::Page => String::new(),
            };
            match candidate::judge(p, *next, Placement::Prerequisite, None) {
                Ok(child) => outcome.children.push(child),
                // Not followed: the origin is settled as if it had no robots.txt.
                Err(cut) => {
                    outcome.cuts.extend(cut.map(|c| *c));
                    let ttl = super::robots::trusted_for(settings, None);
                    outcome.release = p.robots.unavailable(&origin, ttl);
                }
            }
        }
    }
    // A robots.txt just read may ask a Crawl-delay: it holds already between this fetch and the next.
    if matches!(uri.kind, UriKind::Robots { .. })
        && let Disposition::Done { delay, .. } = &mut outcome.disposition
    {
        let pace = politeness(p, settings, &uri, &record);
        *delay = (*delay).max(pace.delay);
        outcome.asked = outcome.asked.max(pace.asked);
    }
    let (line, digest) = log_response(p, &mut uri, &record, worker);
    outcome.line = Some(line);
    outcome.links_found = record.outlinks.len();
    let judged = candidate::outlinks(p, &uri, std::mem::take(&mut record.outlinks));
    outcome.children.extend(judged.accepted);
    outcome.cuts.extend(judged.cuts);
    outcome.new_seeds = judged.new_seeds;
    match uri.class.as_ref().map(|c| c.kind) {
        Some(UrlKind::Gallery) if status < 300 => match next_page(p, &uri, &outcome) {
            Some(Ok(child)) => outcome.predicted = Some(child),
            Some(Err(cut)) => outcome.cuts.extend(cut.map(|c| *c)),
            None => {}
        },
        Some(UrlKind::Watchable) => match watch_again(p, &uri, status, &digest, settings) {
            Some(Ok(child)) => outcome.children.push(child),
            Some(Err(cut)) => outcome.cuts.extend(cut.map(|c| *c)),
            None => {}
        },
        _ => {}
    }
    outcome
}

/// A response's crawl.log line (with the stages' annotations and its own), and its payload digest.
fn log_response(
    p: &Pipeline,
    uri: &mut CrawlUri,
    record: &FetchRecord,
    worker: usize,
) -> (String, String) {
    let Some(resp) = record.response() else {
        return Default::default();
    };
    if let Some(t) = resp.truncated {
        uri.annotate(Annotation::Truncated(t));
    }
    if resp.invalid_cert.is_some() {
        uri.annotate(Annotation::CertInvalid);
    }
    if uri.tries > 1 {
        uri.annotate(Annotation::Tries(uri.tries));
    }
    if uri.revisit > 0 {
        uri.annotate(Annotation::Revisit(uri.revisit));
    }
    if uri.api_for.is_some() {
        uri.annotate(Annotation::Api);
    }
    if let Some(t) = uri.lastmod {
        uri.annotate(Annotation::Lastmod(t));
    }
    if record.duplicate {
        uri.annotate(Annotation::Duplicate);
    }
    if record.not_modified {
        uri.annotate(Annotation::NotModified);
    }
    // The payload digest is the SHA-1 of the entity body; when no record was written, hash the body here.
    let digest = record
        .payload_digest
        .clone()
        .unwrap_or_else(|| trawl_warc::sha1_digest(&resp.body));
    let line = p.log(
        &LogEntry {
            status: i32::from(resp.status),
            size: Some(resp.body.len() as u64),
            uri: uri.url.as_str(),
            hop_path: &uri.hop_path,
            via: uri.via.as_ref().map(url::Url::as_str),
            mime: record.mime.as_deref(),
            worker,
            fetch: Some((record.fetched.started, record.fetched.duration.as_millis())),
            digest: Some(&digest),
            annotations: &uri.annotations,
        },
        Some(&uri.url),
        &uri.source,
        uri.url.host_str().unwrap_or_default(),
        record.wire_bytes(),
    );
    (line, digest)
}

/// A gallery page's predicted next page (hop `I`), unless the page links to it already.
fn next_page(p: &Pipeline, uri: &CrawlUri, outcome: &Outcome) -> Option<Judgement> {
    let next = uri.class.as_ref()?.next_page.clone()?;
    let mut child = uri.child(next, String::new(), trawl_extract::Hop::Inferred);
    p.naming.name(&mut child);
    let linked = outcome
        .children
        .iter()
        .any(|c| c.uri.uniq_key == child.uniq_key);
    (!linked).then(|| candidate::judge(p, child, Placement::New, None))
}

/// What the candidate chain said of one URI.
type Judgement = Result<Child, Option<Box<Cut>>>;

/// A watchable page's next visit, due `classes.watch_interval_s` from now, until it is gone (404, 410) or
/// has not changed for `classes.watch_unchanged_s`. What it found is carried by the visit itself. A stop
/// ends the crawl, not the watch: the next visit is kept with the frontier for a resume.
fn watch_again(
    p: &Pipeline,
    uri: &CrawlUri,
    status: u16,
    digest: &str,
    settings: &CrawlConfig,
) -> Option<Judgement> {
    if matches!(status, 404 | 410) {
        return None;
    }
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let since = match &uri.watch {
        Some(w) if w.digest == digest => w.since,
        _ => now,
    };
    if now.saturating_sub(since) >= settings.classes.watch_unchanged_s {
        return None;
    }
    let mut next = uri.clone();
    next.tries = 0;
    next.revisit += 1;
    next.annotations.clear();
    next.watch = Some(Watch {
        digest: digest.to_string(),
        since,
    });
    let at = Instant::now() + Duration::from_secs(settings.classes.watch_interval_s);
    Some(candidate::judge(p, next, Placement::Revisit(at), None))
}

/// A `Retry-After` value at `now`: delay-seconds or an HTTP-date in any of its three forms (IMF-fixdate,
/// RFC 850, asctime: RFC 9110 §5.6.7 has a recipient accept all three). delay-seconds too large for a `u64`
/// saturate (the caller caps the wait at `fetch.max_retry_after_s`); a date past gives no wait.
pub(super) fn retry_after(value: &str, now: SystemTime) -> Option<Duration> {
    let value = value.trim();
    if !value.is_empty() && value.bytes().all(|b| b.is_ascii_digit()) {
        return Some(Duration::from_secs(
            value.parse::<u64>().unwrap_or(u64::MAX),
        ));
    }
    let when = httpdate::parse_http_date(value).ok()?;
    Some(when.duration_since(now).unwrap_or(Duration::ZERO))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retry_after_reads_seconds_and_dates() {
        let now = SystemTime::now();
        assert_eq!(retry_after(" 120 ", now), Some(Duration::from_secs(120)));
        assert_eq!(
            retry_after("Wed, 21 Oct 2015 07:28:00 GMT", now),
            Some(Duration::ZERO)
        );
        assert_eq!(retry_after("soon", now), None);
        assert_eq!(retry_after("-5", now), None);
        assert_eq!(retry_after("", now), None);
    }

    /// All three HTTP-date forms name the same instant; 8 s after `now` in each.
    #[test]
    fn retry_after_reads_every_http_date_form() {
        // Mon, 30 Nov 2026 09:21:31 GMT.
        let now = UNIX_EPOCH + Duration::from_secs(1_796_030_491);
        for date in [
            "Mon, 30 Nov 2026 09:21:39 GMT",
            "Monday, 30-Nov-26 09:21:39 GMT",
            "Mon Nov 30 09:21:39 2026",
        ] {
            assert_eq!(
                retry_after(date, now),
                Some(Duration::from_secs(8)),
                "{date}"
            );
        }
    }

    /// A delay too large for a number is the longest wait, not none.
    #[test]
    fn retry_after_saturates_huge_seconds() {
        assert_eq!(
            retry_after("99999999999999999999", SystemTime::now()),
            Some(Duration::from_secs(u64::MAX))
        );
    }
}
