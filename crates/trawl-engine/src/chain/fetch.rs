//! Fetch: one request, recorded as exact wire bytes; a failure worth another try sends the URI back to the
//! front of its queue. What the host asks of a visitor is handled here too: its cookies go with each request
//! and are kept from each response; a form login runs first where a credential says so ([`login`]), and again
//! when a page shows the session lost; a 401 asking for a Basic or Digest credential the crawl holds for the
//! host is answered once (a wrong password ends as the logged 401, never a loop).

use http::header::{AUTHORIZATION, COOKIE};

use super::{
    login,
    outcome::{Ended, Outcome},
    pipeline::Pipeline,
    retry::{answered, politeness, retries_left, retry},
};
use crate::fetch_record::FetchRecord;
use trawl_config::CrawlConfig;
use trawl_config::CrawlUri;
use trawl_config::UriKind;
use trawl_fetch::{FetchError, Fetched, RequestParts, Validators};

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
    let validators = previous.as_ref().map(|c| &c.validators);
    let jar = p.jar_key(&uri);
    let page = matches!(uri.kind, UriKind::Page);
    let generation = if page {
        login::ensure(p, &uri, settings, &jar, worker, None).await
    } else {
        None
    };
    let mut fetched = request(p, &uri, max_bytes, settings, validators, &jar, None).await;
    if page {
        if let Some((index, auth)) = challenge(p, &uri, &fetched) {
            fetched = request(p, &uri, max_bytes, settings, validators, &jar, Some(auth)).await;
            // Where the answer worked, it goes up front from now on (RFC 7617 §2.2).
            let accepted = fetched.result.as_ref().is_ok_and(|r| r.status != 401);
            p.access.answered(&uri.url, index, accepted);
        }
        // Fetched again only under a new session: after the failed-login limit (or a failed login) the page
        // as it came is what there is.
        if login::lost(p, &uri, &fetched).await
            && login::ensure(p, &uri, settings, &jar, worker, generation).await != generation
        {
            fetched = request(p, &uri, max_bytes, settings, validators, &jar, None).await;
        }
    }
    if let Some(answer) = p.fetcher.take_dns_answer(&uri.url) {
        p.archive_dns(&uri, &answer, worker);
    }
    uri.tries += 1;
    let mut record = FetchRecord::new(fetched);
    record.previous = previous;
    match &record.fetched.result {
        Err(e) if e.is_retryable() && retries_left(&uri, settings) => {
            // No name, no connection, no TLS, no proxy: the host's failure. A timeout or a cut: this URL's.
            let host_failure = matches!(
                e,
                FetchError::Dns(_) | FetchError::Connect(_) | FetchError::Proxy(_)
            );
            let politeness = politeness(p, settings, &uri, &record);
            let disposition = retry(p, uri, settings, host_failure, politeness);
            Err(Outcome::only(disposition).into())
        }
        Err(_) => Ok((uri, record)),
        Ok(_) => {
            // A 5xx or 429 is a failure in a row like a timeout (post counts it); any other answer ends a run.
            if !record.try_later() {
                answered(p, &uri.url);
            }
            Ok((uri, record))
        }
    }
}

/// The `Cookie` field of a request to `url` from the cookie jar `jar`, if it holds any for it.
pub(super) fn cookie_header(
    p: &Pipeline,
    jar: &str,
    url: &url::Url,
) -> Option<(http::HeaderName, http::HeaderValue)> {
    let cookies = p.access.cookies.header(jar, url)?;
    Some((COOKIE, http::HeaderValue::from_str(&cookies).ok()?))
}

/// One request of `uri` with the cookies of its jar and an `Authorization` (given, or answering the
/// challenge its origin asked before); the cookies it sets are kept.
pub(super) async fn request(
    p: &Pipeline,
    uri: &CrawlUri,
    max_bytes: u64,
    settings: &CrawlConfig,
    validators: Option<&Validators>,
    jar: &str,
    auth: Option<http::HeaderValue>,
) -> Fetched {
    let mut parts = RequestParts {
        validators,
        ..RequestParts::default()
    };
    parts.headers.extend(cookie_header(p, jar, &uri.url));
    let auth = auth.or_else(|| {
        matches!(uri.kind, UriKind::Page)
            .then(|| p.access.up_front(&uri.url, "GET"))
            .flatten()
    });
    if let Some(auth) = auth {
        parts.headers.push((AUTHORIZATION, auth));
    }
    let fetched = p
        .fetcher
        .fetch(&uri.url, max_bytes, &settings.fetch, &parts)
        .await;
    p.keep_cookies(jar, &uri.url, &fetched);
    fetched
}

/// The answer to a 401's challenge (and the credential's index), when the crawl holds a credential for it
/// and that credential's answer did not just fail (a wrong password gets its one 401, not a loop).
fn challenge(
    p: &Pipeline,
    uri: &CrawlUri,
    fetched: &Fetched,
) -> Option<(usize, http::HeaderValue)> {
    let resp = fetched.result.as_ref().ok()?;
    if resp.status != 401 {
        return None;
    }
    let sent_one = resp
        .request_bytes
        .windows(b"\r\nauthorization:".len())
        .any(|w| w.eq_ignore_ascii_case(b"\r\nauthorization:"));
    let before = p.access.answering(&uri.url);
    let (index, value) = p.access.answer(&uri.url, "GET", &resp.headers)?;
    // The same credential answered up front and was refused: a fresh try only for a stale Digest nonce.
    let stale = resp
        .headers
        .get_all(http::header::WWW_AUTHENTICATE)
        .iter()
        .any(|v| {
            v.to_str()
                .is_ok_and(|v| v.to_ascii_lowercase().contains("stale=true"))
        });
    (!(sent_one && before == Some(index) && !stale)).then_some((index, value))
}
